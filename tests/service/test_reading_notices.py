"""What the answer says about how the question was read (the real graph). What it says of an LLM naming what
its evidence does not hold: tests/service/test_answer_check.py."""

from __future__ import annotations

from diagnosis.ranker import DiagnosisCase

CHARGE = DiagnosisCase(("Wide nasal bridge", "Chorioretinal coloboma"), gene="CHD7",
                       options={"A": "Kabuki syndrome", "B": "CHARGE syndrome"})


def test_a_misspelt_name_is_said_to_be_read_as_the_name(pipeline):
    asked = pipeline.ask("which diseases present with hypertelorsim?")
    assert "Read “hypertelorsim” as Hypertelorism (a typo)." in asked.notices
    diagnosed = pipeline.diagnose(DiagnosisCase(("Chorioretinal colobma",), gene="CHD7"))
    assert any(n.startswith("Read “Chorioretinal colobma” as Chorioretinal coloboma") for n in diagnosed.notices)
    exact = pipeline.ask("Which diseases present with hypertelorism?")
    assert not any(n.startswith("Read ") for n in exact.notices)


def test_the_notices_say_how_each_name_was_linked(pipeline):
    from app.ui_format import notices_markdown

    asked = pipeline.ask("Do chd7 and wide-set eyes go together with hypertelorsim?")
    shown = notices_markdown(asked).replace("\\", "")  # Markdown escapes off
    assert "chd7 → CHD7 (case)" in shown
    assert "wide-set eyes → Hypertelorism (synonym)" in shown
    assert "hypertelorsim → Hypertelorism (typo)" in shown
    exact = notices_markdown(pipeline.ask("Which diseases present with Hypertelorism?")).replace("\\", "")
    assert "Hypertelorism → Hypertelorism (exact)" in exact and "⚠" not in exact
