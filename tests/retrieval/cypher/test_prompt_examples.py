"""The text-to-Cypher prompt's few-shot examples: valid queries on the real graph, and none of
them an evaluation item (a prompt must not hold a question it is scored on)."""

from __future__ import annotations

import csv
import re

import pytest

from fpkg.names import normalise
from retrieval.cypher.mode import EXAMPLES

EVALUATION_FILES = ("domain_qa.csv", "Publication_patient_question.csv", "GMDB_patient_question.csv")
QUOTED = re.compile(r"'([^']+)'")


def evaluation_questions(data_dir) -> list[str]:
    questions = []
    for name in EVALUATION_FILES:
        with open(data_dir / "datasets" / name, encoding="utf-8-sig") as f:
            for row in csv.DictReader(f):
                questions.append(normalise(row.get("question") or row.get("Question") or " ".join(row.values())))
    return questions


def test_no_example_is_an_evaluation_item_or_names_its_subject(data_dir):
    questions = evaluation_questions(data_dir)
    assert len(questions) >= 300
    for question, cypher in EXAMPLES:
        assert normalise(question) not in questions
        for name in QUOTED.findall(cypher):  # the entity the example asks about
            if name in ("Exhibit", "Cause", "Affect", "has_synonym"):
                continue
            assert not any(normalise(name) in q for q in questions), (name, question)


@pytest.mark.parametrize("question, cypher", EXAMPLES, ids=[q for q, _ in EXAMPLES])
def test_each_example_query_runs_and_finds_something(pipeline, question, cypher):
    rows = pipeline.store.query(cypher, timeout_ms=5000)
    assert rows and all(row["head"] for row in rows), question
