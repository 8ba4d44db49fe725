"""Cases as a clinician tries them (issue 43): the common form before the rare subtype, the group when the
findings cannot tell its members apart, classic syndromes from findings alone, confidence that means it."""

from __future__ import annotations

import pytest

from diagnosis.ranker import DiagnosisCase

NOONAN_GIRL = DiagnosisCase(phenotypes=("Hypertelorism", "Downslanted palpebral fissures", "Low-set ears",
                                        "Posteriorly rotated ears", "Webbed neck"),
                            other_findings=("Pulmonic stenosis", "Short stature"), age_years=3, sex="female")
CHARGE_FINDINGS = DiagnosisCase(phenotypes=("Iris coloboma", "Choanal atresia", "Cup-shaped ear", "Facial palsy"),
                                other_findings=("Abnormal heart morphology",))


def test_the_noonan_girl_sees_the_noonan_group_first_or_noonan_syndrome_1_near_the_top(pipeline):
    ranked = pipeline.rank(NOONAN_GIRL).ranked
    first = ranked[0]
    named_first = first.disease_id == "ORPHA:648" and first.ranked_members
    among_three = any(r.disease_id == "OMIM:163950" for r in ranked[:3])
    assert named_first or among_three, [r.title for r in ranked[:5]]
    if named_first:  # the members ranked under it, each with what would tell them apart
        assert len(first.ranked_members) >= 2
        assert first.title == f"Noonan syndrome (a group of {first.members} diseases)"
        assert any(line.startswith("the gene tells them apart") for line in first.told_apart)


def test_the_answer_names_the_groups_members_and_how_to_tell_them_apart(pipeline):
    answer = pipeline.diagnose(NOONAN_GIRL).answer
    if "a group of" in answer.splitlines()[0]:
        assert "Its members, as the findings rank them:" in answer and "What would tell them apart:" in answer


def test_no_group_of_one_disease_is_ever_shown(pipeline):
    for case in (NOONAN_GIRL, CHARGE_FINDINGS):
        assert not any("a group of 1 " in r.title for r in pipeline.rank(case).ranked)


@pytest.mark.xfail(strict=True, reason="since the whole-paper refit (issue 53) a neurodevelopmental disorder whose "
                   "published patients are nearer lifts above CHARGE syndrome by 0.06 (issue 55's note)")
def test_charge_syndrome_first_for_its_findings(pipeline):
    top = pipeline.rank(CHARGE_FINDINGS).answer
    assert top.disease_id == "OMIM:214800", top.title


def test_one_common_finding_alone_reads_low(pipeline):
    diagnosis = pipeline.rank(DiagnosisCase(phenotypes=("Hypertelorism",)))
    assert diagnosis.confidence is not None and diagnosis.confidence <= 0.3
    assert diagnosis.shape == "few_findings"


def test_a_gene_with_several_diseases_is_calibrated_as_a_shape_of_its_own(pipeline):
    """Among one gene's allelic disorders only the findings decide (issue 55): PTPN11's Noonan syndrome 1,
    LEOPARD syndrome 1 and others; the confidence is fitted on such cases apart."""
    diagnosis = pipeline.rank(DiagnosisCase(phenotypes=("Hypertelorism", "Webbed neck", "Ptosis"), gene="PTPN11"))
    assert diagnosis.gene_disorders >= 2 and diagnosis.shape == "allelic"
    assert pipeline.rank(NOONAN_GIRL).shape == "findings"
