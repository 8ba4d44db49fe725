"""bench all on a tiny subset: every command's result lands in the results folder, then the report."""

from __future__ import annotations

import json

import pytest

from bench.__main__ import main
from bench.report import END, START

pytestmark = pytest.mark.slow


def test_all_smoke(capsys, pipeline, tmp_path):
    page = tmp_path / "RESULTS.md"
    page.write_text(f"# Results\n\n## Benchmark tables\n\n{START}\nSTALE NUMBERS\n{END}\n")
    folder = tmp_path / "results"
    capsys.readouterr()
    assert main(["all", "--limit", "1", "--repeat-limit", "1", "--perf-vector-limit", "1", "--refit-questions", "0",
                 "--no-cold", "--no-scaling", "--results-page", str(page), "--results-dir", str(folder), "--json",
                 "--torch-threads", "0"], pipeline=pipeline) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"start", "diagnosis", "domain", "consistency", "temperature", "perf"} <= set(out["seconds"])
    saved = {p.parent.name for p in folder.glob("*/*.json")}
    assert saved == {"diagnosis", "domain", "consistency", "temperature", "perf", "all"}
    assert len(list((folder / "diagnosis").glob("*.json"))) == 10  # 2 files x (2 modes x 2 + none)
    text = page.read_text()
    assert "STALE" not in text and "Publication set: diagnostic accuracy" in text and text.endswith(f"{END}\n")
    assert "`python -m bench all` took" in text and "python -m bench all --limit 1 --repeat-limit 1" in text
    record = json.loads((folder / "consistency" / "cypher-grounded-limit1.json").read_text())
    assert record["rerun"] == "python -m bench consistency --limit 1"
    assert record["result"]["consistency"] == 1.0
    record = json.loads((folder / "diagnosis" /
                         "Publication_patient_question_withoutchoices-vector-grounded-holdout-limit1.json").read_text())
    assert record["rerun"] == ("python -m bench diagnosis --questions Publication_patient_question_withoutchoices.csv "
                               "--mode vector --hold-out-case --limit 1")
