"""Published patients (phenopacket-store) as knowledge: in the graph in FPKG's schema, as evidence in the
differential, shown in the answer, and never voting for themselves when their paper is held out."""

from __future__ import annotations

from diagnosis.ranker import DiagnosisCase
from graphstore.schema import PHENOPACKET_STORE
from tests.diagnosis.conftest import names_of


def test_published_patients_are_in_the_graph_as_fpkg_draws_them(pipeline):
    counts = {row["source"]: row["n"] for row in pipeline.store.query(
        "MATCH (s:Sample) RETURN s.source AS source, count(s) AS n", timeout_ms=60_000)}
    assert counts["FPKG"] == 1147 and counts[PHENOPACKET_STORE] > 6500
    [row] = pipeline.store.query(
        "MATCH (p:FacePhenotype)-[:with_FP]->(s:Sample {sid: 'PMID_15266616_100'})-[:Diagnosed]->(d:Disease) "
        "MATCH (s)-[:From]->(a:Article) RETURN d.dname AS disease, a.pmid AS pmid, count(p) AS facial, "
        "s.excluded AS excluded, s.gender AS sex", timeout_ms=5000)
    assert row["disease"].startswith("Jacobsen syndrome") and row["pmid"] == 15266616 and row["sex"] == "F"
    assert row["facial"] >= 4 and "HP:0000316" in row["excluded"].split(";")  # hypertelorism looked for, absent
    sources = {row["source"] for row in pipeline.store.query(
        "MATCH (s:Sample {sid: 'PMID_15266616_100'})-[r]-() RETURN DISTINCT r.source AS source", timeout_ms=5000)}
    assert sources == {PHENOPACKET_STORE}  # every triple from the store names it


def test_a_gene_link_only_patients_give_carries_their_papers(pipeline):
    rows = pipeline.store.query("MATCH (g:Genotype)-[r:Cause]->(d:Disease) WHERE r.source = 'phenopacket-store' "
                                "RETURN g.geneName AS gene, d.dname AS disease, r.pmids AS pmids LIMIT 20",
                                timeout_ms=5000)
    assert rows and all(row["pmids"] and all(isinstance(p, int) for p in row["pmids"]) for row in rows)


def test_a_patient_never_votes_for_itself(pipeline, single_paper_disease):
    disease, name, pmid, patient, gene = single_paper_disease
    case = DiagnosisCase(phenotypes=names_of(pipeline, patient["present"].split(";")), gene=gene)
    seen = pipeline.rank(case)
    ranked = {r.node_id: r for r in seen.ranked}
    assert disease in ranked, f"{name} should be ranked from its own patients when nothing is held out"
    assert {"patients", "gene"} <= set(ranked[disease].parts)
    held_out = pipeline.rank(case, frozenset({pmid}))
    # its paper gone, nothing is left of it: no patients, no gene link, no candidate
    assert disease not in {r.node_id for r in held_out.ranked}
    assert not any(near.patient.pmid == pmid for found in held_out.nearest_patients.values() for near in found)
    assert not any(pmid in t.pmids for t in held_out.triples)


def test_the_answer_shows_the_patients_most_like_this_one(pipeline, single_paper_disease):
    _, name, pmid, patient, gene = single_paper_disease
    result = pipeline.diagnose(DiagnosisCase(phenotypes=names_of(pipeline, patient["present"].split(";")),
                                             gene=gene))
    assert "Published patients like this one:" in result.answer and f"PMID {pmid}" in result.answer
    diagnosed = [t for t in result.triples if t.relation == "Diagnosed"]
    assert diagnosed and all(t.pmids for t in diagnosed) and diagnosed[0].source in ("FPKG", PHENOPACKET_STORE)
