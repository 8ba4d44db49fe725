"""A diagnosis as the page shows it first: a summary (the most likely disease or group with its id, the
confidence in words and as a figure, the facts it rests on) and the ranked differential as a table whose
rows open to all their evidence.

Plain functions of the result, as Markdown (GitHub tables, with <details> for the rows that open): the page's
only; the API's outputs are app/ui_format.py's. Everything taken from the result is escaped: a name or an
evidence line may repeat what the user typed, which must never become markup.
"""

from __future__ import annotations

from app.ui_format import PART_COLUMNS
from diagnosis.confidence import LOW_CONFIDENCE
from diagnosis.confidence import label as confidence_label
from diagnosis.ranker import RankedDisease
from fpkg.display import plain
from service.pipeline import PipelineResult

MOST_FACTS, FEWEST_FACTS = 5, 3  # the summary's facts
HIGH_CONFIDENCE = 0.8  # from here "high"; from LOW_CONFIDENCE "moderate"; below it "low"
OPTION_LINE = "option links to "  # the line the ranker puts first for an option of a selective question
PLACEHOLDER = ("_The answer appears here: the most likely disease, how sure the ranking is, and the facts it "
               "rests on; the ranked differential below it._")
_MARKDOWN_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_{}[]<>()#+-.!|~"})


def text(value: object) -> str:
    """`value` as text in Markdown: no markup, no entity, no table cell ended by a '|', on one line."""
    return " ".join(plain(str(value)).split()).replace("&", "&amp;").translate(_MARKDOWN_SPECIAL)


def confidence_words(probability: float) -> str:
    if probability < LOW_CONFIDENCE:
        return "Low"
    return "High" if probability >= HIGH_CONFIDENCE else "Moderate"


def ordered_evidence(ranked: RankedDisease) -> tuple[list[str], list[str], list[str]]:
    """Its evidence lines as (for the parts that raise its score, heaviest first; lines that weigh nothing of
    their own, in their order; for the parts that lower it). The ranker writes one line per part of the score, in
    the parts' order (diagnosis/ranker.py `_score`), after an option's link line; the lines it adds after those
    (a group, a twin entry) weigh nothing of their own."""
    lines = [line for line in ranked.evidence if line.strip()]
    start = 1 if lines and lines[0].startswith(OPTION_LINE) else 0
    weights = list(ranked.parts.values())
    paired = lines[start:start + len(weights)]
    if len(paired) < len(weights):  # not written part by part: its own order
        return [], lines, []
    heaviest = sorted((i for i, weight in enumerate(weights) if weight > 0), key=lambda i: -weights[i])
    supporting = [paired[i] for i in heaviest]
    against = [line for line, weight in zip(paired, weights, strict=True) if weight < 0]
    neutral = [line for line in lines if line not in supporting and line not in against]
    return supporting, neutral, against


def facts_behind(ranked: RankedDisease) -> list[str]:
    """The summary's facts: the heaviest supporting lines, MOST_FACTS at most, topped up to FEWEST_FACTS with
    lines that weigh nothing of their own where the evidence has them (never with one against it)."""
    supporting, neutral, _ = ordered_evidence(ranked)
    facts = supporting[:MOST_FACTS]
    return facts + neutral[:max(0, FEWEST_FACTS - len(facts))]


def confidence_markdown(result: PipelineResult) -> str:
    """The confidence in words and as a figure, then what it rests on (diagnosis.confidence's words)."""
    probability = result.confidence
    said = confidence_label(probability, result.confidence_shape, result.findings_linked)
    rests = said.partition(" It rests on ")[2]
    low = " Treat the ranking as a list to examine, not an answer." if probability < LOW_CONFIDENCE else ""
    return (f"**{confidence_words(probability)} confidence: {probability:.0%}** that the top-ranked answer is "
            f"right.{low}" + (f" It rests on {rests}" if rests else ""))


def summary_markdown(result: PipelineResult) -> str:
    """The most likely disease (or group) with its id, the confidence in words and as a figure and what it
    rests on, and the facts behind the answer as a list."""
    predictions = result.predictions()
    if not predictions:
        said = result.answer.strip().splitlines()[0] if result.answer.strip() else ""
        return "### No disease ranked\n" + (text(said) if said else "")
    top = predictions[0]
    option = f"{top.option}. " if top.option else ""
    ids = " / ".join(filter(None, (top.disease_id, *top.other_ids)))
    lines = [f"### Most likely: {text(option + top.title)}" + (f" ({text(ids)})" if ids else "")]
    if result.ranked and result.predicted is not None and result.predicted is not result.ranked[0]:
        lines.append(f"The {text(result.backend)} LLM's choice; the graph ranks {text(result.ranked[0].title)} "
                     "first.")
    if result.confidence is not None:
        lines.append(confidence_markdown(result))
    facts = facts_behind(top)
    if facts:
        lines.append("The facts that weigh most:\n" + "\n".join(f"- {text(fact)}" for fact in facts))
    return "\n\n".join(lines)


def differential_markdown(result: PipelineResult) -> str:
    """The ranked differential as a table: rank, disease and its ids, the score with each family of evidence's
    part, and the evidence, its first line shown and the row opening to all of it."""
    predictions = result.predictions()
    if not predictions:
        return ""
    rows = ["| # | disease | score | evidence |", "| --- | --- | --- | --- |"]
    for position, ranked in enumerate(predictions, start=1):
        marker = f"{position} ✓" if ranked is result.predicted else str(position)
        ids = " / ".join(filter(None, (ranked.disease_id, *ranked.other_ids))) or (
            "not in the graph" if not ranked.in_graph else "")
        option = f"option {ranked.option}: " if ranked.option else ""
        disease = f"**{text(option + ranked.title)}**" + (f"<br>{text(ids)}" if ids else "")
        parts = [text(f"{family} {sum(ranked.parts.get(kind, 0.0) for kind in kinds):.2f}")
                 for family, kinds in PART_COLUMNS.items() if any(kind in ranked.parts for kind in kinds)]
        score = f"**{ranked.score:.2f}**" + (f'<br><span class="parts">{"<br>".join(parts)}</span>' if parts else "")
        rows.append(f"| {marker} | {disease} | {score} | {_evidence_cell(ranked)} |")
    return "\n".join(rows)


def _evidence_cell(ranked: RankedDisease) -> str:
    """The heaviest line; with more, a row that opens to all of them."""
    lines = [line for group in ordered_evidence(ranked) for line in group]
    if len(lines) <= 1:
        return text(lines[0]) if lines else ""
    rest = "<br>".join(f"• {text(line)}" for line in lines[1:])
    return f"<details><summary>{text(lines[0])} (+{len(lines) - 1} more)</summary>{rest}</details>"
