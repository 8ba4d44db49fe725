"""Candidate facts from text, with the session graph's vocabulary."""

from __future__ import annotations

import pytest

from curation.extract import MAX_TEXT, extract, sentences
from fpkg.errors import InputError

REPORT = ("We report a 6-year-old boy with Crouzon syndrome. He had proptosis and hypertelorism.\n"
          "Sequencing found a heterozygous FGFR2 variant. There was no cleft palate.")


def test_a_case_report_gives_facts_with_their_sentences(pipeline):
    found = extract(REPORT, pipeline.linker)
    facts = {(f.head, f.relation, f.tail): f.sentence for f in found.facts}
    assert facts == {
        ("Crouzon syndrome", "Exhibit", "Proptosis"): "He had proptosis and hypertelorism.",
        ("Crouzon syndrome", "Exhibit", "Hypertelorism"): "He had proptosis and hypertelorism.",
        ("FGFR2", "Cause", "Crouzon syndrome"): "Sequencing found a heterozygous FGFR2 variant.",
    }
    assert found.notices == ["Written as absent, so left out: cleft palate."]


def test_a_gene_and_findings_without_a_disease_give_affect_facts(pipeline):
    found = extract("Carriers of a KMT2D variant had arched eyebrows. Another had ptosis.", pipeline.linker)
    assert {(f.head, f.relation) for f in found.facts} == {("KMT2D", "Affect")}
    assert {f.tail_label for f in found.facts} == {"FacePhenotype"}


def test_two_diseases_in_a_text_tie_nothing_outside_their_sentences(pipeline):
    found = extract("Crouzon syndrome and Apert syndrome were considered. She had ptosis.", pipeline.linker)
    assert found.facts == []
    assert "never a pair" in found.notices[0]


@pytest.mark.parametrize(("text", "message"), [("", "Paste a case report"), ("  \n ", "Paste a case report"),
                                               ("x" * (MAX_TEXT + 1), "the limit is 20,000")])
def test_empty_or_huge_text_is_refused(pipeline, text, message):
    with pytest.raises(InputError, match=message):
        extract(text, pipeline.linker)


def test_text_with_no_entities_says_so(pipeline):
    assert extract("The weather was fine all week.", pipeline.linker).notices == [
        "No gene, disease or facial phenotype of the graph was found in the text."]


def test_sentences_split_on_full_stops_and_paragraphs():
    assert sentences("One. Two!\n\nThree (see Fig. 2) here.\n- four") == ["One.", "Two!", "Three (see Fig. 2) here.",
                                                                          "- four"]
