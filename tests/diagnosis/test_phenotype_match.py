"""The phenotype match on a small ontology whose numbers can be worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from diagnosis.ontology import PhenotypeOntology
from diagnosis.phenotype_match import PATIENT_SIDE, PATIENT_SIDE_WITH_GENE, PhenotypeMatcher
from diagnosis.profiles import DiseaseProfiles
from kg_dump.hpo_profiles import HpoProfiles
from retrieval.hold_out import PATIENTS, HeldOutLines, HoldOut

# root(0.1) ─ A(1) ─ A1(3), A2(3);  root ─ B(1) ─ B1(3): HPO-like terms, each the graph node of the same number
ROOT, A, A1, A2, B, B1 = 0, 1, 2, 3, 4, 5
IC = {ROOT: 0.1, A: 1.0, A1: 3.0, A2: 3.0, B: 1.0, B1: 3.0}
PARENTS = {A: [ROOT], B: [ROOT], A1: [A], A2: [A], B1: [B]}
SPECIFIC, BROAD, GROUP, OTHER = 10, 11, 12, 13


def small_hpo() -> HpoProfiles:
    """Six terms; the first is not HPO's root, so its IC stays 0.1."""
    none = np.zeros(0, dtype=np.int32)
    return HpoProfiles("test", [f"HP:{i:07d}" for i in range(1, 7)], [f"T{i}" for i in range(6)], [()] * 6,
                       [tuple(PARENTS.get(i, ())) for i in range(6)],
                       np.array([IC[i] for i in range(6)], dtype=np.float32), np.ones(6, dtype=bool), [], none, none,
                       np.zeros(0, dtype=np.float32), none, none)


def ontology() -> PhenotypeOntology:
    return PhenotypeOntology(small_hpo(), [{"id": i, "hpo_id": f"HP:{i + 1:07d}"} for i in range(6)])


def matcher(rows, hpo_terms=None, hpo_excluded=None) -> PhenotypeMatcher:
    # an annotation citing a paper is FPKG's own; the others are HPO's
    profiles = DiseaseProfiles([{"disease": d, "phenotype": p, "pmid": pmid, "source": "FPKG" if pmid else "HPO"}
                                for d, p, pmid in rows], {}, hpo_terms, hpo_excluded)
    return PhenotypeMatcher(ontology(), profiles)


ROWS = [(SPECIFIC, A1, None), (BROAD, A1, None), (BROAD, A2, None), (BROAD, B1, None), (GROUP, A, None),
        (OTHER, B1, 7)]


def test_a_disease_annotated_with_more_than_the_patient_shows_scores_below_one():
    scores = matcher(ROWS).scores([A1])
    # patient → disease is 1.0 for both; disease → patient: (3/3 + 1/3 + 0.1/3) / 3 for the broad one
    assert scores.of(SPECIFIC)[:2] == (pytest.approx(1.0), 1)
    broad = PATIENT_SIDE * 1.0 + (1 - PATIENT_SIDE) * (1.0 + 1 / 3 + 0.1 / 3) / 3
    assert scores.of(BROAD)[0] == pytest.approx(broad, abs=1e-5)
    assert scores.best(2) == [SPECIFIC, BROAD]


def test_an_ancestor_annotation_matches_in_both_directions():
    # patient → disease: IC(A) / IC(A1) = 1/3; disease → patient: IC(A) / IC(A) = 1
    assert matcher(ROWS).scores([A1]).of(GROUP)[:2] == (pytest.approx(PATIENT_SIDE / 3 + (1 - PATIENT_SIDE) * 1.0), 0)


def test_a_known_gene_weighs_the_patients_side_more_so_a_small_profile_counts_less():
    # GROUP's one ancestor term covers its whole profile (disease → patient 1.0) but a third of A1
    without_gene = matcher(ROWS).scores([A1]).of(GROUP)[0]
    with_gene = matcher(ROWS).scores([A1], gene_known=True).of(GROUP)[0]
    assert with_gene == pytest.approx(PATIENT_SIDE_WITH_GENE / 3 + (1 - PATIENT_SIDE_WITH_GENE) * 1.0)
    assert PATIENT_SIDE_WITH_GENE > PATIENT_SIDE and with_gene < without_gene
    assert matcher(ROWS).scores([A1], gene_known=True).of(SPECIFIC)[:2] == (pytest.approx(1.0), 1)


def test_a_held_out_papers_annotations_are_left_out_unless_hpo_makes_them_too():
    rows = matcher(ROWS)
    both = DiseaseProfiles([{"disease": OTHER, "phenotype": B1, "pmid": 7, "source": "FPKG+HPO"}], {})
    kept = PhenotypeMatcher(ontology(), both).scores([B1], HoldOut(frozenset({7})))
    assert kept.of(OTHER)[:2] == (pytest.approx(1.0), 1)
    assert rows.scores([B1]).of(OTHER)[:2] == (pytest.approx(1.0), 1)
    assert rows.scores([B1], HoldOut(frozenset({7}))).of(OTHER)[:2] == (0.0, 0)
    assert OTHER not in rows.scores([B1], HoldOut(frozenset({7}))).best(10)


def test_ties_break_by_exact_matches_then_node_id_not_by_name():
    twins = matcher([(21, A1, None), (20, A1, None), (22, A, None)])
    assert twins.scores([A1]).best(3)[:2] == [20, 21]


def test_no_known_term_scores_nothing():
    scores = matcher(ROWS).scores([999])
    assert scores.best(5) == [] and scores.of(SPECIFIC)[:2] == (0.0, 0)


def test_findings_beside_the_face_match_the_whole_profile_only_when_given():
    # SPECIFIC shows A1 (facial, from the graph) and, in HPO, B1; the patient shows A1
    found = matcher([(SPECIFIC, A1, None)], hpo_terms={SPECIFIC: {A1: np.nan, B1: 0.5}})
    assert found.scores([A1]).of(SPECIFIC) == (pytest.approx(1.0), 1, 1)  # facial scope: A1 alone
    whole = found.scores([A1], whole=True).of(SPECIFIC)
    assert whole[2] == 2 and whole[0] == pytest.approx(PATIENT_SIDE + (1 - PATIENT_SIDE) * (1 + 0.1 / 3) / 2)


def test_an_absent_finding_the_disease_shows_counts_against_it_by_its_frequency():
    found = matcher([(SPECIFIC, A1, None), (BROAD, A1, None)], hpo_terms={SPECIFIC: {B1: 0.9}, BROAD: {B1: np.nan}})
    against = found.contradictions([A1], [B])  # B1 lies under B: a patient without B has no B1
    background = np.exp(-1.0)
    assert found.scores([A1]).at(against, SPECIFIC) == pytest.approx(np.log(0.1 / (1 - background)), rel=1e-4)
    assert found.scores([A1]).at(against, BROAD) == pytest.approx(np.log(0.5 / (1 - background)), rel=1e-4)
    assert found.contradictions([A1], [A2]).tolist() == [0.0, 0.0]  # neither shows A2


def test_a_present_finding_hpo_says_the_disease_lacks_counts_against_it():
    found = matcher([(SPECIFIC, A1, None), (BROAD, A1, None)], hpo_excluded={SPECIFIC: {A}})
    against = found.contradictions([A1], [])  # A1 is an A: SPECIFIC lacks A
    assert found.scores([A1]).at(against, SPECIFIC) == pytest.approx(np.log(0.05))
    assert found.scores([A1]).at(against, BROAD) == 0.0


def test_a_held_out_papers_own_hpo_lines_leave_the_match_and_the_contradictions_of_its_disease():
    # SPECIFIC: A1 in the graph (HPO's), B1 at 0.9 and a NOT A annotation, all from one paper alone but for B1,
    # which HPO's curators also give (without a frequency)
    found = matcher([(SPECIFIC, A1, None), (BROAD, A1, None)], hpo_terms={SPECIFIC: {A1: 0.9, B1: 0.9}},
                    hpo_excluded={SPECIFIC: {A}})
    lines = HeldOutLines(terms={SPECIFIC: {B1: np.nan}}, excluded={SPECIFIC: frozenset()},
                         removed={"Exhibit": frozenset({(SPECIFIC, A1)})})
    held = HoldOut(frozenset({7}), lines=lines)
    assert found.scores([A1], held).of(SPECIFIC) == (0.0, 0, 0)  # its facial A1 was the paper's
    assert found.scores([A1], held, whole=True).of(SPECIFIC)[1:] == (0, 1)  # B1 alone is left
    assert found.scores([A1], held).of(BROAD) == found.scores([A1]).of(BROAD)  # nothing else moves
    assert found.scores([A1]).at(found.contradictions([A1], []), SPECIFIC) == pytest.approx(np.log(0.05))
    assert found.scores([A1]).at(found.contradictions([A1], [], held), SPECIFIC) == 0.0  # the NOT was the paper's
    background = np.exp(-1.0)
    against = found.contradictions([A1], [B], held)  # B1 shown, its frequency now not given
    assert found.scores([A1]).at(against, SPECIFIC) == pytest.approx(np.log(0.5 / (1 - background)), rel=1e-4)
    patients_only = HoldOut(frozenset({7}), rule=PATIENTS, lines=lines)  # the lines stay under this rule
    assert found.scores([A1], patients_only).of(SPECIFIC) == found.scores([A1]).of(SPECIFIC)
