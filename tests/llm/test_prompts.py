"""Prompt builders and the parsing of realistic LLM replies."""

from __future__ import annotations

import pytest

from llm.base import GenerationRequest
from llm.parse import clean_llm_output, extract_cypher, parse_disease_answer, parse_option_answer
from llm.prompts import (
    NO_EVIDENCE_REPLY,
    ask_messages,
    cypher_messages,
    rag_diagnosis_messages,
    vanilla_diagnosis_messages,
)

QUESTION = (
    "A 3-year-old male of European descent has a heterozygous PTPN11 c.922A>G variant, "
    "hypertelorism, downslanting palpebral fissures and low-set ears. What is the most likely diagnosis?"
)
OPTIONS = {
    "A": "Kabuki syndrome",
    "B": "Noonan syndrome",
    "C": "Noonan syndrome with multiple lentigines",
    "D": "Costello syndrome",
}


# --- prompts -------------------------------------------------------------------------------------


def test_vanilla_prompt_is_the_question_as_given():
    messages = vanilla_diagnosis_messages(QUESTION)
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[1]["content"] == QUESTION
    assert "single most likely" in messages[0]["content"]
    GenerationRequest(messages)  # valid for any backend


def test_vanilla_prompt_can_list_options():
    content = vanilla_diagnosis_messages(QUESTION, OPTIONS)[1]["content"]
    assert content.endswith(
        "Options:\nA. Kabuki syndrome\nB. Noonan syndrome\n"
        "C. Noonan syndrome with multiple lentigines\nD. Costello syndrome"
    )


def test_rag_prompt_numbers_evidence_and_says_what_to_do_without_it():
    evidence = ["PTPN11 is associated with Noonan syndrome (FPKG)", "  ", "Hypertelorism is a feature of ..."]
    system, user = rag_diagnosis_messages(QUESTION, evidence)
    assert "only from the numbered evidence" in system["content"]
    assert NO_EVIDENCE_REPLY in system["content"]
    assert user["content"].startswith(QUESTION)
    assert (
        "Evidence:\n1. PTPN11 is associated with Noonan syndrome (FPKG)\n2. Hypertelorism" in user["content"]
    )
    assert rag_diagnosis_messages(QUESTION, [])[1]["content"].endswith("Evidence:\n(none)")


def test_ask_prompt():
    system, user = ask_messages("Which genes cause Kabuki syndrome?", ["KMT2D causes Kabuki syndrome"])
    assert NO_EVIDENCE_REPLY in system["content"]
    assert user["content"] == (
        "Question: Which genes cause Kabuki syndrome?\n\nEvidence:\n1. KMT2D causes Kabuki syndrome"
    )


def test_cypher_prompt_with_examples_and_repair_round():
    schema = "(:Gene {name})-[:CAUSES]->(:Disease {name})"
    examples = [("Which diseases does KMT2D cause?", "MATCH (g:Gene)-[:CAUSES]->(d:Disease) RETURN d.name")]
    messages = cypher_messages("Genes of Kabuki syndrome?", schema, examples)
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert schema in messages[0]["content"] and "read-only" in messages[0]["content"]
    assert messages[2]["content"] == examples[0][1]
    assert messages[-1]["content"] == "Genes of Kabuki syndrome?"
    repair = cypher_messages(
        "Genes of Kabuki syndrome?", schema, examples, "MATCH (g:Gen) RETURN g", "no label Gen"
    )
    assert "MATCH (g:Gen) RETURN g" in repair[-1]["content"] and "no label Gen" in repair[-1]["content"]


# --- cleaning ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("<think>PTPN11 suggests RASopathy...</think>\n\nNoonan syndrome", "Noonan syndrome"),
        (
            "The variant is typical...\n</think>\nAnswer: Noonan syndrome",
            "Noonan syndrome",
        ),  # open tag in prompt
        ("<think>Let me consider PTPN11 and the facial", ""),  # cut off while reasoning
        ("Noonan syndrome<|im_end|>", "Noonan syndrome"),
        ("<|im_start|>assistant\nNoonan syndrome<|im_end|>\n<|endoftext|>", "Noonan syndrome"),
        ("<|start_header_id|>assistant<|end_header_id|>\n\nNoonan syndrome<|eot_id|>", "Noonan syndrome"),
        ("[INST] What is it? [/INST] Noonan syndrome</s>", "Noonan syndrome"),
        ("<start_of_turn>model\nNoonan syndrome<end_of_turn>", "Noonan syndrome"),
        ("**Answer:** B. Noonan syndrome", "B. Noonan syndrome"),
        ("```cypher\nMATCH (n) RETURN n LIMIT 5\n```", "MATCH (n) RETURN n LIMIT 5"),
        ("Cypher: MATCH (n) RETURN n", "MATCH (n) RETURN n"),
        ("  plain answer  ", "plain answer"),
    ],
)
def test_clean_llm_output(raw, clean):
    assert clean_llm_output(raw) == clean


@pytest.mark.parametrize(
    "raw",
    [
        "```cypher\nMATCH (g:Gene {name: 'KMT2D'})-[:CAUSES]->(d) RETURN d.name;\n```",
        "Here is the query:\n```\nMATCH (g:Gene {name: 'KMT2D'})-[:CAUSES]->(d) RETURN d.name\n```\nIt finds",
        "<think>schema has Gene</think>MATCH (g:Gene {name: 'KMT2D'})-[:CAUSES]->(d) RETURN d.name",
        "Sure:\nMATCH (g:Gene {name: 'KMT2D'})-[:CAUSES]->(d) RETURN d.name\n\nThis returns names.",
        "```cypher\nMATCH (g:Gene {name: 'KMT2D'})-[:CAUSES]->(d) RETURN d.name",  # fence never closed
    ],
)
def test_extract_cypher(raw):
    assert extract_cypher(raw) == "MATCH (g:Gene {name: 'KMT2D'})-[:CAUSES]->(d) RETURN d.name"


def test_extract_cypher_keeps_a_query_split_by_a_blank_line():
    raw = "```\nMATCH (g:Gene)\nWHERE g.name = 'X'\n\nRETURN g\n```"
    assert extract_cypher(raw) == "MATCH (g:Gene)\nWHERE g.name = 'X'\nRETURN g"


# --- option answers ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "letter"),
    [
        ("B", "B"),
        ("(B)", "B"),
        ("B.", "B"),
        ("Answer: B. Noonan syndrome", "B"),
        ("**B) Noonan syndrome**", "B"),
        ("The correct answer is B.", "B"),
        ("The answer is (b) because PTPN11 variants cause it.", "B"),
        ("Based on the PTPN11 variant, the most likely diagnosis is Noonan syndrome.", "B"),
        ("Noonan syndrome with multiple lentigines", "C"),  # longer name wins over the one inside it
        ("<think>A or B? PTPN11...</think>B. Noonan syndrome<|im_end|>", "B"),
        ("B. Noonan syndrome. Option A (Kabuki syndrome) is less likely: no KMT2D variant.", "B"),
        ("Costelo syndrome", "D"),  # misspelt
        ("A 3-year-old with a PTPN11 variant most likely has Noonan syndrome.", "B"),  # 'A' is an article
    ],
)
def test_parse_option_answer(reply, letter):
    assert parse_option_answer(reply, OPTIONS) == letter


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "<think>unfinished",
        "I cannot determine the diagnosis.",
        "Either Noonan syndrome or Costello syndrome.",  # two names
        "Option A or option B.",  # two letters
        "B. Kabuki syndrome",  # letter and name disagree
    ],
)
def test_parse_option_answer_unclear(reply):
    assert parse_option_answer(reply, OPTIONS) is None


def test_parse_option_answer_lowercase_keys():
    assert parse_option_answer("(b) Noonan syndrome", {"a": "Kabuki syndrome", "b": "Noonan syndrome"}) == "b"


# --- disease answers -----------------------------------------------------------------------------

CANDIDATES = ["Noonan syndrome 1", "Costello syndrome", "Kabuki syndrome 1", "Cardiofaciocutaneous syndrome"]


@pytest.mark.parametrize(
    ("reply", "disease"),
    [
        ("Noonan syndrome 1", "Noonan syndrome 1"),
        ("The most likely diagnosis is Noonan Syndrome 1 [1, 2].", "Noonan syndrome 1"),
        ("1. **Costello syndrome** — HRAS is not involved, but...", "Costello syndrome"),
        ("Diagnosis: Noonan syndrome", "Noonan syndrome 1"),  # fuzzy: type number left out
        ("<think>hmm</think>Kabuki syndrome type 1", "Kabuki syndrome 1"),
        (
            "Considering everything:\nthe picture fits Cardiofaciocutaneous syndrome best.",
            "Cardiofaciocutaneous syndrome",
        ),
    ],
)
def test_parse_disease_answer(reply, disease):
    assert parse_disease_answer(reply, CANDIDATES) == disease


def test_parse_disease_answer_falls_back_to_the_first_line():
    assert parse_disease_answer(
        "The most likely diagnosis is Williams syndrome.\nBecause...", CANDIDATES
    ) == ("Williams syndrome")


@pytest.mark.parametrize("reply", ["", "   ", NO_EVIDENCE_REPLY, "<think>still thinking"])
def test_parse_disease_answer_none(reply):
    assert parse_disease_answer(reply, CANDIDATES) is None


def test_evidence_is_deduplicated_and_cut_to_fit_the_context():
    from llm.prompts import format_evidence

    lines = ["(A) -[Cause]-> (B)", "(A) -[Cause]-> (B)", *(f"line {i} " + "x" * 90 for i in range(200))]
    text = format_evidence(lines, max_chars=1000)
    assert len(text) <= 1000 + 80  # the cut note may follow the last line that fits
    assert text.startswith("1. (A) -[Cause]-> (B)\n2. line 0 ")  # once, best first
    assert text.endswith("more lines left out to fit the model's context)")
    assert format_evidence(lines[:3]) == "1. (A) -[Cause]-> (B)\n2. line 0 " + "x" * 90
