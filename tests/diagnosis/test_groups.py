"""Groups in the differential: with the gene, the member it causes at the group's place, the group beside
it; without, the group says it is one. Unit rules, then the real graph."""

from __future__ import annotations

from diagnosis.groups import DiseaseGroups
from diagnosis.ranker import DiagnosisCase, RankedDisease


def ranked(name: str, node: int, score: float) -> RankedDisease:
    return RankedDisease(name, node, f"ID:{node}", score, {}, [])


GROUPS = DiseaseGroups(members={10: {11, 12}}, size={10: 14}, titles={10: "Noonan syndrome (ORPHA:648)"})


def test_a_group_gives_way_to_the_member_the_gene_causes_at_the_better_place():
    out = GROUPS.resolve([ranked("Noonan syndrome", 10, 3.0), ranked("Other", 5, 2.0), ranked("NS9", 12, 1.0)],
                         caused={12})
    assert [(r.node_id, r.group, r.group_node) for r in out] == [(12, "Noonan syndrome (ORPHA:648)", 10),
                                                                 (5, None, None)]
    assert out[0].score == 1.0  # no fact moves between a group and its member
    assert out[0].title == "NS9, in the group Noonan syndrome (ORPHA:648)"


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
