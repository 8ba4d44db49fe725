"""Kinds of evidence on their own: who the patient is (sex, age), how often a disease is published, its
cardinal findings, and what would tell a group's members apart."""

from __future__ import annotations

import math

import numpy as np
import pytest

from diagnosis.evidence.base import CaseEvidence, Knowledge
from diagnosis.evidence.patient_fit import FEMALE_RATIO, TOO_YOUNG_RATIO, X_LINKED_RECESSIVE, PatientFit
from diagnosis.profiles import DiseaseProfiles
from diagnosis.ranker import RankedDisease
from diagnosis.told_apart import told_apart
from retrieval.hold_out import NOTHING_HELD_OUT

XLR, DOMINANT, ADULT, CONGENITAL = 1, 2, 3, 4
PROFILES = DiseaseProfiles([], {}, hpo_terms={10: {7: 0.9, 8: 0.05}, 11: {7: 0.025, 8: 0.17, 9: 0.55}},
                           inheritance={XLR: {X_LINKED_RECESSIVE}, DOMINANT: {"Autosomal dominant inheritance"}},
                           onset={ADULT: {"HP:0003581"}, CONGENITAL: {"HP:0003577"}})


def case(sex=None, age=None) -> CaseEvidence:
    knowledge = Knowledge(None, PROFILES, None, {})
    return CaseEvidence(knowledge, [1], [], None, [], NOTHING_HELD_OUT, False, None, np.zeros(0), age_years=age,
                        sex=sex)


def test_a_girl_with_an_x_linked_recessive_disease_counts_against_it_softly():
    part = PatientFit().part(XLR, case(sex="female"))
    assert part.value == pytest.approx(math.log(FEMALE_RATIO[X_LINKED_RECESSIVE])) and "x-linked recessive" in part.line
    assert PatientFit().part(XLR, case(sex="male")) is None  # a boy: nothing against it
    assert PatientFit().part(DOMINANT, case(sex="female")) is None


def test_an_onset_far_beyond_the_patients_age_counts_against_it():
    part = PatientFit().part(ADULT, case(age=3))
    assert part.value == pytest.approx(math.log(TOO_YOUNG_RATIO)) and "adult" in part.line
    assert PatientFit().part(ADULT, case(age=30)) is None
    assert PatientFit().part(CONGENITAL, case(age=0.5)) is None
    assert PatientFit().part(ADULT, case()) is None  # no age given: nothing said


def test_what_tells_members_apart_names_their_genes_and_the_findings_that_differ():
    members = [RankedDisease("Member A", 10, "OMIM:1", 2.0), RankedDisease("Member B", 11, "OMIM:2", 1.9)]
    names = ["", "", "", "", "", "", "", "Cardinal sign", "Rare sign", "Other sign"]
    lines = told_apart(members, {10: ("GENEA",), 11: ("GENEB",)}, PROFILES, names)
    assert lines[0] == "the gene tells them apart: GENEA (Member A); GENEB (Member B)"
    # very frequent in one, very rare in the other; annotated for one only (never "only in"); an occasional
    # finding in both tells nothing
    assert "Cardinal sign: 80-99 % in Member A; 1-4 % in Member B" in lines
    assert "Other sign: 30-79 % in Member B; not annotated for Member A" in lines
    assert not any(line.startswith("Rare sign") for line in lines)


def test_members_that_share_their_gene_are_not_said_to_be_told_apart_by_it():
    members = [RankedDisease("Severe form", 10, "OMIM:1", 2.0), RankedDisease("Mild form", 11, "OMIM:2", 1.9)]
    lines = told_apart(members, {10: ("GENEA",), 11: ("GENEA",)}, PROFILES, [""] * 10)
    assert lines[0].startswith("all share GENEA: the gene does not tell them apart")
    assert not any("tells them apart" in line for line in lines)


def test_a_cardinal_finding_not_given_counts_against_the_disease_and_one_said_absent_twice(pipeline):
    from diagnosis.evidence.missing_cardinal import LACKING, MissingCardinal

    ontology = pipeline.ranker.ontology
    term = ontology.index_of_hpo
    syndactyly, broad_thumb = term["HP:0001159"], term["HP:0011304"]
    others = [term["HP:0001363"], term["HP:0000316"]]  # craniosynostosis, hypertelorism
    knowledge = Knowledge(ontology, pipeline.ranker.profiles, None, {1: (syndactyly, broad_thumb)})
    total = float(ontology.ic[syndactyly] + ontology.ic[broad_thumb])

    def part(present, absent=()):
        evidence = CaseEvidence(knowledge, list(present), list(absent), None, [], NOTHING_HELD_OUT, True, None,
                                np.zeros(0))
        return MissingCardinal().part(1, evidence)

    unstated = part([broad_thumb, *others])
    assert unstated.value == pytest.approx(-ontology.ic[syndactyly] / total)
    assert "1 not given (Syndactyly)" in unstated.line
    lacking = part([broad_thumb, *others], absent=[syndactyly])
    assert lacking.value == pytest.approx(-LACKING * ontology.ic[syndactyly] / total)
    assert "1 said absent (Syndactyly)" in lacking.line
    # said more generally (an abnormality of the digits), or more specifically (toe syndactyly): not missing
    assert part([term["HP:0011297"], broad_thumb, *others]) is None
    assert part([term["HP:0001770"], broad_thumb, *others]) is None
    assert part([broad_thumb, others[0]]) is None  # two findings say too little of what is left out
