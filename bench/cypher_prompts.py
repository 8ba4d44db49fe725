"""python -m bench cypher-prompts: the text-to-Cypher prompt study for an LLM backend.

    python -m bench cypher-prompts [--backend local|endpoint] [--questions FILE] [--limit N]
                                   [--shots 0,1,3,5] [--no-schema-variants]

Each question goes to the LLM alone, without the intent templates behind it: zero-shot and with
1, 3 or 5 (question, Cypher) examples, with and without the graph schema in the prompt. Per
variant: what became of the LLM's query (as written, repaired by the checker or a repair round,
ran but found nothing, rejected, no query), the valid-query rate (it ran), and the coverage of
the reference by what the query returned. The examples name no evaluation item
(`retrieval/cypher/mode.py`). Questions default to the paper's domain QA; tune on a development
set (`python -m bench question-devset --split dev`), not on it.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench.coverage import AliasIndex
from bench.domain import read_questions, score_answer
from bench.results import variant_name
from bench.runtime import DOMAIN_QA, dataset, percentiles, progress
from fpkg.errors import BenchError
from llm.grounded import write_facts
from retrieval.cypher.mode import EXAMPLES, LLM_QUERY_OUTCOMES

VALID = ("as_written", "repaired", "empty")  # the query ran


def run(pipeline, questions, *, backend: str | None, shots: list[int], schema_variants: bool) -> dict[str, Any]:
    generator = pipeline.generator(backend)
    if not generator.is_llm:
        raise BenchError(f"cypher-prompts needs an LLM backend (local or endpoint), not {generator.name}")
    retriever = pipeline.retriever("cypher")
    aliases = AliasIndex(pipeline.linker)
    variants = []
    for with_schema in (True, False) if schema_variants else (True,):
        for count in shots:
            items = []
            for q in progress(questions, f"cypher-prompts {count}-shot{'' if with_schema else ' no schema'}"):
                started = time.perf_counter()
                result = retriever.query_by_llm(q.question, generator, shots=count, with_schema=with_schema)
                latency = (time.perf_counter() - started) * 1000
                covered = score_answer(q, write_facts(result.triples) if result.triples else "", aliases)
                items.append({"task": q.task, "question": q.question, "outcome": result.llm_query,
                              "coverage": covered["coverage"], "latency_ms": round(latency, 1),
                              "queries": [run.query for run in result.cypher]})
            variants.append(summarise(count, with_schema, items))
    return {"backend": generator.name, "model": pipeline.settings.llm_model, "n": len(questions),
            "variants": variants}


def summarise(shots: int, with_schema: bool, items: list[dict[str, Any]]) -> dict[str, Any]:
    outcomes = Counter(i["outcome"] for i in items)
    return {"shots": shots, "schema": with_schema, "n": len(items),
            "outcomes": {o: outcomes[o] for o in LLM_QUERY_OUTCOMES},
            "valid_rate": round(sum(outcomes[o] for o in VALID) / len(items), 4) if items else None,
            "coverage": round(statistics.fmean(i["coverage"] for i in items), 4) if items else None,
            "latency_ms": percentiles(i["latency_ms"] for i in items), "items": items}


def summary(result: dict[str, Any]) -> str:
    lines = [f"text-to-Cypher prompts: backend {result['backend']}, {result['n']} questions, the LLM's query alone",
             f"  {'examples':<9} {'schema':<7} {'valid':>6} {'coverage':>9}   " + " ".join(LLM_QUERY_OUTCOMES)]
    for v in result["variants"]:
        counts = " ".join(f"{v['outcomes'][o]:>{len(o)}}" for o in LLM_QUERY_OUTCOMES)
        lines.append(f"  {v['shots']:<9} {'yes' if v['schema'] else 'no':<7} {v['valid_rate']:>6.0%} "
                     f"{v['coverage']:>9.1%}   {counts}")
    return "\n".join(lines)


def register(subparsers, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser("cypher-prompts", parents=[common], description=__doc__,
                                   help="text-to-Cypher prompt study: 0/1/3/5 examples, with and without schema",
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", choices=("local", "endpoint"), help="default: LLM_BACKEND")
    parser.add_argument("--questions", type=Path, help=f"xlsx or CSV of task, question, reference (default: "
                                                       f"the data folder's {DOMAIN_QA})")
    parser.add_argument("--limit", type=int, help="only the first N questions of each task")
    parser.add_argument("--shots", default="0,1,3,5", help=f"example counts to compare (at most {len(EXAMPLES)})")
    parser.add_argument("--no-schema-variants", action="store_true", help="only prompts with the schema")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, context) -> tuple[str, dict[str, Any], str]:
    try:
        shots = [int(n) for n in args.shots.split(",")]
    except ValueError:
        raise BenchError(f"--shots takes whole numbers separated by commas, not {args.shots!r}") from None
    if any(n < 0 or n > len(EXAMPLES) for n in shots):
        raise BenchError(f"--shots must be between 0 and {len(EXAMPLES)} (the examples there are)")
    path = args.questions or dataset(context.settings, DOMAIN_QA)
    questions = read_questions(path, args.limit)
    result = run(context.pipeline, questions, backend=args.backend, shots=shots,
                 schema_variants=not args.no_schema_variants)
    result["questions"] = path.stem
    variant = variant_name(args.questions and path.stem, result["backend"], args.limit and f"limit{args.limit}")
    return variant, result, summary(result)
