"""Finding what a free question asks, without an LLM: the entities it names (by the graph's
own vocabulary) and the intent (cue words for the asked-for type, and the named types)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from fpkg.names import normalise
from retrieval.linking import EntityLinker
from retrieval.result import Link

LABEL_TO_TYPE = {"Disease": "DISEASE", "FacePhenotype": "FACIAL_PHENOTYPE", "Genotype": "GENE"}
MAX_NAME_WORDS = 12

# Cue words for what the question asks for, in the vocabulary of the asked-for thing.
CUES = {
    "synonym": ("synonym", "other name", "also called", "also known", "alias"),
    "article": ("article", "paper", "publication", "pmid", "literature", "reference"),
    "case": ("case", "patient", "sample", "individual"),
    "variant": ("variant", "mutation", "variation", "hgvs", "allele"),
    "FacePhenotype": ("phenotype", "feature", "sign", "finding", "dysmorphi", "characteristic", "face"),
    "Disease": ("disease", "syndrome", "disorder", "condition", "diagnos"),
    "Genotype": ("gene",),
}
# (asked-for thing, label of the named entity) → intent
INTENTS = {
    ("FacePhenotype", "Disease"): "phenotypes_of_disease",
    ("FacePhenotype", "Genotype"): "phenotypes_of_gene",
    ("Disease", "Genotype"): "diseases_of_gene",
    ("Disease", "FacePhenotype"): "diseases_with_phenotypes",
    ("Genotype", "Disease"): "genes_of_disease",
    ("Genotype", "FacePhenotype"): "genes_with_phenotype",
    ("synonym", "FacePhenotype"): "synonyms_of_phenotype",
    ("variant", "Genotype"): "variants_of_gene",
    ("case", "Genotype"): "cases_of_gene",
    ("article", "Disease"): "articles_of_disease",
    ("article", "Genotype"): "articles_of_gene",
}
_WORD = re.compile(r"[\w'-]+|\S")


@dataclass(frozen=True)
class Intent:
    name: str
    label: str  # the label of the nodes the template takes
    links: tuple[Link, ...]


def find_mentions(question: str, linker: EntityLinker, alternatives: bool = False) -> list[Link]:
    """Names of graph nodes in the question, longest first and without overlaps.

    A node's own name beats another label's synonym ("Crouzon syndrome" is a disease before
    it is a synonym of a phenotype); with `alternatives`, the other readings follow at the
    end, for intent detection to fall back on. Gene symbols count only when written as symbols (upper
    case) or after the word 'gene', so ordinary words that are also symbols are not taken."""
    words = [(m.group(), m.start(), m.end()) for m in _WORD.finditer(question)]
    vocabularies = {label: linker.vocabulary(label) for label in LABEL_TO_TYPE}
    taken = [False] * len(words)
    links: list[Link] = []
    others: list[Link] = []
    for size in range(min(MAX_NAME_WORDS, len(words)), 0, -1):
        for i in range(len(words) - size + 1):
            if any(taken[i:i + size]) or not _is_word(words[i][0]) or not _is_word(words[i + size - 1][0]):
                continue
            text = question[words[i][1]:words[i + size - 1][2]]
            key = normalise(text)
            found = [linker.link(text, LABEL_TO_TYPE[label]) for label, vocabulary in vocabularies.items()
                     if key and key in vocabulary
                     and (label != "Genotype" or _written_as_gene(words, i, text))]
            found = [link for link in found if link.node_id is not None]
            if found:
                found.sort(key=lambda link: (link.method != "exact", list(LABEL_TO_TYPE).index(link.label)))
                links.append(found[0])
                others.extend(found[1:])
                taken[i:i + size] = [True] * size
    return links + others if alternatives else links


def _is_word(token: str) -> bool:
    return any(c.isalnum() for c in token)


def _written_as_gene(words: list[tuple[str, int, int]], i: int, text: str) -> bool:
    after_gene = i > 0 and words[i - 1][0].lower() in ("gene", "genes")
    return after_gene or (text.upper() == text and any(c.isalpha() for c in text) and len(text) > 1)


def asked_for(question: str) -> list[str]:
    """The things the question's cue words name, in the order they appear."""
    lowered = question.lower()
    found = []
    for thing, cues in CUES.items():
        positions = [lowered.find(cue) for cue in cues if cue in lowered]
        if positions:
            found.append((min(positions), thing))
    return [thing for _, thing in sorted(found)]


def detect_intent(question: str, links: list[Link]) -> Intent | None:
    """The intent whose asked-for thing is cued and whose entity type is linked."""
    linked_labels = [link.label for link in links if link.node_id is not None]
    for thing in asked_for(question):
        for label in dict.fromkeys(linked_labels):
            if thing == label:
                continue
            intent = INTENTS.get((thing, label))
            if intent:
                chosen = tuple(link for link in links if link.label == label)
                return Intent(intent, label, chosen)
    return None
