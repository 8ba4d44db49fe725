"""The page's own view of an answer (issue 58), in-process on the real pipeline: the summary and the differential
(app/answer_view.py), one message for a request that failed with no panel changed (app/answer_stream.py), the
fields checked before a request with the message at the field at fault (app/form_checks.py), the modes offered,
and the About tab in plain words. The same views in a real browser: tests/app/test_browser_walk.py."""

from __future__ import annotations

import json
import re

import gradio as gr
import pytest

from app.about import about_markdown
from app.answer_view import differential_markdown, facts_behind, summary_markdown
from app.form_checks import DIAGNOSIS_FIELDS, diagnosis_checks, packet_checks, question_checks
from app.panels import mode_choices
from app.ui import PAGE_ASK, PAGE_DIAGNOSIS, ask, diagnose
from diagnosis.ranker import RankedDisease
from service.pipeline import PipelineResult
from service.validation import MAX_DESCRIPTION_CHARS
from tests.app.test_ui import CHD7

SETTINGS = ("cypher", "grounded", 0.0)
SKIPPED = gr.skip()


def page_outputs(pipeline, **changes) -> list[tuple]:
    return list(diagnose(pipeline, *{**CHD7, **changes}.values(), *SETTINGS, view=PAGE_DIAGNOSIS))


def test_the_summary_names_the_answer_with_its_id_its_confidence_and_the_facts_it_rests_on(pipeline):
    summary, differential, notices, answer, triples, cypher, picture, timings, message = page_outputs(pipeline)[-1]
    first, *rest = summary.split("\n\n")
    assert first == "### Most likely: CHARGE syndrome (OMIM:214800)"
    confidence = rest[0]
    assert re.match(r"\*\*(High|Moderate) confidence: \d+%\*\* that the top-ranked answer is right\.", confidence)
    # CHD7 causes CHARGE syndrome and hypogonadotropic hypogonadism 5: a gene with several diseases
    assert "It rests on the patient's gene, which causes several diseases, and its findings (4 findings recognised)" \
        in confidence
    facts = rest[1].splitlines()
    assert facts[0] == "The facts that weigh most:" and 3 <= len(facts[1:]) <= 5
    # the gene's evidence weighs most here: its published variant, then its link
    assert facts[1].startswith("- the patient's variant is published as causing CHARGE syndrome")
    assert any(fact.startswith("- CHD7 is linked to CHARGE syndrome") for fact in facts[2:])
    assert message == "" and answer.startswith("Most likely: CHARGE syndrome") and triples and picture


def test_the_differential_is_a_row_per_disease_each_opening_to_all_its_evidence(pipeline):
    result = pipeline.diagnose(_case(pipeline))
    table = differential_markdown(result).splitlines()
    assert table[0] == "| # | disease | score | evidence |" and len(table) == 2 + len(result.predictions())
    top = table[2]
    assert top.startswith("| 1 ✓ | **CHARGE syndrome**<br>OMIM:214800 |")
    opened = re.search(r"<details><summary>(.*?)</summary>(.*)</details>", top)
    shown = [opened.group(1).rsplit(" (+", 1)[0], *opened.group(2).split("<br>")]
    assert len(shown) == len(result.predicted.evidence)  # every line of its evidence, none cut
    assert "gene 10" in top and "findings" in top  # the score's parts by family


def _case(pipeline):
    from app.case_files import form_case

    return form_case(pipeline, *CHD7.values(), None, None).case


def test_what_a_name_or_evidence_holds_is_shown_as_text():
    hostile = "<img src=x onerror=alert(1)> | **bold** & co"
    ranked = RankedDisease(hostile, 1, "OMIM:1", 2.0, {"gene": 2.0}, [hostile, "second line"])
    result = PipelineResult("diagnosis", "cypher", "grounded", ranked=[ranked], predicted=ranked)
    for markdown in (summary_markdown(result), differential_markdown(result)):
        assert not re.search(r"(?<!\\)<img", markdown) and "| **bold**" not in markdown  # only an escaped '<'
        assert r"\<img src=x onerror=alert\(1\)\> \| \*\*bold\*\* &amp; co" in markdown
    assert len(differential_markdown(result).splitlines()[2].split(" | ")) == 4  # the name's '|' ends no cell


def test_the_summary_rests_on_the_heaviest_supporting_facts_never_on_one_against():
    evidence = ["the gene line", "a broad profile", "the findings line", "the patients line", "a group note"]
    parts = {"gene": 6.0, "breadth": -1.5, "phenotype": 2.0, "patients": 3.0}
    ranked = RankedDisease("X syndrome", 1, "OMIM:1", 9.5, parts, evidence)
    assert facts_behind(ranked) == ["the gene line", "the patients line", "the findings line"]
    two = RankedDisease("Y", 2, None, 1.0, {"gene": 1.0, "breadth": -0.5}, ["gene", "broad", "note"])
    assert facts_behind(two) == ["gene", "note"]  # topped up with what weighs nothing, not with what is against


def test_a_request_that_fails_is_one_message_and_no_panel_changes(pipeline):
    *panels, message = page_outputs(pipeline, age="500")[-1]
    assert panels == [SKIPPED] * 8 and "500 years is not possible" in message
    *panels, message = list(ask(pipeline, "\u200b", *SETTINGS, view=PAGE_ASK))[-1]
    assert panels == [SKIPPED] * 6 and "question is empty" in message
    with pytest.raises(gr.Error, match="500 years is not possible"):  # the API's contract is unchanged
        list(diagnose(pipeline, *{**CHD7, "age": "500"}.values(), *SETTINGS))


def _at_fault(checks: list[dict], fields) -> dict[str, str]:
    return {field: check["message"] for field, check in zip(fields, checks, strict=True) if not check["is_valid"]}


FORM_PROBLEMS = {
    "age 250": ({"age": "250"}, {}, "age", "An age of 250 years is not possible"),
    "a long description": ({}, {"description": "x " * (MAX_DESCRIPTION_CHARS + 10)}, "description",
                           f"the limit is {MAX_DESCRIPTION_CHARS:,}"),
    "a phenopacket that is not one": ({}, {"phenopacket": "{not json"}, "phenopacket", "GA4GH Phenopacket"),
    "nothing to diagnose from": ({"gene": "", "phenotypes": []}, {}, "phenotypes", "at least one facial phenotype"),
    "one option": ({"selective": True, "option_a": "CHARGE syndrome"}, {}, "options", "at least two"),
    "a sex not offered": ({"sex": "banana"}, {}, "sex", "banana"),
}


@pytest.mark.parametrize("fields, extra, at, said", FORM_PROBLEMS.values(), ids=FORM_PROBLEMS.keys())
def test_the_page_says_what_is_wrong_at_the_field_at_fault(pipeline, fields, extra, at, said):
    checks = diagnosis_checks(pipeline, *{**CHD7, **fields}.values(), *SETTINGS, **extra)
    faults = _at_fault(checks, DIAGNOSIS_FIELDS)
    assert list(faults) == [at] and said in faults[at]


def test_a_description_alone_is_something_to_diagnose_from_and_a_good_form_passes(pipeline):
    empty = {**CHD7, "gene": "", "variant": "", "phenotypes": []}
    assert _at_fault(diagnosis_checks(pipeline, *empty.values(), *SETTINGS, description="A boy with ptosis."),
                     DIAGNOSIS_FIELDS) == {}
    assert _at_fault(diagnosis_checks(pipeline, *CHD7.values(), *SETTINGS), DIAGNOSIS_FIELDS) == {}
    packet = json.dumps({"id": "p1", "subject": {"id": "s"}, "phenotypicFeatures": []})
    assert "lists no HPO finding" in _at_fault([packet_checks(packet)], ("phenopacket",)).get("phenopacket", "")
    assert list(_at_fault(question_checks(pipeline, " ", *SETTINGS), ("question", "m", "b", "t"))) == ["question"]


def test_none_is_offered_only_where_an_llm_is_configured():
    assert [mode for _, mode in mode_choices(("grounded",))] == ["cypher", "vector"]
    assert ("None (the LLM alone)", "none") in mode_choices(("grounded", "endpoint"))


def test_about_names_no_server_path_and_no_raw_exception(pipeline, monkeypatch):
    failure = ("NER model hfchloe/FP_NER could not be loaded (no such folder, and from the Hub: Got: ConnectError: "
               "[Errno -2] Name or service not known); using rules only")
    monkeypatch.setattr(pipeline.recognizer, "notice", failure)
    monkeypatch.setattr(pipeline.recognizer, "model_name", "hfchloe/FP_NER")
    text = about_markdown(pipeline)
    assert "ConnectError" not in text and "Errno" not in text
    assert "the NER model hfchloe/FP_NER could not be loaded on this server" in text
    settings = pipeline.settings
    for folder in {settings.data_dir, settings.data_dir.parent, settings.cache_dir}:
        assert str(folder) not in text
    sources = text.split("## Data sources and licences", 1)[1]
    assert "| source | release | state |" in sources and sources.count("in use: ") >= 4
