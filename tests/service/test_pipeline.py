"""The pipeline API end to end on the real graph, with the grounded writer and a real local
OpenAI-compatible server standing in for a remote LLM."""

from __future__ import annotations

import csv
from dataclasses import replace

import pytest

from diagnosis.ranker import DiagnosisCase
from fpkg.errors import InputError
from llm.factory import clear_cache
from service.pipeline import NOTHING_TO_ANSWER, Pipeline, StartStages
from tests.support.hardening_support import pipeline_like
from tests.support.openai_server import running_server

CHARGE = DiagnosisCase(("Wide nasal bridge", "Posteriorly rotated ears", "Chorioretinal coloboma", "Proptosis"),
                       gene="CHD7", variant="c.2443-2A>G", age_years=5, sex="female", ethnicity="Turkish")


@pytest.fixture(scope="module")
def first_question(data_dir):
    with open(data_dir / "datasets" / "Publication_patient_question.csv", encoding="utf-8") as f:
        return next(csv.DictReader(f))


def with_endpoint(pipeline: Pipeline, url: str) -> Pipeline:
    clear_cache()
    settings = replace(pipeline.settings, llm_backend="endpoint", llm_endpoint=url, llm_model="test-model")
    return pipeline_like(pipeline, settings=settings)


def test_diagnose_a_publication_question(pipeline, first_question):
    result = pipeline.diagnose_question(first_question["Patient_question"])
    assert result.case.gene == "CHD7" and result.case.age_years == 5.0 and result.case.sex == "female"
    assert result.selective and result.predicted.option == "D"
    assert result.answer.startswith("Most likely: D. CHARGE syndrome")
    assert result.triples and result.cypher and result.done
    assert {"ner", "linking", "queries", "ranking", "generation"} <= set(result.timings_ms)


def test_grounded_answers_ignore_temperature_and_repeat_exactly(pipeline):
    answers = {pipeline.diagnose(CHARGE, temperature=t, seed=s).answer for t in (0.0, 0.7, 1.0) for s in (0, 1)}
    assert len(answers) == 1


def test_streaming_yields_a_growing_answer(pipeline):
    pieces = [r.answer for r in pipeline.diagnose_stream(CHARGE)]
    assert len(pieces) >= 2 and all(b.startswith(a) for a, b in zip(pieces, pieces[1:], strict=False))


def test_mode_none_without_an_llm_says_so(pipeline):
    result = pipeline.diagnose(CHARGE, mode="none")
    assert result.answer == NOTHING_TO_ANSWER and result.ranked == [] and result.triples == []


def test_ask_answers_from_the_graph(pipeline):
    result = pipeline.ask("What facial phenotypes are associated with Crouzon syndrome?")
    assert "Hypertelorism" in result.answer and result.cypher[0].origin.startswith("template:")
    nothing = pipeline.ask("Tell me a joke")
    assert nothing.answer.startswith("Nothing found for “Tell joke”")  # names what was looked for
    assert any("Vector mode searches the graph by meaning" in notice for notice in nothing.notices)
    assert not any("Vector mode" in notice for notice in result.notices)
    unrelated = pipeline.ask("What is the capital of France?", mode="vector")
    assert unrelated.triples == [] and unrelated.answer.startswith("Nothing found for “capital France”")


@pytest.mark.parametrize("case, message", [
    (DiagnosisCase(()), "at least one facial phenotype or a gene"),
    (replace(CHARGE, age_years=500), "not possible"),
    (replace(CHARGE, age_years=-5), "not possible"),
    (replace(CHARGE, options={"A": "CHARGE syndrome", "B": "charge syndrome"}), "same"),
    (replace(CHARGE, options={"A": "CHARGE syndrome"}), "at least two"),
    (replace(CHARGE, gene="X" * 1000), "characters long"),
])
def test_bad_cases_get_clear_messages(pipeline, case, message):
    with pytest.raises(InputError, match=message):
        pipeline.diagnose(case)


@pytest.mark.parametrize("question", ["", "   ", "\u200b\u200b", "\x00\x01"])
def test_empty_questions_are_refused(pipeline, question):
    with pytest.raises(InputError, match="empty"):
        pipeline.ask(question)


def test_an_llm_endpoint_answers_and_its_reply_is_parsed(pipeline):
    options = {"A": "Leigh syndrome", "B": "CHARGE syndrome"}
    with running_server() as server:
        server.reply = "B. CHARGE syndrome"
        result = with_endpoint(pipeline, server.url).diagnose(replace(CHARGE, options=options), backend="endpoint")
        prompt = server.requests[0]["body"]["messages"][-1]["content"]
    assert result.backend == "endpoint" and result.llm_answer == "B. CHARGE syndrome"
    checked = "Checked against the graph:\n- every name it gives (1) is in the evidence."
    assert result.answer == f"B. CHARGE syndrome\n\n{checked}"
    assert result.predicted.option == "B" and result.predicted.name == "CHARGE syndrome"
    assert "CHD7 is linked to CHARGE syndrome" in prompt  # the graph's evidence reached the LLM


def test_a_failing_llm_falls_back_to_the_grounded_answer_with_a_notice(pipeline):
    with running_server() as server:
        server.behaviour = "500"
        result = with_endpoint(pipeline, server.url).diagnose(CHARGE, backend="endpoint")
    assert result.answer.startswith("Most likely: CHARGE syndrome")
    assert any("failed" in notice and "grounded answer" in notice for notice in result.notices)
    clear_cache()


def test_answers_say_when_curated_facts_could_not_be_loaded(pipeline, tmp_path):
    from curation.layer import CuratedLayer
    from curation.overlay import Overlay

    damaged = tmp_path / "curated-overlay.jsonl"
    damaged.write_text('{"kind": "merge", "batch": 1}\n')  # no checksum: edited by hand
    layer = CuratedLayer(pipeline.store, Overlay(damaged))
    layer.put_back()  # what a start does: nothing applied, the problem kept
    served = Pipeline(pipeline.settings, pipeline.store, pipeline.linker, pipeline.ontology, pipeline.recognizer,
                      pipeline.build_report, pipeline.profiles, pipeline.findings, curated=layer)
    for result in (served.diagnose(CHARGE), served.ask("What diseases are associated with gene CHD7?")):
        [notice] = [n for n in result.notices if n.startswith("Curated facts are not in this answer")]
        assert "line 1" in notice and str(tmp_path) not in notice
    assert not any("Curated facts" in n for n in pipeline.ask("Which genes cause CHARGE syndrome?").notices)


def test_a_curated_cause_reaches_the_next_diagnosis_and_its_undo_too(pipeline):
    from curation.facts import Fact

    case = DiagnosisCase(phenotypes=("Hypertelorism", "Ptosis"), gene="PTPN11")

    def linked_by_gene() -> bool:
        """Whether Aarskog-Scott syndrome is ranked on PTPN11's evidence (it may rank on findings alone)."""
        ranked = pipeline.diagnose(case).ranked[:10]
        return any(r.name == "Aarskog-Scott syndrome" and "gene" in r.parts for r in ranked)

    assert not linked_by_gene()
    batch = pipeline.curated.merge("cara", [Fact("Genotype", "PTPN11", "Cause", "Disease", "Aarskog-Scott syndrome")],
                                   pmid="12345678")
    try:  # no restart: the gene's candidates are read from the graph at each request
        assert linked_by_gene()
    finally:
        pipeline.curated.undo(batch.batch, "ada")
    assert not linked_by_gene()


def test_each_start_up_stage_is_timed(pipeline):
    said = []
    stages = StartStages(said.append)
    stages.said("opening the store")
    stages.said("ready")
    timed = stages.seconds()
    assert said == ["checking the LLM backend and the sources", "opening the store", "ready"]
    assert [m for m, _ in timed] == [
        "checking the LLM backend and the sources", "opening the store"]
    assert all(seconds >= 0 for _, seconds in timed)
    messages = [message for message, _ in pipeline.start_stages]
    assert any(m.startswith("opening the") and "graph store" in m for m in messages)
    assert any(m.startswith("reading the names the graph holds") for m in messages)
