"""Where the figures move between two hold-out rules (retrieval/hold_out.py), by evidence kind: the same cases
ranked with the whole paper held out and with its patients only (`bench generalise --hold-out-rules`).

For each cell: the cases right at top-1 under the second rule and wrong under the first (lost) and the other way
round (gained); of the lost, those whose truth the gene no longer reaches (the ceiling fell) and those whose truth
is no candidate at all (nothing is left of it); and for each kind of evidence, the mean change of the true
disease's weighted part (its score's share from that kind), over every case and over the lost ones: which
evidence the held-out lines had been giving the truth.
"""

from __future__ import annotations

from typing import Any


def explain(key: tuple[str, str, str], other: list[dict[str, Any]], first: list[dict[str, Any]]) -> dict[str, Any]:
    """`first`, `other`: the cell's items under the two rules (the same cases, `bench.generalise.run_case`)."""
    before = {item["case"]: item for item in other}
    pairs = [(before[item["case"]], item) for item in first if item["case"] in before]
    lost = [(b, a) for b, a in pairs if b["ranker_rank"] == 1 and a["ranker_rank"] != 1]
    kinds = sorted({k for b, a in pairs for k in {**(b["truth_parts"] or {}), **(a["truth_parts"] or {})}})

    def moved(chosen: list[tuple[dict, dict]]) -> dict[str, float]:
        if not chosen:
            return {}
        return {kind: round(sum((a["truth_parts"] or {}).get(kind, 0.0) - (b["truth_parts"] or {}).get(kind, 0.0)
                                for b, a in chosen) / len(chosen), 4) for kind in kinds}

    return {"set": key[0], "condition": key[1], "split": key[2], "n": len(pairs),
            "top1": [_share(a["ranker_rank"] == 1 for _, a in pairs), _share(b["ranker_rank"] == 1 for b, _ in pairs)],
            "lost": len(lost), "gained": sum(a["ranker_rank"] == 1 and b["ranker_rank"] != 1 for b, a in pairs),
            "lost_unreachable": sum(bool(b["reachable"]) and not a["reachable"] for b, a in lost),
            "lost_no_candidate": sum(a["truth_parts"] is None and b["truth_parts"] is not None for b, a in lost),
            "truth_part_change": moved(pairs), "truth_part_change_lost": moved(lost)}


def markdown(drops: list[dict[str, Any]], first: str, other: str, shown: int = 4) -> list[str]:
    """A table of `explain`'s cells: top-1 under each rule, the cases lost and gained, and the kinds whose part of
    the truth's score fell most in the lost cases."""
    lines = [f"Top-1 with {first} against {other}; of the cases lost, the truth no longer reached through the gene "
             "and no candidate at all; the mean change of the truth's weighted part by kind in the lost cases:", "",
             "| set | condition | split | n | top-1 | lost | gained | unreachable | no candidate "
             "| the truth lost most |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for d in drops:
        change = sorted(d["truth_part_change_lost"].items(), key=lambda kv: kv[1])[:shown]
        said = ", ".join(f"{kind} {value:+.2f}" for kind, value in change if value < 0) or "–"
        lines.append(f"| {d['set']} | {d['condition']} | {d['split']} | {d['n']} | {_pct(d['top1'][0])} "
                     f"(was {_pct(d['top1'][1])}) | {d['lost']} | {d['gained']} | {d['lost_unreachable']} "
                     f"| {d['lost_no_candidate']} | {said} |")
    return lines


def _share(flags) -> float | None:
    flags = list(flags)
    return round(sum(flags) / len(flags), 4) if flags else None


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.1%}"
