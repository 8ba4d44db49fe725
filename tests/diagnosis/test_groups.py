"""Groups in the differential: with the gene, the member it causes at the group's place, the group beside
it; without, the group says it is one. Unit rules, then the real graph."""

from __future__ import annotations

from diagnosis.groups import DiseaseGroups
from diagnosis.ranker import DiagnosisCase, RankedDisease


def ranked(name: str, node: int, score: float) -> RankedDisease:
    return RankedDisease(name, node, f"ID:{node}", score, {}, [])


GROUPS = DiseaseGroups(members={10: {11, 12}}, size={10: 14}, titles={10: "Noonan syndrome (ORPHA:648)"})


def test_a_group_gives_way_to_the_member_the_gene_causes_at_the_better_place():
    out = GROUPS.resolve([ranked("Noonan syndrome", 10, 3.0), ranked("Other", 5, 2.0),
                          ranked("Noonan syndrome 9", 12, 1.0)], caused={12})
    assert [(r.node_id, r.group, r.group_node) for r in out] == [(12, "Noonan syndrome (ORPHA:648)", 10),
                                                                 (5, None, None)]
    assert out[0].score == 3.0 and out[0].parts == {}  # it stands at its group's score, with its own parts
    assert "it stands at the group's score (3.00; its own 1.00)" in out[0].evidence[-1]
    assert out[0].title == "Noonan syndrome 9, in the group Noonan syndrome (ORPHA:648)"


def test_a_member_not_named_after_its_group_is_shown_without_it():
    """MONDO puts Costello syndrome among the familial hypertrophic cardiomyopathies (one of its signs): no
    clinician reads it "in the group familial hypertrophic cardiomyopathy"."""
    classes = DiseaseGroups(members={60: {61}}, size={60: 40}, titles={60: "familial hypertrophic cardiomyopathy"})
    out = classes.resolve([ranked("familial hypertrophic cardiomyopathy", 60, 3.0),
                           ranked("Costello syndrome", 61, 2.5)], caused={61})
    assert [(r.node_id, r.group, r.title) for r in out] == [(61, None, "Costello syndrome")]


def test_without_the_gene_the_group_stays_and_says_so():
    out = GROUPS.resolve([ranked("Noonan syndrome", 10, 3.0), ranked("NS9", 12, 1.0)], caused=set())
    assert [r.node_id for r in out] == [10, 12] and out[0].members == 14
    assert out[0].title == "Noonan syndrome (a group of 14 diseases)"


def test_the_real_graph_resolves_loeys_dietz_by_gene(pipeline):
    case = DiagnosisCase(("Hypertelorism", "Bifid uvula", "Cleft palate"), gene="TGFB3")
    top = pipeline.diagnose(case).predicted
    assert top.disease_id == "OMIM:615582" and top.group and "Loeys-Dietz syndrome" in top.group
    assert "in the group Loeys-Dietz syndrome" in pipeline.diagnose(case).answer


def test_a_noonan_like_patient_without_a_gene_never_sees_a_group_as_a_member(pipeline):
    case = DiagnosisCase(("Hypertelorism", "Downslanted palpebral fissures", "Low-set, posteriorly rotated ears",
                          "Ptosis", "Webbed neck"))
    for answer in pipeline.diagnose(case).ranked:
        ids = {answer.disease_id, *answer.other_ids}
        assert "ORPHA:648" not in ids or answer.name == "Noonan syndrome"


# ---- the group first, when the findings do not tell its members apart --------------------------------
SERIES = DiseaseGroups(members={10: {11, 12, 13}, 20: {11, 30, 31}, 40: {41}},
                       size={10: 14, 20: 30, 40: 1},
                       titles={10: "Noonan syndrome (ORPHA:648)", 20: "Cardiomyopathy (OMIMPS:1)",
                               40: "CHARGE (ORPHA:138)"},
                       names={10: "Noonan syndrome", 20: "Familial cardiomyopathy", 40: "CHARGE syndrome"},
                       ids={10: "ORPHA:648", 20: "OMIMPS:1", 40: "ORPHA:138"},
                       groups_of={11: {10, 20}, 12: {10}, 13: {10}, 30: {20}, 31: {20}, 41: {40}})


def test_a_member_is_shown_in_the_group_that_carries_its_name_then_the_smallest():
    assert SERIES.named_group(11, "Noonan syndrome 6") == 10
    assert SERIES.named_group(30, "Dilated cardiomyopathy 1A") == 20
    assert SERIES.named_group(5, "No group") is None


def test_members_the_findings_cannot_tell_apart_are_shown_as_their_group_first():
    entries = [ranked("Noonan syndrome 6", 11, 2.17), ranked("Noonan syndrome 2", 12, 2.11),
               ranked("Other", 5, 2.05), ranked("Noonan syndrome 1", 13, 1.9)]
    out = SERIES.collapse(entries, caused=set())
    assert [r.node_id for r in out] == [10, 5]
    assert out[0].name == "Noonan syndrome" and out[0].disease_id == "ORPHA:648" and out[0].members == 14
    assert [m.node_id for m in out[0].ranked_members] == [11, 12, 13]  # ranked under it
    assert out[0].title == "Noonan syndrome (a group of 14 diseases)"


def test_a_member_well_ahead_of_the_next_stays_itself():
    entries = [ranked("Noonan syndrome 6", 11, 2.6), ranked("Noonan syndrome 2", 12, 2.1)]
    assert [r.node_id for r in SERIES.collapse(entries, caused=set())] == [11, 12]


def test_with_a_gene_only_the_members_it_causes_are_grouped():
    entries = [ranked("Noonan syndrome 6", 11, 2.17), ranked("Noonan syndrome 2", 12, 2.11)]
    assert [r.node_id for r in SERIES.collapse(entries, caused={11})] == [11, 12]
    assert [r.node_id for r in SERIES.collapse(entries, caused={11, 12})] == [10]


def test_a_group_of_one_is_never_called_a_group_and_folds_into_its_member():
    out = SERIES.collapse([ranked("CHARGE syndrome", 40, 2.0), ranked("Other", 5, 1.9),
                           ranked("CHARGE syndrome", 41, 1.8)], caused=set())
    assert [r.node_id for r in out] == [41, 5]
    alone = SERIES.resolve([ranked("CHARGE syndrome", 40, 2.0)], caused=set())
    assert "group" not in alone[0].title


def test_a_class_that_does_not_carry_the_members_name_is_not_shown_first():
    """MONDO puts CHARGE syndrome among the hypogonadotropic hypogonadisms (one of its signs): with CHD7, which
    causes both, the two close in score stay themselves, never "Normosmic ... (a group of 10)"."""
    classes = DiseaseGroups(members={50: {51, 52}}, size={50: 10}, names={50: "Normosmic congenital hypogonadism"},
                            titles={50: "Normosmic congenital hypogonadism (ORPHA:432)"}, ids={50: "ORPHA:432"},
                            groups_of={51: {50}, 52: {50}})
    entries = [ranked("CHARGE syndrome", 51, 12.66), ranked("Hypogonadism 5", 52, 12.4)]
    assert [r.node_id for r in classes.collapse(entries, caused={51, 52})] == [51, 52]
