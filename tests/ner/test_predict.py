"""Inference on raw text: loading (folder, Hub id, failures), windows, bad input."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch
from transformers import AutoTokenizer, BertConfig, BertForTokenClassification

from ner.labels import ENTITY_TYPES, LABEL2ID, LABELS
from ner.predict import EntityRecognizer, Span
from ner.tagger import WordTagger
from ner.train import default_base_model

GENES = ["KMT2D", "NSD1"]


@pytest.fixture(scope="module")
def tokenizer():
    return AutoTokenizer.from_pretrained(str(default_base_model()))


@pytest.fixture(scope="module")
def tiny_model_dir(tmp_path_factory, tokenizer):
    """A randomly initialised 1-layer BERT saved with generic LABEL_0..12 names, as the
    paper's hfchloe/FP_NER may be."""
    torch.manual_seed(0)
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=1,
                        num_attention_heads=2, intermediate_size=64, num_labels=len(LABELS))
    assert config.id2label[0] == "LABEL_0"
    folder = tmp_path_factory.mktemp("tiny_ner")
    BertForTokenClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


class TokenIdModel(torch.nn.Module):
    """Tags the given token ids B-GENE and all others O, from the id alone, so the result
    cannot depend on the window a token was seen in."""

    def __init__(self, gene_ids: list[int]):
        super().__init__()
        self.config = SimpleNamespace(id2label=dict(enumerate(LABELS)))
        self.gene_ids = torch.tensor(gene_ids)

    def forward(self, input_ids, attention_mask=None):
        logits = torch.zeros(*input_ids.shape, len(LABELS))
        logits[..., LABEL2ID["O"]] = 1.0
        logits[..., LABEL2ID["B-GENE"]] = torch.isin(input_ids, self.gene_ids).float() * 2.0
        return SimpleNamespace(logits=logits)


def well_formed(text: str, spans: list[Span]) -> bool:
    previous_end = -1
    for s in spans:
        assert s.type in ENTITY_TYPES and s.source in ("model", "rules", "dictionary")
        assert 0 <= s.start < s.end <= len(text) and text[s.start:s.end] == s.text
        assert 0.0 <= s.score <= 1.0 and s.start >= previous_end
        previous_end = s.end
    return True


def test_generic_labels_load_through_the_sorted_list(tiny_model_dir):
    recognizer = EntityRecognizer.load(str(tiny_model_dir), GENES)
    assert recognizer.model_available and recognizer.notice is None
    assert list(recognizer.tagger.id2label.values()) == list(LABELS)
    text = "There is a 5.0 years old female Chinese patient with a mutation in KMT2D, namely, c.5464C>T."
    spans = recognizer.predict(text)
    assert well_formed(text, spans)
    # whatever the random model says, an HGVS string is a variant
    assert ("MUTATION", "c.5464C>T") in {(s.type, s.text) for s in spans}


def test_missing_model_falls_back_to_rules(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for model, reason in [(None, "no NER model configured"), (str(tmp_path / "absent"), "not found"),
                          ("someone/not-a-real-model-xyz", "could not be loaded")]:
        recognizer = EntityRecognizer.load(model, GENES)
        assert not recognizer.model_available
        assert reason in recognizer.notice and "rules only" in recognizer.notice
        assert [(s.type, s.text) for s in recognizer.predict("5yo F with NSD1 p.Arg604*")] == [
            ("AGE", "5yo"), ("GENDER", "F"), ("GENE", "NSD1"), ("MUTATION", "p.Arg604*")]


def test_unreadable_model_folder_falls_back_to_rules(tmp_path, tiny_model_dir):
    (tmp_path / "config.json").write_text("{not json", encoding="utf-8")
    recognizer = EntityRecognizer.load(str(tmp_path))
    assert not recognizer.model_available and "could not be loaded" in recognizer.notice
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    for path in tiny_model_dir.iterdir():
        (damaged / path.name).write_bytes(path.read_bytes())
    weights = damaged / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:1000])
    recognizer = EntityRecognizer.load(str(damaged))
    assert not recognizer.model_available and "could not be loaded" in recognizer.notice


def test_windows_cover_long_input_without_truncation(tokenizer):
    words = [f"w{i}" for i in range(100)] + ["KMT2D", "end", "NSD1", "fin"]
    sentence = " ".join(words * 3)
    model = TokenIdModel(tokenizer.convert_tokens_to_ids(["km", "end", "fin"]))
    full = EntityRecognizer(WordTagger(model, tokenizer, max_length=2048, stride=32), None)
    windowed = EntityRecognizer(WordTagger(model, tokenizer, max_length=24, stride=6), None)
    expected = full.predict(sentence)
    assert [s.text for s in expected] == ["KMT2D", "end", "fin"] * 3
    assert expected[-1].end == len(sentence)  # up to the very end: no truncation
    assert windowed.predict(sentence) == expected


def test_bad_input_never_raises(tiny_model_dir):
    recognizer = EntityRecognizer.load(str(tiny_model_dir), GENES)
    assert recognizer.predict("") == [] and recognizer.predict(None) == []
    samples = [
        " \n\t ", "\x00\x01KMT2D\x02 c.1234del\x7f", "患者为5岁女孩，KMT2D基因突变，眉毛弓形。",
        "Пациентка 5 лет, мутация NSD1", "🧬" * 50, "c.(" * 300, "a" * 5000,
    ]
    for text, spans in zip(samples, recognizer.predict_batch(samples), strict=True):
        assert well_formed(text, spans)
    control = recognizer.predict("\x00\x01KMT2D\x02 c.1234del\x7f")
    assert ("GENE", "KMT2D") in {(s.type, s.text) for s in control}


@pytest.mark.slow
def test_100kb_input_returns_spans(tiny_model_dir):
    recognizer = EntityRecognizer.load(str(tiny_model_dir), GENES)
    unit = "A 5yo F with KMT2D c.1234del, arched eyebrows and long palpebral fissures. "
    text = unit * (100_000 // len(unit) + 1)
    spans = recognizer.predict(text)  # pytest-timeout guards against a hang; bench measures the speed
    assert well_formed(text, spans)
    assert sum(s.text == "c.1234del" for s in spans) == text.count("c.1234del")
