"""Cypher mode on the real graph: intent templates, and LLM-written Cypher through the checker."""

from __future__ import annotations

import pytest

from fpkg.errors import LLMError
from retrieval.intent import detect_intent, find_mentions
from tests.support.fake_llm import ScriptedLLM
from tests.support.hardening_support import assert_unchanged, graph_fingerprint


@pytest.mark.parametrize("question, intent, expected_tail", [
    ("What facial phenotypes are associated with Crouzon syndrome?", "phenotypes_of_disease", "Hypertelorism"),
    ("What facial phenotypes are associated with gene FGFR2?", "phenotypes_of_gene", "Proptosis"),
    ("What diseases are associated with gene CHD7?", "diseases_of_gene", "CHARGE syndrome"),
    ('What are the synonyms for the facial phenotype "Macroglossia"?', "synonyms_of_phenotype",
     "Abnormally large tongue"),
    ("Which genes cause Kabuki syndrome 1?", "genes_of_disease", "KMT2D"),
    ("Which genes are associated with Hypertelorism?", "genes_with_phenotype", "Hypertelorism"),
    ("Which published variants are there in gene CHD7?", "variants_of_gene", "CHD7"),
    ("Which articles report patients with gene CHD7?", "articles_of_gene", None),
])
def test_templates_answer_by_intent(pipeline, question, intent, expected_tail):
    result = pipeline.retriever("cypher").retrieve(question)
    assert result.intent == intent
    assert result.triples, result.notices
    assert all(run.origin.startswith("template:") and "$ids" in run.query for run in result.cypher)
    if expected_tail:
        assert any(expected_tail in (t.tail, t.head) for t in result.triples)
    assert set(result.timings_ms) == {"cypher_retrieval"}


def test_intent_prefers_a_disease_name_over_a_phenotype_synonym(pipeline):
    # "Crouzon syndrome" is a disease and also a synonym of the phenotype "Craniofacial dysostosis".
    links = find_mentions("What facial phenotypes are associated with Crouzon syndrome?", pipeline.linker, True)
    assert links[0].label == "Disease"
    assert detect_intent("What facial phenotypes are associated with Crouzon syndrome?", links).name == \
        "phenotypes_of_disease"


def test_unknown_question_says_so(pipeline):
    result = pipeline.retriever("cypher").retrieve("How is the weather today?")
    assert result.triples == [] and result.intent is None
    assert "No known question type" in result.notices[0]


def test_llm_query_is_repaired_and_run(pipeline):
    # Wrong direction and a whole node returned: the checker fixes both, and the query runs.
    llm = ScriptedLLM(["```cypher\nMATCH (p:FacePhenotype)-[:Exhibit]->(d:Disease {dname: 'Crouzon syndrome'}) "
                       "RETURN p\n```"])
    result = pipeline.retriever("cypher").retrieve("Which facial features does Crouzon syndrome have?", generator=llm)
    run = result.cypher[0]
    assert run.origin == "llm" and run.error is None and run.rows > 0
    assert any("direction" in c for c in run.corrections) and any("return" in c.lower() for c in run.corrections)
    assert any(t.tail == "Hypertelorism" or t.head == "Hypertelorism" for t in result.triples)
    assert result.llm_query == "repaired"


NO_TEMPLATE = "Which diseases have more than 30 facial phenotypes?"  # no intent template answers this


def test_llm_errors_go_back_for_repair_when_no_template_answers(pipeline):
    store = pipeline.store
    before = graph_fingerprint(store)
    llm = ScriptedLLM([
        "MATCH (d:Disease) DETACH DELETE d",  # blocked: a write
        "MATCH (d:Disease {dname: 'Crouzon syndrome'}) CALL db.labels() YIELD label RETURN label",  # blocked
        "MATCH (d:Disease {dname: 'No such disease'}) RETURN d.dname",  # runs, finds nothing
    ])
    assert detect_intent(NO_TEMPLATE, find_mentions(NO_TEMPLATE, pipeline.linker, True)) is None
    result = pipeline.retriever("cypher").retrieve(NO_TEMPLATE, generator=llm)
    assert [run.origin for run in result.cypher] == ["llm", "llm", "llm"]
    assert "write" in result.cypher[0].error or "rejected" in result.cypher[0].error
    assert any("Blocked" in notice for notice in result.notices)
    assert "previous query" in llm.requests[1].messages[-1]["content"]  # the error went back to the LLM
    assert result.llm_query == "empty" and result.triples == []
    assert_unchanged(store, before)


def test_a_failed_llm_query_is_not_repaired_when_a_template_answers(pipeline):
    # One round only: a repair would cost a CPU model seconds while the template's answer is at hand.
    llm = ScriptedLLM(["MATCH (d:Disease) DETACH DELETE d"])  # a second call would be unscripted and fail
    result = pipeline.retriever("cypher").retrieve("What facial phenotypes are associated with Crouzon syndrome?",
                                                   generator=llm)
    assert len(llm.requests) == 1 and [run.origin for run in result.cypher][0] == "llm"
    assert result.cypher[-1].origin == "template:phenotypes_of_disease" and result.triples
    assert result.llm_query == "rejected"
    assert any("templates answered instead" in notice for notice in result.notices)


def test_repairs_stop_when_the_llm_repeats_its_failed_query(pipeline):
    bad = "MATCH (d:Disease) WHERE"
    llm = ScriptedLLM([bad, bad])  # a third call would be unscripted and fail the test
    result = pipeline.retriever("cypher").retrieve(NO_TEMPLATE, generator=llm)
    assert len(llm.requests) == 2 and len([run for run in result.cypher if run.origin == "llm"]) == 1
    assert any("repeated a query" in notice for notice in result.notices)
    assert result.llm_query == "rejected"


class FailingLLM(ScriptedLLM):
    def stream(self, request):
        raise LLMError("the server closed the connection")


def test_the_llm_query_alone_by_prompt_variant(pipeline):
    retriever = pipeline.retriever("cypher")
    good = ("MATCH (d:Disease)-[:Exhibit]->(p:FacePhenotype) WHERE toLower(d.dname) = 'crouzon syndrome' "
            "RETURN d.dname AS head, 'Exhibit' AS relation, p.phenotypeName AS tail LIMIT 50")
    llm = ScriptedLLM([good])
    result = retriever.query_by_llm("Which features does Crouzon syndrome show?", llm, shots=3, with_schema=False)
    assert result.llm_query == "as_written" and result.triples and result.intent is None  # no template ran
    system, *turns = llm.requests[0].messages
    assert "Schema:" not in system["content"] and len(turns) == 2 * 3 + 1  # three examples, then the question
    llm = ScriptedLLM([good])
    retriever.query_by_llm("Which features does Crouzon syndrome show?", llm, shots=0)
    assert "Schema:" in llm.requests[0].messages[0]["content"] and len(llm.requests[0].messages) == 2
    failed = retriever.query_by_llm("Which features does Crouzon syndrome show?", FailingLLM([]))
    assert failed.llm_query == "failed" and failed.cypher == [] and "could not write" in failed.notices[0]
