"""What a gene's disease is where HPO records no kind of link (issue 55): a cancer, an autoimmune disease, a
susceptibility, a disease of adult onset or hardly of the face, against a syndrome a child is seen for."""

from __future__ import annotations

import pytest

from diagnosis.disease_kind import explained, kind_of

NODE = "MATCH (d:Disease) WHERE d.disease_id = $id RETURN d.nid AS node, d.dname AS name"


def kind(pipeline, disease_id: str) -> str | None:
    row = pipeline.store.query(NODE, {"id": disease_id}, timeout_ms=5000)[0]
    profiles, ontology = pipeline.ranker.profiles, pipeline.ranker.ontology
    return kind_of(row["name"], profiles.onsets(row["node"]), profiles.terms(row["node"]), ontology)


@pytest.mark.parametrize("disease_id, said", [
    ("OMIM:109800", "a cancer"),  # bladder cancer (HRAS)
    ("OMIM:152700", "an autoimmune disease"),  # systemic lupus erythematosus (MECP2)
    ("OMIM:613267", "of adult onset"),  # Fuchs endothelial corneal dystrophy 3 (TCF4)
    ("ORPHA:171", "a disease with hardly any facial feature annotated"),  # primary sclerosing cholangitis (TCF4)
])
def test_a_disease_that_is_no_syndrome_of_the_face_is_said_so(pipeline, disease_id, said):
    assert kind(pipeline, disease_id) == said


@pytest.mark.parametrize("disease_id", ["OMIM:610954", "OMIM:218040", "OMIM:154700", "OMIM:101200"])
def test_the_syndromes_are_none_of_those(pipeline, disease_id):
    assert kind(pipeline, disease_id) is None  # Pitt-Hopkins, Costello, Marfan, Apert


def test_a_finding_is_explained_by_its_own_term_or_a_more_general_informative_one(pipeline):
    ontology = pipeline.ranker.ontology
    term = ontology.index_of_hpo
    present = [term["HP:0000316"], term["HP:0001250"]]  # hypertelorism, seizure
    assert explained(present, {term["HP:0000316"]: 1.0}, ontology) == 1
    assert explained(present, {term["HP:0100022"]: 1.0}, ontology) == 0  # Abnormality of movement: neither
    assert explained(present, {term["HP:0000118"]: 1.0}, ontology) == 0  # the root names nothing in particular
