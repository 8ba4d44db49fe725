"""The model card (metadata parses and holds the measured metrics) and the push command."""

from __future__ import annotations

import json

import pytest
from huggingface_hub import ModelCard
from huggingface_hub.repocard import metadata_load
from transformers import AutoTokenizer, BertConfig, BertForTokenClassification

import hf_card.push
from fpkg.errors import CardError
from hf_card.__main__ import main
from hf_card.model_card import build_model_card, write_model_card
from ner.labels import ID2LABEL, LABEL2ID, LABELS
from ner.train import default_base_model

TEST_SCORES = {
    "per_type": {"GENE": {"precision": 0.99, "recall": 0.98, "f1": 0.985, "support": 100}},
    "micro": {"precision": 0.9951, "recall": 0.9932, "f1": 0.99418, "support": 1234},
    "sentences": 720, "data": "test.txt",
}


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ner_model")
    config = BertConfig(vocab_size=30522, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, num_labels=len(LABELS), id2label=ID2LABEL, label2id=LABEL2ID)
    BertForTokenClassification(config).save_pretrained(folder)
    AutoTokenizer.from_pretrained(str(default_base_model())).save_pretrained(folder)
    (folder / "training_args.json").write_text(json.dumps({
        "base_model_id": "sentence-transformers/all-MiniLM-L6-v2", "epochs": 4, "learning_rate": 1e-4,
        "batch_size": 16, "seed": 42, "train_sentences": 2519, "train_seconds": 240.0,
    }), encoding="utf-8")
    (folder / "eval_results.json").write_text(json.dumps({
        "test": TEST_SCORES, "dev": dict(TEST_SCORES, sentences=360, data="dev.txt"),
    }), encoding="utf-8")
    return folder


def test_card_metadata_parses_and_holds_the_metrics(model_dir):
    path = write_model_card(model_dir, repo_id="someone/fpkg-ner")
    meta = metadata_load(path)
    assert meta["license"] == "apache-2.0" and meta["language"] == "en"
    assert meta["library_name"] == "transformers" and meta["pipeline_tag"] == "token-classification"
    assert meta["base_model"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert "datasets" not in meta  # the corpus is no Hub dataset
    assert meta["metrics"] == ["seqeval"] and "KMT2D" in meta["widget"][0]["text"]
    (index,) = meta["model-index"]
    assert index["name"] == "fpkg-ner"
    (result,) = index["results"]
    assert result["task"]["type"] == "token-classification" and result["dataset"]["split"] == "test"
    metrics = {m["type"]: m["value"] for m in result["metrics"]}
    assert metrics == {"precision": 0.9951, "recall": 0.9932, "f1": 0.9942}

    card = ModelCard.load(path)
    assert {r.metric_type: r.metric_value for r in card.data.eval_results}["f1"] == 0.9942
    text = card.text
    for label in LABELS:
        assert f"`{label}`" in text
    assert "not a medical device" in text and "research and education" in text.lower()
    assert "Mondo Disease Ontology" in text and "CC BY 4.0" in text  # credited with its release
    assert "| GENE | 0.9900 | 0.9800 | 0.9850 | 100 |" in text
    assert "| learning_rate | 0.0001 |" in text


def test_card_needs_measured_test_scores(tmp_path, model_dir):
    for name in ("config.json", "training_args.json"):
        (tmp_path / name).write_bytes((model_dir / name).read_bytes())
    with pytest.raises(CardError, match="python -m ner evaluate"):
        build_model_card(tmp_path)
    (tmp_path / "eval_results.json").write_text(json.dumps({"dev": TEST_SCORES}), encoding="utf-8")
    with pytest.raises(CardError, match="no test-split scores"):
        build_model_card(tmp_path)


class FakeApi:
    calls: list = []

    def __init__(self, token=None):
        pass

    def create_repo(self, repo_id, **kwargs):
        FakeApi.calls.append(("create_repo", repo_id, kwargs))

    def upload_folder(self, **kwargs):
        FakeApi.calls.append(("upload_folder", kwargs))
        return "https://huggingface.co/someone/fpkg-ner/commit/abc"


def test_dry_run_prints_files_and_card_without_network(model_dir, capsys, monkeypatch):
    def no_network(*args, **kwargs):
        raise AssertionError("the dry run must not touch the network")

    monkeypatch.setattr("huggingface_hub.HfApi", no_network)
    assert main(["push", "--model", str(model_dir), "--repo", "someone/fpkg-ner", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "would create public model repo someone/fpkg-ner" in out
    for name in ("config.json", "model.safetensors", "tokenizer.json", "eval_results.json", "README.md"):
        assert name in out
    assert "model-index:" in out and "pipeline_tag: token-classification" in out


def test_push_creates_the_repo_and_uploads_the_folder(model_dir, capsys, monkeypatch):
    FakeApi.calls = []
    monkeypatch.setattr("huggingface_hub.HfApi", FakeApi)
    assert main(["push", "--model", str(model_dir), "--repo", "someone/fpkg-ner", "--private"]) == 0
    (create, upload) = FakeApi.calls
    assert create == ("create_repo", "someone/fpkg-ner", {"repo_type": "model", "private": True, "exist_ok": True})
    assert upload[1]["folder_path"] == str(model_dir) and upload[1]["repo_id"] == "someone/fpkg-ner"
    assert ".*" in upload[1]["ignore_patterns"]
    assert "uploaded" in capsys.readouterr().out
    assert "model-index" in (model_dir / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--repo", "no-slash"], "should look like"),
        (["--repo", "a/b"], None),
    ],
)
def test_push_errors_are_messages(tmp_path, model_dir, capsys, args, message):
    if message is None:  # a folder that is not a model
        code = main(["push", "--model", str(tmp_path), *args, "--dry-run"])
        message = "lacks config.json"
    else:
        code = main(["push", "--model", str(model_dir), *args, "--dry-run"])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "Traceback" not in err


def test_ignored_files_are_not_uploaded(model_dir):
    (model_dir / ".secret").write_text("x", encoding="utf-8")
    (model_dir / "checkpoint-10").mkdir(exist_ok=True)
    (model_dir / "checkpoint-10" / "optimizer.pt").write_text("x", encoding="utf-8")
    plan = hf_card.push.plan_push(model_dir, "someone/fpkg-ner")
    names = [name for name, _ in plan.files]
    assert ".secret" not in names and not any(n.startswith("checkpoint-") for n in names)
