"""Candidate facts from a case report or abstract, each with the sentence it came from.

Names are found by the graph's own vocabulary (retrieval.intent.find_mentions: labels, synonyms,
gene symbols, typo-tolerant) and by the NER model's spans, linked to the graph by exact name or
synonym, so every candidate links nodes the graph holds. Rule-based, from co-occurrence:
- in one sentence: a disease and a facial phenotype -> (Disease)-[Exhibit]->(FacePhenotype); a gene
  and a disease -> (Genotype)-[Cause]->(Disease); a gene and a facial phenotype with no disease in
  the sentence -> (Genotype)-[Affect]->(FacePhenotype);
- when the whole text names exactly one disease, the findings and genes of its other sentences are
  tied to it (a case report names its diagnosis once and describes the patient elsewhere).
Findings written as absent or hedged ("no cleft palate", "possible ptosis": ner.context) give no fact. With an
LLM configured, the app also asks it to pair the names found (`Extraction.add_suggested` keeps only pairs of those
names in a curated pattern). A curator reviews every candidate before anything is merged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from curation.facts import CURATED_PATTERNS, Fact
from fpkg.errors import InputError
from ner.context import ABSENT, HEDGED, PRESENT, Target, context_reader
from ner.recognizer import Recognizer
from retrieval.intent import LABEL_TO_TYPE, find_mentions
from retrieval.linking import EntityLinker
from retrieval.result import Link

MAX_TEXT = 20_000  # characters: an abstract or a case report, not a book
MAX_CANDIDATES = 200
KINDS = ("Disease", "FacePhenotype", "Genotype")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[])|\n\s*\n|\n(?=\s*[-*•])")


@dataclass
class Extraction:
    facts: list[Fact] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    found: list[tuple[str, dict[str, list[str]]]] = field(default_factory=list)  # (sentence, label -> names)

    def names(self) -> dict[str, list[str]]:
        """Every graph name found, by label, in text order."""
        return {label: list(dict.fromkeys(n for _, names in self.found for n in names[label])) for label in KINDS}

    def add_suggested(self, reply: str) -> int:
        """Facts an LLM listed as `head | relation | tail` lines, kept only when both names were found
        in the text (an LLM adds no node) and the pattern is a curated one; returns how many were new.
        Each gets the first sentence naming both, else none."""
        labels = {name: label for label, names in self.names().items() for name in names}
        known = {(f.head, f.relation, f.tail) for f in self.facts}
        added = 0
        for line in reply.splitlines():
            parts = [part.strip(" `*-\t") for part in line.split("|")]
            if len(parts) != 3 or parts[0] not in labels or parts[2] not in labels:
                continue
            head, relation, tail = parts
            fact = Fact(labels[head], head, relation.capitalize(), labels[tail], tail, self._sentence(head, tail))
            if fact.pattern() in CURATED_PATTERNS and (head, fact.relation, tail) not in known:
                self.facts.append(fact)
                known.add((head, fact.relation, tail))
                added += 1
        return added

    def _sentence(self, head: str, tail: str) -> str:
        return next((sentence for sentence, names in self.found
                     if head in sum(names.values(), []) and tail in sum(names.values(), [])), "")


def sentences(text: str) -> list[str]:
    return [" ".join(part.split()) for part in _SENTENCE_END.split(text) if part.strip()]


def mentions(sentence: str, linker: EntityLinker, recognizer: Recognizer | None) -> list[Link]:
    """The graph's names in the sentence, then the NER spans that link to a node by name or synonym."""
    found = find_mentions(sentence, linker)
    kinds = set(LABEL_TO_TYPE.values())
    for span in recognizer.predict(sentence) if recognizer is not None else []:
        if span.type in kinds:
            link = linker.link(span.text, span.type)
            if link.node_id is not None and link.method in ("exact", "synonym"):
                found.append(link)
    return found


def _polarities(sentence: str, links: list[Link]) -> list[str]:
    """Each facial phenotype's polarity in the sentence (ner/context.py); other names are taken as written."""
    lowered = sentence.lower()
    targets, at = [], []
    for i, link in enumerate(links):
        start = lowered.find(link.mention.lower())
        if link.label == "FacePhenotype" and start >= 0:
            targets.append(Target(start, start + len(link.mention)))
            at.append(i)
    read = [PRESENT] * len(links)
    for i, polarity in zip(at, context_reader().polarities(sentence, targets) if targets else [], strict=True):
        read[i] = polarity
    return read


def extract(text: str, linker: EntityLinker, recognizer: Recognizer | None = None) -> Extraction:
    text = (text or "").strip()
    if not text:
        raise InputError("Paste a case report or an abstract to extract facts from.")
    if len(text) > MAX_TEXT:
        raise InputError(f"The text is {len(text):,} characters long; the limit is {MAX_TEXT:,} (paste one case "
                         "report or abstract at a time).")
    found: list[tuple[str, dict[str, list[str]]]] = []  # (sentence, label -> names)
    absent: list[str] = []
    for sentence in sentences(text):
        names: dict[str, list[str]] = {label: [] for label in KINDS}
        links = [link for link in mentions(sentence, linker, recognizer) if link.label in names and link.name]
        for link, polarity in zip(links, _polarities(sentence, links), strict=True):
            if link.name in names[link.label]:
                continue
            if polarity in (ABSENT, HEDGED):  # "no cleft palate", "possible ptosis": no fact
                absent.append(link.mention)
                continue
            names[link.label].append(link.name)
        found.append((sentence, names))
    result = Extraction(_facts(found), found=found)
    if not any(any(names.values()) for _, names in found):
        result.notices.append("No gene, disease or facial phenotype of the graph was found in the text.")
    elif not result.facts:
        result.notices.append("Names were found, but never a pair that makes a fact (e.g. a disease and a "
                              "finding in one sentence).")
    if absent:
        result.notices.append(f"Written as absent, so left out: {', '.join(dict.fromkeys(absent))}.")
    if len(result.facts) > MAX_CANDIDATES:
        result.notices.append(f"Only the first {MAX_CANDIDATES} of {len(result.facts)} candidates are shown.")
        result.facts = result.facts[:MAX_CANDIDATES]
    return result


def _facts(found: list[tuple[str, dict[str, list[str]]]]) -> list[Fact]:
    facts: dict[tuple, Fact] = {}

    def add(head_label: str, head: str, relation: str, tail_label: str, tail: str, sentence: str) -> None:
        facts.setdefault((head_label, head, relation, tail_label, tail),
                         Fact(head_label, head, relation, tail_label, tail, sentence))

    for sentence, names in found:
        for disease in names["Disease"]:
            for phenotype in names["FacePhenotype"]:
                add("Disease", disease, "Exhibit", "FacePhenotype", phenotype, sentence)
            for gene in names["Genotype"]:
                add("Genotype", gene, "Cause", "Disease", disease, sentence)
        if not names["Disease"]:
            for gene in names["Genotype"]:
                for phenotype in names["FacePhenotype"]:
                    add("Genotype", gene, "Affect", "FacePhenotype", phenotype, sentence)
    diseases = {d for _, names in found for d in names["Disease"]}
    if len(diseases) == 1:
        [disease] = diseases
        for sentence, names in found:
            if not names["Disease"]:
                for phenotype in names["FacePhenotype"]:
                    add("Disease", disease, "Exhibit", "FacePhenotype", phenotype, sentence)
                for gene in names["Genotype"]:
                    add("Genotype", gene, "Cause", "Disease", disease, sentence)
    return list(facts.values())
