"""The Curate tab's extraction with an LLM configured (a real OpenAI-compatible server on loopback):
the LLM pairs names found in the text, and adds no node and no fact outside the curated schema."""

from __future__ import annotations

from app.curate_tab import extract_facts
from tests.support.hardening_support import with_endpoint
from tests.support.openai_server import running_server

TEXT = ("Crouzon syndrome was suspected before Apert syndrome was ruled out. Proptosis was marked. "
        "FGFR2 was sequenced.")
REPLY = """Crouzon syndrome | Exhibit | Proptosis
FGFR2 | Cause | Crouzon syndrome
- FGFR2 | affect | Proptosis
Crouzon syndrome | Exhibit | Glowing eyes
Proptosis | Exhibit | Crouzon syndrome
Here are the facts you asked for."""


def test_an_llm_suggests_facts_among_the_names_found(pipeline):
    with running_server() as server:
        server.reply = REPLY
        message, rows = extract_facts(with_endpoint(pipeline, server.url), None, TEXT, "")
        prompt = server.requests[-1]["body"]["messages"][1]["content"]
    # the names as the graph spells them
    assert "Disease: Crouzon syndrome; Apert Syndrome" in prompt and "FacePhenotype: Proptosis" in prompt
    assert {(row[2], row[3], row[5]) for row in rows} == {
        ("Crouzon syndrome", "Exhibit", "Proptosis"), ("FGFR2", "Cause", "Crouzon syndrome"),
        ("FGFR2", "Affect", "Proptosis")}  # no invented name, no reversed pattern
    assert "The endpoint LLM suggested 3 more" in message
    assert next(row[6] for row in rows if row[3] == "Cause") == ""  # no one sentence names both


def test_without_the_llm_the_rules_still_answer(pipeline):
    with running_server() as server:
        server.behaviour = "500"
        message, rows = extract_facts(with_endpoint(pipeline, server.url), None,
                                      "Crouzon syndrome with proptosis.", "")
    assert [(row[2], row[5]) for row in rows] == [("Crouzon syndrome", "Proptosis")]
    assert "The endpoint LLM could not be asked" in message
