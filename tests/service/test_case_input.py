"""The Diagnosis form as clinicians use it (issue 46): a description read beside the fields, a GA4GH
phenopacket as the patient, HPO ids as findings, and every input that cannot be read refused in words."""

from __future__ import annotations

import json

import pytest

from diagnosis.ranker import DiagnosisCase
from fpkg.errors import InputError
from service.case_input import combine, compose, read_phenopacket
from service.unread import unread_parts
from service.validation import MAX_DESCRIPTION_CHARS, MAX_PHENOPACKET_BYTES

PTPN11_DESCRIPTION = ("A 4-year-old boy with a de novo PTPN11 c.922A>G variant, hypertelorism, ptosis, low-set ears "
                      "and pulmonary valve stenosis; no intellectual disability")


def test_the_ptpn11_description_ranks_noonan_syndrome_1_first_and_says_how_it_was_read(pipeline):
    composed = compose(pipeline, DiagnosisCase(), PTPN11_DESCRIPTION)
    case = composed.case
    assert (case.gene, case.variant, case.age_years, case.sex) == ("PTPN11", "c.922A>G", 4.0, "male")
    assert "intellectual disability" in case.excluded and not composed.notices  # every part read
    result = pipeline.diagnose(case)
    assert result.ranked[0].disease_id == "OMIM:163950", result.ranked[0].title  # Noonan syndrome 1
    present, absent, variant = result.reading
    assert "pulmonary valve stenosis → Pulmonic stenosis (HP:0001642, beside the face)" in present
    assert "hypertelorism → Hypertelorism (HP:0000316, facial)" in present
    assert absent.startswith("Findings read, absent: intellectual disability → Intellectual disability (HP:0001249")
    assert variant.startswith("The variant c.922A>G counted: it is published as causing Noonan syndrome 1 (PMID")


def test_a_variant_the_graph_does_not_hold_is_said_not_to_count(pipeline):
    result = pipeline.diagnose(DiagnosisCase(phenotypes=("Hypertelorism",), gene="PTPN11", variant="c.9999A>T"))
    assert any(line.startswith("The variant c.9999A>T was not counted: the graph holds no publication of it")
               for line in result.reading)


def test_what_the_description_says_that_nothing_read_is_named():
    text = "A boy with PTPN11, hypertelorism and a gentle temperament"
    read = [(text.index(name), text.index(name) + len(name)) for name in ("PTPN11", "hypertelorism")]
    assert unread_parts(text, read) == ["a gentle temperament"]
    text = "A 3-year-old girl with hypertelorism"
    assert unread_parts(text, [(text.index("hypertelorism"), len(text))]) == []


def test_the_fields_win_where_they_disagree_and_say_so():
    form = DiagnosisCase(phenotypes=("Ptosis",), gene="PTPN11", age_years=4.0)
    described = DiagnosisCase(phenotypes=("Hypertelorism",), excluded=("ptosis",), gene="KRAS", age_years=6.0,
                              sex="male")
    case, notices = combine(form, described)
    assert (case.gene, case.age_years, case.sex) == ("PTPN11", 4.0, "male")  # a field left empty takes it
    assert case.phenotypes == ("Ptosis", "Hypertelorism") and case.excluded == ()  # joined; present stays present
    assert "The form's gene 'PTPN11' was used; the description gives 'KRAS'." in notices
    assert "The form's age 4 years was used; the description gives 6 years." in notices
    assert any("kept where the description says otherwise: ptosis" in notice for notice in notices)


def test_a_phenopacket_fills_only_what_the_fields_leave_empty(pipeline, store_phenopacket):
    packet = store_phenopacket.read_text()
    alone = compose(pipeline, DiagnosisCase(), phenopacket=packet).case
    assert alone.gene == "PTPN11" and alone.variant == "NM_002834.5:c.836A>G" and alone.sex == "male"
    assert "Hypertelorism" in alone.phenotypes and "Multiple lentigines" in alone.other_findings
    # its label in this HPO release, not the file's newer one ("Mild intellectual disability")
    assert "Intellectual disability, mild" in alone.excluded
    typed = compose(pipeline, DiagnosisCase(phenotypes=("Ptosis",), gene="PTPN11"), phenopacket=packet)
    assert typed.case.phenotypes == ("Ptosis",) and typed.case.variant == alone.variant
    assert any(notice.startswith("The form's findings were used; the phenopacket's") for notice in typed.notices)


def test_a_phenopacket_gives_the_same_differential_as_the_same_case_typed_in(pipeline, store_phenopacket):
    packet = compose(pipeline, DiagnosisCase(), phenopacket=store_phenopacket.read_text()).case
    typed = DiagnosisCase(phenotypes=packet.phenotypes, other_findings=packet.other_findings,
                          excluded=packet.excluded, gene=packet.gene, variant=packet.variant, sex=packet.sex)
    assert [r.node_id for r in pipeline.diagnose(packet).ranked] == [r.node_id for r in pipeline.diagnose(typed).ranked]


@pytest.mark.parametrize(("text", "message"), [
    ("{not json", "is not JSON"),
    ("[1, 2]", "is not a phenopacket: JSON list"),
    (json.dumps({"id": "x", "subject": {"id": "p"}, "colour": "blue"}), "is not a GA4GH Phenopacket v2"),
    (json.dumps({"id": "x", "phenotypicFeatures": []}), "lists no HPO finding"),
    (json.dumps({"id": "x", "phenotypicFeatures": [{"type": {"id": "HP:0000316"}, "excluded": True}]}),
     "lists no present finding"),
    ("x" * (MAX_PHENOPACKET_BYTES + 1), f"the limit is {MAX_PHENOPACKET_BYTES:,}"),
])
def test_a_bad_phenopacket_is_refused_saying_what_is_wrong(text, message):
    with pytest.raises(InputError, match=message):
        read_phenopacket(text)


def test_a_description_over_its_limit_is_refused_whole(pipeline):
    with pytest.raises(InputError, match=f"the limit is {MAX_DESCRIPTION_CHARS:,}"):
        compose(pipeline, DiagnosisCase(), "hypertelorism, " * 400)


def test_hpo_ids_are_read_as_their_terms(pipeline):
    result = pipeline.diagnose(DiagnosisCase(phenotypes=("HP:0000316", "hp:0000508"), gene="PTPN11"))
    read = result.reading[0]
    assert "HP:0000316 → Hypertelorism (HP:0000316, facial)" in read and "hp:0000508 → Ptosis" in read
    described = compose(pipeline, DiagnosisCase(), "a girl with HP:0000316 and HP:0000465").case
    assert {"HP:0000316", "HP:0000465"} <= {*described.phenotypes, *described.other_findings}
