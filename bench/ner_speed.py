"""NER inference latency: median and p95 milliseconds per question sentence.

    python -m bench.ner_speed --model models/ner [--n 200] [--threads 2] [--long] [--json]

Each sentence is one ``EntityRecognizer.predict`` call (word splitting, the model, the rules
and the merge), timed after a warm-up. Wall time depends on what else runs on the machine,
so the table also gives this process's CPU time per call and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def _time_calls(recognizer, texts: list[str]) -> dict:
    wall, cpu = [], []
    for text in texts:
        w0, c0 = time.perf_counter(), time.process_time()
        recognizer.predict(text)
        wall.append((time.perf_counter() - w0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    return {
        "n": len(texts),
        "mean_chars": round(statistics.fmean(len(t) for t in texts), 1),
        "median_ms": round(statistics.median(wall), 2),
        "p95_ms": round(_percentile(wall, 95), 2),
        "median_cpu_ms": round(statistics.median(cpu), 2),
        "p95_cpu_ms": round(_percentile(cpu, 95), 2),
    }


def run(model: str | None, n: int, long: bool, data_dir: Path, seed: int = 0) -> dict:
    from ner.corpus import corpus_path, read_conll
    from ner.predict import EntityRecognizer

    recognizer = EntityRecognizer.load(model)
    if not recognizer.model_available:
        raise SystemExit(f"error: {recognizer.notice}")
    questions = [" ".join(s.tokens) for s in read_conll(corpus_path(data_dir, "test"))]
    random.Random(seed).shuffle(questions)
    freetext = Path(__file__).resolve().parents[1] / "tests" / "data" / "ner_freetext.conll"
    for text in questions[:10]:  # warm-up: first calls allocate and pick kernels
        recognizer.predict(text)
    load_before = os.getloadavg()[0]
    result = {
        "model": model,
        "threads": _threads(),
        "cpus": os.cpu_count(),
        "questions": _time_calls(recognizer, questions[:n]),
    }
    if freetext.is_file():
        result["freetext"] = _time_calls(recognizer, [s.raw_text() for s in read_conll(freetext)])
    if long:
        text = " ".join(questions)
        text = (text * (100_000 // len(text) + 1))[:100_000]
        started = time.perf_counter()
        spans = recognizer.predict(text)
        result["long_100kB"] = {"seconds": round(time.perf_counter() - started, 2), "spans": len(spans)}
    result["load_average"] = round((load_before + os.getloadavg()[0]) / 2, 2)
    return result


def _threads() -> int:
    import torch

    return torch.get_num_threads()


def format_table(result: dict) -> str:
    lines = [f"model {result['model']}, {result['threads']} torch threads, {result['cpus']} CPUs, "
             f"load average {result['load_average']}",
             f"{'input':<12} {'n':>5} {'chars':>7} {'median ms':>10} {'p95 ms':>8} {'median CPU ms':>14} "
             f"{'p95 CPU ms':>11}"]
    for name in ("questions", "freetext"):
        if name in result:
            r = result[name]
            lines.append(f"{name:<12} {r['n']:>5} {r['mean_chars']:>7} {r['median_ms']:>10} {r['p95_ms']:>8} "
                         f"{r['median_cpu_ms']:>14} {r['p95_cpu_ms']:>11}")
    if "long_100kB" in result:
        lines.append(f"one 100 kB text: {result['long_100kB']['seconds']} s, {result['long_100kB']['spans']} spans")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ner_speed", description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="model folder or Hub id (default: NER_MODEL, else models/ner)")
    parser.add_argument("--n", type=int, default=200, help="question sentences to time")
    parser.add_argument("--threads", type=int, help="torch CPU threads")
    parser.add_argument("--long", action="store_true", help="also time one 100 kB text")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # as `python -m ner` does; before torch
    from fpkg.config import Settings, SettingsError
    from fpkg.errors import NerError

    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    try:
        settings = Settings.from_env()
        model = args.model or settings.ner_model or "models/ner"
        result = run(model, args.n, args.long, settings.data_dir)
    except (NerError, SettingsError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(json.dumps(result) if args.json else format_table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
