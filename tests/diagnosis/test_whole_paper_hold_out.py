"""The whole-paper hold-out (issue 53): a published patient never sees its own paper, in HPO's annotation lines
too. A development patient whose disease HPO annotates from that patient's own paper alone, held out, leaves
nothing of that paper in any kind of evidence, in the plain baseline, nor in the graph's gene -> phenotype facts
(filtered when read: the graph is not changed); the patients-only rule leaves HPO's lines as they are."""

from __future__ import annotations

import json

import pytest

from bench.baseline import PlainBaseline
from bench.devsets import split_of
from bench.runtime import phenopackets_dir
from diagnosis.ranker import DiagnosisCase
from graphstore.schema import AFFECT, EXHIBIT, HPO
from retrieval.hold_out import PATIENTS, HoldOut
from retrieval.result import Triple

# Oculopharyngeal muscular dystrophy 2 (HNRNPA2B1): HPO's every line of it cites this patient's paper alone, and
# no other published patient has it; HNRNPA2B1's other diseases keep gene -> phenotype facts of their own
CASE_ID = "PMID_35484142_F2_P2"
GENE_AFFECTS = ("MATCH (g:Genotype)-[r:Affect]->(p:FacePhenotype) WHERE g.geneName = $gene "
                "RETURN g.nid AS gene, p.nid AS phenotype, p.phenotypeName AS name, r.source AS source")
HPO_DISEASES = ("MATCH (g:Genotype)-[r:Cause]->(d:Disease) WHERE g.geneName = $gene AND r.source = 'HPO' "
                "RETURN d.nid AS disease")


@pytest.fixture(scope="module")
def own_paper(pipeline):
    """(the patient as the ranker takes it, its paper, its disease's node, its disease's OMIM id, its gene)."""
    path = phenopackets_dir(pipeline.settings) / "phenopackets_dev.jsonl"
    if not path.is_file():
        pytest.skip(f"no phenopacket development set at {path}")
    patient = next((p for p in map(json.loads, path.read_text().splitlines()) if p["case_id"] == CASE_ID), None)
    if patient is None:
        pytest.skip(f"{CASE_ID} is not in {path}")
    node = pipeline.linker.link(patient["disease"], "DISEASE").node_id
    case = DiagnosisCase(phenotypes=tuple(f["label"] for f in patient["present"] if f["facial"]),
                         other_findings=tuple(f["label"] for f in patient["present"] if not f["facial"]),
                         excluded=tuple(f["label"] for f in patient["excluded"]), gene=patient["gene"],
                         sex=patient.get("sex"), age_years=patient.get("age"))
    return case, int(patient["pmid"]), node, patient["omim_id"], patient["gene"]


def test_the_case_is_a_development_patient_annotated_from_its_own_paper_alone(pipeline, own_paper):
    case, pmid, node, omim, _ = own_paper
    assert split_of(omim) == "dev" and node is not None
    lines = pipeline.profiles.paper_lines.hpo.lines
    assert pipeline.profiles.paper_lines.ids_of[node] == [omim]
    assert lines.kept(omim, frozenset()).present  # annotated, nothing held out
    left = lines.kept(omim, frozenset({pmid}))
    assert not left.present and not left.any_left and not left.inheritance  # every line cites the paper alone
    assert pipeline.ranker.patients.count(node, frozenset({pmid})) == 0  # no other paper's patient has it


def test_held_out_nothing_of_its_paper_remains_in_any_kind_of_evidence(pipeline, own_paper):
    case, pmid, node, _, _ = own_paper
    profiles, ranker = pipeline.profiles, pipeline.ranker
    seen = ranker.prepare(case)
    # with its paper, the annotations speak for it (and it is the answer)
    assert {"phenotype", "annotated", "profile", "cardinal", "gene"} <= set(seen.parts[node])
    held = pipeline.hold_out(frozenset({pmid}))
    assert node in held.held_lines.terms
    assert not profiles.terms(node, held) and not profiles.excluded(node, held)
    assert not profiles.modes(node, held) and not profiles.onsets(node, held)
    assert profiles.annotations(node, held) == [] and profiles.annotations(node)
    assert ranker.knowledge.cardinal_of(node, held) == () and ranker.knowledge.cardinal_of(node, HoldOut())
    present = seen.evidence.present
    for whole in (False, True):
        assert ranker.matcher.scores(present, held, gene_known=True, whole=whole).of(node) == (0.0, 0, 0)
    assert ranker.matcher.scores(present, held).at(ranker.matcher.contradictions(present, seen.evidence.absent, held),
                                                   node) == 0.0
    assert ranker.profile_matcher.scores(present, held).of(node)[::2] == (0.0, 0)
    without = ranker.prepare(case, held)
    assert node not in without.parts  # known only from its paper: not even a candidate
    diagnosis = ranker.finish(without)
    assert node not in diagnosis.gene_diseases  # HPO's gene link came from the paper's lines alone
    assert all(pmid not in t.pmids and node not in (t.head_id, t.tail_id) for t in diagnosis.triples)
    # the plain baseline loses it the same way: no annotation, no gene link
    baseline = PlainBaseline.from_store(pipeline.store, pipeline.ontology, profiles)
    assert node in baseline.gene_filter(case.gene) and node not in baseline.gene_filter(case.gene, held)
    assert node in [s.node_id for s in baseline.rank(present, case.gene, 10, True)]
    assert node not in [s.node_id for s in baseline.rank(present, case.gene, 10, True, held)]
    assert node not in [s.node_id for s in baseline.rank(present, None, 100, True, held)]


def test_held_out_its_papers_gene_to_phenotype_facts_leave_too_others_stay(pipeline, own_paper):
    case, pmid, node, _, gene = own_paper
    held = pipeline.hold_out(frozenset({pmid}))
    rows = pipeline.store.query(GENE_AFFECTS, {"gene": gene})
    facts = [Triple(gene, AFFECT, row["name"], row["gene"], row["phenotype"], "Genotype", "FacePhenotype",
                    row["source"]) for row in rows]
    others = [d["disease"] for d in pipeline.store.query(HPO_DISEASES, {"gene": gene}) if d["disease"] != node]
    still_held = {pipeline.ontology.term_node.get(t) for d in others for t in pipeline.profiles.terms(d, held)}
    gone = [t for t in facts if not held.keeps(t)]
    assert gone and len(gone) < len(facts)  # some came from the paper's disease alone, the others stay
    for fact in facts:  # a fact goes exactly when HPO alone made it and no other disease of the gene holds it
        assert held.keeps(fact) == (fact.source != HPO or fact.tail_id in still_held), fact.text()
    exhibits = [Triple("", EXHIBIT, "", node, a.phenotype, "Disease", "FacePhenotype", a.source)
                for a in pipeline.profiles.annotations(node)]
    assert exhibits and not any(held.keeps(t) for t in exhibits)
    # vector mode reads the graph's facts: none of those is in the answer's triples, and the graph is unchanged
    result = pipeline.diagnose(case, mode="vector", exclude_pmids=frozenset({pmid}))
    removed = {(t.head_id, t.tail_id) for t in gone + exhibits}
    assert result.triples and not any((t.head_id, t.tail_id) in removed for t in result.triples)
    assert len(pipeline.store.query(GENE_AFFECTS, {"gene": gene})) == len(rows)


def test_the_patients_rule_leaves_hpos_lines_as_published_benchmarks_count(pipeline, own_paper):
    case, pmid, node, _, gene = own_paper
    patients = pipeline.hold_out(frozenset({pmid}), PATIENTS)
    assert not patients.held_lines and pipeline.profiles.terms(node, patients)
    prepared = pipeline.ranker.prepare(case, patients)
    # its own paper's patients are gone (no patient, look-alike or publication count), its annotations are not
    assert {"phenotype", "annotated", "cardinal"} <= set(prepared.parts[node])
    assert not {"patients", "lookalikes", "published"} & set(prepared.parts[node])
    rows = pipeline.store.query(GENE_AFFECTS, {"gene": gene})
    assert all(patients.keeps(Triple(gene, AFFECT, "", r["gene"], r["phenotype"], "Genotype", "FacePhenotype",
                                     r["source"])) for r in rows)
