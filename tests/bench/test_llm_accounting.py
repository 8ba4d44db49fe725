"""An LLM that fails, or replies with nothing usable, is counted as such: the grounded fallback the
app shows is never scored as the LLM's answer (real loopback servers, the real graph)."""

from __future__ import annotations

import pytest

from bench import diagnosis, domain
from bench.domain import DomainQuestion
from bench.runtime import PUBLICATION, dataset
from tests.app.test_hardening_faults import closed_port
from tests.support.hardening_support import clear_cache, with_endpoint
from tests.support.openai_server import running_server

pytestmark = pytest.mark.slow


@pytest.fixture
def questions(pipeline):
    return diagnosis.read_questions(dataset(pipeline.settings, PUBLICATION), limit=3)


def test_a_down_endpoint_scores_no_right_answers_and_counts_its_failures(pipeline, questions):
    down = with_endpoint(pipeline, f"http://127.0.0.1:{closed_port()}/v1")
    try:
        out = diagnosis.run(down, questions, backend="endpoint")
        asked = domain.run(down, [DomainQuestion("Phenotype-Disease Associations", 0,
                                                 "What facial phenotypes are associated with Crouzon syndrome?",
                                                 "Hypertelorism, Proptosis")], semantic=False, backend="endpoint")
    finally:
        clear_cache()
    assert out["accuracy"]["llm_failures"] == 3 and out["accuracy"]["top1_linked"] == 0.0
    assert all("cannot reach" in item["llm_failed"] for item in out["items"])
    assert "3 LLM failure(s)" in diagnosis.summary(out)
    # the grounded answer was shown, but the LLM answered nothing: coverage 0, not the graph's
    assert asked["llm_failures"] == 1 and asked["items"][0]["coverage"] == 0.0


def run_with_reply(pipeline, questions, reply: str) -> dict:
    """The diagnosis benchmark against a loopback server that always replies `reply`."""
    with running_server() as server:
        server.reply = reply
        served = with_endpoint(pipeline, server.url)
        try:
            return diagnosis.run(served, questions, backend="endpoint")
        finally:
            clear_cache()


def test_a_reply_that_picks_no_option_is_an_llm_failure_not_a_guess(pipeline, questions):
    out = run_with_reply(pipeline, questions, "I cannot tell from this description.")
    assert all(item["selective"] for item in out["items"])  # the Publication file's questions have options
    assert out["accuracy"]["llm_failures"] == 3 and out["accuracy"]["top1_linked"] == 0.0
    assert {item["llm_failed"] for item in out["items"]} == {"the reply chose none of the options"}


def test_a_reply_that_names_an_option_is_scored_as_the_llms(pipeline, questions):
    out = run_with_reply(pipeline, questions, "A")
    assert out["accuracy"]["llm_failures"] == 0
    assert all(item["llm_failed"] is None and item["predicted"] for item in out["items"])


CROUZON_CYPHER = ("MATCH (d:Disease)-[:Exhibit]->(p:FacePhenotype) WHERE toLower(d.dname) = 'crouzon syndrome' "
                  "RETURN d.dname AS head, 'Exhibit' AS relation, p.phenotypeName AS tail LIMIT 50")
CROUZON = DomainQuestion("Phenotype-Disease Associations", 0,
                         "What facial phenotypes are associated with Crouzon syndrome?", "Hypertelorism; Proptosis",
                         items=("Hypertelorism", "Proptosis"))
KABUKI = DomainQuestion("Phenotype-Disease Associations", 1,
                        "What facial phenotypes are associated with Kabuki syndrome?", "Long palpebral fissure",
                        items=("Long palpebral fissure",))


def test_domain_and_the_prompt_study_count_what_became_of_the_llms_queries(pipeline):
    from bench import cypher_prompts

    with running_server() as server:
        server.reply = CROUZON_CYPHER  # right for Crouzon; for Kabuki it runs and answers the wrong disease
        served = with_endpoint(pipeline, server.url)
        try:
            asked = domain.run(served, [CROUZON], semantic=False, backend="endpoint")
            study = cypher_prompts.run(served, [CROUZON, KABUKI], backend="endpoint", shots=[0, 3],
                                       schema_variants=True)
        finally:
            clear_cache()
    assert asked["llm_queries"] == {"as_written": 1}
    assert [(v["shots"], v["schema"]) for v in study["variants"]] == [(0, True), (3, True), (0, False), (3, False)]
    for variant in study["variants"]:
        assert variant["outcomes"]["as_written"] == 2 and variant["valid_rate"] == 1.0
        assert variant["coverage"] == 0.5  # Crouzon covered, Kabuki not: the LLM's query alone is scored
    assert "text-to-Cypher prompts" in cypher_prompts.summary(study)


def test_the_prompt_study_needs_an_llm(pipeline):
    from bench import cypher_prompts
    from fpkg.errors import BenchError

    with pytest.raises(BenchError, match="needs an LLM backend"):
        cypher_prompts.run(pipeline, [CROUZON], backend="grounded", shots=[0], schema_variants=False)


def test_the_context_size_study_gives_the_llm_each_budget_of_evidence(pipeline, questions):
    from bench import context_size

    with running_server() as server:
        server.reply = "B"
        served = with_endpoint(pipeline, server.url)
        try:
            study = context_size.study(served, questions[:2], budgets=(300, 6000), mode="cypher", backend="endpoint")
        finally:
            clear_cache()
    sent = [len(request["body"]["messages"][-1]["content"]) for request in server.requests]
    assert len(sent) == 4 and max(sent[:2]) < min(sent[2:])  # the small budget's prompts are shorter
    assert [row["chars"] for row in study["budgets"]] == [300, 6000]
    assert all(row["n"] == 2 and row["llm_failures"] == 0 for row in study["budgets"])
    assert served.evidence_chars == pipeline.evidence_chars == 6000  # put back after the study
    assert "context size" in context_size.summary(study)
