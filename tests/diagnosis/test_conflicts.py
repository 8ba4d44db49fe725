"""Conflicts named with both sources: on hand-built evidence, and on the real graph (the two
Publication-set questions whose variant's published carrier has a second variant and disease)."""

from __future__ import annotations

from diagnosis.conflicts import against_exclusions, variant_vs_gene
from diagnosis.queries import DiagnosisEvidence
from diagnosis.ranker import DiagnosisCase
from retrieval.result import Link
from tests.support.fake_llm import ScriptedLLM
from tests.support.hardening_support import with_generator

RETURN_NOTHING = "MATCH (d:Disease) WHERE d.dname = 'No such disease' RETURN d.dname"

VARIANT = Link("c.1A>G", "MUTATION", 7, "Variation", "c.1A>G; p.Met1?", 1.0, "exact")
# The Publication set's question for PMID 32534992: its FBN1 variant's carrier also has an FBN2
# variant, which FPKG records as causing Beals syndrome (the question's answer).
BEALS_QUESTION = DiagnosisCase(("Frontal bossing", "High palate", "Deeply set eye", "Midface retrusion"),
                               gene="FBN1", variant="c.3159C > G ,p.Cys1053Trp,in exon 26")


def evidence(gene_sources: dict[int, set[str]], variant_diseases: dict[int, set[int]]) -> DiagnosisEvidence:
    found = DiagnosisEvidence(gene=(1, "GENE1"))
    found.diseases = {10: {"name": "Syndrome A"}, 11: {"name": "Syndrome B"}, 12: {"name": "Syndrome B (ORPHA)"}}
    found.gene_sources.update(gene_sources)
    found.variant_diseases.update(variant_diseases)
    return found


def test_a_variant_published_for_a_disease_hpo_does_not_link_to_its_gene():
    [conflict] = variant_vs_gene(evidence({10: {"HPO"}, 11: {"FPKG variant"}}, {11: {123}}), VARIANT, {})
    assert conflict.kind == "variant_vs_gene"
    assert conflict.text == ("Sources disagree: FPKG publishes the patient's variant c.1A>G as causing Syndrome B "
                             "(PMID 123), but HPO links GENE1 to Syndrome A, not to Syndrome B.")
    assert [t.source for t in conflict.triples] == ["FPKG (conflict)", "HPO (conflict)"]


def test_agreement_a_twin_or_no_hpo_link_at_all_is_no_conflict():
    assert variant_vs_gene(evidence({10: {"HPO"}, 11: {"FPKG+HPO", "FPKG variant"}}, {11: {123}}), VARIANT, {}) == []
    # HPO links the gene to the ORPHA twin of the variant's OMIM disease: the same disease
    assert variant_vs_gene(evidence({12: {"HPO"}, 11: {"FPKG variant"}}, {11: {123}}), VARIANT, {12: 11}) == []
    assert variant_vs_gene(evidence({11: {"FPKG variant"}}, {11: {123}}), VARIANT, {}) == []  # a gap, not a conflict
    assert variant_vs_gene(evidence({10: {"HPO"}}, {11: {123}}), None, {}) == []


def test_the_publication_miss_shows_the_carriers_second_disease(pipeline):
    result = pipeline.diagnose(BEALS_QUESTION)
    assert result.ranked[0].name != "Beals syndrome"  # the ranker's answer follows the FBN1 variant
    assert ("⚠ Two diseases for one patient: FPKG's published patient with c.3159C>G (PMID 32534992) also "
            "carries FBN2 c.2638G>A, recorded as causing Beals syndrome") in result.answer
    assert "HPO does not link FBN1 to Beals syndrome." in result.answer
    [shown] = [t for t in result.triples if t.source == "FPKG (conflict)"]
    assert (shown.head, shown.tail, shown.pmids) == ("FBN2 c.2638G>A", "Beals syndrome", (32534992,))
    # asked in the same round trip as the gene's evidence: one query, shown once
    [asked] = [run for run in result.cypher if "$variant" in run.query]
    assert asked.origin == "diagnosis:gene_evidence" and "$gene" in asked.query
    held_out = pipeline.diagnose(BEALS_QUESTION, exclude_pmids=frozenset({32534992}))
    assert "Two diseases" not in held_out.answer  # a held-out paper is no evidence, for conflicts too


def test_hpo_exclusions_against_the_patient_and_against_a_recorded_exhibit(pipeline):
    store = pipeline.store
    row = store.query("MATCH (d:Disease)-[:Exhibit]->(p:FacePhenotype) WHERE d.excludes IS NOT NULL "
                      "AND p.hpo_id IN split(d.excludes, ';') RETURN d.nid AS d, p.nid AS p, d.dname AS name")[0]
    conflicts, run = against_exclusions(store, [row["d"]], [row["p"]])
    assert {c.kind for c in conflicts} == {"patient_vs_excluded", "exhibit_vs_excluded"}
    assert all(row["name"] in c.text and "NOT annotation" in c.text for c in conflicts)
    assert run.rows == 1 and "$diseases" in run.query
    assert against_exclusions(store, [row["d"]], [])[0][0].kind == "exhibit_vs_excluded"
    assert against_exclusions(store, [], [row["p"]])[0] == []


def test_an_answer_listing_a_phenotype_hpo_excludes_says_so(pipeline):
    row = pipeline.store.query("MATCH (d:Disease)-[:Exhibit]->(p:FacePhenotype) WHERE d.excludes IS NOT NULL "
                               "AND p.hpo_id IN split(d.excludes, ';') RETURN d.dname AS name, p.phenotypeName AS p")[0]
    result = pipeline.ask(f"What facial phenotypes are associated with {row['name']}?")
    assert f"⚠ Sources disagree: HPO records {row['p']} for {row['name']}, but HPO excludes it" in result.answer
    assert [t.source for t in result.triples[:2]] == ["HPO (conflict)", "HPO NOT (conflict)"]
    plain = pipeline.ask("What facial phenotypes are associated with Crouzon syndrome?")
    assert "⚠" not in plain.answer and not plain.conflicts
    llm = ScriptedLLM([RETURN_NOTHING, "A short answer."])  # its query finds nothing: the template answers
    asked = with_generator(pipeline, llm).ask(f"What facial phenotypes are associated with {row['name']}?")
    assert "HPO excludes it" in llm.requests[-1].messages[-1]["content"]  # the LLM is told, too
    assert asked.answer.startswith("A short answer.") and "⚠ Sources disagree" in asked.answer
