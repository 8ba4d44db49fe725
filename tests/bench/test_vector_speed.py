"""`python -m bench vector-speed`: vector mode against the per-question GLEE refit, questions from the data folder."""

from __future__ import annotations

import dataclasses
import json
import shutil

import pytest

from bench import vector_speed
from bench.__main__ import main
from fpkg.errors import DataFileError
from kg_dump.data_files import DOMAIN_QA


def test_help_lists_the_options(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["vector-speed", "--help"])
    assert exited.value.code == 0
    usage = capsys.readouterr().out
    assert "python -m bench vector-speed" in usage
    for option in ("--questions", "--refit-questions", "--refit-dim", "--no-hpo", "--threads",
                   "--embed-rerank-questions", "--json"):
        assert option in usage


def test_short_questions_come_from_the_fetched_workbook(test_settings, tmp_path):
    """Only the xlsx, as a fresh data folder has it (no domain_qa.csv beside it)."""
    (tmp_path / "datasets").mkdir()
    shutil.copy(test_settings.data_dir / DOMAIN_QA, tmp_path / DOMAIN_QA)
    questions, skipped = vector_speed.short_questions(dataclasses.replace(test_settings, data_dir=tmp_path), 30)
    assert skipped is None and len(questions) == 30
    assert questions[0] == "What facial phenotypes are associated with Crouzon syndrome?"
    assert questions[25] == "What facial phenotypes are associated with gene FAM20C?"  # the second sheet's first


def test_short_questions_that_cannot_be_had_say_why(test_settings, monkeypatch):
    def offline(data_dir, name):
        raise DataFileError(f"{name} is missing and could not be downloaded (offline)")

    monkeypatch.setattr(vector_speed, "data_file", offline)
    questions, skipped = vector_speed.short_questions(test_settings, 5)
    assert questions == [] and skipped == ("the domain questions cannot be read: "
                                           f"{DOMAIN_QA} is missing and could not be downloaded (offline)")


@pytest.mark.slow
def test_a_short_run_times_both_methods(capsys, pipeline, tmp_path):
    pipeline.retriever("vector")  # the vector index is cached (built here on a fresh cache)
    capsys.readouterr()
    assert main(["vector-speed", "--questions", "3", "--refit-questions", "1", "--refit-dim", "4", "--json",
                 "--results-dir", str(tmp_path), "--torch-threads", "0"], settings=pipeline.settings) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["graph"] == "FPKG+HPO" and out["graph_built_now"] is False and out["nodes"] > 10000
    assert out["questions"] == 3 and out["vector_ms"]["n"] == 3 and out["links_per_question"] > 0
    assert 0 < out["vector_without_embed_ms"]["p50"] <= out["vector_ms"]["p50"]
    assert out["refit_dim"] == 4 and out["refit_ms"]["n"] == 1 and out["ratio_p50"] > 0
    assert out["ratio_interleaved"]["n"] == 1 and out["ratio_interleaved"]["min"] > 0
    assert out["short_questions"]["vector_ms"]["n"] == 3 and "skipped" not in out
    assert (tmp_path / "vector-speed" / "fpkg_hpo-q3-refit1-dim4.json").is_file()
    text = vector_speed.summary(out)
    assert "vector mode, 3 patient questions" in text and "vector mode, 3 short questions" in text
    assert "per-question GLEE refit (dim 4) over 1 questions" in text and "interleaved, per question" in text
    # a part that could not run is named in the text as in the result, never dropped
    out.pop("short_questions")
    out["skipped"] = {"short_questions": "the domain questions cannot be read: offline"}
    text = vector_speed.summary(out)
    assert "short questions" not in text
    assert "skipped short_questions: the domain questions cannot be read: offline" in text.splitlines()
