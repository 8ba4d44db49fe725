"""python -m bench consistency | temperature: the paper's Fig. 2 / Table 5, for any backend.

    python -m bench consistency [--repeats 5] [--temperature 0.7] [--questions FILE.csv ...] [--limit N]
    python -m bench temperature [--temperatures 0,0.2,0.4,0.6,0.8,1.0] [--questions FILE.csv ...] [--limit N]

Consistency asks each question `--repeats` times (seeds 0, 1, ...) and scores the share of
the most frequent answer. Temperature runs the set at each T (seed 0) and reports the
top-1 accuracy per T and its standard deviation σ (population, over the T values). Both
default to the Publication set with and without options; --limit takes the first N of each file.
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

from bench.diagnosis import BACKENDS, Judge, Question, accuracy, diagnose_one, read_questions, score_item
from bench.results import variant_name
from bench.runtime import PUBLICATION, PUBLICATION_OPEN, dataset, progress, question_file
from fpkg.names import normalise
from retrieval.retriever import MODES

TEMPERATURES = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


def _answer_key(result) -> str:
    """What counts as 'the same answer': the predicted disease (its option letter when selective)."""
    predicted = result.predicted
    if predicted is None:
        return ""
    return f"{predicted.option or ''}:{normalise(predicted.name)}"


def consistency(pipeline, questions: list[Question], *, mode: str = "cypher", backend: str | None = None,
                repeats: int = 5, temperature: float = 0.7) -> dict[str, Any]:
    judge = Judge(pipeline.linker)
    per_question, items = [], []
    for question in progress(questions, f"consistency x{repeats}"):
        answers, texts = Counter(), set()
        for seed in range(repeats):
            result, timings = diagnose_one(pipeline, question, mode=mode, backend=backend,
                                           temperature=temperature, seed=seed)
            answers[_answer_key(result)] += 1
            texts.add(result.answer)
            items.append(score_item(judge, question, result, timings))
        _, count = answers.most_common(1)[0]
        per_question.append({"index": question.index, "true_answer": question.true_answer,
                             "share": count / repeats, "answers": dict(answers), "identical_text": len(texts) == 1})
    shares = [q["share"] for q in per_question]
    return {"mode": mode, "backend": backend or pipeline.settings.llm_backend, "repeats": repeats,
            "temperature": temperature, "questions": len(questions),
            "consistency": round(statistics.fmean(shares), 4),
            "all_repeats_identical": round(sum(s == 1.0 for s in shares) / len(shares), 4),
            "identical_text": round(sum(q["identical_text"] for q in per_question) / len(per_question), 4),
            "accuracy": accuracy(items), "per_question": per_question}


def temperature_sweep(pipeline, questions: list[Question], *, mode: str = "cypher", backend: str | None = None,
                      temperatures: tuple[float, ...] = TEMPERATURES, seed: int = 0) -> dict[str, Any]:
    judge = Judge(pipeline.linker)
    by_t, first_answers, changed = [], None, []
    for t in temperatures:
        items, answers = [], []
        for question in progress(questions, f"temperature {t:g}"):
            result, timings = diagnose_one(pipeline, question, mode=mode, backend=backend, temperature=t, seed=seed)
            items.append(score_item(judge, question, result, timings))
            answers.append(_answer_key(result))
        first_answers = first_answers or answers
        changed.append(sum(a != b for a, b in zip(answers, first_answers, strict=True)) / len(answers))
        by_t.append({"temperature": t, "accuracy": accuracy(items)})
    top1 = [row["accuracy"]["top1_linked"] for row in by_t]
    strict = [row["accuracy"]["top1_strict"] for row in by_t]
    return {"mode": mode, "backend": backend or pipeline.settings.llm_backend, "questions": len(questions),
            "seed": seed, "by_temperature": by_t,
            "sigma_top1_linked": round(statistics.pstdev(top1), 4) if len(top1) > 1 else 0.0,
            "sigma_top1_strict": round(statistics.pstdev(strict), 4) if len(strict) > 1 else 0.0,
            "mean_top1_linked": round(statistics.fmean(top1), 4),
            "answers_changed_vs_first_t": [round(c, 4) for c in changed]}


def summary_consistency(result: dict[str, Any]) -> str:
    return (f"consistency ({result['backend']}, mode {result['mode']}, T={result['temperature']:g}, "
            f"{result['repeats']} repeats of {result['questions']} questions): "
            f"{result['consistency']:.1%} share of the most frequent answer; "
            f"{result['all_repeats_identical']:.1%} of questions answered identically every time "
            f"({result['identical_text']:.1%} word for word)")


def summary_temperature(result: dict[str, Any]) -> str:
    lines = [f"temperature sweep ({result['backend']}, mode {result['mode']}, {result['questions']} questions):"]
    for row, changed in zip(result["by_temperature"], result["answers_changed_vs_first_t"], strict=True):
        acc = row["accuracy"]
        lines.append(f"  T={row['temperature']:<4g} top-1 linked {acc['top1_linked']:.1%}  strict "
                     f"{acc['top1_strict']:.1%}  answers changed vs first T {changed:.0%}")
    lines.append(f"  σ (top-1 linked) = {result['sigma_top1_linked']:.4f}")
    return "\n".join(lines)


# ---- command line ----------------------------------------------------------------------

def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--questions", type=Path, action="append",
                        help="a CSV file, may repeat (default: the Publication set, with and without options)")
    parser.add_argument("--limit", type=int, help="only the first N questions of each file")
    parser.add_argument("--mode", choices=MODES, default="cypher")
    parser.add_argument("--backend", choices=BACKENDS, help="default: LLM_BACKEND")


def register(subparsers, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser("consistency", parents=[common], help="each question N times",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    _common(parser)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--temperature", type=float, default=0.7)
    parser.set_defaults(handler=handle_consistency)
    parser = subparsers.add_parser("temperature", parents=[common], help="accuracy across temperatures, σ",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    _common(parser)
    parser.add_argument("--temperatures", type=_floats, default=TEMPERATURES, help="comma-separated")
    parser.set_defaults(handler=handle_temperature)


def _floats(text: str) -> tuple[float, ...]:
    return tuple(float(x) for x in text.split(",") if x.strip())


def question_set(context, files: list[Path] | None, limit: int | None) -> list[Question]:
    files = ([question_file(context.settings, f, PUBLICATION) for f in files] if files
             else [dataset(context.settings, PUBLICATION), dataset(context.settings, PUBLICATION_OPEN)])
    questions: list[Question] = []
    for path in files:  # indices run on across files, so every question keeps its own
        for q in read_questions(path, limit=limit):
            questions.append(Question(len(questions), q.text, q.true_answer, q.pmid))
    return questions


def handle_consistency(args: argparse.Namespace, context) -> tuple[str, dict[str, Any], str]:
    result = consistency(context.pipeline, question_set(context, args.questions, args.limit), mode=args.mode,
                         backend=args.backend, repeats=args.repeats, temperature=args.temperature)
    variant = variant_name(args.mode, result["backend"], args.limit and f"limit{args.limit}")
    return variant, result, summary_consistency(result)


def handle_temperature(args: argparse.Namespace, context) -> tuple[str, dict[str, Any], str]:
    result = temperature_sweep(context.pipeline, question_set(context, args.questions, args.limit),
                               mode=args.mode, backend=args.backend, temperatures=args.temperatures)
    variant = variant_name(args.mode, result["backend"], args.limit and f"limit{args.limit}")
    return variant, result, summary_temperature(result)
