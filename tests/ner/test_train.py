"""A small training run: the loss falls and the saved model reloads and predicts."""

from __future__ import annotations

import json

import pytest

from fpkg.errors import TrainError
from ner.corpus import corpus_path, read_conll
from ner.labels import ENTITY_TYPES, LABELS
from ner.predict import EntityRecognizer
from ner.train import TrainConfig, encode, train


@pytest.fixture(scope="module")
def corpus(data_dir):
    return {split: read_conll(corpus_path(data_dir, split)) for split in ("train", "dev")}


def test_sub_tokens_and_special_tokens_carry_no_label(corpus):
    from transformers import AutoTokenizer

    from ner.train import default_base_model

    (sentence,) = [s for s in corpus["train"][:50] if "B-GENE" in s.tags][:1]
    tokenizer = AutoTokenizer.from_pretrained(str(default_base_model()))
    (feature,) = encode([sentence], tokenizer, max_length=128)
    labelled = [label for label in feature["labels"] if label != -100]
    assert [LABELS[i] for i in labelled] == list(sentence.tags)  # one label per word
    assert feature["labels"][0] == -100 and feature["labels"][-1] == -100  # [CLS], [SEP]


@pytest.mark.slow
def test_smoke_training_loss_falls_and_model_reloads(tmp_path, corpus):
    train_sentences = corpus["train"]
    # a few dozen sentences of both templates: short questions and patient descriptions
    short = [s for s in train_sentences if len(s.tokens) < 20][:32]
    long = [s for s in train_sentences if "B-MUTATION" in s.tags and len(s.tokens) < 60][:16]
    out = tmp_path / "model"
    config = TrainConfig(out=out, epochs=1, learning_rate=3e-4, batch_size=8, warmup_ratio=0.0, augment=0, prose=0,
                         layers=2, progress=False)
    result = train(config, short + long, corpus["dev"][:8], log=lambda message: None)

    losses = result.step_losses
    assert len(losses) == 6
    assert sum(losses[-2:]) / 2 < 0.7 * sum(losses[:2]) / 2, losses

    assert (out / "model.safetensors").is_file() and not (out / "pytorch_model.bin").exists()
    assert (out / "tokenizer.json").is_file()
    saved = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert [saved["id2label"][str(i)] for i in range(len(LABELS))] == list(LABELS)
    assert saved["num_hidden_layers"] == 2
    args = json.loads((out / "training_args.json").read_text(encoding="utf-8"))
    assert args["train_sentences"] == 48 and args["epochs_run"] == 1 and args["seed"] == 42

    recognizer = EntityRecognizer.load(str(out), rules=False)
    assert recognizer.model_available and len(recognizer.tagger.model.bert.encoder.layer) == 2
    text = "Describe the gene KMT2D, what facial phenotypes associate with it?"
    spans = recognizer.predict(text)
    for s in spans:
        assert s.type in ENTITY_TYPES and s.source == "model"
        assert 0 <= s.start < s.end <= len(text) and text[s.start:s.end] == s.text


def test_layers_must_fit_the_base_model(tmp_path, corpus):
    config = TrainConfig(out=tmp_path / "m", epochs=1, augment=0, prose=0, layers=9, progress=False)
    with pytest.raises(TrainError, match="between 1 and 6"):
        train(config, corpus["train"][:4], [], log=lambda message: None)
