"""Turning retrieval into an answer: the messages for an LLM, and its reply back into a disease."""

from __future__ import annotations

from llm.parse import parse_disease_answer, parse_option_answer
from retrieval.diagnose import Diagnosis, RankedDisease
from retrieval.result import Triple

MAX_EVIDENCE_DISEASES = 5
MAX_EVIDENCE_TRIPLES = 25


def diagnosis_evidence(diagnosis: Diagnosis, extra_triples: list[Triple] = ()) -> list[str]:
    """Evidence lines for a RAG prompt: the ranked candidates with their reasons, then facts."""
    lines = []
    for ranked in diagnosis.ranked[:MAX_EVIDENCE_DISEASES]:
        label = f"option {ranked.option}: " if ranked.option else ""
        reasons = "; ".join(ranked.evidence) or "no graph evidence"
        lines.append(f"{label}{ranked.name} (graph score {ranked.score:.2f}): {reasons}")
    lines.extend(triple.text() for triple in [*diagnosis.triples, *extra_triples][:MAX_EVIDENCE_TRIPLES])
    return lines


def facts_evidence(triples: list[Triple]) -> list[str]:
    return [triple.text() for triple in triples[:MAX_EVIDENCE_TRIPLES * 4]]


def reply_to_prediction(reply: str, diagnosis: Diagnosis | None,
                        options: dict[str, str] | None) -> RankedDisease | None:
    """The disease an LLM's reply names: an option letter or name, else a ranked candidate's
    name, else the reply's own first line (a disease the graph may not hold)."""
    ranked = diagnosis.ranked if diagnosis else []
    if options:
        letter = parse_option_answer(reply, options)
        if letter is None:
            return None
        found = next((r for r in ranked if r.option == letter), None)
        return found or RankedDisease(options[letter], None, None, 0.0, option=letter, in_graph=False)
    name = parse_disease_answer(reply, [r.name for r in ranked])
    if not name:
        return None
    found = next((r for r in ranked if r.name == name), None)
    return found or RankedDisease(name, None, None, 0.0, in_graph=False)
