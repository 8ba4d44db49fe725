"""python -m bench question-devset: knowledge questions worded the way people write, from the HPO release.

    python -m bench question-devset [--out FILE] [--per-task N] [--seed S] [--split dev|test|all]
                                    [--set standard|fuzzy|orphanet|kinds]

The command over the sets: standard, fuzzy and orphanet (bench/question_devset.py, which says what each task
asks and how its references are made) and kinds (bench/question_kinds.py: inheritance, yes/no over groups and
members, both, in common, comparisons). It writes a CSV (task, question, reference, split) that
`python -m bench domain --questions FILE` reads.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from bench import question_devset
from bench.devsets import SPLITS
from bench.question_devset import SETS, describe, generate, write_csv
from bench.question_kinds import KIND_TASKS
from bench.results import results_dir, variant_name
from identity.mondo import Mondo
from kg_dump.build import mondo_folder
from kg_dump.hpo_layer import load_hpo_layer
from kg_dump.hpo_profiles import load_hpo_profiles
from kg_dump.sources import hpo_folder, hpo_provenance

TASK_SETS = {**SETS, "kinds": KIND_TASKS}


def register(subparsers, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser("question-devset", parents=[common],
                                   help="knowledge questions as people write them, from HPO (a CSV for domain)",
                                   description=question_devset.__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, help="the CSV to write (default: results/question_devset.csv)")
    parser.add_argument("--per-task", type=int, default=40, help="questions per task and split (default 40)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--split", choices=(*SPLITS, "all"), default="dev")
    parser.add_argument("--set", choices=tuple(TASK_SETS), default="standard", dest="question_set",
                        help="standard (the tasks above), fuzzy (features described, not named), orphanet "
                             "(diseases by the names only Orphanet gives them) or kinds (inheritance, yes/no over "
                             "groups and members, both, in common, comparisons: bench/question_kinds.py)")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, context) -> tuple[str, dict[str, Any], str]:
    settings = context.settings
    profiles = load_hpo_profiles(hpo_folder(settings), settings.cache_dir) if args.question_set == "kinds" else None
    rows = generate(load_hpo_layer(hpo_folder(settings), settings.cache_dir), per_task=args.per_task, seed=args.seed,
                    split=args.split, tasks=args.question_set, mondo=Mondo.load(mondo_folder(settings)),
                    profiles=profiles, task_sets=TASK_SETS)
    out = args.out or results_dir(args.results_dir) / "question_devset.csv"
    write_csv(rows, out)
    result = {"out": str(out), "split": args.split, "seed": args.seed, "per_task_asked": args.per_task,
              "hpo": hpo_provenance(settings), **describe(rows)}
    lines = [f"question-devset: {result['questions']} questions ({args.split}) in {out}; "
             f"{result['lower_share']:.0%} lower case, {result['typo_share']:.0%} with a typo; "
             f"HPO {result['hpo']['hp_obo']}"]
    lines += [f"  {task:<24} " + "  ".join(f"{split} {n}" for split, n in counts.items())
              for task, counts in result["per_task"].items()]
    name = variant_name(args.split, args.per_task, args.seed and f"seed{args.seed}",
                        args.question_set != "standard" and args.question_set)
    return name, result, "\n".join(lines)
