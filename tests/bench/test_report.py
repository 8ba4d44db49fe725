"""bench report: the markdown, the plots, and the README section replaced between its markers only."""

from __future__ import annotations

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
README = f"# Project\n\nIntro.\n\n## Results\n\n{START}\nold numbers\n{END}\n\n## Licence\n\nMIT\n"


def test_replace_section_only_between_markers():
    out = replace_section(README, "| a | b |")
    assert out == README.replace("old numbers", "| a | b |")
    assert replace_section(out, "new") == README.replace("old numbers", "new")  # idempotent shape
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


def test_report_tables_plots_and_readme(tmp_path):
    folder = tmp_path / "results"
    fake_results(folder)
    readme = tmp_path / "README.md"
    readme.write_text(README)
    path, markdown, missing = make_report(folder, readme)
    assert missing == []
    assert Path(path).read_text().count("| ---") >= 5
    for needed in ("Publication set", "top-1 linked", "Phenotype synonyms", "50.0 % / 0.800", "500×",
                   "python -m bench diagnosis", "Eye drop", "CPU cores"):
        assert needed in markdown, needed
    assert sorted(p.name for p in (folder / "plots").iterdir()) == ["domain.png", "scaling.png", "stages.png",
                                                                    "temperature.png"]
    text = readme.read_text()
    before, after = README.split("old numbers")
    assert text.startswith(before) and text.endswith(after) and "old numbers" not in text
    assert "(results/plots/scaling.png)" in text


def test_a_report_missing_sections_leaves_the_readme_alone(tmp_path):
    """A machine that holds only some runs must not drop the README's other published figures."""
    full, partial = tmp_path / "full", tmp_path / "partial"
    fake_results(full)
    readme = tmp_path / "README.md"
    readme.write_text(README)
    make_report(full, readme)
    published = readme.read_text()
    assert "**Latency per stage**" in published
    results.save("temperature", "cypher-grounded", {"mode": "cypher", "backend": "grounded", "questions": 2,
                 "sigma_top1_linked": 0.0, "by_temperature": []}, seconds=1, argv=["temperature"], folder=partial)
    _, markdown, missing = make_report(partial, readme)
    assert "Latency per stage" in missing and "Domain questions: coverage and semantic score per task" in missing
    assert "Latency per stage" not in markdown  # RESULTS.md shows what there is
    assert readme.read_text() == published
    done = subprocess.run([sys.executable, "-m", "bench", "report", "--results-dir", str(partial), "--readme",
                           str(readme)], cwd=REPO, env={**os.environ}, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "left alone" in done.stdout and "Latency per stage" in done.stdout
    assert readme.read_text() == published


def test_report_command_line(tmp_path):
    folder = tmp_path / "results"
    fake_results(folder)
    readme = tmp_path / "README.md"
    readme.write_text(README)
    done = subprocess.run([sys.executable, "-m", "bench", "report", "--results-dir", str(folder), "--readme",
                           str(readme), "--json"], cwd=REPO, env={**os.environ}, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["readme"] == str(readme) and Path(out["report"]).exists() and "Targets" in out["markdown"]
    assert not (folder / "report").exists()  # the report is made from results, not stored as one


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
