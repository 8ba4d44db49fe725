"""python -m bench all: the whole set in one process (the pipeline starts once), then the report.

    python -m bench all [--backend grounded] [--repeat-limit 20] [--perf-vector-limit 30]
                        [--refit-questions 1] [--no-cold] [--no-scaling] [--json]

Runs, saving each result as its own command would (with the command to rerun it alone):
- diagnosis on the Publication set with and without options, modes cypher and vector,
  each with and without the held-out case, and mode none;
- domain questions in modes none, cypher and vector;
- consistency (5 repeats) and temperature (T = 0 ... 1) on the first --repeat-limit
  questions of each Publication file;
- perf, reusing the diagnosis runs' timings for the stage latencies;
- report (after this run's own record, with the total time, is saved).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from bench import diagnosis, domain, perf, repeat, report, results
from bench.coverage import AliasIndex, TokenScorer
from bench.runtime import DOMAIN_QA, PUBLICATION, PUBLICATION_OPEN, dataset
from retrieval.retriever import MODES

DIAGNOSIS_RUNS = (("cypher", False), ("cypher", True), ("vector", False), ("vector", True), ("none", False))


class Suite:
    def __init__(self, context, args: argparse.Namespace):
        self.context, self.args = context, args
        self.seconds: dict[str, float] = {}
        self.backend = args.backend
        self.backend_argv = ["--backend", args.backend] if args.backend else []

    def run(self) -> dict[str, Any]:
        self.pipeline = self.timed("start", lambda: self.context.pipeline)[0]
        self.backend_name = self.backend or self.context.settings.llm_backend
        stage_items = self.diagnosis()
        self.domain()
        self.repeats()
        self.perf(stage_items)
        return {"seconds": self.seconds}

    def timed(self, part: str, fn, *a, **kw):
        started = time.perf_counter()
        out = fn(*a, **kw)
        seconds = time.perf_counter() - started
        self.seconds[part] = round(self.seconds.get(part, 0.0) + seconds, 2)
        return out, seconds

    def save(self, command: str, parts: tuple, result: dict[str, Any], seconds: float, argv: list[str],
             limit: int | None, *, with_backend: bool = True) -> None:
        variant = results.variant_name(*parts, limit and f"limit{limit}")
        backend = self.backend_argv if with_backend else []  # perf has no --backend option
        argv = [command, *argv, *backend, *(["--limit", str(limit)] if limit else [])]
        results.save(command, variant, result, seconds=seconds, argv=argv, folder=self.args.results_dir)

    def diagnosis(self) -> dict[str, list]:
        """Both Publication files, every mode, with and without the held-out case; returns the items
        (with their timings) of the runs perf reuses."""
        stage_items: dict[str, list] = {}
        for name in (PUBLICATION, PUBLICATION_OPEN):
            path = dataset(self.context.settings, name)
            questions = diagnosis.read_questions(path, need_pmid=True, limit=self.args.limit)
            for mode, hold_out in DIAGNOSIS_RUNS:
                result, seconds = self.timed("diagnosis", diagnosis.run, self.pipeline, questions, mode=mode,
                                             backend=self.backend, hold_out=hold_out, source=path.stem)
                if not hold_out and mode != "none":
                    stage_items.setdefault(mode, []).extend(result["items"])
                self.save("diagnosis", (path.stem, mode, self.backend_name, hold_out and "holdout"), result, seconds,
                          ["--questions", name, "--mode", mode] + (["--hold-out-case"] if hold_out else []),
                          self.args.limit)
        return stage_items

    def domain(self) -> None:
        questions = domain.read_domain(dataset(self.context.settings, DOMAIN_QA), self.args.limit)
        scorer, aliases = TokenScorer(), AliasIndex(self.pipeline.linker)  # shared: each text embedded once
        for mode in MODES:
            result, seconds = self.timed("domain", domain.run, self.pipeline, questions, mode=mode,
                                         backend=self.backend, scorer=scorer, aliases=aliases)
            self.save("domain", (mode, self.backend_name), result, seconds, ["--mode", mode], self.args.limit)

    def repeats(self) -> None:
        limit = self.args.repeat_limit
        questions = repeat.question_set(self.context, None, limit)
        result, seconds = self.timed("consistency", repeat.consistency, self.pipeline, questions,
                                     backend=self.backend)
        self.save("consistency", ("cypher", self.backend_name), result, seconds, [], limit)
        result, seconds = self.timed("temperature", repeat.temperature_sweep, self.pipeline, questions,
                                     backend=self.backend)
        self.save("temperature", ("cypher", self.backend_name), result, seconds, [], limit)

    def perf(self, stage_items: dict[str, list]) -> None:
        args = self.args
        result, seconds = self.timed("perf", perf.run, self.pipeline, limit=args.limit,
                                     vector_limit=args.perf_vector_limit, refit_questions=args.refit_questions,
                                     cold=not args.no_cold, do_scaling=not args.no_scaling, stage_items=stage_items)
        argv = ["--vector-limit", str(args.perf_vector_limit), "--refit-questions", str(args.refit_questions)]
        argv += (["--no-cold"] if args.no_cold else []) + (["--no-scaling"] if args.no_scaling else [])
        self.save("perf", ("perf",), result, seconds, argv, args.limit, with_backend=False)


def register(subparsers, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser("all", parents=[common], help="the whole set in one process, then the report",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", choices=diagnosis.BACKENDS, help="default: LLM_BACKEND")
    parser.add_argument("--limit", type=int, help="only the first N questions of each file and task (a smoke run)")
    parser.add_argument("--repeat-limit", type=int, default=20,
                        help="questions per Publication file for consistency and temperature (0: all)")
    parser.add_argument("--perf-vector-limit", type=int, default=30)
    parser.add_argument("--refit-questions", type=int, default=1)
    parser.add_argument("--no-cold", action="store_true")
    parser.add_argument("--no-scaling", action="store_true")
    report.add_results_page_arguments(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, context) -> tuple[None, dict[str, Any], str]:
    started = time.perf_counter()
    args.repeat_limit = args.repeat_limit or None
    out = Suite(context, args).run()
    out["total_s"] = round(time.perf_counter() - started, 2)
    results.save("all", "all", out, seconds=out["total_s"], argv=context.argv or ["all"], folder=args.results_dir)
    # the report includes this run's own record, saved just above
    out["report"], _, out["results_page_kept"] = report.make_report(args.results_dir, report.results_page(args))
    lines = [f"whole set in {out['total_s']:.0f} s:"]
    lines += [f"  {part:<12} {seconds:>7.1f} s" for part, seconds in out["seconds"].items()]
    lines.append(f"report: {out['report']}")
    if out["results_page_kept"]:
        kept = ", ".join(out["results_page_kept"])
        lines.append(f"{args.results_page} left alone: no runs here for {kept}, which it shows")
    return None, out, "\n".join(lines)
