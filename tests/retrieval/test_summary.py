"""Issue 37: a summary for any name, in both modes, on the real graph (FPKG + HPO in FalkorDB)."""

from __future__ import annotations

import re

import pytest

from retrieval.relations import SUMMARY, recognise
from retrieval.result import Link

MODES = ("cypher", "vector")


def _retrieve(pipeline, mode: str, question: str):
    return pipeline.retriever(mode).retrieve(question)


@pytest.mark.parametrize("mode", MODES)
def test_tell_me_about_charge_syndrome_is_its_summary(pipeline, mode):
    found = _retrieve(pipeline, mode, "Tell me about CHARGE syndrome")
    assert found.intent == "summary_of_disease" and found.complete
    lead = found.lead
    assert lead.startswith("CHARGE syndrome (OMIM:214800")
    assert "Genes (1): CHD7." in lead
    assert "Facial findings (most frequent and specific first) (" in lead and " more." in lead
    assert "Published FPKG patients: " in lead and "Closest diseases by shared findings: " in lead
    answer = pipeline.ask("Tell me about CHARGE syndrome", mode=mode).answer
    assert answer.startswith("CHARGE syndrome (OMIM:214800") and "Found CHARGE syndrome" not in answer


@pytest.mark.parametrize("mode", MODES)
def test_what_is_kabuki_syndrome_names_its_members_and_genes(pipeline, mode):
    answer = pipeline.ask("What is Kabuki syndrome?", mode=mode).answer
    assert "Members (2): Kabuki syndrome 1 (KS1), Kabuki syndrome 2 (KS2)." in answer
    assert "KMT2D" in answer and "KDM6A" in answer


@pytest.mark.parametrize("mode", MODES)
def test_a_misspelt_syndrome_links_the_disease_not_the_phenotype_synonym(pipeline, mode):
    found = _retrieve(pipeline, mode, "crouzon syndrom facial features")
    named = [link for link in found.links if link.node_id is not None]
    assert named[0].label == "Disease" and named[0].name == "Crouzon syndrome" and named[0].method == "typo"
    answer = pipeline.ask("crouzon syndrom facial features", mode=mode).answer
    assert answer.startswith("Crouzon syndrome: ") and "facial findings" in answer.splitlines()[0]
    assert "Hypertelorism" in answer


@pytest.mark.parametrize("mode", MODES)
def test_what_else_is_ptosis_called_lists_its_synonyms(pipeline, mode):
    found = _retrieve(pipeline, mode, "what else is ptosis called?")
    assert found.intent == "synonyms_of_phenotype"
    answer = pipeline.ask("what else is ptosis called?", mode=mode).answer
    assert answer.startswith("4 synonyms for Ptosis:\n1. Blepharoptosis\n2. Drooping upper eyelid\n")


def test_a_gene_summary_names_diseases_variants_in_hgvs_and_findings(pipeline):
    lead = _retrieve(pipeline, "cypher", "Tell me about CHD7").lead
    assert lead.startswith("CHD7 is a gene in the graph.")
    assert "CHARGE syndrome" in lead and "c.2443-2A>G" in lead
    assert "c. 2443" not in lead and "mutations account for" not in lead  # HGVS form; no sentence as a variant
    assert "Facial findings (most specific first) (" in lead


def test_a_bare_phenotype_name_is_its_summary_with_definition_and_ranked_diseases(pipeline):
    lead = _retrieve(pipeline, "cypher", "hypertelorism").lead
    assert lead.startswith("Hypertelorism (HP:0000316) is a facial phenotype in the graph.")
    assert "Definition (HPO): Interpupillary distance" in lead and "Wide-set eyes" in lead
    assert "Parent terms (1): Abnormality of globe location." in lead
    assert "Annotated to " in lead and "Diseases (most specific first) (" in lead


def test_an_unrecognised_relation_with_a_name_falls_back_to_the_summary(pipeline):
    kabuki = pipeline.linker.link("Kabuki syndrome", "DISEASE")
    intent, how = recognise("Kabuki syndrome: blah blah?", [kabuki])
    assert intent.name == SUMMARY and how in ("meaning", "default")
    assert recognise("no names here", [Link("x", "GENE", None)]) == (None, "")


def test_vector_mode_puts_other_entities_facts_under_related_with_their_heads(pipeline):
    answer = pipeline.ask("Which diseases are caused by FGFR2?", mode="vector").answer
    about, _, related = answer.partition("\nRelated:\n")
    assert re.match(r"\d+ diseases for FGFR2:\n1\. ", about) and related  # the list, numbered, then the rest
    assert "FGFR1" not in about and "FGFR3" not in about
    assert all(" — " in line for line in related.splitlines() if line)  # each related fact names its head
