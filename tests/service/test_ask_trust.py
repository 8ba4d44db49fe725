"""Ask answers a clinician can trust (issue 44), in both modes: every name a disease has, a disease named by
its signs read as the disease, intersections over whole lists, and a "not recorded" that points the way."""

from __future__ import annotations

import pytest

MODES = ["cypher", "vector"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("question", ["Tell me about Frontorhiny", "What is Frontorhiny?"])
def test_a_disease_asked_about_by_another_of_its_names_is_found_and_said_so(pipeline, question, mode):
    answer = pipeline.ask(question, mode=mode).answer
    first, second = answer.splitlines()[:2]  # the answer's first line, then the name asked about (issue 57)
    assert first.startswith("FRONTONASAL DYSPLASIA 1"), first
    assert second.startswith("“Frontorhiny” is FRONTONASAL DYSPLASIA 1") and "OMIM:136760" in second, second
    assert "ALX3" in answer


@pytest.mark.parametrize("mode", MODES)
def test_a_disease_named_by_its_signs_is_the_disease_not_its_signs(pipeline, mode):
    result = pipeline.ask("Which genes cause Blepharophimosis, ptosis, and epicanthus inversus?", mode=mode)
    assert "FOXL2" in result.answer and "289 genes" not in result.answer
    assert any(link.type == "DISEASE" and "BLEPHAROPHIMOSIS" in (link.name or "").upper() for link in result.links)


@pytest.mark.parametrize("mode", MODES)
def test_an_intersection_is_taken_over_every_gene_not_two_cut_lists(pipeline, mode):
    answer = pipeline.ask("Which genes are linked to ptosis as well as to blepharophimosis?", mode=mode).answer
    lead, *items = answer.splitlines()
    assert "(most specific first)" in lead and lead.endswith(":")
    assert any(item.endswith(". FOXL2") for item in items[:30])


@pytest.mark.parametrize("mode", MODES)
def test_a_not_recorded_gene_and_disease_name_the_gene_of_the_group_member(pipeline, mode):
    answer = pipeline.ask("Is KDM6A associated with Kabuki syndrome 1?", mode=mode).answer
    assert answer.startswith("No: Kabuki syndrome 1 (KS1) is KMT2D in the graph, not KDM6A.")  # issue 57
    assert "KDM6A causes Kabuki syndrome 2 (KS2) (OMIM:300867), another member of the Kabuki syndrome group" in answer
