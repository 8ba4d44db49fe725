"""python -m bench ner-speed: NER inference latency, p50 and p95 milliseconds per question sentence.

    python -m bench ner-speed [--model models/ner] [--rules-only] [--n 200] [--threads 2] [--long] [--json]

Each sentence is one ``EntityRecognizer.predict`` call (word splitting, the model, the rules
and the merge), timed after a warm-up, on the corpus's test.txt sentences (from the data
folder, fetched when missing) and on the hand-written free-text descriptions
(tests/data/ner_freetext.conll, when the checkout has them; else the output says so).
Wall time depends on what else runs on the machine, so the table also gives this process's
CPU time per call and the load average. A model that cannot be loaded stops the run (exit 2)
unless --rules-only asks for the rules alone.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from pathlib import Path
from typing import Any

from bench.results import variant_name
from bench.runtime import percentiles
from fpkg.errors import BenchError
from kg_dump.data_files import data_file

FREETEXT = Path(__file__).resolve().parents[1] / "tests" / "data" / "ner_freetext.conll"
WARMUP = 10
LONG_CHARS = 100_000


def _time_calls(recognizer, texts: list[str]) -> dict[str, Any]:
    wall, cpu = [], []
    for text in texts:
        w0, c0 = time.perf_counter(), time.process_time()
        recognizer.predict(text)
        wall.append((time.perf_counter() - w0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    return {"n": len(texts), "mean_chars": round(statistics.fmean(len(t) for t in texts), 1),
            "wall_ms": percentiles(wall), "cpu_ms": percentiles(cpu)}


def corpus_sentences(data_dir: Path) -> list[str]:
    """The corpus's test split as plain sentences (the data file fetched when missing)."""
    from ner.corpus import corpus_path, read_conll

    local = corpus_path(Path(), "test").as_posix()  # "corpus/test.txt", a data file of the data folder
    return [" ".join(s.tokens) for s in read_conll(data_file(data_dir, local))]


def run(model: str | None, n: int, long: bool, data_dir: Path, seed: int = 0, *,
        rules_only: bool = False, freetext: Path = FREETEXT) -> dict[str, Any]:
    """Times `model` (with the rules), or the rules alone with `rules_only`."""
    import torch

    from ner.corpus import read_conll
    from ner.predict import EntityRecognizer

    if n < 1:
        raise BenchError("--n must be at least 1")
    recognizer = EntityRecognizer.load(None if rules_only else model)
    if not rules_only and not recognizer.model_available:
        notice = (recognizer.notice or "").removesuffix("; using rules only")
        raise BenchError(f"cannot time the NER model: {notice} (--rules-only times the rules alone)")
    questions = corpus_sentences(data_dir)
    random.Random(seed).shuffle(questions)
    for text in questions[:WARMUP]:  # warm-up: first calls allocate and pick kernels
        recognizer.predict(text)
    load_before = os.getloadavg()[0]
    result: dict[str, Any] = {"model": None if rules_only else model, "rules_only": rules_only,
                              "threads": torch.get_num_threads(), "cpus": os.cpu_count(),
                              "questions": _time_calls(recognizer, questions[:n])}
    skipped = {}
    if freetext.is_file():
        result["freetext"] = _time_calls(recognizer, [s.raw_text() for s in read_conll(freetext)])
    else:
        skipped["freetext"] = f"{freetext} is not there (it comes with a checkout of the repository)"
    if long:
        text = " ".join(questions)
        text = (text * (LONG_CHARS // len(text) + 1))[:LONG_CHARS]
        started = time.perf_counter()
        spans = recognizer.predict(text)
        result["long_100kB"] = {"seconds": round(time.perf_counter() - started, 2), "spans": len(spans)}
    if skipped:
        result["skipped"] = skipped
    result["load_average"] = round((load_before + os.getloadavg()[0]) / 2, 2)
    return result


def format_table(result: dict[str, Any]) -> str:
    model = "rules only" if result["rules_only"] else f"model {result['model']}"
    lines = [f"{model}, {result['threads']} torch threads, {result['cpus']} CPUs, "
             f"load average {result['load_average']}",
             f"{'input':<12} {'n':>5} {'chars':>7} {'p50 ms':>8} {'p95 ms':>8} {'p50 CPU ms':>11} {'p95 CPU ms':>11}"]
    for name in ("questions", "freetext"):
        if name in result:
            r = result[name]
            wall, cpu = r["wall_ms"], r["cpu_ms"]
            lines.append(f"{name:<12} {r['n']:>5} {r['mean_chars']:>7} {wall['p50']:>8.2f} {wall['p95']:>8.2f} "
                         f"{cpu['p50']:>11.2f} {cpu['p95']:>11.2f}")
    if "long_100kB" in result:
        lines.append(f"one 100 kB text: {result['long_100kB']['seconds']} s, {result['long_100kB']['spans']} spans")
    for part, reason in result.get("skipped", {}).items():
        lines.append(f"skipped {part}: {reason}")
    return "\n".join(lines)


def register(subparsers, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser("ner-speed", parents=[common], help="NER latency per question sentence",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", help="model folder or Hub id (default: NER_MODEL, else models/ner)")
    parser.add_argument("--rules-only", action="store_true", help="time the rules alone (no model)")
    parser.add_argument("--n", type=int, default=200, help="question sentences to time")
    parser.add_argument("--threads", type=int, help="torch CPU threads (overrides --torch-threads)")
    parser.add_argument("--long", action="store_true", help="also time one 100 kB text")
    # as `python -m ner` does; bench's main applies it before torch is imported
    parser.set_defaults(handler=handle, environ_defaults={"OMP_WAIT_POLICY": "PASSIVE"})


def handle(args: argparse.Namespace, context) -> tuple[str, dict[str, Any], str]:
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    settings = context.settings
    model = None if args.rules_only else args.model or settings.ner_model or "models/ner"
    result = run(model, args.n, args.long, settings.data_dir, rules_only=args.rules_only)
    name = "rules" if args.rules_only else Path(model).name or model
    variant = variant_name(name, f"n{args.n}", args.long and "long", f"threads{result['threads']}")
    return variant, result, format_table(result)
