"""python -m bench generalise: the differential on development and test sets built from public data,
with a plain baseline (gene filter + Resnik, bench/baseline.py) run beside it on the same cases.

    python -m bench generalise [--sets lopo,simulated] [--splits dev,test] [--limit N] [--seed S]
                               [--hold-out-rules whole-paper,patients] [--json]

Sets (bench/devsets.py): `lopo`, every FPKG patient with its paper held out (condition
gene_variant_phenotypes); `simulated`, patients drawn from HPO annotations with imprecision and
noise (gene_phenotypes, phenotypes_only, four_options), and sparse descriptions of one to three
terms (few_phenotypes); `phenopackets` (bench/phenopackets.py), published patients outside FPKG
with all their findings (gene_facial, gene_whole, facial_only, whole_phenotype, four_options).
Cases split into dev and test by a fixed hash of their disease: tune on
dev, report test. `--limit N` takes N cases per set, condition and split, the same pseudo-random
pick every run (ordered by a hash of the case id).

A ranked answer is right when it is the true disease node or has its OMIM/ORPHA id; an option
answer when it is the true option's letter. Option conditions report top-1 only.

Each published patient's own paper is held out of the knowledge, the ranker's and the baseline's alike
(retrieval/hold_out.py): the whole paper by default (its patients and HPO's annotation lines citing it
alone), or its patients only (`patients`, as published benchmarks on phenopacket-store count). With two
rules every case runs under both, the first reported first, and the summary says by evidence kind where
the figures moved (bench/rule_drop.py).
"""

from __future__ import annotations

import argparse
import hashlib
import time
from collections import Counter, defaultdict
from typing import Any

from bench import phenopackets, rule_drop
from bench.baseline import PlainBaseline
from bench.devsets import SPLITS, DevCase, lopo_cases, simulated_cases
from bench.diagnosis import conflict_counts, conflicts_line
from bench.reliability import calibration, reliability_markdown
from bench.results import variant_name
from bench.runtime import percentiles, phenopackets_dir, progress
from diagnosis.confidence import case_shape
from diagnosis.confidence import features as confidence_features
from diagnosis.evidence import weight_set
from diagnosis.ranker import PreparedCase, RankedDisease
from fpkg.errors import BenchError, QueryTimeout
from kg_dump.sources import hpo_provenance
from retrieval.hold_out import RULE_NAMES, RULES, WHOLE_PAPER, HoldOut

CONDITIONS = {"lopo": ("gene_variant_phenotypes",),
              "simulated": ("gene_phenotypes", "phenotypes_only", "few_phenotypes", "four_options"),
              "phenopackets": phenopackets.CONDITIONS}
TOP_K = 10
TRIES = 3  # a case whose graph query ran past its time limit is tried again


def build_cases(pipeline, sets: list[str], seed: int = 0) -> tuple[list[DevCase], dict[str, Any]]:
    """The cases of the chosen sets, and what building them counted (samples left out and why)."""
    cases: list[DevCase] = []
    data: dict[str, Any] = {}
    for name in sets:
        stats: Counter = Counter()
        if name == "lopo":
            built = lopo_cases(pipeline.store, pipeline.ontology, stats)
        elif name == "phenopackets":
            built = phenopackets.phenopacket_cases(phenopackets_dir(pipeline.settings), pipeline.store,
                                                   pipeline.ontology, stats)
        else:
            built = simulated_cases(pipeline.store, pipeline.ontology, pipeline.profiles,
                                    seed=seed, stats=stats)
        stats.update(f"{case.condition}_{case.split}" for case in built)
        data[name] = dict(sorted(stats.items()))
        cases += built
    return cases, data


def select(cases: list[DevCase], splits: list[str], limit: int | None) -> dict[tuple[str, str, str], list[DevCase]]:
    """Cases grouped by (set, condition, split), each group cut to `limit` after a fixed shuffle."""
    groups: dict[tuple[str, str, str], list[DevCase]] = defaultdict(list)
    for case in sorted(cases, key=lambda c: hashlib.sha256(f"{c.set_name}:{c.case_id}".encode()).digest()):
        if case.split in splits:
            groups[(case.set_name, case.condition, case.split)].append(case)
    return {key: group[:limit] if limit else group for key, group in groups.items()}


def ranker_position(ranked: list[RankedDisease], case: DevCase, members_of: dict | None = None) -> int | None:
    """1-based position of the right answer in the ranker's list, None when absent. Strictly (no `members_of`)
    a group shown first counts as its members in their order (the list a clinician reads: the group's
    first member is its answer); with `members_of` (a group node -> its members, diagnosis/groups.py) an
    entry is right when it is a group holding the truth."""
    if case.options:
        return next((i for i, answer in enumerate(ranked[:TOP_K], start=1)
                     if answer.option is not None and answer.option == case.truth_option), None)
    if members_of is None:
        ranked = [member for answer in ranked for member in (answer.ranked_members or (answer,))]
    for position, answer in enumerate(ranked[:TOP_K], start=1):
        ids = {answer.disease_id, *answer.other_ids} - {None}  # an Orphanet twin shown with its OMIM entry
        # a member shown with its group names the group too (diagnosis/groups.py)
        right = (case.truth_node is not None and case.truth_node in (answer.node_id, answer.group_node)) \
            or case.truth_disease_id in ids
        if members_of is not None and case.truth_node is not None:
            right = right or case.truth_node in members_of.get(answer.node_id, ()) \
                or case.truth_node in {m.node_id for m in answer.ranked_members}
        if right:
            return position
    return None


def baseline_position(baseline: PlainBaseline, case: DevCase, hold_out: HoldOut) -> tuple[int | None, str | None]:
    if case.options:
        ranked = baseline.rank_options(list(case.terms), case.gene, case.options, case.whole, hold_out)
        hits = [i for i, s in enumerate(ranked, start=1) if s.option == case.truth_option]
    else:
        ranked = baseline.rank(list(case.terms), case.gene, TOP_K, case.whole, hold_out)
        hits = [i for i, s in enumerate(ranked, start=1) if s.node_id == case.truth_node]
    return (hits[0] if hits else None), (ranked[0].name if ranked else None)


def truth_parts(ranker, prepared: PreparedCase, case: DevCase) -> dict[str, float] | None:
    """The true disease's weighted part of each kind (its best-scoring entry); None when it is no candidate."""
    weights = ranker.weights[weight_set(prepared.evidence)]
    diseases = prepared.evidence.graph.diseases
    found = [{kind: weights[kind] * part.value for kind, part in parts.items() if weights.get(kind)}
             for disease, parts in prepared.parts.items()
             if disease == case.truth_node or diseases[disease].get("disease_id") == case.truth_disease_id]
    return {k: round(v, 4) for k, v in max(found, key=lambda p: sum(p.values())).items()} if found else None


def run_case(pipeline, baseline: PlainBaseline, case: DevCase, rule: str = WHOLE_PAPER) -> dict[str, Any]:
    started = time.perf_counter()
    hold_out = pipeline.hold_out(case.exclude_pmids, rule)
    prepared = pipeline.ranker.prepare(case.diagnosis_case(), hold_out)
    diagnosis = pipeline.ranker.finish(prepared)
    ranker_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    position, top = baseline_position(baseline, case, hold_out)
    baseline_ms = (time.perf_counter() - started) * 1000
    return {"set": case.set_name, "condition": case.condition, "split": case.split, "case": case.case_id,
            "truth": case.truth_name, "truth_id": case.truth_disease_id,
            # the ceilings: the knowledge (HPO and published patients, own paper held out), and HPO alone,
            # links the case's gene to its true disease
            "reachable": bool(case.gene) and case.truth_node in diagnosis.gene_diseases,
            "reachable_hpo": bool(case.gene) and case.truth_node in baseline.gene_filter(case.gene, hold_out),
            "ranker_rank": ranker_position(diagnosis.ranked, case),
            "ranker_group_rank": ranker_position(diagnosis.ranked, case, pipeline.ranker.groups.members),
            "ranker_top": diagnosis.answer.name if diagnosis.answer else None,
            "baseline_rank": position, "baseline_top": top,
            "ranker_ms": round(ranker_ms, 2), "baseline_ms": round(baseline_ms, 2),
            "confidence": diagnosis.confidence, "conflicts": sorted({c.kind for c in diagnosis.conflicts}),
            "features": confidence_features(diagnosis),
            "shape": case_shape(diagnosis), "truth_parts": truth_parts(pipeline.ranker, prepared, case)}


def retrying(run_one, *args, tries: int = TRIES):
    """`run_one(*args)`, tried again when a graph query ran past its time limit (a busy shared machine): thousands
    of cases should not fail for one slow query."""
    for attempt in range(1, tries + 1):
        try:
            return run_one(*args)
        except QueryTimeout:
            if attempt == tries:
                raise
            time.sleep(attempt)


def shares(items: list[dict[str, Any]], who: str, options: bool) -> dict[str, float | None]:
    ranks = [item[f"{who}_rank"] for item in items]
    def share(k: int) -> float | None:
        return round(sum(r is not None and r <= k for r in ranks) / len(ranks), 4) if ranks else None
    return {"top1": share(1), "top10": None if options else share(TOP_K)}


def _share(items: list[dict[str, Any]], key: str) -> float | None:
    """The share of cases with `key` true; None when no case names a gene (no ceiling to speak of)."""
    return round(sum(bool(item.get(key)) for item in items) / len(items), 4) if items else None


def cell(key: tuple[str, str, str], items: list[dict[str, Any]]) -> dict[str, Any]:
    options = key[1] == "four_options"
    omim = [item for item in items if (item["truth_id"] or "").startswith("OMIM:")]
    return {"set": key[0], "condition": key[1], "split": key[2], "n": len(items),
            "ranker": shares(items, "ranker", options), "baseline": shares(items, "baseline", options),
            # a group shown first counted right when the truth is one of its members
            "ranker_group": shares(items, "ranker_group", options),
            "ranker_latency_ms": percentiles(item["ranker_ms"] for item in items),
            "baseline_latency_ms": percentiles(item["baseline_ms"] for item in items),
            "conflicts": conflict_counts(items, lambda item: item["ranker_rank"] != 1),
            "ceiling": _share(items, "reachable"), "ceiling_hpo": _share(items, "reachable_hpo"),
            # the baseline knows OMIM diseases only: its fair comparison is on these cases
            "omim_truth": {"n": len(omim), "ranker": shares(omim, "ranker", options),
                           "baseline": shares(omim, "baseline", options)}}


def run(pipeline, *, sets: list[str], splits: list[str], limit: int | None = None, seed: int = 0,
        rules: tuple[str, ...] | list[str] = (WHOLE_PAPER,)) -> dict[str, Any]:
    """Every case of the sets under each hold-out rule; the first rule's figures are `cells`, `calibration`
    and `items`, the others' under `by_rule`, with where the figures moved (`drop`)."""
    cases, data = build_cases(pipeline, sets, seed)
    groups = select(cases, splits, limit)
    baseline = PlainBaseline.from_store(pipeline.store, pipeline.ontology, pipeline.profiles)
    order = [(s, c, sp) for s in sets for c in CONDITIONS[s] for sp in splits if (s, c, sp) in groups]
    items: dict[str, dict[tuple[str, str, str], list[dict[str, Any]]]] = {rule: {} for rule in rules}
    for key in order:
        for rule in rules:
            items[rule][key] = []
        for case in progress(groups[key], f"generalise {' '.join(key)}"):
            for rule in rules:
                items[rule][key].append(retrying(run_case, pipeline, baseline, case, rule))

    def figures(rule: str) -> dict[str, Any]:
        return {"cells": [cell(key, items[rule][key]) for key in order],
                "calibration": {split: calibration([i for key in order if key[2] == split for i in items[rule][key]])
                                for split in splits},
                "items": [item for key in order for item in items[rule][key]]}

    counts = pipeline.store.counts()
    out = {"sets": sets, "splits": splits, "limit": limit, "seed": seed, "hpo": hpo_provenance(pipeline.settings),
           "ner_model": pipeline.settings.ner_model, "baseline_candidates": len(baseline),
           "graph": {"nodes": counts["nodes"], "relationships": counts["relationships"]}, "data": data,
           "hold_out_rules": list(rules), **figures(rules[0])}
    if len(rules) > 1:
        out["by_rule"] = {rule: figures(rule) for rule in rules[1:]}
        out["drop"] = {rule: [rule_drop.explain(key, items[rule][key], items[rules[0]][key]) for key in order]
                       for rule in rules[1:]}
    return out


def summary(result: dict[str, Any]) -> str:
    def pct(value: float | None) -> str:
        return "–" if value is None else f"{value:.1%}"

    def row(c: dict[str, Any], figures: dict[str, Any]) -> str:
        return (f"| {c['set']} | {c['condition']} | {c['split']} | {figures['n']} | {pct(figures['ranker']['top1'])} "
                f"| {pct(figures['ranker']['top10'])} | {pct(figures['baseline']['top1'])} "
                f"| {pct(figures['baseline']['top10'])} |")

    header = ("| set | condition | split | n | ranker top-1 | ranker top-10 | baseline top-1 | baseline top-10 |",
              "|---|---|---|---:|---:|---:|---:|---:|")
    hpo, limit = result["hpo"], result["limit"]
    rules = result.get("hold_out_rules") or [WHOLE_PAPER]

    def cells_table(cells: list[dict[str, Any]]) -> list[str]:
        return [header[0] + " ceiling (HPO alone) | ranker p50 ms |", header[1] + "---:|---:|",
                *(row(c, c) + f" {_ceiling(c)} | {c['ranker_latency_ms'].get('p50', 0):.0f} |" for c in cells)]

    lines = [f"generalise: {', '.join(result['sets'])} on {', '.join(result['splits'])}"
             f"{f', at most {limit} cases per cell' if limit else ''}; HPO {hpo['hp_obo']}; "
             f"NER {result['ner_model'] or 'rules only'}; {RULE_NAMES[rules[0]]}", "", *cells_table(result["cells"])]
    for rule, figures in result.get("by_rule", {}).items():
        lines += ["", f"{RULE_NAMES[rule].capitalize()}:", "", *cells_table(figures["cells"]),
                  "", *rule_drop.markdown(result["drop"][rule], RULE_NAMES[rules[0]], RULE_NAMES[rule])]
    grouped = [c for c in result["cells"] if c.get("ranker_group") and c["ranker_group"] != c["ranker"]]
    if grouped:  # where a group shown first holds the truth among its members
        lines += ["", "With a group counted right when the truth is one of its members:", "",
                  "| set | condition | split | n | top-1 strict | top-1 group | top-10 strict | top-10 group |",
                  "|---|---|---|---:|---:|---:|---:|---:|"]
        lines += [f"| {c['set']} | {c['condition']} | {c['split']} | {c['n']} | {pct(c['ranker']['top1'])} "
                  f"| {pct(c['ranker_group']['top1'])} | {pct(c['ranker']['top10'])} "
                  f"| {pct(c['ranker_group']['top10'])} |" for c in grouped]
    partial = [c for c in result["cells"] if c["omim_truth"]["n"] != c["n"]]
    if partial:  # where some truths are Orphanet diseases, which the baseline cannot name
        lines += ["", "Cases whose truth is an OMIM disease (the only kind the baseline knows):", "", *header]
        lines += [row(c, c["omim_truth"]) for c in partial]
    named = [c for c in result["cells"] if c.get("conflicts", {}).get("answers")]
    if named:
        lines += ["", "Conflicts named (diagnosis/conflicts.py):", *(
            f"- {c['set']} {c['condition']} {c['split']}: {conflicts_line(c['conflicts'])}" for c in named)]
    for split, figures in result.get("calibration", {}).items():
        if figures:
            lines += ["", *reliability_markdown(f"Confidence of the top answer, {split}", figures)]
    return "\n".join(lines)


def _ceiling(cell: dict[str, Any]) -> str:
    """The share of cases whose gene the knowledge links to the truth (HPO's alone in brackets); – without a gene."""
    if not cell.get("ceiling_hpo") and not cell.get("ceiling"):
        return "–"
    return f"{cell['ceiling']:.1%} ({cell['ceiling_hpo']:.1%})"


# ---- command line ----------------------------------------------------------------------

def names_list(allowed: tuple[str, ...]):
    def parse(text: str) -> list[str]:
        chosen = [part.strip() for part in text.split(",") if part.strip()]
        unknown = [part for part in chosen if part not in allowed]
        if unknown or not chosen:
            raise argparse.ArgumentTypeError(f"choose from {', '.join(allowed)} (comma-separated), not {text!r}")
        return list(dict.fromkeys(chosen))
    return parse


def register(subparsers, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser("generalise", parents=[common], help="dev/test sets: the ranker and a baseline",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", type=names_list(tuple(CONDITIONS)),
                        help="default: all (phenopackets when its folder is there: PHENOPACKETS_DIR)")
    parser.add_argument("--splits", type=names_list(SPLITS), default=list(SPLITS))
    parser.add_argument("--limit", type=int, help="at most N cases per set, condition and split")
    parser.add_argument("--seed", type=int, default=0, help="the simulated patients' seed")
    add_rules_argument(parser)
    parser.set_defaults(handler=handle)


def add_rules_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hold-out-rules", type=names_list(RULES), default=[WHOLE_PAPER],
                        help="what holding a patient's paper out removes: whole-paper (its patients and HPO's lines "
                             "citing it alone; the default), patients (its patients only, as published benchmarks "
                             "count), or both, comma-separated (the first reported first)")


def handle(args: argparse.Namespace, context) -> tuple[str, dict[str, Any], str]:
    if args.limit is not None and args.limit < 1:
        raise BenchError(f"--limit must be at least 1, not {args.limit}")
    have_patients = (phenopackets_dir(context.settings) / phenopackets.CASES).is_file()
    sets = args.sets or [name for name in CONDITIONS if name != "phenopackets" or have_patients]
    result = run(context.pipeline, sets=sets, splits=args.splits, limit=args.limit, seed=args.seed,
                 rules=args.hold_out_rules)
    variant = variant_name("+".join(sets), "+".join(args.splits), args.limit and f"limit{args.limit}",
                           args.seed and f"seed{args.seed}",
                           args.hold_out_rules != [WHOLE_PAPER] and "rules-" + "+".join(args.hold_out_rules))
    return variant, result, summary(result)
