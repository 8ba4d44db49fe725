"""What a question asks for, by its meaning: the cue words of `retrieval.intent` first, then the
nearest of a few example phrases per asked-for thing.

The question's linked names are replaced by "this" and its vector (the linker's MiniLM, loaded
already) compared with the examples' vectors; the best thing above `MIN_SIMILARITY` that has an
intent for a linked label wins ("what else is ptosis called?" → synonyms). "Tell me about X",
"What is X?" or a bare name asks for X's summary (`SUMMARY`), and so does any question whose
relation is not recognised while a name is.

Also here: the cue words of the kinds of question that combine names (what two have in common)
and counts, widened so that "as well as", "and also" or "in common" read as both.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

import numpy as np

from retrieval.intent import CUE_WORDS, INTENTS, Intent, asked_for
from retrieval.result import Link
from retrieval.vector.embedder import embed

SUMMARY = "summary"
# words that ask for findings when a "name" is made of them with cue words ("facial anomalies" is HPO's
# Abnormality of the face, but asks for the findings of what else is named)
ASKING_STARTS = ("dysmorph", "anomal", "abnormal", "malform", "trait", "characteristic", "finding", "sign")
MIN_SIMILARITY = 0.45  # below it nothing is recognised by meaning (chosen on the dev split)
# Asked-for things (retrieval.intent.CUES' keys) and a summary, by example, names replaced by "this".
EXAMPLES: dict[str, tuple[str, ...]] = {
    "synonym": ("other names for this", "what else is this called", "this is also known as what",
                "alternative terms for this", "alternate names of this phenotype", "synonyms of this",
                "what other words are used for this", "how else can this be named", "alias of this term",
                "equivalent terms for this feature", "different names for this", "what is this sometimes called"),
    "FacePhenotype": ("what facial features does this have", "how do patients with this look",
                      "dysmorphic features of this", "what does the face look like in this",
                      "which phenotypes are seen in this", "clinical signs on the face in this",
                      "facial characteristics of this", "what are the facial findings of this"),
    "Disease": ("which diseases show this", "what conditions are associated with this",
                "which syndromes present with this", "in which disorders is this seen",
                "which diseases are caused by this", "what disorders are linked to this",
                "disorders where this occurs"),
    "Genotype": ("which genes cause this", "what genes are linked to this", "genetic cause of this",
                 "which genes are mutated in this", "genes responsible for this", "what gene is behind this"),
    "variant": ("which variants of this are published", "reported mutations in this", "what variants does this have"),
    "case": ("published patients with this", "which cases carry this"),
    "article": ("which articles report this", "papers about this", "publications on this"),
    SUMMARY: ("tell me about this", "what is this", "describe this", "give me an overview of this",
              "explain this", "summary of this", "information about this", "what do you know about this",
              "this", "what is known about this", "background on this", "an introduction to this"),
}

# Two or more names of one kind and one of these: what they have in common.
BOTH = re.compile(r"\b(both|in common|shared?|common to|all of|together|as well as|and also|also have|"
                  r"overlap\w*|combin\w*|at the same time|simultaneously|each of|jointly|plus|alongside|intersect\w*|"
                  r"combined with|along with|in addition to|and at once)\b")
COUNT = re.compile(r"\b(how many|number of|count( of)?|how much|total of|tally|quantity of|amount of|"
                   r"many (diseases|genes|phenotypes|features|syndromes|conditions|disorders))\b")


# A disease's mode of inheritance (or the recurrence risk it decides), in the question's own words.
# ("autosomal" or "X-linked" alone is no cue: a misspelt name the linker missed keeps its words, "Deafness,
# autosomal recessve 23")
INHERITANCE = re.compile(r"\b(inherit\w*|heredit\w*|transmi\w*|passed (on|down)|recurrence|pattern of "
                         r"(inheritance|transmission)|dominant or recessive|recessive or dominant|"
                         r"(dominant|recessive)ly|risk (for|to|of|in) (the |a |an )?(siblings?|offspring|child(ren)?|"
                         r"next|another|future|sibs?|brothers?|sisters?))\b", re.IGNORECASE)


def asks_inheritance(question: str, links: Sequence[Link] = ()) -> bool:
    """Whether the question asks how a disease is inherited, its names left out ("Hereditary fructose
    intolerance" names no inheritance question)."""
    return bool(INHERITANCE.search(without_names(question, links)))


def asks_both(question: str) -> bool:
    return bool(BOTH.search(question.lower()))


def asks_count(question: str) -> bool:
    return bool(COUNT.search(question.lower()))


@functools.lru_cache(maxsize=1)
def _example_vectors() -> tuple[list[str], np.ndarray]:
    things = [thing for thing, phrases in EXAMPLES.items() for _ in phrases]
    return things, embed([phrase for phrases in EXAMPLES.values() for phrase in phrases])


def without_names(question: str, links: Sequence[Link]) -> str:
    """The question with its linked names replaced by "this" (a long name outweighs the asking words)."""
    for link in sorted((lk for lk in links if lk.node_id is not None), key=lambda lk: -len(lk.mention)):
        if _asking_words(link.mention):  # "dysmorphic facial features" is what is asked, not a name
            continue
        question = re.sub(re.escape(link.mention), "this", question, flags=re.IGNORECASE)
    return question


def _asking_words(mention: str) -> bool:
    words = re.findall(r"[a-z]+", mention.lower())
    return bool(words) and all(word.rstrip("s") in CUE_WORDS or word.startswith(ASKING_STARTS) for word in words)


def by_meaning(question: str, links: Sequence[Link]) -> list[tuple[str, float]]:
    """Every asked-for thing with the similarity of its nearest example, best first."""
    things, vectors = _example_vectors()
    similarity = vectors @ embed([without_names(question, links)])[0]
    best: dict[str, float] = {}
    for thing, score in zip(things, similarity.tolist(), strict=True):
        best[thing] = max(best.get(thing, -1.0), score)
    return sorted(best.items(), key=lambda item: -item[1])


SUMMARY_STARTS = re.compile(r"^\s*(tell me (all )?about|what (is|are)( an?| the)?|who is|describe|explain|overview of|"
                            r"summari[sz]e|info(rmation)? (on|about))\b", re.IGNORECASE)


def _reads_as_summary(question: str) -> bool:
    """'What is Kabuki syndrome?': its only cue ('syndrome') is part of the name, not the question."""
    if not SUMMARY_STARTS.search(question):
        return False
    rest = SUMMARY_STARTS.sub("", question).strip(" ?.!")
    return len(rest.split()) <= 6 and not re.search(r"\b(of|for|in|with|called|named|linked|caused|cause)\b", rest)


def recognise(question: str, links: Sequence[Link]) -> tuple[Intent | None, str]:
    """The intent the question asks of its linked names, and how it was found: "cue" (its words),
    "meaning" (the nearest examples) or "default" (a name and no recognised relation: its summary).
    A summary's intent is SUMMARY over the first linked name; (None, "") when nothing is linked.

    Cue words inside a name are not the question's ("syndrome" in "Crouzon syndrome"), and a name's
    first reading is tried before its others ("Crouzon syndrome" is a disease before it is a synonym
    of Craniofacial dysostosis)."""
    linked = [link for link in links if link.node_id is not None and link.label]
    named = [link for link in linked if not _asking_words(link.mention)]
    linked = named or linked
    if not linked:
        return None, ""
    if _reads_as_summary(question):
        return Intent(SUMMARY, linked[0].label, (linked[0],)), "cue"
    cued = asked_for(without_names(question, linked))
    if "synonym" in cued:  # only phenotypes have them: else the caller reads the name again (vector mode)
        if any(link.label == "FacePhenotype" for link in linked):
            return _intent("synonym", "FacePhenotype", linked), "cue"
        return Intent(SUMMARY, linked[0].label, (linked[0],)), "default"
    first, every = _labels_by_reading(linked)
    for labels in (first, every):  # the names' first readings, then any reading
        for thing in cued:  # in the order the question names them
            label = next((label for label in labels if (thing, label) in INTENTS), None)
            if label is not None:
                return _intent(thing, label, linked), "cue"
    for thing, score in by_meaning(question, links):
        if score < MIN_SIMILARITY:
            break
        if thing == SUMMARY:
            return Intent(SUMMARY, linked[0].label, (linked[0],)), "meaning"
        label = next((label for label in every if (thing, label) in INTENTS), None)
        if label is not None:
            return _intent(thing, label, linked), "meaning"
    return Intent(SUMMARY, linked[0].label, (linked[0],)), "default"


def _labels_by_reading(linked: list[Link]) -> tuple[list[str], list[str]]:
    """The labels of the names' first readings, and of all their readings, first readings first (a
    mention seen again is another reading of the same words)."""
    seen: set[str] = set()
    first, other = [], []
    for link in linked:
        (other if link.mention in seen else first).append(link.label)
        seen.add(link.mention)
    return list(dict.fromkeys(first)), list(dict.fromkeys(first + other))


def _intent(thing: str, label: str, linked: list[Link]) -> Intent:
    return Intent(INTENTS[(thing, label)], label, tuple(link for link in linked if link.label == label))
