"""The grounded writer: a deterministic answer written from the ranked evidence alone.

It is the default backend (no LLM needed): the same evidence always gives the same words,
whatever the temperature or seed, and every sentence comes from the graph.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from fpkg.display import display_name, is_sentence
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
        elif getattr(grounding, "complete", False) and grounding.lead:
            text = grounding.lead  # a summary: written whole, its triples are the evidence
        elif hasattr(grounding, "triples"):
            text = write_facts(grounding.triples, getattr(grounding, "lead", None), getattr(grounding, "focus", ()),
                               getattr(grounding, "listing", None))
            if getattr(grounding, "also", None):
                text += "\n" + grounding.also
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
    members = getattr(top, "ranked_members", ())
    if members:
        lines.append("Its members, as the findings rank them: " + "; ".join(
            f"{m.name}{' (' + m.disease_id + ')' if m.disease_id else ''} {m.score:.2f}" for m in members) + ".")
        if top.told_apart:
            lines.append("What would tell them apart: " + "; ".join(top.told_apart) + ".")
    if top.evidence:
        lines.append("Evidence: " + "; ".join(top.evidence) + ".")
    first = members[0] if members else top
    nearest = getattr(diagnosis, "nearest_patients", {}).get(first.node_id)
    if nearest:
        lines.append("Published patients like this one: " + "; ".join(found.text() for found in nearest) + ".")
    others = [f"{r.option + '. ' if r.option else ''}{r.name} ({r.score:.2f})" for r in diagnosis.ranked[1:]]
    if others:
        lines.append(("Other options: " if diagnosis.selective else "Differential: ") + "; ".join(others) + ".")
    if diagnosis.options_not_in_graph:
        lines.append("Not in the graph: " + "; ".join(diagnosis.options_not_in_graph) + ".")
    return "\n".join(lines)


def write_facts(triples, lead: str | None = None, focus=(), listing: str | None = None) -> str:
    """The lead (a yes/no, a count, ...) when there is one, then the triples grouped by subject and
    relation: 'Crouzon syndrome — Exhibit: A, B, C (HPO)', or, for a list answer, its `listing` (the
    items numbered in the order that matters, the name asked about said once, in the lead). With `focus`
    (the nodes asked about), the facts about them come first and the others follow under "Related", each
    under its own head. Names that are sentences (source noise) are left out; variants are written in HGVS
    form."""
    triples = [t for t in triples if not (_noise(t.head, t.head_label) or _noise(t.tail, t.tail_label))]
    if listing:
        text = "\n".join(part for part in (lead, listing) if part)
        listed = {line.split(". ", 1)[-1].split(" — ", 1)[0] for line in listing.splitlines()}
        related = [t for t in triples if focus and t.head_id not in focus and t.tail_id not in focus
                   and display_name(t.head, t.head_label) not in listed]
        return text + ("\n\nRelated:\n" + _grouped(related) if related else "")
    if not triples:
        return lead or NO_EVIDENCE_REPLY
    if focus:
        about = [t for t in triples if t.head_id in focus or t.tail_id in focus]
        related = [t for t in triples if t not in about]
        text = "\n".join(part for part in (lead, _grouped(about) if about else None) if part)
        if related:
            text += ("\n" if text else "") + "Related:\n" + _grouped(related)
        return text
    return "\n".join(part for part in (lead, _grouped(triples)) if part)


def _noise(name: str, label: str) -> bool:
    """A gene or variant 'named' by a sentence ('CHD7 mutations account for ~60% of cases ...')."""
    return label in ("Genotype", "Variation", "") and is_sentence(name)


def _grouped(triples) -> str:
    grouped: dict[tuple[str, str], list[str]] = defaultdict(list)
    sources: dict[tuple[str, str], set[str]] = defaultdict(set)
    for triple in triples:
        key = (display_name(triple.head, triple.head_label), triple.relation)
        tail = display_name(triple.tail, triple.tail_label)
        if tail not in grouped[key]:
            grouped[key].append(tail)
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
