"""Evidence lines for an LLM's answer, and reading a disease back from its reply."""

from __future__ import annotations

import pytest

from llm.prompts import format_evidence
from retrieval.result import Triple
from service.answers import TAILS_PER_LINE, facts_evidence, names_a_disease


def fact(head: str, relation: str, tail: str) -> Triple:
    return Triple(head, relation, tail, 1, 2, "Disease", "FacePhenotype", "HPO")


def test_facts_sharing_a_head_and_relation_share_a_line_in_order():
    triples = [fact("Crouzon syndrome", "Exhibit", "Proptosis"), fact("FGFR2", "Cause", "Crouzon syndrome"),
               fact("Crouzon syndrome", "Exhibit", "Hypertelorism"), fact("Crouzon syndrome", "Exhibit", "Proptosis")]
    assert facts_evidence(triples) == ["(Crouzon syndrome) -[Exhibit]-> (Proptosis); (Hypertelorism)",
                                       "(FGFR2) -[Cause]-> (Crouzon syndrome)"]


def test_a_long_list_is_split_so_that_the_budget_cuts_between_lines():
    triples = [fact("Crouzon syndrome", "Exhibit", f"Phenotype {i}") for i in range(TAILS_PER_LINE * 2 + 1)]
    lines = facts_evidence(triples)
    assert len(lines) == 3 and lines[2] == f"(Crouzon syndrome) -[Exhibit]-> (Phenotype {TAILS_PER_LINE * 2})"
    every_tail = " ".join(lines)
    assert all(f"(Phenotype {i})" in every_tail for i in range(TAILS_PER_LINE * 2 + 1))
    single = "\n".join(t.text() for t in triples)
    assert len(format_evidence(lines)) < len(single) / 2  # the prompt the model reads is far shorter


@pytest.mark.parametrize("phrase, named", [
    ("Noonan", True), ("CHARGE", True), ("Treacher Collins", True), ("Down syndrome", True),
    ("Zhang-Li syndrome", True), ("Hypophosphatasia", True),  # not in the graph, but a disease's name
    ("I am not sure", False), ("More information is needed", False), ("Je ne sais pas", False),
    ("抱歉，我无法确定", False), ("The patient likely has", False),
])
def test_a_reply_phrase_counts_as_a_disease_name_only_when_it_is_one(pipeline, phrase, named):
    assert names_a_disease(phrase, pipeline.linker) is named
