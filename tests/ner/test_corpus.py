"""Corpus reading, the label set and BIO decoding."""

from __future__ import annotations

import pytest

from fpkg.errors import CorpusError, LabelError
from ner.corpus import corpus_path, read_conll
from ner.labels import ENTITY_TYPES, LABELS, resolve_id2label, tag_spans
from tests.support.paths import TEST_DATA

FREETEXT = TEST_DATA / "ner_freetext.conll"


@pytest.mark.parametrize(("split", "count"), [("train", 2519), ("dev", 360), ("test", 720)])
def test_reads_the_corpus_splits(data_dir, split, count):
    sentences = read_conll(corpus_path(data_dir, split))
    assert len(sentences) == count
    assert all(len(s.tokens) == len(s.tags) > 0 for s in sentences)
    assert {t for s in sentences for t in s.tags} <= set(LABELS)


def test_malformed_line_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("Describe -X- _ O\nthe -X- _ O\n\nKMT2D B-GENE\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"bad\.txt:4: expected 4 fields"):
        read_conll(bad)


def test_unknown_tag_and_missing_file_are_corpus_errors(tmp_path):
    bad = tmp_path / "tags.txt"
    bad.write_text("KMT2D -X- _ B-PROTEIN\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"tags\.txt:1: unknown tag 'B-PROTEIN'"):
        read_conll(bad)
    with pytest.raises(CorpusError, match="file not found"):
        read_conll(tmp_path / "absent.txt")
    binary = tmp_path / "latin1.txt"
    binary.write_bytes("caf\xe9 -X- _ O\n".encode("latin-1"))
    with pytest.raises(CorpusError, match="not UTF-8"):
        read_conll(binary)


def test_text_lines_give_character_offsets(tmp_path):
    path = tmp_path / "free.conll"
    path.write_text(
        "# a comment\n# text = 5yo F, c.1234del in KMT2D.\n"
        "5yo -X- _ B-AGE\nF -X- _ B-GENDER\n, -X- _ O\nc.1234del -X- _ B-MUTATION\n"
        "in -X- _ O\nKMT2D -X- _ B-GENE\n. -X- _ O\n",
        encoding="utf-8",
    )
    (sentence,) = read_conll(path)
    text = sentence.raw_text()
    assert [(k, text[a:b]) for k, a, b in sentence.entities()] == [
        ("AGE", "5yo"), ("GENDER", "F"), ("MUTATION", "c.1234del"), ("GENE", "KMT2D"),
    ]
    path.write_text("# text = 5yo F\n5yo -X- _ B-AGE\nM -X- _ B-GENDER\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="does not follow"):
        read_conll(path)


def test_freetext_file_is_large_enough_and_uses_the_seven_types():
    sentences = read_conll(FREETEXT)
    assert len(sentences) >= 60
    assert all(s.text for s in sentences)
    kinds = {k for s in sentences for k, _, _ in s.entities()}
    assert kinds == set(ENTITY_TYPES)


def test_generic_label_names_map_through_the_sorted_list():
    mapping = resolve_id2label({i: f"LABEL_{i}" for i in range(13)})
    assert mapping[0] == "B-AGE" and mapping[4] == "B-GENE" and mapping[12] == "O"
    assert list(mapping.values()) == list(LABELS) == sorted(LABELS)
    named = {0: "O", 1: "B-GENE", 2: "I-GENE"}
    assert resolve_id2label(named) == named
    with pytest.raises(LabelError, match="13"):
        resolve_id2label({i: f"LABEL_{i}" for i in range(9)})
    with pytest.raises(LabelError, match="B-PER"):
        resolve_id2label({0: "O", 1: "B-PER"})


def test_bio_decoding_is_lenient_about_stray_inside_tags():
    tags = ["O", "B-GENE", "I-GENE", "I-MUTATION", "O", "I-RACE", "B-AGE", "B-AGE"]
    assert tag_spans(tags) == [("GENE", 1, 3), ("MUTATION", 3, 4), ("RACE", 5, 6), ("AGE", 6, 7), ("AGE", 7, 8)]
    assert tag_spans([]) == []
