"""bench consistency / temperature: the grounded backend is deterministic (consistency 1, σ 0)."""

from __future__ import annotations

import json

import pytest

from bench.__main__ import main

pytestmark = pytest.mark.slow


def run_json(capsys, argv, pipeline) -> dict:
    capsys.readouterr()
    assert main([*argv, "--json", "--torch-threads", "0"], pipeline=pipeline) == 0
    return json.loads(capsys.readouterr().out)


def test_consistency_of_grounded(capsys, pipeline, tmp_path):
    out = run_json(capsys, ["consistency", "--limit", "2", "--repeats", "3", "--results-dir", str(tmp_path)],
                   pipeline)
    assert out["questions"] == 4 and out["repeats"] == 3  # two of each Publication file
    assert out["consistency"] == 1.0 and out["all_repeats_identical"] == 1.0 and out["identical_text"] == 1.0
    assert all(sum(q["answers"].values()) == 3 for q in out["per_question"])
    assert 0.0 <= out["accuracy"]["top1_linked"] <= 1.0


def test_temperature_leaves_grounded_unchanged(capsys, pipeline, tmp_path):
    out = run_json(capsys, ["temperature", "--limit", "2", "--temperatures", "0,0.5,1", "--results-dir",
                            str(tmp_path)], pipeline)
    assert [row["temperature"] for row in out["by_temperature"]] == [0.0, 0.5, 1.0]
    assert out["sigma_top1_linked"] == 0.0 and out["sigma_top1_strict"] == 0.0
    assert out["answers_changed_vs_first_t"] == [0.0, 0.0, 0.0]
    for row in out["by_temperature"]:
        assert 0.0 <= row["accuracy"]["top1_linked"] <= 1.0 and row["accuracy"]["n"] == 4
