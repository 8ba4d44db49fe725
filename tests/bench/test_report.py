"""bench report: the markdown, the plots, and the results page's block replaced between its markers only."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench import results
from bench.report import END, START, make_report, replace_section
from tests.support.paths import REPO_ROOT

REPO = REPO_ROOT
PAGE = f"# Results\n\nIntro.\n\n## Benchmark tables\n\n{START}\nold numbers\n{END}\n\n## Notes\n\nMore.\n"


def test_replace_section_only_between_markers():
    out = replace_section(PAGE, "| a | b |")
    assert out == PAGE.replace("old numbers", "| a | b |")
    assert replace_section(out, "new") == PAGE.replace("old numbers", "new")  # idempotent shape
    appended = replace_section("# Project\n", "numbers")
    assert appended == f"# Project\n\n## Results\n\n{START}\nnumbers\n{END}\n"
    with pytest.raises(ValueError):
        replace_section(f"# P\n{START}\n", "x")
    with pytest.raises(ValueError):
        replace_section(f"# P\n{END}\n{START}\n", "x")


def fake_results(folder: Path) -> None:
    accuracy = {"n": 2, "top1_strict": 0.5, "top1_linked": 1.0, "top10_strict": 1.0, "top10_linked": 1.0}
    results.save("diagnosis", "Publication_patient_question-cypher-grounded", {
        "questions": "Publication_patient_question", "mode": "cypher", "backend": "grounded",
        "hold_out_case": False, "temperature": 0.0, "accuracy": accuracy, "latency_ms": {"p50": 90.0}, "items": []},
        seconds=1, argv=["diagnosis"], folder=folder)
    task = {"n": 1, "coverage": 0.5, "coverage_min": 0.5, "semantic_f1": 0.8,
            "below_target": [{"index": 0, "question": "Q?", "coverage": 0.5, "missing": ["Eye drop"]}]}
    results.save("domain", "cypher-grounded", {"mode": "cypher", "backend": "grounded", "semantic_note": "MiniLM",
                                               "tasks": {"Phenotype synonyms": task}},
                 seconds=1, argv=["domain"], folder=folder)
    results.save("temperature", "cypher-grounded", {"mode": "cypher", "backend": "grounded", "questions": 2,
                 "sigma_top1_linked": 0.0, "by_temperature": [{"temperature": t, "accuracy": accuracy}
                                                              for t in (0.0, 0.5)]},
                 seconds=1, argv=["temperature"], folder=folder)
    stats = {"n": 2, "p50": 10.0, "p95": 20.0, "mean": 12.0, "max": 20.0}
    results.save("perf", "perf", {"stages": {"cypher": {"total": stats, "queries": stats}},
                                  "glee_baseline": {"vector_ms": stats, "refit_ms": {**stats, "p50": 5000.0},
                                                    "ratio_p50": 500.0},
                                  "scaling": {"rows": [{"graph": g, "nodes": n, "relationships": n * 8, "load_s": None,
                                                        "diagnose_ms": stats, "queries_ms": stats, "ask_ms": stats}
                                                       for g, n in (("FPKG", 6000), ("10x FPKG+HPO", 200000))],
                                              "ratio_largest_to_fpkg_p50": 1.0, "largest": "10x FPKG+HPO"},
                                  "memory": {"bench_peak_rss_mb": 900.0, "falkordb_server_rss_mb": 300.0}},
                 seconds=1, argv=["perf"], folder=folder)


def test_report_tables_plots_and_results_page(tmp_path):
    folder = tmp_path / "results"
    fake_results(folder)
    page = tmp_path / "RESULTS.md"
    page.write_text(PAGE)
    path, markdown, missing = make_report(folder, page)
    assert missing == []
    assert Path(path).read_text().count("| ---") >= 5
    for needed in ("Publication set", "top-1 linked", "Phenotype synonyms", "50.0 % / 0.800", "500×",
                   "python -m bench diagnosis", "Eye drop", "CPU cores"):
        assert needed in markdown, needed
    assert sorted(p.name for p in (folder / "plots").iterdir()) == ["domain.png", "scaling.png", "stages.png",
                                                                    "temperature.png"]
    text = page.read_text()
    before, after = PAGE.split("old numbers")
    assert text.startswith(before) and text.endswith(after) and "old numbers" not in text
    assert "(results/plots/scaling.png)" in text


def test_a_report_missing_sections_leaves_the_results_page_alone(tmp_path):
    """A machine that holds only some runs must not drop the results page's other published figures."""
    full, partial = tmp_path / "full", tmp_path / "partial"
    fake_results(full)
    page = tmp_path / "RESULTS.md"
    page.write_text(PAGE)
    make_report(full, page)
    published = page.read_text()
    assert "**Latency per stage**" in published
    results.save("temperature", "cypher-grounded", {"mode": "cypher", "backend": "grounded", "questions": 2,
                 "sigma_top1_linked": 0.0, "by_temperature": []}, seconds=1, argv=["temperature"], folder=partial)
    _, markdown, missing = make_report(partial, page)
    assert "Latency per stage" in missing and "Domain questions: coverage and semantic score per task" in missing
    assert "Latency per stage" not in markdown  # RESULTS.md shows what there is
    assert page.read_text() == published
    done = subprocess.run([sys.executable, "-m", "bench", "report", "--results-dir", str(partial), "--results-page",
                           str(page)], cwd=REPO, env={**os.environ}, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "left alone" in done.stdout and "Latency per stage" in done.stdout
    assert page.read_text() == published


def test_report_command_line(tmp_path):
    folder = tmp_path / "results"
    fake_results(folder)
    page = tmp_path / "RESULTS.md"
    page.write_text(PAGE)
    done = subprocess.run([sys.executable, "-m", "bench", "report", "--results-dir", str(folder), "--results-page",
                           str(page), "--json"], cwd=REPO, env={**os.environ}, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["results_page"] == str(page) and Path(out["report"]).exists() and "Targets" in out["markdown"]
    assert not (folder / "report").exists()  # the report is made from results, not stored as one


def test_the_results_page_is_results_md_at_the_root_by_default(tmp_path, capsys):
    """`report` and `all` refresh RESULTS.md at the repository root unless told otherwise; --readme and
    --no-readme are hidden aliases of --results-page and --no-results-page."""
    from bench.__main__ import build_parser, main
    from bench.report import RESULTS_PAGE, add_results_page_arguments, results_page

    assert RESULTS_PAGE == REPO_ROOT / "RESULTS.md"
    parser = build_parser()
    for command in ("report", "all"):
        assert results_page(parser.parse_args([command])) == RESULTS_PAGE
        assert results_page(parser.parse_args([command, "--results-page", "X.md"])) == Path("X.md")
        assert results_page(parser.parse_args([command, "--readme", "X.md"])) == Path("X.md")
        assert results_page(parser.parse_args([command, "--no-results-page"])) is None
        assert results_page(parser.parse_args([command, "--no-readme"])) is None
    bare = argparse.ArgumentParser()
    add_results_page_arguments(bare)
    assert "--results-page" in bare.format_help() and "--readme" not in bare.format_help()

    folder = tmp_path / "results"
    fake_results(folder)
    page = tmp_path / "RESULTS.md"
    page.write_text(PAGE)
    assert main(["report", "--results-dir", str(folder), "--results-page", str(page), "--no-results-page",
                 "--json", "--torch-threads", "0"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["results_page"] is None and out["results_page_kept"] == [] and page.read_text() == PAGE


def test_a_command_is_one_module_with_a_register(monkeypatch, capsys):
    """A new command only has to be a module in COMMAND_MODULES whose register() sets a handler."""
    import types

    import bench.__main__ as cli

    module = types.ModuleType("bench_fake_command")

    def register(subparsers, common):
        parser = subparsers.add_parser("fake", parents=[common])
        parser.set_defaults(handler=lambda args, context: (None, {"users": 1}, "fake ran"))

    module.register = register
    monkeypatch.setitem(sys.modules, "bench_fake_command", module)
    monkeypatch.setattr(cli, "COMMAND_MODULES", (*cli.COMMAND_MODULES, "bench_fake_command"))
    assert cli.main(["fake", "--json", "--torch-threads", "0"]) == 0
    assert json.loads(capsys.readouterr().out) == {"users": 1}
