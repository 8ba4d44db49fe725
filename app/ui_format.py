"""A PipelineResult turned into what the UI shows: tables, Cypher text, the evidence picture.

Plain functions of the result, so the API endpoints and the tests see the same values as the page.
"""

from __future__ import annotations

import json
import re

import pandas as pd

from app.evidence_cache import PictureCache, shared_cache
from app.evidence_plot import evidence_graph
from diagnosis.ranker import ELIMINATION
from fpkg.display import plain
from service.answers import linked_names
from service.pipeline import PipelineResult

PUBMED = "https://pubmed.ncbi.nlm.nih.gov/{}/"
# The API's ranked table (/diagnose's third output): these columns always, and between score and id a column per
# family of evidence that speaks in this answer (each kind's weighted part summed within its family; each kind's
# part is in the evidence column and the TSV export), the option column for a selective question. The page shows
# the same as a differential whose rows open (app/answer_view.py).
PART_COLUMNS = {"gene": ("gene", "specific"), "variant": ("variant",),
                "findings": ("phenotype", "annotated", "profile", "exact", "breadth", "cardinal", "missing",
                             "contradicted"),
                "like patients": ("patients", "lookalikes"), "literature": ("cases", "published"),
                "age, sex": ("patient",), "elimination": (ELIMINATION,)}
RANKED_HEADERS = ["#", "disease", "score", *PART_COLUMNS, "option", "id", "evidence"]  # every column it may have
EMPTY_RANKED = ["#", "disease", "score", "id", "evidence"]  # before the first answer
TRIPLE_HEADERS = ["head", "relation", "tail", "source", "PMID"]
TRIPLE_TYPES = ["str", "str", "str", "str", "markdown"]
TRIPLE_WIDTHS = ["27%", "16%", "27%", "15%", "15%"]
MAX_TRIPLE_ROWS = 300
_ENTITY = re.compile(r"&(?=#?\w+;)")  # an '&' that would start an entity
_MARKDOWN_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_{}[]<>()#+-.!|~"})


def ranked_table(result: PipelineResult) -> pd.DataFrame:
    """One row per candidate in the graph's order (an LLM's choice outside it last), ✓ on the answer of record
    and "LLM" on an LLM's other choice, with each family of evidence's part of its score: the columns of
    RANKED_HEADERS that have something to show."""
    predictions = result.ranked + [r for r in (result.predicted,) if r is not None and r not in result.ranked]
    record = result.record or result.predicted
    shown = [name for name, kinds in PART_COLUMNS.items()
             if any(kind in ranked.parts for ranked in predictions for kind in kinds)]
    selective = any(ranked.option for ranked in predictions)
    columns = ["#", "disease", "score", *shown, *(["option"] if selective else []), "id", "evidence"]
    rows = []
    for position, ranked in enumerate(predictions, start=1):
        marker = f"{position} ✓" if ranked is record else f"{position} LLM" if ranked is result.predicted \
            else str(position)
        ids = " / ".join(filter(None, (ranked.disease_id, *ranked.other_ids)))
        parts = [round(sum(ranked.parts.get(kind, 0.0) for kind in PART_COLUMNS[name]), 3) for name in shown]
        option = [ranked.option or ""] if selective else []
        rows.append([marker, plain(ranked.title), round(ranked.score, 3), *parts, *option,
                     ids or ("not in graph" if not ranked.in_graph else ""), plain("; ".join(ranked.evidence))])
    return pd.DataFrame(rows, columns=columns)


def triple_rows(result: PipelineResult) -> list[list[str]]:
    """head, relation, tail, source and PMIDs as markdown links to PubMed."""
    return [[plain(t.head), t.relation, plain(t.tail), t.source,
             ", ".join(f"[{pmid}]({PUBMED.format(pmid)})" for pmid in t.pmids)]
            for t in result.triples[:MAX_TRIPLE_ROWS]]


def cypher_markdown(result: PipelineResult) -> str:
    """Each query that ran, its parameters, rows, and the checker's corrections (or its refusal)."""
    if not result.cypher:
        return "_No Cypher query ran for this answer._"
    blocks = []
    for run in result.cypher:
        status = f"refused or failed: {run.error}" if run.error else f"{run.rows} rows"
        text = [f"**{run.origin.translate(_MARKDOWN_SPECIAL)}** — {status.translate(_MARKDOWN_SPECIAL)}",
                f"```cypher\n{run.query}\n```"]
        if run.params:
            text.append(f"parameters: `{_compact_json(run.params)}`")
        if run.corrections:
            text.append("checker corrections:\n" + "\n".join(f"- {c.translate(_MARKDOWN_SPECIAL)}"
                                                            for c in run.corrections))
        blocks.append("\n\n".join(text))
    return "\n\n---\n\n".join(blocks)


def answer_markdown(answer: str) -> str:
    """The answer as text: it can echo what the user typed, which must never become HTML. Only what
    could open a tag or an entity is escaped ('<', '&'): a variant's '>' ('c.16295G>A') stays as written,
    and the API returns it so too."""
    return _ENTITY.sub("&amp;", plain(answer)).replace("<", "&lt;")


FINDING_LINKS = ("FACIAL_PHENOTYPE", "FINDING", "ABSENT_FINDING")


def notices_markdown(result: PipelineResult) -> str:
    """The warnings, then how the names in the text were linked to the graph, then how the case's findings
    and variant were read (which say the findings' links themselves)."""
    lines = [f"- ⚠ {n.translate(_MARKDOWN_SPECIAL)}" for n in dict.fromkeys(result.notices)]
    links = [lk for lk in result.links if lk.type not in FINDING_LINKS] if result.reading else result.links
    linked = linked_names(links)
    if linked:
        lines.append(f"- {linked.translate(_MARKDOWN_SPECIAL)}")
    lines += [f"- {line.translate(_MARKDOWN_SPECIAL)}" for line in result.reading]
    return "\n".join(lines)


def timings(result: PipelineResult, extra: dict[str, float] | None = None) -> dict[str, float]:
    steps = {name: round(ms, 1) for name, ms in {**result.timings_ms, **(extra or {})}.items()}
    return {**steps, "total": round(sum(steps.values()), 1)} if steps else {}


def evidence_image(result: PipelineResult, pictures: PictureCache | None = None) -> str | None:
    """The evidence picture for the result as a PNG file (drawn once per distinct evidence:
    app/evidence_cache.py), or None when retrieval found nothing to draw."""
    answer = result.predicted.node_id if result.predicted else None
    diseases = [r.node_id for r in result.ranked if r.node_id is not None]
    evidence = evidence_graph(result.triples, result.links, diseases, answer)
    title = f"Evidence for {result.predicted.name}" if result.predicted else "Retrieved evidence"
    return (pictures or shared_cache()).picture(evidence, title)


def _compact_json(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 300 else text[:297] + "..."
