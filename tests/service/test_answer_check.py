"""Every name an LLM's answer gives, checked against its evidence and the real graph (a real loopback
OpenAI-compatible server plays the LLM, with planted replies)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from diagnosis.ranker import DiagnosisCase
from service.answer_check import CONTRADICTED, IN_EVIDENCE, NOT_IN_EVIDENCE
from tests.support.hardening_support import clear_cache, pipeline_like, with_endpoint
from tests.support.openai_server import running_server

CHARGE = DiagnosisCase(("Wide nasal bridge", "Chorioretinal coloboma", "Posteriorly rotated ears"), gene="CHD7",
                       variant="c.2443-2A>G", options={"A": "Kabuki syndrome", "B": "CHARGE syndrome"})
PLANTED = ("B. CHARGE syndrome. The CHD7 variant c.2443-2A>G, the chorioretinal coloboma and the posteriorly "
           "rotated ears point to it; Kabuki syndrome is less likely. CHARGE syndrome is caused by KMT2D variants. "
           "Noonan syndrome is another thought, with c.5A>T. Cleft palate is typical of Spondyloepiphyseal "
           "dysplasia tarda.")


def answered(pipeline, reply: str, case: DiagnosisCase = CHARGE, **options):
    with running_server() as server:
        server.reply = reply
        try:
            return with_endpoint(pipeline, server.url).diagnose(case, backend="endpoint", **options)
        finally:
            clear_cache()


@pytest.fixture(scope="module")
def planted(pipeline):
    return answered(pipeline, PLANTED)


def statuses(result) -> dict[str, str]:
    return {name.name: name.status for name in result.check.names}


def test_each_planted_name_is_marked_and_no_name_the_evidence_holds(planted):
    found = statuses(planted)
    # invented, or from the model's memory: a disease and a variant the evidence does not hold
    assert found["Noonan syndrome"] == NOT_IN_EVIDENCE and found["c.5A>T"] == NOT_IN_EVIDENCE
    assert found["Spondyloepiphyseal dysplasia tarda"] == NOT_IN_EVIDENCE
    # against the graph: KMT2D causes Kabuki syndrome, not CHARGE; HPO says that disease lacks cleft palate
    assert found["KMT2D"] == CONTRADICTED and found["Cleft palate"] == CONTRADICTED
    marked = {name for name, status in found.items() if status != IN_EVIDENCE}
    assert marked == {"Noonan syndrome", "c.5A>T", "Spondyloepiphyseal dysplasia tarda", "KMT2D", "Cleft palate"}
    # what the question and the retrieved evidence hold is never marked
    for held in ("CHARGE syndrome", "CHD7", "c.2443-2A>G", "Chorioretinal coloboma", "Posteriorly rotated ears",
                 "Kabuki syndrome"):
        assert found[held] == IN_EVIDENCE, held


def test_the_answer_shows_each_mark_and_why(planted):
    answer = planted.answer
    assert planted.llm_answer == PLANTED and answer.startswith("B. CHARGE syndrome.")
    assert "Noonan syndrome [not in the evidence]" in answer and "KMT2D [contradicted]" in answer
    assert "Cleft palate [contradicted]" in answer and "c.5A>T [not in the evidence]" in answer
    assert "Kabuki syndrome [" not in answer and "CHD7 [" not in answer
    why = answer.split("Checked against the graph:")[1]
    assert "the graph links KMT2D to" in why and "Kabuki syndrome" in why and "not to CHARGE syndrome" in why
    assert "HPO annotates Spondyloepiphyseal dysplasia tarda as lacking Cleft palate (a NOT annotation, HP:" in why
    # its choice is the graph's first: the differential is the graph's, and the LLM's choice is the record
    assert planted.predicted.option == "B" and planted.record is planted.predicted
    assert planted.ranked[0].option == "B" and "ranks" not in why


def test_an_answer_naming_only_what_the_evidence_holds_says_so(pipeline):
    result = answered(pipeline, "B. CHARGE syndrome: the CHD7 variant and the chorioretinal coloboma [1].")
    assert not result.check.marked() and "[" not in result.answer.split("\n")[0].replace("[1]", "")
    assert "Checked against the graph:\n- every name it gives (3) is in the evidence." in result.answer


def test_the_llms_other_choice_is_placed_in_the_graphs_differential(pipeline):
    result = answered(pipeline, "A. Kabuki syndrome")
    assert result.predicted.option == "A" and result.record is result.predicted  # in the evidence: its choice stays
    assert [r.option for r in result.ranked] == ["B", "A"]  # the differential stays the graph's
    assert "The LLM chose A. Kabuki syndrome, which the graph's differential ranks 2nd of 2" in result.answer
    assert "first: CHARGE syndrome" in result.answer


def test_a_contradicted_choice_leaves_the_graphs_first_as_the_answer_of_record(pipeline):
    result = answered(pipeline, "A. Kabuki syndrome. Kabuki syndrome is caused by the CHD7 variant.")
    assert result.predicted.option == "A" and result.record.option == "B"
    assert statuses(result)["CHD7"] == CONTRADICTED
    assert ("The LLM's choice is contradicted: the graph's first choice, CHARGE syndrome, is the answer of record."
            in result.answer)


def test_an_open_answer_outside_the_evidence_leaves_the_graphs_first(pipeline):
    case = replace(CHARGE, options=None)
    result = answered(pipeline, "Noonan syndrome", case=case)
    assert result.predicted.name == "Noonan syndrome" and result.record.name == "CHARGE syndrome"
    assert "Noonan syndrome [not in the evidence]" in result.answer
    assert "The LLM chose Noonan syndrome, which is not in the graph's differential" in result.answer
    assert ("The LLM's choice names no disease of the evidence: the graph's first choice, CHARGE syndrome, is the "
            "answer of record.") in result.answer


def test_a_choice_is_said_in_short():
    from diagnosis.ranker import RankedDisease
    from service.answer_check import standing_line

    first = RankedDisease("Cohen syndrome", 1, None, 18.84)
    choice = RankedDisease("Cohen-Steinman syndrome (graph score 4.57): 3 of 4 findings in its annotations", None,
                           None, 0.0, in_graph=False)
    assert standing_line(choice, [first]) == ("The LLM chose Cohen-Steinman syndrome, which is not in the graph's "
                                              "differential; the graph ranks Cohen syndrome first (18.84).")


def test_vanilla_answers_are_checked_against_the_question_alone(pipeline):
    result = answered(pipeline, "B. CHARGE syndrome, as the CHD7 variant suggests; not Noonan syndrome.", mode="none")
    found = statuses(result)
    assert found["CHARGE syndrome"] == IN_EVIDENCE and found["CHD7"] == IN_EVIDENCE  # the question names both
    assert found["Noonan syndrome"] == NOT_IN_EVIDENCE and result.record is result.predicted  # no graph to fall to


def test_an_ask_answer_is_checked_too(pipeline):
    with running_server() as server:
        server.reply = "Crouzon syndrome shows hypertelorism, as does Noonan syndrome."
        try:
            asked = with_endpoint(pipeline, server.url).ask(
                "What facial phenotypes are associated with Crouzon syndrome?", backend="endpoint")
        finally:
            clear_cache()
    found = statuses(asked)
    assert found == {"Crouzon syndrome": IN_EVIDENCE, "Hypertelorism": IN_EVIDENCE, "Noonan syndrome": NOT_IN_EVIDENCE}
    assert "Noonan syndrome [not in the evidence]" in asked.answer and asked.record is None


def test_a_slow_llm_leaves_the_grounded_answer_and_says_so(pipeline):
    with running_server() as server:
        server.behaviour = "trickle"  # one word every 0.2 s: each in time, the reply not
        server.reply = "B. CHARGE syndrome is the most likely diagnosis given the coloboma and the ears."
        slow = with_endpoint(pipeline, server.url)
        slow.settings = replace(slow.settings, llm_timeout="0.5")
        try:
            result = slow.diagnose(CHARGE, backend="endpoint")
        finally:
            clear_cache()
    assert result.llm_failed.startswith("it was still writing after 0.5 s") and result.predicted is None
    assert result.record.option == "B" and result.answer.startswith("Most likely: B. CHARGE syndrome")
    assert "(The endpoint LLM gave no answer (it was still writing after 0.5 s" in result.answer
    assert "this is the graph's grounded answer.)" in result.answer


def test_a_model_that_cannot_load_leaves_the_grounded_answer_and_says_so(pipeline, tmp_path):
    settings = replace(pipeline.settings, llm_backend="local", llm_model=str(tmp_path / "missing.gguf"))
    clear_cache()
    result = pipeline_like(pipeline, settings=settings).diagnose(CHARGE, backend="local")
    assert result.answer.startswith("Most likely: B. CHARGE syndrome") and result.record.option == "B"
    assert "(The local LLM gave no answer (no GGUF file at" in result.answer
    assert result.predicted is None and "no GGUF file" in result.llm_failed


def test_a_word_is_not_read_as_a_gene_the_answer_does_not_write(pipeline):
    """Gene symbols count as written: "mal" (a word cut off at the reply's end) is not the gene MAL."""
    result = answered(pipeline, "B. CHARGE syndrome, the heart and brain mal")
    assert "MAL" not in statuses(result) and not result.check.marked()


def test_an_options_letter_is_not_read_as_part_of_a_name(pipeline):
    """"Cochran syndrome C. Cohen syndrome": the letter is the next option's, so no "Syndrome C" is named."""
    result = answered(pipeline, "A. Acreslasia D. Cohen syndrome B. Intelledgeolam syndrome C. Cochran syndrome")
    assert all(len(name.mention.split()[0]) > 1 and len(name.mention.split()[-1]) > 1 for name in result.check.names)
    assert not any(name.mention.lower().startswith("syndrome") for name in result.check.names)
