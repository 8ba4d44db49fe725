"""What the answer says about how the question was read, and about an LLM naming what its evidence
does not hold (the real graph; a real loopback OpenAI-compatible server)."""

from __future__ import annotations

from diagnosis.ranker import DiagnosisCase
from tests.support.hardening_support import clear_cache, with_endpoint
from tests.support.openai_server import running_server

CHARGE = DiagnosisCase(("Wide nasal bridge", "Chorioretinal coloboma"), gene="CHD7",
                       options={"A": "Kabuki syndrome", "B": "CHARGE syndrome"})


def test_a_misspelt_name_is_said_to_be_read_as_the_name(pipeline):
    asked = pipeline.ask("which diseases present with hypertelorsim?")
    assert "Read “hypertelorsim” as Hypertelorism (a typo)." in asked.notices
    diagnosed = pipeline.diagnose(DiagnosisCase(("Chorioretinal colobma",), gene="CHD7"))
    assert any(n.startswith("Read “Chorioretinal colobma” as Chorioretinal coloboma") for n in diagnosed.notices)
    exact = pipeline.ask("Which diseases present with hypertelorism?")
    assert not any(n.startswith("Read ") for n in exact.notices)


def test_a_disease_the_evidence_does_not_hold_is_flagged_in_an_llm_answer(pipeline):
    with running_server() as server:
        served = with_endpoint(pipeline, server.url)
        try:
            server.reply = "Crouzon syndrome shows hypertelorism, as does Noonan syndrome."
            asked = served.ask("What facial phenotypes are associated with Crouzon syndrome?", backend="endpoint")
            server.reply = "B. CHARGE syndrome"
            diagnosed = served.diagnose(CHARGE, backend="endpoint")
        finally:
            clear_cache()
    flagged = [n for n in asked.notices if "not in the evidence" in n]
    assert len(flagged) == 1 and "Noonan syndrome" in flagged[0]  # Crouzon syndrome is in the evidence
    assert diagnosed.predicted.option == "B" and not any("not in the evidence" in n for n in diagnosed.notices)


def test_the_notices_say_how_each_name_was_linked(pipeline):
    from app.ui_format import notices_markdown

    asked = pipeline.ask("Do chd7 and wide-set eyes go together with hypertelorsim?")
    shown = notices_markdown(asked).replace("\\", "")  # Markdown escapes off
    assert "chd7 → CHD7 (case)" in shown
    assert "wide-set eyes → Hypertelorism (synonym)" in shown
    assert "hypertelorsim → Hypertelorism (typo)" in shown
    exact = notices_markdown(pipeline.ask("Which diseases present with Hypertelorism?")).replace("\\", "")
    assert "Hypertelorism → Hypertelorism (exact)" in exact and "⚠" not in exact
