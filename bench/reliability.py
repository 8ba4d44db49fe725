"""Calibration figures of stated confidences: the Brier score and a reliability table."""

from __future__ import annotations

from typing import Any

BINS = 10


def brier(probabilities: list[float], right: list[bool]) -> float:
    """Mean squared gap between the stated probability and what happened (0 is perfect)."""
    return sum((p - r) ** 2 for p, r in zip(probabilities, right, strict=True)) / len(right)


def reliability(probabilities: list[float], right: list[bool], bins: int = BINS) -> list[dict[str, float]]:
    """Per probability bin: how many answers, their mean stated probability, the share right."""
    table = []
    for b in range(bins):
        low, high = b / bins, (b + 1) / bins
        inside = [(p, r) for p, r in zip(probabilities, right, strict=True)
                  if low <= p < high or (b == bins - 1 and p == 1.0)]
        if inside:
            table.append({"bin": f"{low:.1f}-{high:.1f}", "n": len(inside),
                          "stated": round(sum(p for p, _ in inside) / len(inside), 4),
                          "observed": round(sum(r for _, r in inside) / len(inside), 4)})
    return table


def calibration(items: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The Brier score and reliability table of the items that have a confidence."""
    scored = [item for item in items if item.get("confidence") is not None]
    if not scored:
        return None
    probabilities = [item["confidence"] for item in scored]
    right = [answer_right(item) for item in scored]
    # the base rate's Brier score: what a constant confidence would get
    base = sum(right) / len(right)
    table = reliability(probabilities, right)
    return {"n": len(scored), "brier": round(brier(probabilities, right), 4),
            "brier_constant": round(brier([base] * len(right), right), 4),
            "ece": round(sum(row["n"] * abs(row["stated"] - row["observed"]) for row in table) / len(scored), 4),
            "reliability": table}


def answer_right(item: dict[str, Any]) -> bool:
    """The top answer is right: the truth, or a group shown first that holds it (the answer as stated)."""
    return item.get("ranker_group_rank", item["ranker_rank"]) == 1


def reliability_markdown(name: str, figures: dict[str, Any]) -> list[str]:
    lines = [f"{name}: Brier {figures['brier']:.3f}, expected calibration error {figures.get('ece', 0):.3f} over "
             f"{figures['n']} cases (a constant confidence: Brier {figures['brier_constant']:.3f})", "",
             "| confidence | cases | mean stated | share right |", "|---|---:|---:|---:|"]
    lines += [f"| {row['bin']} | {row['n']} | {row['stated']:.2f} | {row['observed']:.2f} |"
              for row in figures["reliability"]]
    return lines
