"""Names found inside questions as people write them: any case, typos, long names (real graph)."""

from __future__ import annotations

import pytest

from retrieval.intent import detect_intent, find_mentions


def mentions(pipeline, question: str) -> list[tuple[str, str, str]]:
    return [(link.label, link.name, link.method) for link in find_mentions(question, pipeline.linker)]


@pytest.mark.parametrize("question, gene", [
    ("which conditions are caused by fgfr2 variants?", "FGFR2"),
    ("nipbl: what disease does it cause", "NIPBL"),
    ("Does the Tcof1 gene cause a syndrome?", "TCOF1"),
])
def test_gene_symbols_in_any_case_are_genes(pipeline, question, gene):
    assert ("Genotype", gene, "exact") in mentions(pipeline, question)


@pytest.mark.parametrize("question", [
    "which diseases have low set ears?",  # SET is a gene symbol; here it is part of a phenotype
    "what was found in this patient with a cleft palate",
    "is there any syndrome with a long face",
])
def test_ordinary_words_are_not_taken_for_gene_symbols(pipeline, question):
    assert not [m for m in mentions(pipeline, question) if m[0] == "Genotype"]


@pytest.mark.parametrize("question, label, name", [
    ("which genes are linked to micrognatia?", "FacePhenotype", "Micrognathia"),
    ("diseases with epicantus", "FacePhenotype", "Epicanthus"),
    # FPKG's node, named "Treacher Collins syndrome 1(TCS1)", holds HPO's name as a synonym
    ("what facial features does treacher colins syndrome 1 have", "Disease", "Treacher Collins syndrome 1(TCS1)"),
])
def test_a_misspelt_name_inside_a_question_is_found_and_marked_as_a_typo(pipeline, question, label, name):
    assert (label, name, "typo") in mentions(pipeline, question)


def test_a_typo_keeps_each_words_first_letter(pipeline):
    # "table diseases" is two letters from "eales disease", but nobody slips on a first letter
    assert not [m for m in mentions(pipeline, "'; DROP TABLE diseases; --") if m[2] == "typo"]


def test_a_misspelt_gene_symbol_is_not_guessed(pipeline):
    # one edit away from CHD7 is CHD8, another gene: symbols are never corrected
    assert not [m for m in mentions(pipeline, "what does the gene chd77 cause?") if m[0] == "Genotype"]


def test_a_long_name_with_commas_and_a_lower_cased_name_are_found_whole(pipeline):
    long_name = "Intellectual developmental disorder, autosomal dominant 5"
    question = f"what facial phenotypes are associated with {long_name.lower()}?"
    assert mentions(pipeline, question) == [("Disease", long_name, "exact")]
    links = find_mentions(question, pipeline.linker, alternatives=True)
    assert detect_intent(question, links).name == "phenotypes_of_disease"
