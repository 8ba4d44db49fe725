"""python -m bench domain: the paper's domain-knowledge questions (its Table 2), per task.

    python -m bench domain [--mode none|cypher|vector] [--backend grounded|local|endpoint]
                           [--questions FILE] [--limit N] [--no-semantic] [--json]

Reads `datasets/domain_qa.xlsx` (four sheets of 25: Question, Reference Answer, HPO
Reference URL), answers each question with `Pipeline.ask`, and scores the answer by
coverage of the reference's items and by a MiniLM BERTScore-style score (see
bench/coverage.py; not the paper's RoBERTa-large BERTScore). On the synonym task coverage
is not tolerant of synonyms: there the synonyms are what is asked for.

`--questions FILE` takes such a workbook, or a CSV with the columns task, question, reference
(`python -m bench question-devset` writes one): a list reference holds its items joined by " ; ".
Two of its tasks are scored right or wrong instead (coverage 1 or 0, no semantic score):
`yes_no` by the answer's first word ("Yes" / "Not recorded", or "No" for a reference "Not recorded"),
`count` by the reference number standing as a whole number in the answer's first sentence.
"""

from __future__ import annotations

import argparse
import csv
import re
import statistics
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.coverage import SEMANTIC_NOTE, AliasIndex, TokenScorer, coverage, reference_items
from bench.results import variant_name
from bench.runtime import DOMAIN_QA, dataset, percentiles, progress
from fpkg.errors import BenchError
from retrieval.cypher.mode import LLM_QUERY_OUTCOMES
from retrieval.retriever import MODES

COVERAGE_TARGET = 0.95
MISSING_SHOWN = 25
CSV_COLUMNS = ("task", "question", "reference")


@dataclass(frozen=True)
class DomainQuestion:
    task: str
    index: int
    question: str
    reference: str
    url: str = ""
    items: tuple[str, ...] = ()  # a CSV's list items; the workbook's prose is split by the graph's vocabulary

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


def read_questions(path: Path, limit: int | None = None) -> list[DomainQuestion]:
    """A question CSV or workbook, by its suffix; `limit` keeps the first N questions of each task."""
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return read_question_csv(path, limit)
    if suffix == ".xlsx":
        return read_domain(path, limit)
    raise BenchError(f"{path.name}: domain questions come in a .csv or .xlsx file, not {suffix or 'no suffix'}")


def read_question_csv(path: Path, limit: int | None = None) -> list[DomainQuestion]:
    """Rows of task, question, reference (other columns, such as split, are ignored)."""
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        missing = [c for c in CSV_COLUMNS if c not in (reader.fieldnames or ())]
        if missing:
            raise BenchError(f"{path.name} lacks the column(s) {', '.join(missing)}")
        rows = [{c: (row[c] or "").strip() for c in CSV_COLUMNS} for row in reader]
    questions, seen = [], Counter()
    for row in rows:
        if not (row["task"] and row["question"] and row["reference"]):
            continue
        index = seen[row["task"]]
        seen[row["task"]] += 1
        if limit is None or index < limit:
            questions.append(DomainQuestion(row["task"], index, row["question"], row["reference"],
                                            items=csv_items(row["reference"])))
    return questions


def csv_items(reference: str) -> tuple[str, ...]:
    """A CSV reference's items: split at semicolons (written " ; "; the spaces may be missing). No
    splitting at commas: HPO names hold them ("Cutis laxa, autosomal recessive, type IIA")."""
    return tuple(item.strip() for item in reference.split(";") if item.strip())


def first_word(text: str) -> str:
    words = re.findall(r"\w+", text.casefold())
    return words[0] if words else ""


def yes_no_right(answer: str, reference: str) -> bool:
    """The answer starts with the reference's first word: "yes" for Yes, "not" for Not recorded; "no" too for
    Not recorded (a gene and a disease whose genes the graph records: "No: classic Crouzon syndrome is FGFR2
    …"); "no" for a reference No."""
    said, meant = first_word(answer), first_word(reference)
    return said != "" and (said == meant or (said == "no" and meant == "not"))


def count_right(answer: str, reference: str) -> bool:
    """The reference number stands as a whole number in the answer's first sentence (not inside
    "12", "1.5" or "FGFR2")."""
    first_sentence = re.split(r"(?<=[.!?])\s+|\n", answer.strip(), maxsplit=1)[0]
    return re.search(rf"(?<![\w.]){re.escape(reference.strip())}(?!\w|[.,]\d)", first_sentence) is not None


# Tasks whose answer is right or wrong, not a list to cover.
EXACT_SCORES = {"yes_no": yes_no_right, "yes_no_group": yes_no_right, "count": count_right}


def score_answer(question: DomainQuestion, answer: str, aliases: AliasIndex) -> dict[str, Any]:
    """Coverage of the reference's items; for a right-or-wrong task, the one item is the reference."""
    right_answer = EXACT_SCORES.get(question.task)
    if right_answer is not None:
        right = right_answer(answer, question.reference)
        return {"coverage": float(right), "items": 1, "named": int(right),
                "missing": [] if right else [question.reference], "missing_not_in_graph": []}
    items = list(question.items) or reference_items(question.reference, aliases.vocabulary)
    return coverage(items, answer, aliases, synonyms=not question.asks_synonyms)


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
        # a failed LLM's fallback is the graph's answer, not the LLM's: the LLM answered nothing
        answer = "" if result.llm_failed else result.answer
        covered = score_answer(q, answer, aliases)
        item = {"task": q.task, "index": q.index, "question": q.question, "latency_ms": round(latency, 2),
                "answer_chars": len(result.answer), "llm_failed": result.llm_failed, "llm_query": result.llm_query,
                **covered}
        item["missing"] = covered["missing"][:MISSING_SHOWN]
        if scorer is not None and q.task not in EXACT_SCORES:
            item["semantic"] = scorer.score(answer, q.reference)
        items.append(item)
    out = {"mode": mode, "backend": backend or pipeline.settings.llm_backend, "coverage_target": COVERAGE_TARGET,
           "tasks": per_task(items), "latency_ms": percentiles(i["latency_ms"] for i in items),
           "llm_failures": sum(bool(i["llm_failed"]) for i in items), "items": items}
    outcomes = Counter(i["llm_query"] for i in items if i["llm_query"])
    if outcomes:  # text-to-Cypher: what became of the LLM's own query (the templates answered otherwise)
        out["llm_queries"] = {outcome: outcomes[outcome] for outcome in LLM_QUERY_OUTCOMES if outcomes[outcome]}
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
        if task in EXACT_SCORES:
            summary["scoring"] = "right or wrong: coverage is the share of right answers"
        tasks[task] = summary
    return tasks


def summary(result: dict[str, Any]) -> str:
    lines = [f"domain questions: mode {result['mode']}, backend {result['backend']} "
             f"(coverage target {result['coverage_target']:.0%} per task)"]
    for task, part in result["tasks"].items():
        semantic = f"  semantic F1 {part['semantic_f1']:.3f}" if "semantic_f1" in part else ""
        measure = f"right {part['coverage']:.1%}" if "scoring" in part else \
            f"coverage {part['coverage']:.1%} (min {part['coverage_min']:.0%})"
        lines.append(f"  {task:<32} n={part['n']:<3} {measure}{semantic}")
        for low in part["below_target"][:5]:
            lines.append(f"      {low['coverage']:.0%} {low['question']} missing: {', '.join(low['missing'][:6])}")
    if result.get("llm_failures"):
        lines.append(f"  {result['llm_failures']} LLM failure(s): scored as answering nothing (the app showed "
                     "the grounded answer)")
    if result.get("llm_queries"):
        lines.append("  the LLM's Cypher: " + ", ".join(f"{k} {v}" for k, v in result["llm_queries"].items()))
    if "semantic_note" in result:
        lines.append(f"  {result['semantic_note']}")
    return "\n".join(lines)


def register(subparsers, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser("domain", parents=[common], help="domain questions: coverage, semantic score",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", choices=MODES, default="cypher")
    parser.add_argument("--backend", choices=("grounded", "local", "endpoint"), help="default: LLM_BACKEND")
    parser.add_argument("--questions", type=Path, help=f"an xlsx workbook or a CSV of task, question, reference "
                                                       f"(default: the data folder's {DOMAIN_QA})")
    parser.add_argument("--limit", type=int, help="only the first N questions of each task")
    parser.add_argument("--no-semantic", action="store_true", help="coverage only (skips MiniLM)")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, context) -> tuple[str, dict[str, Any], str]:
    path = args.questions or dataset(context.settings, DOMAIN_QA)
    questions = read_questions(path, args.limit)  # before the pipeline starts: a bad file fails at once
    result = run(context.pipeline, questions, mode=args.mode, backend=args.backend, semantic=not args.no_semantic)
    result["questions"] = path.stem
    # another file's run must not replace the paper workbook's (nor count for its targets in the report)
    variant = variant_name(args.questions and path.stem, args.mode, result["backend"],
                           args.limit and f"limit{args.limit}")
    return variant, result, summary(result)
