"""python -m bench domain: the paper's domain-knowledge questions (its Table 2), per task.

    python -m bench domain [--mode none|cypher|vector] [--backend grounded|local|endpoint]
                           [--limit N] [--no-semantic] [--json]

Reads `datasets/domain_qa.xlsx` (four sheets of 25: Question, Reference Answer, HPO
Reference URL), answers each question with `Pipeline.ask`, and scores the answer by
coverage of the reference's items and by a MiniLM BERTScore-style score (see
bench/coverage.py; not the paper's RoBERTa-large BERTScore). On the synonym task coverage
is not tolerant of synonyms: there the synonyms are what is asked for.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.coverage import SEMANTIC_NOTE, AliasIndex, TokenScorer, coverage, reference_items
from bench.results import variant_name
from bench.runtime import DOMAIN_QA, dataset, percentiles, progress
from fpkg.errors import BenchError
from retrieval.retriever import MODES

COVERAGE_TARGET = 0.95
MISSING_SHOWN = 25


@dataclass(frozen=True)
class DomainQuestion:
    task: str
    index: int
    question: str
    reference: str
    url: str = ""

    @property
    def asks_synonyms(self) -> bool:
        return "synonym" in self.task.lower()


def read_domain(path: Path, limit: int | None = None) -> list[DomainQuestion]:
    """Every sheet of the workbook is a task; `limit` keeps the first N questions of each."""
    import pandas as pd

    questions = []
    for task, sheet in pd.read_excel(path, sheet_name=None).items():
        missing = [c for c in ("Question", "Reference Answer") if c not in sheet.columns]
        if missing:
            raise BenchError(f"{path.name}, sheet {task!r}, lacks the column(s) {', '.join(missing)}")
        sheet = sheet.dropna(subset=["Question", "Reference Answer"]).fillna("")
        urls = sheet["HPO Reference URL"] if "HPO Reference URL" in sheet.columns else [""] * len(sheet)
        rows = zip(sheet["Question"], sheet["Reference Answer"], urls, strict=True)
        for i, (question, reference, url) in enumerate(rows):
            if limit is not None and i >= limit:
                break
            questions.append(DomainQuestion(task.strip(), i, str(question).strip(), str(reference).strip(),
                                            str(url).strip()))
    return questions


def run(pipeline, questions: list[DomainQuestion], *, mode: str = "cypher", backend: str | None = None,
        semantic: bool = True, temperature: float = 0.0, seed: int = 0,
        scorer: TokenScorer | None = None, aliases: AliasIndex | None = None) -> dict[str, Any]:
    aliases = aliases or AliasIndex(pipeline.linker)
    scorer = scorer or (TokenScorer() if semantic else None)
    items = []
    for q in progress(questions, f"domain {mode}"):
        started = time.perf_counter()
        result = pipeline.ask(q.question, mode=mode, backend=backend, temperature=temperature, seed=seed)
        latency = (time.perf_counter() - started) * 1000
        covered = coverage(reference_items(q.reference, aliases.vocabulary), result.answer, aliases,
                           synonyms=not q.asks_synonyms)
        item = {"task": q.task, "index": q.index, "question": q.question, "latency_ms": round(latency, 2),
                "answer_chars": len(result.answer), **covered}
        item["missing"] = covered["missing"][:MISSING_SHOWN]
        if scorer is not None:
            item["semantic"] = scorer.score(result.answer, q.reference)
        items.append(item)
    out = {"mode": mode, "backend": backend or pipeline.settings.llm_backend, "coverage_target": COVERAGE_TARGET,
           "tasks": per_task(items), "latency_ms": percentiles(i["latency_ms"] for i in items), "items": items}
    if scorer is not None:
        out["semantic_note"] = SEMANTIC_NOTE
    return out


def per_task(items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    tasks: dict[str, dict[str, Any]] = {}
    for task in dict.fromkeys(i["task"] for i in items):
        group = [i for i in items if i["task"] == task and i["coverage"] is not None]
        if not group:
            continue
        shares = [i["coverage"] for i in group]
        summary = {"n": len(group), "coverage": round(statistics.fmean(shares), 4), "coverage_min": min(shares),
                   "coverage_micro": round(sum(i["named"] for i in group) / sum(i["items"] for i in group), 4),
                   "meets_target": statistics.fmean(shares) >= COVERAGE_TARGET,
                   "below_target": [{"index": i["index"], "question": i["question"], "coverage": i["coverage"],
                                     "missing": i["missing"]} for i in group if i["coverage"] < COVERAGE_TARGET]}
        scored = [i["semantic"]["f1"] for i in group if "semantic" in i]
        if scored:
            summary["semantic_f1"] = round(statistics.fmean(scored), 4)
        tasks[task] = summary
    return tasks


def summary(result: dict[str, Any]) -> str:
    lines = [f"domain questions: mode {result['mode']}, backend {result['backend']} "
             f"(coverage target {result['coverage_target']:.0%} per task)"]
    for task, part in result["tasks"].items():
        semantic = f"  semantic F1 {part['semantic_f1']:.3f}" if "semantic_f1" in part else ""
        lines.append(f"  {task:<32} n={part['n']:<3} coverage {part['coverage']:.1%} "
                     f"(min {part['coverage_min']:.0%}){semantic}")
        for low in part["below_target"][:5]:
            lines.append(f"      {low['coverage']:.0%} {low['question']} missing: {', '.join(low['missing'][:6])}")
    if "semantic_note" in result:
        lines.append(f"  {result['semantic_note']}")
    return "\n".join(lines)


def register(subparsers, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser("domain", parents=[common], help="domain questions: coverage, semantic score",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", choices=MODES, default="cypher")
    parser.add_argument("--backend", choices=("grounded", "local", "endpoint"), help="default: LLM_BACKEND")
    parser.add_argument("--questions", type=Path, help=f"an xlsx workbook (default: the data folder's {DOMAIN_QA})")
    parser.add_argument("--limit", type=int, help="only the first N questions of each task")
    parser.add_argument("--no-semantic", action="store_true", help="coverage only (skips MiniLM)")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, context) -> tuple[str, dict[str, Any], str]:
    path = args.questions or dataset(context.settings, DOMAIN_QA)
    result = run(context.pipeline, read_domain(path, args.limit), mode=args.mode, backend=args.backend,
                 semantic=not args.no_semantic)
    variant = variant_name(args.mode, result["backend"], args.limit and f"limit{args.limit}")
    return variant, result, summary(result)
