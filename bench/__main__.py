"""python -m bench <command>: the paper's experiments, and performance and scale.

    diagnosis     accuracy of the differential on a question file (Publication set by default)
    ask-relations  what a question asks, recognised however worded: our paraphrases, dev and test, both modes
    option-links  does each answer option name link to its own disease (the phenopacket set's names)
    multilingual  questions and descriptions in the HPO's other languages against the same ones in English
    reading       how descriptions are read: findings present, absent, of relatives, hedged; genes only where meant
    generalise    dev/test sets from public data (held-out papers, simulated patients): ranker and a baseline
    calibrate     fit the top answer's confidence on the dev cases; its Brier score and reliability on test
    fit-weights   fit each kind of evidence's weight on the dev cases (diagnosis/evidence/weights.json)
    domain        the 100 domain questions: coverage and a MiniLM BERTScore-style score per task
    question-devset  knowledge questions as people write them (reworded, lower case, typos), from HPO: a CSV
    consistency   each question 5 times: share of the most frequent answer
    temperature   accuracy at T = 0, 0.2, ..., 1.0 and its standard deviation
    perf          per-stage latency, cold start, restart, memory, the GLEE refit baseline, scaling
    all           everything above in one process (the pipeline starts once), then `report`
    report        the latest results as a markdown table and plots; refreshes RESULTS.md's results block
    load          N concurrent users against the app: errors, latency, server CPU per request, memory
    signin-flood  N password sign-ins at once against the app: how each is answered, the app's memory
    server-cost   the server's CPU per request (sequential), by stage, for /diagnose and /ask
    vector-speed  vector-mode retrieval against the paper's per-question GLEE refit, same links
    glee-check    the paper's Table 7: node-type F1 of a random forest on GLEE vectors
    ner-speed     NER latency per question sentence (model and rules, or --rules-only)
    cypher-prompts  text-to-Cypher with an LLM: 0/1/3/5 examples, with and without the schema
    context-size  an LLM's diagnosis accuracy at several evidence budgets
    local-llm     the two 4-bit local paths side by side: GGUF (llama.cpp) and NF4 (bitsandbytes, CPU or GPU)

Every command takes --json (one JSON object on stdout) and writes its result under
results/ (see bench/results.py). Progress goes to stderr. A command that cannot run prints one
line `bench: why` on stderr and exits 2 (what to fix: a missing file, no CUDA device) or 1 (a
failure while running); a run whose checks fail (local-llm) is saved, then exits 1.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time

from bench import results
from bench.runtime import limit_threads, start_pipeline
from fpkg.cli import reports_errors
from fpkg.config import Settings
from fpkg.errors import EXIT_FAILURE

# Each module has register(subparsers, common): its parser, with a `handler(args, context)`
# that returns (variant, result dict, text summary). A parser may also set `environ_defaults`
# (environment variables applied before torch loads) and a result `failed_checks` (exit 1).
COMMAND_MODULES = ("bench.diagnosis", "bench.generalise", "bench.calibration", "bench.fit_weights", "bench.domain",
                   "bench.repeat", "bench.perf", "bench.suite", "bench.report", "bench.load", "bench.signin_flood",
                   "bench.server_cost", "bench.vector_speed", "bench.glee_check", "bench.ner_speed", "bench.local_llm",
                   "bench.question_sets", "bench.cypher_prompts", "bench.context_size", "bench.option_links",
                   "bench.ask_relations", "bench.multilingual", "bench.reading")


class Context:
    """What handlers share: the settings, and one pipeline started on first use."""

    def __init__(self, settings: Settings | None = None, pipeline=None, argv: list[str] | None = None):
        self._settings, self._pipeline = settings, pipeline
        self.started_pipeline = False
        self.argv = argv or []  # the command line, for records that say how to rerun them

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            self._settings = self._pipeline.settings if self._pipeline is not None else Settings.from_env()
        return self._settings

    @property
    def pipeline(self):
        if self._pipeline is None:
            self._pipeline = start_pipeline(self.settings)
            self.started_pipeline = True
        return self._pipeline

    def provenance(self) -> dict:
        """What produced a run's figures: the HPO release in use (always), and the graph and the NER
        model when the run used the pipeline."""
        from kg_dump.sources import hpo_provenance

        hpo = {"hpo": hpo_provenance(self.settings)}
        if self._pipeline is None:
            return hpo
        report = self._pipeline.build_report
        graph = {"with_hpo": report.with_hpo, **{k: report.counts.get(k) for k in ("nodes", "relationships")}} \
            if report else None
        return {**hpo, "graph": graph, "ner_model": self._pipeline.recognizer.model_name or "rules only"}

    def close(self) -> None:
        if self.started_pipeline:
            self._pipeline.close()


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    common.add_argument("--results-dir", help="where results go (default: results/ or FPKG_RESULTS_DIR)")
    common.add_argument("--torch-threads", type=int, default=int(os.environ.get("BENCH_TORCH_THREADS", "1")),
                        help="torch intra-op threads (default 1: faster on a busy 2-core machine; 0 = torch's own)")
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="command")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers, common)
    return parser


@reports_errors("bench")
def main(argv: list[str] | None = None, *, pipeline=None, settings: Settings | None = None) -> int:
    """Run one command; `pipeline` lets a caller (tests) share an already started one."""
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser().parse_args(argv)
    context = Context(settings, pipeline, argv)
    for key, value in getattr(args, "environ_defaults", {}).items():
        os.environ.setdefault(key, value)
    limit_threads(args.torch_threads)
    started = time.perf_counter()
    try:
        variant, result, text = args.handler(args, context)
    finally:
        context.close()
    if variant is not None:  # None: the handler saved what it made itself (report, all)
        path = results.save(args.command, variant, result, seconds=time.perf_counter() - started, argv=argv,
                            folder=args.results_dir, provenance=context.provenance())
        print(f"saved {path}", file=sys.stderr)
    print(json.dumps(result, indent=1, default=str) if args.json else text)
    failed = result.get("failed_checks")
    if failed:
        print(f"bench: {args.command}: {len(failed)} check(s) failed: {'; '.join(failed)}", file=sys.stderr)
        return EXIT_FAILURE
    return 0


if __name__ == "__main__":
    sys.exit(main())
