"""python -m bench diagnosis: the differential's accuracy on any question file.

    python -m bench diagnosis [--questions FILE.csv] [--mode cypher|vector|none]
                              [--backend grounded|local|endpoint] [--hold-out-case [--hold-out-rule R]]
                              [--limit N] [--json]

The file needs `Patient_question` and `True_answer` columns (others are ignored; the
Publication set is the default). A question with "Choose from the following options:"
and lettered options is selective, else non-selective. A prediction is right *strictly*
when its normalised name equals the true answer's, and *linked* when it is, or when both
link to the same disease node (options and answers are linked as the ranker links options).
`--hold-out-case` drops the question's paper (`pmid` column) from the evidence: the whole paper (its
patients and HPO's annotation lines citing it alone), or with `--hold-out-rule patients` its published
patients only, as published benchmarks on phenopacket-store count (retrieval/hold_out.py).
"""

from __future__ import annotations

import argparse
import csv
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.answer_marks import MarkAudit, answer_marks, marks_line, marks_summary
from bench.devsets import SPLITS, split_of
from bench.results import variant_name
from bench.runtime import PUBLICATION, percentiles, progress, question_file
from fpkg.errors import BenchError, InputError
from fpkg.names import normalise, without_abbreviation
from llm.factory import known_backends
from retrieval.hold_out import RULE_NAMES, RULES, WHOLE_PAPER
from retrieval.options import link_option, split_question
from retrieval.retriever import MODES

REQUIRED_COLUMNS = ("Patient_question", "True_answer")
TOP_K = 10
BACKENDS = known_backends()


@dataclass(frozen=True)
class Question:
    index: int
    text: str
    true_answer: str
    pmid: int | None = None


def read_questions(path: Path, *, need_pmid: bool = False, limit: int | None = None,
                   split: str | None = None) -> list[Question]:
    """The questions of a CSV file; a clear BenchError when a needed column or value is missing.
    `split` (dev or test): only the questions whose disease (`omim_id` column) falls in it."""
    if not path.is_file():
        raise BenchError(f"no question file at {path}")
    with open(path, encoding="utf-8-sig", newline="") as f:
        reader = csv.DictReader(f)
        columns = reader.fieldnames or []
        missing = [c for c in REQUIRED_COLUMNS if c not in columns]
        if missing:
            raise BenchError(f"{path.name} lacks the column(s) {', '.join(missing)} (it has: {', '.join(columns)})")
        if split and "omim_id" not in columns:
            raise BenchError(f"--split needs an omim_id column naming each question's disease; "
                             f"{path.name} has only: {', '.join(columns)}")
        if need_pmid and "pmid" not in columns:
            raise BenchError(f"--hold-out-case needs a pmid column naming each question's paper; "
                             f"{path.name} has only: {', '.join(columns)}")
        questions = []
        for index, row in enumerate(reader):
            if limit is not None and len(questions) >= limit:
                break
            if split and split_of(row["omim_id"].strip()) != split:
                continue
            questions.append(Question(index, row["Patient_question"], row["True_answer"].strip(),
                                      _pmid(row.get("pmid"), index, path.name, need_pmid)))
    if not questions:
        raise BenchError(f"{path.name} holds no questions")
    return questions


def _pmid(value: str | None, index: int, name: str, needed: bool) -> int | None:
    text = (value or "").strip()
    if not text:
        if needed:
            raise BenchError(f"{name}, question {index}: --hold-out-case needs a pmid, the cell is empty")
        return None
    try:
        return int(float(text))
    except ValueError:
        raise BenchError(f"{name}, question {index}: pmid {text!r} is not a number") from None


class Judge:
    """Strict and linked correctness; each name's disease link is looked up once."""

    def __init__(self, linker):
        self.linker = linker
        self._nodes: dict[str, int | None] = {}

    def node_of(self, name: str) -> int | None:
        if name not in self._nodes:
            self._nodes[name] = link_option(name, self.linker).node_id if name.strip() else None
        return self._nodes[name]

    def judge(self, predicted, true_answer: str) -> tuple[bool, bool]:
        if predicted is None:
            return False, False
        # a member shown with its group (diagnosis/groups.py) names the group too
        names = {normalise(predicted.name), normalise(without_abbreviation(predicted.group or ""))}
        strict = normalise(true_answer) in names
        node = predicted.node_id if predicted.node_id is not None else self.node_of(predicted.name)
        truth = self.node_of(true_answer)
        return strict, strict or (truth is not None and truth in (node, predicted.group_node))


def diagnose_one(pipeline, question: Question, *, mode: str, backend: str | None, temperature: float = 0.0,
                 seed: int = 0, hold_out: bool = False, rule: str = WHOLE_PAPER):
    """`Pipeline.diagnose_question`, optionally without the question's own paper (held out by `rule`):
    (result, timings_ms)."""
    started = time.perf_counter()
    exclude = frozenset({question.pmid}) if hold_out and question.pmid is not None else frozenset()
    result = pipeline.diagnose_question(question.text, mode=mode, backend=backend, temperature=temperature,
                                        seed=seed, exclude_pmids=exclude, hold_out_rule=rule)
    return result, {**result.timings_ms, "total": round((time.perf_counter() - started) * 1000, 2)}


def score_item(judge: Judge, question: Question, result, timings: dict[str, float],
               audit: MarkAudit | None = None) -> dict[str, Any]:
    predictions = result.predictions()[:TOP_K]
    judged = [judge.judge(p, question.true_answer) for p in predictions]
    top1 = judged[0] if judged and result.predicted is not None else (False, False)
    # the answer of record, once the LLM's answer is checked (service/answer_check.py): its choice, or the graph's
    record = judge.judge(result.record, question.true_answer)
    return {"index": question.index, "true_answer": question.true_answer, "selective": result.selective,
            "predicted": [{"name": p.name, "id": p.disease_id, "score": p.score} for p in predictions],
            "top1_strict": top1[0], "top1_linked": top1[1],
            "top10_strict": any(s for s, _ in judged), "top10_linked": any(lk for _, lk in judged),
            "record": result.record.name if result.record else None, "record_linked": record[1],
            "timings_ms": timings, "notices": result.notices, "llm_failed": result.llm_failed,
            "conflicts": sorted({c.kind for c in result.conflicts}),
            "reply": result.llm_answer, "marks": answer_marks(result, audit) if audit else None}


def refused_item(question: Question, reason: str) -> dict[str, Any]:
    return {"index": question.index, "true_answer": question.true_answer, "selective": bool(
        split_question(question.text)[1]), "predicted": [], **dict.fromkeys(METRICS, False), "timings_ms": {},
            "notices": [], "error": reason}


METRICS = ("top1_strict", "top1_linked", "top10_strict", "top10_linked")


def conflict_counts(items: list[dict[str, Any]], wrong: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """How many answers named a conflict (diagnosis/conflicts.py), by kind, and among the wrong ones."""
    named = [i for i in items if i.get("conflicts")]
    return {"answers": len(named), "by_kind": dict(sorted(Counter(k for i in named for k in i["conflicts"]).items())),
            "wrong": sum(wrong(i) for i in items), "wrong_with_conflict": sum(wrong(i) for i in named)}


def conflicts_line(counts: dict[str, Any]) -> str:
    kinds = ", ".join(f"{kind} {n}" for kind, n in counts["by_kind"].items()) or "none"
    return (f"conflicts named in {counts['answers']} answer(s) ({kinds}); in {counts['wrong_with_conflict']} of the "
            f"{counts['wrong']} wrong top-1 answers")


def accuracy(items: list[dict[str, Any]]) -> dict[str, Any]:
    """Shares of right answers, overall and for selective / non-selective questions apart."""
    def shares(subset: list[dict[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {"n": len(subset)}
        out.update({m: round(sum(i[m] for i in subset) / len(subset), 4) if subset else None for m in METRICS})
        return out

    out = shares(items)
    out["record_linked"] = round(sum(bool(i.get("record_linked")) for i in items) / len(items), 4) if items else None
    # answers the LLM did not give (it failed, or its reply named nothing): counted wrong, shown here
    out["llm_failures"] = sum(bool(i.get("llm_failed")) for i in items)
    out["selective"] = shares([i for i in items if i["selective"]])
    out["non_selective"] = shares([i for i in items if not i["selective"]])
    return out


def run(pipeline, questions: list[Question], *, mode: str = "cypher", backend: str | None = None,
        hold_out: bool = False, temperature: float = 0.0, seed: int = 0, source: str = "",
        rule: str = WHOLE_PAPER) -> dict[str, Any]:
    judge = Judge(pipeline.linker)
    audit = MarkAudit(pipeline)
    items = []
    for question in progress(questions, f"diagnosis {source} {mode}{f' held out ({rule})' if hold_out else ''}"):
        try:
            result, timings = diagnose_one(pipeline, question, mode=mode, backend=backend, temperature=temperature,
                                           seed=seed, hold_out=hold_out, rule=rule)
        except InputError as e:  # a question the app refuses counts as unanswered, and says why
            items.append(refused_item(question, str(e)))
            continue
        items.append(score_item(judge, question, result, timings, audit))
    backend_name = backend or pipeline.settings.llm_backend
    out = {"questions": source, "mode": mode, "backend": backend_name, "hold_out_case": hold_out,
           "hold_out_rule": rule if hold_out else None, "temperature": temperature, "accuracy": accuracy(items),
           "latency_ms": percentiles(i["timings_ms"]["total"] for i in items if i["timings_ms"]),
           "refused": sum("error" in i for i in items),
           "conflicts": conflict_counts(items, lambda i: not i["top1_linked"]), "marks": marks_summary(items),
           "items": items}
    if mode == "none" and backend_name == "grounded":
        out["note"] = ("mode 'none' with the grounded backend answers nothing (no retrieval, no LLM): "
                       "it is the paper's vanilla baseline only with an LLM backend")
    return out


def summary(result: dict[str, Any]) -> str:
    acc = result["accuracy"]
    lines = [f"{result['questions']}: mode {result['mode']}, backend {result['backend']}"
             f"{', ' + RULE_NAMES[result.get('hold_out_rule') or WHOLE_PAPER] if result['hold_out_case'] else ''}; "
             f"{acc['n']} questions"]
    for kind in ("selective", "non_selective"):
        part = acc[kind]
        if part["n"]:
            lines.append(f"  {kind:<14} n={part['n']:<4} top-1 strict {part['top1_strict']:.1%}  "
                         f"linked {part['top1_linked']:.1%}   top-10 strict {part['top10_strict']:.1%}  "
                         f"linked {part['top10_linked']:.1%}")
    latency = result["latency_ms"]
    if latency["n"]:
        lines.append(f"  latency per question: p50 {latency['p50']:.0f} ms, p95 {latency['p95']:.0f} ms")
    if result.get("conflicts", {}).get("answers"):
        lines.append(f"  {conflicts_line(result['conflicts'])}")
    if result.get("marks", {}).get("answers"):
        lines.append(f"  the answer of record (the LLM's checked): top-1 linked {acc['record_linked']:.1%}; "
                     f"{marks_line(result['marks'])}")
    if result["refused"]:
        lines.append(f"  {result['refused']} question(s) refused by the app's input checks (counted wrong)")
    if acc["llm_failures"]:
        lines.append(f"  {acc['llm_failures']} LLM failure(s): no usable answer from the LLM (counted wrong; "
                     "the app showed the grounded answer)")
    if "note" in result:
        lines.append(f"  note: {result['note']}")
    return "\n".join(lines)


# ---- command line ----------------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--questions", type=Path,
                        help=f"a CSV file, or a file name in the data folder's datasets/ (default: {PUBLICATION})")
    parser.add_argument("--mode", choices=MODES, default="cypher")
    parser.add_argument("--backend", choices=BACKENDS, help="default: LLM_BACKEND")
    parser.add_argument("--hold-out-case", action="store_true",
                        help="drop the question's own paper (pmid column) from the evidence")
    add_rule_argument(parser)
    parser.add_argument("--limit", type=int, help="only the first N questions")
    parser.add_argument("--split", choices=SPLITS,
                        help="only the questions whose disease (omim_id column) falls in this split (bench/devsets.py)")
    parser.add_argument("--temperature", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-new-tokens", type=int,
                        help="cap an LLM's diagnosis reply (default: the app's, service/pipeline.py)")


def add_rule_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hold-out-rule", choices=RULES, default=WHOLE_PAPER,
                        help="what holding a case's paper out removes: the whole paper (its published patients and "
                             "HPO's annotation lines citing it alone; the default) or its patients only (as published "
                             "benchmarks on phenopacket-store count)")


def rule_variant(rule: str) -> str | None:
    """A results file's variant part for the hold-out rule: none for the default."""
    return None if rule == WHOLE_PAPER else f"rule-{rule}"


def register(subparsers, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser("diagnosis", parents=[common], help="accuracy of the differential diagnosis",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, context) -> tuple[str, dict[str, Any], str]:
    path = question_file(context.settings, args.questions, PUBLICATION)
    questions = read_questions(path, need_pmid=args.hold_out_case, limit=args.limit, split=args.split)
    if getattr(args, "max_new_tokens", None):
        context.pipeline.diagnosis_reply_tokens = args.max_new_tokens
    result = run(context.pipeline, questions, mode=args.mode, backend=args.backend, hold_out=args.hold_out_case,
                 temperature=args.temperature, seed=args.seed, source=path.stem, rule=args.hold_out_rule)
    variant = variant_name(path.stem, args.mode, result["backend"], args.hold_out_case and "holdout",
                           args.hold_out_case and rule_variant(args.hold_out_rule),
                           args.split, args.limit and f"limit{args.limit}", args.temperature and f"t{args.temperature}",
                           getattr(args, "max_new_tokens", None) and f"tokens{args.max_new_tokens}")
    return variant, result, summary(result)
