"""A disease's annotations and its published patients' findings together (diagnosis/profile_match.py), and
the kinds of evidence read off them: a disease known through its patients alone is reached, and a held-out
paper's patients leave its profile."""

from __future__ import annotations

import numpy as np

from diagnosis.ranker import DiagnosisCase
from tests.diagnosis.conftest import names_of


def hpo_terms(pipeline, hpo_ids: list[str]) -> list[int]:
    return [pipeline.ontology.index_of_hpo[h] for h in hpo_ids if h in pipeline.ontology.index_of_hpo]


def test_a_disease_known_through_its_patients_alone_explains_their_findings(pipeline, single_paper_disease):
    disease, _, pmid, patient, _ = single_paper_disease
    profiles = pipeline.ranker.profile_matcher
    terms = hpo_terms(pipeline, patient["present"].split(";"))
    seen = profiles.scores(terms)
    information, exact, size = seen.of(disease)
    assert information == 1.0 and exact == 1.0 and size >= len(set(terms))  # its own patient's every finding
    assert disease in seen.best(60)
    # its one paper held out, nothing is left of it: no annotation, no patient
    held_out = pipeline.hold_out(frozenset({pmid}))
    held = profiles.scores(terms, held_out).of(disease)
    assert held[0] == 0.0 and held[2] == 0
    # and nothing else moved
    other = profiles.scores(terms, held_out)
    keep = other.diseases != disease
    assert np.array_equal(other.sizes[keep], seen.sizes[keep]) or pipeline.ranker.profiles.diseases_citing(held_out)


def test_the_findings_kinds_speak_for_such_a_disease_without_a_gene(pipeline, single_paper_disease):
    disease, name, pmid, patient, _ = single_paper_disease
    case = DiagnosisCase(phenotypes=names_of(pipeline, patient["present"].split(";")))
    prepared = pipeline.ranker.prepare(case)
    assert disease in prepared.parts, f"{name} is a candidate through its patients' findings"
    parts = prepared.parts[disease]
    assert parts["profile"].value > 0.9 and parts["exact"].value > 0.5 and parts["breadth"].value > 0
    assert "lookalikes" in parts and 0 < parts["lookalikes"].value <= 1
    votes = prepared.evidence.patients.votes(50, 8)
    assert abs(sum(share for share, _ in votes.values()) - 1.0) < 1e-6


def test_every_weight_set_reads_a_broad_profile_as_weaker_and_a_contradiction_as_against(pipeline):
    for weights in pipeline.ranker.weights.values():
        assert weights["breadth"] <= 0 and weights["contradicted"] > 0
    gene = pipeline.ranker.weights["gene"]
    assert gene["variant"] >= gene["gene"] > 0  # a published variant is at least the gene's evidence
