"""Which NER model loads when NER_MODEL does not say: one trained here, else the published weights
through the Hub cache (offline here: a cache seeded with a model of FP_NER's shape), else rules."""

from __future__ import annotations

import pytest
import torch
from huggingface_hub import constants
from transformers import AutoTokenizer, BertConfig, BertForTokenClassification

from fpkg.config import Settings
from ner.labels import LABELS
from ner.model_choice import PUBLISHED_MODEL, choose_model, trained_model_folder
from ner.predict import EntityRecognizer
from ner.train import default_base_model

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def save_tiny_tagger(folder) -> None:
    """A 1-layer BERT token classifier with FP_NER's 13 labels (random weights)."""
    torch.manual_seed(0)
    tokenizer = AutoTokenizer.from_pretrained(str(default_base_model()))
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=1,
                        num_attention_heads=2, intermediate_size=64, num_labels=len(LABELS))
    BertForTokenClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)


@pytest.fixture
def hub_cache(tmp_path, monkeypatch):
    """An offline Hub cache holding the published model id at one commit, as a Space's
    `preload_from_hub` or an image's build step leaves it."""
    cache = tmp_path / "hub"
    repo = cache / f"models--{PUBLISHED_MODEL.replace('/', '--')}"
    save_tiny_tagger(repo / "snapshots" / COMMIT)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(COMMIT)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    return cache


def settings(tmp_path, **env) -> Settings:
    return Settings.from_env({"FPKG_CACHE_DIR": str(tmp_path / "cache"), **env})


def load(choice_settings: Settings) -> EntityRecognizer:
    choice = choose_model(choice_settings)
    return EntityRecognizer.load(choice.model, rules=False, revision=choice.revision)


def test_the_order_trained_here_then_published_then_named(tmp_path):
    assert choose_model(settings(tmp_path)).model == PUBLISHED_MODEL
    assert choose_model(settings(tmp_path, NER_MODEL_REVISION=COMMIT)).revision == COMMIT
    trained = trained_model_folder(tmp_path / "cache")
    trained.mkdir(parents=True)
    assert choose_model(settings(tmp_path)).model == PUBLISHED_MODEL  # an empty folder is no model
    (trained / "config.json").write_text("{}")
    assert choose_model(settings(tmp_path)).model == str(trained)
    assert choose_model(settings(tmp_path, NER_MODEL="someone/model")).model == "someone/model"
    assert choose_model(settings(tmp_path, NER_MODEL="rules")).model is None


def test_the_published_weights_load_offline_from_the_hub_cache(tmp_path, hub_cache):
    recognizer = load(settings(tmp_path))
    assert recognizer.model_available and recognizer.model_name == PUBLISHED_MODEL
    # the revision reaches the download: a commit the cache does not hold is not silently replaced
    pinned = load(settings(tmp_path, NER_MODEL_REVISION=COMMIT))
    assert pinned.model_available
    other = load(settings(tmp_path, NER_MODEL_REVISION="f" * 40))
    assert not other.model_available and "rules only" in other.notice


def test_a_model_trained_here_comes_before_the_published_one(tmp_path, hub_cache):
    save_tiny_tagger(trained_model_folder(tmp_path / "cache"))
    recognizer = load(settings(tmp_path))
    assert recognizer.model_available and recognizer.model_name == str(trained_model_folder(tmp_path / "cache"))


def test_without_either_the_rules_answer_and_say_why(tmp_path, monkeypatch):
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty-hub"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    recognizer = load(settings(tmp_path))
    assert not recognizer.model_available
    assert PUBLISHED_MODEL in recognizer.notice and "rules only" in recognizer.notice
