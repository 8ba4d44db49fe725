"""Spans from word tags: names cut at separators and stripped of edge words, variants whole."""

from __future__ import annotations

from ner.spans import WordTag, spans_from_words
from ner.text import split_words


def spans(text: str, labels: str) -> list[tuple[str, str]]:
    words = split_words(text)
    tags = [WordTag(label, 0.9) for label in labels.split()]
    assert len(tags) == len(words), [w.text for w in words]
    return [(s.type, s.text) for s in spans_from_words(text, words, tags)]


def test_a_name_run_on_into_the_next_words_is_cut_back():
    assert spans("suspect Smith-Magenis syndrome and RAI1",
                 "O B-DISEASE I-DISEASE I-DISEASE O") == [("DISEASE", "Smith-Magenis syndrome")]
    assert spans("has a cleft palate", "O B-FACIAL_PHENOTYPE I-FACIAL_PHENOTYPE I-FACIAL_PHENOTYPE") == [
        ("FACIAL_PHENOTYPE", "cleft palate")]


def test_two_names_tagged_as_one_are_split_at_the_separator():
    assert spans("Differential: Rett syndrome; CDKL5 deficiency disorder",
                 "O O B-DISEASE I-DISEASE I-DISEASE I-DISEASE I-DISEASE I-DISEASE") == [
        ("DISEASE", "Rett syndrome"), ("DISEASE", "CDKL5 deficiency disorder")]


def test_a_variant_keeps_its_separator_and_inner_words():
    assert spans("c.2908C > T ; ( p.Arg970Ter )", "B-MUTATION " + "I-MUTATION " * 6) == [
        ("MUTATION", "c.2908C > T ; ( p.Arg970Ter )")]
    assert spans("eversion of the lateral lower eyelid", "B-FACIAL_PHENOTYPE" + " I-FACIAL_PHENOTYPE" * 5) == [
        ("FACIAL_PHENOTYPE", "eversion of the lateral lower eyelid")]


def test_a_bracket_opened_and_never_closed_ends_the_name():
    assert spans("known Marfan syndrome (FBN1 c.3509G>A)", "O B-DISEASE I-DISEASE I-DISEASE I-DISEASE O O") == [
        ("DISEASE", "Marfan syndrome")]
    assert spans("Verheij syndrome ( VRJS )", "B-DISEASE I-DISEASE I-DISEASE I-DISEASE I-DISEASE") == [
        ("DISEASE", "Verheij syndrome ( VRJS )")]
    assert spans("X syndrome ( XS ) (ABC", "B-DISEASE I-DISEASE I-DISEASE I-DISEASE I-DISEASE I-DISEASE I-DISEASE") == [
        ("DISEASE", "X syndrome ( XS )")]
