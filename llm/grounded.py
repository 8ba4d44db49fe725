"""The grounded writer: a deterministic answer written from the ranked evidence alone.

It is the default backend (no LLM needed): the same evidence always gives the same words,
whatever the temperature or seed, and every sentence comes from the graph.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from llm.base import GenerationRequest, Generator
from llm.prompts import NO_EVIDENCE_REPLY


class GroundedWriter(Generator):
    name = "grounded"

    def __init__(self, settings=None):
        self.settings = settings

    @property
    def is_llm(self) -> bool:
        return False

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        grounding = request.grounding
        if hasattr(grounding, "ranked"):
            text = write_diagnosis(grounding)
        elif hasattr(grounding, "triples"):
            text = write_facts(grounding.triples, getattr(grounding, "lead", None))
        else:
            text = NO_EVIDENCE_REPLY
        yield from _sentences(text)


def write_diagnosis(diagnosis) -> str:
    """'Most likely: X' with its evidence, then the rest of the differential."""
    if not diagnosis.ranked:
        return NO_EVIDENCE_REPLY
    top = diagnosis.answer
    name = getattr(top, "title", top.name)  # a member with its group beside it, a group said to be one
    label = f"{top.option}. {name}" if top.option else name
    ident = f" ({top.disease_id})" if top.disease_id else ""
    lines = [f"Most likely: {label}{ident}, score {top.score:.2f}."]
    if top.evidence:
        lines.append("Evidence: " + "; ".join(top.evidence) + ".")
    others = [f"{r.option + '. ' if r.option else ''}{r.name} ({r.score:.2f})" for r in diagnosis.ranked[1:]]
    if others:
        lines.append(("Other options: " if diagnosis.selective else "Differential: ") + "; ".join(others) + ".")
    if diagnosis.options_not_in_graph:
        lines.append("Not in the graph: " + "; ".join(diagnosis.options_not_in_graph) + ".")
    return "\n".join(lines)


def write_facts(triples, lead: str | None = None) -> str:
    """The lead (a yes/no, a count, ...) when there is one, then the triples grouped by subject and
    relation: 'Crouzon syndrome — Exhibit: A, B, C (HPO)'."""
    if not triples:
        return lead or NO_EVIDENCE_REPLY
    if lead:
        return lead + "\n" + write_facts(triples)
    grouped: dict[tuple[str, str], list[str]] = defaultdict(list)
    sources: dict[tuple[str, str], set[str]] = defaultdict(set)
    for triple in triples:
        key = (triple.head, triple.relation)
        if triple.tail not in grouped[key]:
            grouped[key].append(triple.tail)
        if triple.source:
            sources[key].add(triple.source)
    lines = []
    for (head, relation), tails in grouped.items():
        shown = ", ".join(tails)
        source = f" (source: {', '.join(sorted(sources[(head, relation)]))})" if sources[(head, relation)] else ""
        lines.append(f"{head} — {RELATION_WORDS.get(relation, relation)}: {shown}{source}.")
    return "\n".join(lines)


RELATION_WORDS = {
    "Exhibit": "facial phenotypes", "Affect": "affects the facial phenotypes", "Cause": "linked to",
    "has_synonym": "synonyms", "Have": "variant of", "with_Var": "carries the variant", "From": "reported in",
    "with_FP": "seen in patient", "is_a": "is a kind of",
}


def _sentences(text: str) -> Iterator[str]:
    """Pieces for streaming: one line at a time."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        yield line + ("\n" if i < len(lines) - 1 else "")
