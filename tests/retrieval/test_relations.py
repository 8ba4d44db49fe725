"""Issue 37: what a question asks, recognised however it is worded (cue words, then meaning)."""

from __future__ import annotations

import re

import pytest

from retrieval.intent import find_mentions
from retrieval.question_types import answer_structured
from retrieval.relations import SUMMARY, asks_both, asks_count, recognise
from tests.support.markdown_tables import table_rows


@pytest.mark.parametrize(("question", "intent"), [
    ("alt names for the phenotype broad neck", "synonyms_of_phenotype"),
    ("what else is hypoplasia of the nasal bone called?", "synonyms_of_phenotype"),
    ("Metopic synostosis is also known as?", "synonyms_of_phenotype"),
    ("What are the synonyms for the facial phenotype Macroglossia?", "synonyms_of_phenotype"),
    ("disease genes for Crouzon syndrome", "genes_of_disease"),
    ("In Crouzon syndrome, which facial features are typical?", "phenotypes_of_disease"),
    ("Which facial anomalies are associated with Apert syndrome?", "phenotypes_of_disease"),
    ("Give me an overview of Treacher Collins syndrome.", SUMMARY),
    ("What is the gene FGFR2?", SUMMARY),
])
def test_relations_by_cue_or_meaning(pipeline, question, intent):
    found, how = recognise(question, find_mentions(question, pipeline.linker, alternatives=True))
    assert found is not None and found.name == intent, (question, found, how)


@pytest.mark.parametrize("question", [
    "diseases linked to FGFR2 as well as to FGFR3?", "which diseases have cleft palate and also micrognathia?",
    "What diseases do FGFR2 and FGFR3 have in common?", "Which diseases combine hypertelorism with ptosis?"])
def test_intersections_however_worded(pipeline, question):
    assert asks_both(question)
    answered = answer_structured(question, find_mentions(question, pipeline.linker), pipeline.store)
    assert answered is not None and answered.kind == "intersection"
    assert re.search(r" (linked to|have|has) both ", answered.lead) or answered.lead.startswith("Not recorded")


def test_an_intersection_is_ranked_by_relevance_not_alphabetically(pipeline):
    question = "Which diseases have both cleft palate and micrognathia?"
    answered = answer_structured(question, find_mentions(question, pipeline.linker), pipeline.store)
    count = int(answered.lead.split()[0])
    assert count > 100 and "(a more specific finding counts; the most frequent and specific first)" in answered.lead
    rows = table_rows(answered.lead, "| # | disease |")
    names = [row[1] for row in rows]
    assert names[:5] != sorted(names[:5])  # ranked by frequency and specificity, not by name
    assert f"And {count - len(rows)} more: " in answered.lead  # the rest named below the table
    assert "Pierre Robin syndrome" in {t.head for t in answered.triples}  # the whole list is in the facts


def test_counts_however_worded():
    assert asks_count("How many genes are linked to CHARGE syndrome?")
    assert asks_count("what's the number of diseases with ptosis")
    assert not asks_count("Which genes cause CHARGE syndrome?")
