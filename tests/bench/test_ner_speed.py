"""`python -m bench ner-speed`: rules alone, a tiny model, a model that cannot load, a missing part."""

from __future__ import annotations

import json
import os

import pytest
import torch
from transformers import AutoTokenizer, BertConfig, BertForTokenClassification

from bench import ner_speed
from bench.__main__ import main
from fpkg.errors import BenchError
from ner.corpus import read_conll
from ner.labels import LABELS
from ner.train import default_base_model

FREETEXT_SENTENCES = len(read_conll(ner_speed.FREETEXT))


def percentiles_ok(stats: dict, n: int) -> None:
    assert stats["n"] == n and 0 <= stats["p50"] <= stats["p95"] <= stats["max"]


@pytest.fixture(scope="module")
def tiny_model_dir(tmp_path_factory):
    """A randomly initialised 1-layer BERT token classifier with the project's labels."""
    tokenizer = AutoTokenizer.from_pretrained(str(default_base_model()))
    torch.manual_seed(0)
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64, num_labels=len(LABELS))
    folder = tmp_path_factory.mktemp("tiny_ner") / "tiny-ner"
    BertForTokenClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def test_rules_only_times_the_corpus_and_the_freetext(capsys, test_settings, tmp_path, monkeypatch):
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    capsys.readouterr()
    assert main(["ner-speed", "--rules-only", "--n", "7", "--json", "--results-dir", str(tmp_path),
                 "--torch-threads", "0"], settings=test_settings) == 0
    assert os.environ["OMP_WAIT_POLICY"] == "PASSIVE"  # the command's environment default, set before torch
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["rules_only"] is True and out["model"] is None and "skipped" not in out
    assert out["questions"]["mean_chars"] > 20
    percentiles_ok(out["questions"]["wall_ms"], 7)
    percentiles_ok(out["questions"]["cpu_ms"], 7)
    percentiles_ok(out["freetext"]["wall_ms"], FREETEXT_SENTENCES)
    saved = list((tmp_path / "ner-speed").glob("rules-n7-threads*.json"))
    assert len(saved) == 1 and f"saved {saved[0]}" in captured.err
    record = json.loads(saved[0].read_text())
    assert record["rerun"].startswith("python -m bench ner-speed --rules-only --n 7")


def test_a_tiny_model_is_timed_with_its_rules(capsys, test_settings, tmp_path, tiny_model_dir):
    capsys.readouterr()
    assert main(["ner-speed", "--model", str(tiny_model_dir), "--n", "3", "--results-dir", str(tmp_path),
                 "--torch-threads", "0"], settings=test_settings) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"model {tiny_model_dir},")
    rows = {line.split()[0]: line.split() for line in text.splitlines()[2:]}
    assert rows["questions"][1] == "3" and rows["freetext"][1] == str(FREETEXT_SENTENCES)
    assert len(list((tmp_path / "ner-speed").glob("tiny-ner-n3-*.json"))) == 1


def test_a_model_that_cannot_load_stops_the_run(capsys, test_settings, tmp_path):
    missing = tmp_path / "no" / "such" / "model"
    capsys.readouterr()
    assert main(["ner-speed", "--model", str(missing), "--results-dir", str(tmp_path / "results")],
                settings=test_settings) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip() == (f"bench: cannot time the NER model: NER model folder {missing} not found "
                                    "(--rules-only times the rules alone)")
    assert not (tmp_path / "results").exists()


def test_a_missing_part_is_reported_not_dropped(test_settings, tmp_path):
    result = ner_speed.run(None, 2, False, test_settings.data_dir, rules_only=True, freetext=tmp_path / "none.conll")
    assert "freetext" not in result and "none.conll" in result["skipped"]["freetext"]
    assert f"skipped freetext: {result['skipped']['freetext']}" in ner_speed.format_table(result)
    with pytest.raises(BenchError, match="--n must be at least 1"):
        ner_speed.run(None, 0, False, test_settings.data_dir, rules_only=True)
