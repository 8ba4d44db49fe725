"""python -m bench fit-weights: the weight of each kind of evidence, fitted on the development cases.

    python -m bench fit-weights [--sets phenopackets,lopo] [--limit N] [--passes P] [--fit gene,face,findings]
                                [--refine gene] [--hold-out-rule whole-paper|patients] [--dry-run]

Each dev case (`generalise`'s sets, dev split only, each patient's own paper held out: the whole paper, its
patients and HPO's annotation lines citing it alone, unless `--hold-out-rule patients`) is prepared
once (`DiagnosisRanker.prepare`: every candidate's unweighted part of each kind). Two weight sets are
fitted apart (diagnosis/evidence WEIGHT_SETS): the cases whose gene the graph knows, and those with
findings alone. Each set is fitted by maximum likelihood as a conditional logit over each case's
candidates (bench/conditional_logit.py; each (set, condition) cell counting the same, a weight's sign
held where its evidence has a direction: BOUNDS). The likelihood is not the objective the figures report
(the mean, over the cells, of top-1 + 0.25 × top-10), so a fitted set whose weights in place score better on
its own dev cells keeps them. The sets named by --refine (the gene's, by default) are then refined by
--passes of coordinate ascent over a grid of multiples on that objective, re-ranking every case in memory
(`DiagnosisRanker.order`: twins merged, groups resolved, options answered) at each step. The likelihood
does not see selective questions (four options, elimination), which the gene's set answers; the sets of
findings alone have none, and on their small cells the grid ascent overfits (RESULTS.md). The sets not
named by --fit keep their weights, and the file says which were fitted when and how. Writes
diagnosis/evidence/weights.json unless --dry-run; the test split is never read here: report it with
`generalise` after fitting.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from datetime import date
from typing import Any

import numpy as np

from bench import conditional_logit, generalise
from bench.diagnosis import add_rule_argument, rule_variant
from bench.results import variant_name
from bench.runtime import progress
from diagnosis.evidence import KINDS, WEIGHT_SETS, WEIGHTS_PATH, weight_set
from fpkg.errors import BenchError
from retrieval.hold_out import PATIENTS, RULE_NAMES, WHOLE_PAPER

NAMES = tuple(kind.name for kind in KINDS)
MULTIPLES = (0.0, 0.5, 0.75, 1.33, 2.0)
TOP10_SHARE = 0.25
# a weight's sign where its evidence has a direction: a broad profile explains much by chance (never for
# a disease); a contradicting finding or a patient unlike the disease's usual ones (negative parts) never
# speaks for it, and a clinician expects the contradiction to count, however little
BOUNDS = {"breadth": (None, 0.0), "contradicted": (0.05, None)}
# a kind held at least at another's weight: the patient's variant published as causing the disease is the most
# specific evidence the graph holds (ACMG's PS1). On dev it named the truth in 86 of the 89 cases where a
# candidate had it, all of them already ranked first, so a likelihood, which learns from mistakes, leaves it
# small; held at the gene's weight, it outweighs what a large cohort of a sibling disease adds (look-alikes,
# the gene's published cases: PTPN11's LEOPARD patients against a published Noonan syndrome 1 variant)
AT_LEAST = {"variant": "gene"}
Prepared = dict[tuple[str, str], list[tuple[Any, Any]]]


def prepare(pipeline, sets: list[str], limit: int | None, rule: str = WHOLE_PAPER) -> Prepared:
    """(set, condition) -> [(dev case, its prepared ranking)], each case's own paper held out under `rule`."""
    cases, _ = generalise.build_cases(pipeline, sets)
    groups = generalise.select(cases, ["dev"], limit)
    prepared: Prepared = defaultdict(list)
    for (set_name, condition, _), group in groups.items():
        for case in progress(group, f"fit-weights {set_name} {condition}"):
            ready = generalise.retrying(lambda c=case: pipeline.ranker.prepare(
                c.diagnosis_case(), pipeline.hold_out(c.exclude_pmids, rule)))
            prepared[(set_name, condition)].append((case, ready))
    return prepared


def evaluate(ranker, prepared: Prepared, weights: dict[str, dict[str, float]],
             only: str | None = None) -> dict[str, Any]:
    """Top-1 and top-10 of every cell (of the cases of weight set `only`, when given) under `weights`."""
    cells = {}
    for key, group in prepared.items():
        chosen = [(case, ready) for case, ready in group if only in (None, weight_set(ready.evidence))]
        if not chosen:
            continue
        positions = [generalise.ranker_position(ranker.order(ready, weights[weight_set(ready.evidence)])[0], case)
                     for case, ready in chosen]
        top1 = sum(p == 1 for p in positions) / len(positions)
        top10 = sum(p is not None for p in positions) / len(positions)
        cells[" ".join(key)] = {"n": len(positions), "top1": round(top1, 4), "top10": round(top10, 4),
                                "objective": top1 + TOP10_SHARE * (top1 if key[1] == "four_options" else top10)}
    return {"objective": round(sum(c["objective"] for c in cells.values()) / max(len(cells), 1), 5), "cells": cells}


def design(case, ready) -> tuple[np.ndarray, np.ndarray]:
    """The case's candidates × kinds part values, and which candidates are its true disease."""
    nodes = sorted(ready.parts)
    values = np.array([[ready.parts[d][name].value if name in ready.parts[d] else 0.0 for name in NAMES]
                       for d in nodes], dtype=np.float64).reshape(len(nodes), len(NAMES))
    diseases = ready.evidence.graph.diseases
    right = np.array([d == case.truth_node or diseases[d].get("disease_id") == case.truth_disease_id
                      for d in nodes], dtype=bool)
    return values, right


def fit_set(prepared: Prepared, name: str, start: dict[str, float]) -> dict[str, float]:
    """One weight set by maximum likelihood over its open cases, each cell counting the same."""
    cases, case_weights = [], []
    for (_, condition), group in prepared.items():
        chosen = [(case, ready) for case, ready in group
                  if weight_set(ready.evidence) == name and condition != "four_options"]
        if not chosen:
            continue
        cases += [design(case, ready) for case, ready in chosen]
        case_weights += [1.0 / len(chosen)] * len(chosen)  # (an empty cell adds nothing)
    # each cell the same share, the case weights' mean 1 (so the penalty weighs as much whatever the cells)
    case_weights = [w * len(cases) / max(sum(case_weights), 1e-9) for w in case_weights]
    bounds = [BOUNDS.get(kind, (0.0, None)) for kind in NAMES]
    fitted = conditional_logit.fit(cases, case_weights, bounds, np.array([start.get(k, 0.0) for k in NAMES]))
    return held_up({kind: round(float(value), 4) + 0.0 for kind, value in zip(NAMES, fitted, strict=True)})  # no -0.0


def held_up(weights: dict[str, float]) -> dict[str, float]:
    """`weights` with each kind of AT_LEAST raised to the weight it is held at."""
    return {**weights, **{kind: max(weights[kind], weights[other]) for kind, other in AT_LEAST.items()}}


def search(ranker, prepared: Prepared, weights: dict[str, dict[str, float]], name: str,
           passes: int) -> tuple[dict[str, dict[str, float]], list]:
    """Coordinate ascent on set `name`'s weights over MULTIPLES of each, on the reported objective."""
    best = evaluate(ranker, prepared, weights, name)
    trail = [{"set": name, "weights": dict(weights[name]), "objective": best["objective"]}]
    for _ in range(passes):
        improved = False
        for kind in NAMES:
            low, high = BOUNDS.get(kind, (0.0, None))
            for multiple in MULTIPLES:
                value = round(weights[name][kind] * multiple, 4) + 0.0  # (never -0.0)
                if value == weights[name][kind] or (low is not None and value < low) \
                        or (high is not None and value > high):
                    continue
                trial = {**weights, name: held_up({**weights[name], kind: value})}
                found = evaluate(ranker, prepared, trial, name)
                if found["objective"] > best["objective"] + 1e-9:
                    weights, best, improved = trial, found, True
                    trail.append({"set": name, "weights": dict(weights[name]), "objective": best["objective"]})
        if not improved:
            break
    return weights, trail


def register(subparsers, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser("fit-weights", parents=[common], help="fit each evidence kind's weight on dev",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", type=generalise.names_list(tuple(generalise.CONDITIONS)),
                        default=["phenopackets", "lopo"])
    parser.add_argument("--limit", type=int, help="at most N dev cases per set and condition")
    parser.add_argument("--passes", type=int, default=1, help="coordinate-ascent passes after the likelihood fit")
    parser.add_argument("--fit", type=generalise.names_list(WEIGHT_SETS), default=list(WEIGHT_SETS),
                        help="the weight sets fitted (the others keep their weights)")
    parser.add_argument("--refine", type=generalise.names_list(WEIGHT_SETS), default=["gene"],
                        help="the weight sets the coordinate ascent refines (among those fitted)")
    parser.add_argument("--dry-run", action="store_true", help="report the fitted weights without writing them")
    add_rule_argument(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, context) -> tuple[str, dict[str, Any], str]:
    if args.limit is not None and args.limit < 1:
        raise BenchError(f"--limit must be at least 1, not {args.limit}")
    if args.passes < 0:
        raise BenchError(f"--passes must be 0 or more, not {args.passes}")
    ranker = context.pipeline.ranker
    started = time.perf_counter()
    prepared = prepare(context.pipeline, args.sets, args.limit, args.hold_out_rule)
    start = {name: dict(ranker.weights[name]) for name in WEIGHT_SETS}
    before = evaluate(ranker, prepared, start)
    weights = {name: fit_set(prepared, name, start[name]) if name in args.fit else start[name] for name in WEIGHT_SETS}
    fitted = evaluate(ranker, prepared, weights)
    how = {name: "likelihood" if name in args.fit else "kept" for name in WEIGHT_SETS}
    for name in args.fit:  # the likelihood is not the reported objective: the weights in place may score better
        if evaluate(ranker, prepared, {**weights, name: start[name]}, name)["objective"] > \
                evaluate(ranker, prepared, weights, name)["objective"]:
            weights, how[name] = {**weights, name: start[name]}, "the weights in place (better on dev)"
    trail: list = []
    for name in [name for name in args.refine if name in args.fit and args.passes]:
        weights, steps = search(ranker, prepared, weights, name, args.passes)
        how[name] += f", refined ({len(steps) - 1} steps)"
        trail += steps
    after = evaluate(ranker, prepared, weights)
    previous = json.loads(WEIGHTS_PATH.read_text()).get("fitted_on", {})
    fitted_on = {"command": "python -m bench " + " ".join(context.argv), "date": date.today().isoformat(),
                 "sets": args.sets, "split": "dev", "hold_out_rule": args.hold_out_rule, "how": how,
                 # where the weights in place came from, for the sets that kept them (before issue 53: the patients)
                 "before": {"command": previous.get("command"), "date": previous.get("date"),
                            "hold_out_rule": previous.get("hold_out_rule", PATIENTS)},
                 "cases": {k: c["n"] for k, c in after["cells"].items()},
                 "objective": after["objective"], "likelihood_fit": fitted["objective"],
                 "objective_before": before["objective"]}
    if not args.dry_run:
        WEIGHTS_PATH.write_text(json.dumps({"weights": weights, "fitted_on": fitted_on}, indent=1) + "\n")
    result = {"weights": weights, "how": how, "start": start, "before": before, "likelihood_fit": fitted,
              "after": after, "trail": trail, "written": not args.dry_run,
              "seconds": round(time.perf_counter() - started, 1)}
    lines = [f"fit-weights on dev ({', '.join(args.sets)}; {RULE_NAMES[args.hold_out_rule]}): objective "
             f"{before['objective']} -> "
             f"{fitted['objective']} (likelihood) -> {after['objective']}", ""]
    lines += [f"{name} ({how[name]}): " + ", ".join(f"{k} {v:g}" for k, v in weights[name].items() if v)
              for name in WEIGHT_SETS]
    lines += ["", "| cell | n | top-1 before | top-1 after | top-10 before | top-10 after |",
              "|---|---:|---:|---:|---:|---:|"]
    for key, cell in after["cells"].items():
        was = before["cells"][key]
        lines.append(f"| {key} | {cell['n']} | {was['top1']:.1%} | {cell['top1']:.1%} | {was['top10']:.1%} "
                     f"| {cell['top10']:.1%} |")
    return variant_name("dev", rule_variant(args.hold_out_rule)), result, "\n".join(lines)
