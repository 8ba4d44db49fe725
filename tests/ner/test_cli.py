"""``python -m ner``: messages rather than tracebacks, and the commands' output."""

from __future__ import annotations

import json

from ner.__main__ import main
from tests.support.paths import TEST_DATA

FREETEXT = TEST_DATA / "ner_freetext.conll"


def test_predict_without_a_model_uses_rules_and_says_so(tmp_path, capsys):
    code = main(["predict", "18-month-old boy, NSD1 p.Arg604*", "--model", str(tmp_path / "none"), "--json"])
    assert code == 0
    captured = capsys.readouterr()
    assert "rules only" in captured.err
    spans = json.loads(captured.out)
    # the default gene list is the HPO release's
    assert [(s["type"], s["text"]) for s in spans] == [
        ("AGE", "18-month-old"), ("GENDER", "boy"), ("GENE", "NSD1"), ("MUTATION", "p.Arg604*")]


def test_predict_reads_a_gene_list(tmp_path, capsys):
    genes = tmp_path / "genes.txt"
    genes.write_text("NSD1\nKMT2D\n", encoding="utf-8")
    assert main(["predict", "nsd1 and kmt2d", "--model", str(tmp_path / "none"), "--genes", str(genes)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out] == ["GENE", "GENE"]


def test_malformed_corpus_is_reported_with_its_line(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("ok -X- _ O\nbroken line\n", encoding="utf-8")
    assert main(["evaluate", "--model", str(tmp_path), "--data", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "bad.txt:2" in err and "Traceback" not in err


def test_missing_corpus_is_a_message(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("FPKG_DATA_DIR", str(tmp_path))  # no corpus there
    assert main(["train", "--out", str(tmp_path / "m")]) == 2
    assert "file not found" in capsys.readouterr().err


def test_rules_only_text_evaluation_of_the_freetext_file(tmp_path, capsys):
    assert main(["evaluate", "--model", str(tmp_path / "none"), "--data", str(FREETEXT), "--text", "--rules",
                 "--json"]) == 0
    scores = json.loads(capsys.readouterr().out)
    # without a model and a gene list the rules find ages, sexes, variants and ethnicities
    for kind in ("AGE", "GENDER", "MUTATION", "RACE"):
        assert scores["per_type"][kind]["f1"] > 0.9, (kind, scores["per_type"][kind])


def test_audit_reports_the_known_label_noise(data_dir, capsys, monkeypatch):
    monkeypatch.setenv("FPKG_DATA_DIR", str(data_dir))
    assert main(["audit", "--json"]) == 0
    findings = json.loads(capsys.readouterr().out)
    conflicts = {f["text"]: f["types"] for f in findings["type_conflicts"]}
    assert conflicts["male"]["GENE"] == 1
    assert findings["exon_convention"]["dev"]["outside_mutation"] > 0
    assert findings["exon_convention"]["train"]["inside_mutation"] > 50
