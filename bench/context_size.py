"""python -m bench context-size: how much graph evidence an LLM should be given.

    python -m bench context-size [--backend local|endpoint] [--chars 750,1500,3000,6000]
                                 [--mode cypher|vector] [--questions FILE.csv ...] [--limit N]

The diagnosis benchmark at each evidence budget (characters of numbered evidence lines, best
first; the app gives 6,000, about 1,500 tokens): top-1 accuracy, LLM failures and latency per
budget. Too little evidence drops the answer's support, too much buries it or overflows a small
model's context. Defaults to the Publication set with and without options.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from bench.diagnosis import run
from bench.repeat import question_set
from bench.results import variant_name
from fpkg.errors import BenchError

BUDGETS = (750, 1500, 3000, 6000)


def study(pipeline, questions, *, budgets: tuple[int, ...], mode: str, backend: str | None) -> dict[str, Any]:
    generator = pipeline.generator(backend)
    if not generator.is_llm:
        raise BenchError(f"context-size needs an LLM backend (local or endpoint), not {generator.name}")
    rows, default = [], pipeline.evidence_chars
    try:
        for budget in budgets:
            pipeline.evidence_chars = budget
            out = run(pipeline, questions, mode=mode, backend=backend, source=f"{budget} chars")
            accuracy = out["accuracy"]
            rows.append({"chars": budget, "n": accuracy["n"], "top1_linked": accuracy["top1_linked"],
                         "selective_top1": accuracy["selective"]["top1_linked"],
                         "open_top1": accuracy["non_selective"]["top1_linked"],
                         "llm_failures": accuracy["llm_failures"], "latency_ms": out["latency_ms"]})
    finally:
        pipeline.evidence_chars = default
    return {"backend": generator.name, "model": pipeline.settings.llm_model, "mode": mode, "budgets": rows}


def summary(result: dict[str, Any]) -> str:
    lines = [f"context size: backend {result['backend']}, mode {result['mode']}",
             f"  {'chars':>6} {'n':>4} {'top-1':>7} {'selective':>10} {'open':>7} {'failures':>9} {'p50 s':>7}"]
    for row in result["budgets"]:
        lines.append(f"  {row['chars']:>6} {row['n']:>4} {share(row['top1_linked']):>7} "
                     f"{share(row['selective_top1']):>10} {share(row['open_top1']):>7} {row['llm_failures']:>9} "
                     f"{row['latency_ms'].get('p50', 0) / 1000:>7.1f}")
    return "\n".join(lines)


def share(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def register(subparsers, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser("context-size", parents=[common], description=__doc__,
                                   help="diagnosis accuracy of an LLM at several evidence budgets",
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", choices=("local", "endpoint"), help="default: LLM_BACKEND")
    parser.add_argument("--mode", choices=("cypher", "vector"), default="cypher")
    parser.add_argument("--chars", default=",".join(map(str, BUDGETS)), help="evidence budgets, comma-separated")
    parser.add_argument("--questions", type=Path, action="append", help="a CSV file, may repeat")
    parser.add_argument("--limit", type=int, help="only the first N questions of each file")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, context) -> tuple[str, dict[str, Any], str]:
    try:
        budgets = tuple(int(n) for n in args.chars.split(","))
    except ValueError:
        raise BenchError(f"--chars takes whole numbers separated by commas, not {args.chars!r}") from None
    if any(n < 100 for n in budgets):
        raise BenchError("--chars budgets must be at least 100 characters")
    questions = question_set(context, args.questions, args.limit)
    result = study(context.pipeline, questions, budgets=budgets, mode=args.mode, backend=args.backend)
    variant = variant_name(result["backend"], args.mode, args.limit and f"limit{args.limit}")
    return variant, result, summary(result)
