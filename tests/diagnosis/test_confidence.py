"""The top answer's confidence: the model's arithmetic, its file, and what it says on real cases."""

from __future__ import annotations

import math

import pytest

from bench.reliability import brier, calibration, reliability
from diagnosis.confidence import (
    FEATURES,
    LOW_CONFIDENCE,
    MODEL_PATH,
    MOST_CONFIDENT,
    NO_FINDING_MATCHED,
    SHAPES,
    ConfidenceModel,
    Logistic,
    label,
)
from diagnosis.ranker import DiagnosisCase

NEUTRAL = {**{name: 0.0 for name in FEATURES}, "similarity": 0.5}  # a finding matched the top answer


def model(coef: dict[str, float], intercept: float = 0.0) -> ConfidenceModel:
    logistic = Logistic(tuple(0.0 for _ in FEATURES), tuple(1.0 for _ in FEATURES),
                        tuple(coef.get(name, 0.0) for name in FEATURES), intercept)
    return ConfidenceModel(dict.fromkeys(SHAPES, logistic), {"cases": 1})


def test_the_probability_is_the_logistic_of_the_standardised_features(tmp_path):
    margin_only = Logistic(tuple(1.0 for _ in FEATURES), tuple(2.0 for _ in FEATURES),
                           tuple(1.0 if name == "margin" else 0.0 for name in FEATURES), -0.5)
    sure = model({}, 3.0).models["gene"]
    fitted = ConfidenceModel({"gene": margin_only, "allelic": margin_only, "few_findings": sure, "findings": sure}, {})
    expected = 1 / (1 + math.exp(-(2.0 - 0.5)))
    assert fitted.probability({**NEUTRAL, "margin": 5.0}, "gene") == pytest.approx(expected)
    assert fitted.probability({**NEUTRAL, "margin": 5.0}, "findings") == MOST_CONFIDENT  # 95.3 %, said 95
    assert fitted.probability({**NEUTRAL, "margin": -1e9}, "gene") > 0.0  # no overflow at extremes
    fitted.save(tmp_path / "m.json")
    assert ConfidenceModel.load(tmp_path / "m.json") == fitted
    assert ConfidenceModel.load(tmp_path / "absent.json") is None


def test_never_certain_and_low_when_no_finding_matched():
    sure = model({}, 10.0)
    assert sure.probability(NEUTRAL, "gene") == MOST_CONFIDENT
    assert sure.probability({**NEUTRAL, "similarity": 0.0}, "gene") == NO_FINDING_MATCHED < LOW_CONFIDENCE
    # a finding its published patients show (not its annotations) is a finding matched
    assert sure.probability({**NEUTRAL, "similarity": 0.0, "explained": 0.6}, "gene") == MOST_CONFIDENT
    assert "100%" not in label(sure.probability(NEUTRAL, "gene"))


def test_a_model_fitted_on_other_features_is_not_used(tmp_path):
    path = tmp_path / "m.json"
    model({"margin": 1.0}).save(path)
    path.write_text(path.read_text().replace('"margin"', '"old_feature"'))
    assert ConfidenceModel.load(path) is None


def test_the_label_says_low_confidence_below_the_threshold():
    assert label(None) == ""
    assert label(LOW_CONFIDENCE - 0.01).startswith("**Low confidence**")
    assert label(0.93).startswith("Confidence 93% that the top-ranked answer is right")
    # what it rests on, in words
    assert "few findings and no gene (1 finding recognised)" in label(0.2, "few_findings", 1)


def test_brier_and_reliability():
    assert brier([1.0, 0.0], [True, False]) == 0.0
    assert brier([0.5, 0.5], [True, False]) == 0.25
    table = reliability([0.05, 0.15, 0.18, 1.0], [False, True, False, True])
    assert table == [{"bin": "0.0-0.1", "n": 1, "stated": 0.05, "observed": 0.0},
                     {"bin": "0.1-0.2", "n": 2, "stated": 0.165, "observed": 0.5},
                     {"bin": "0.9-1.0", "n": 1, "stated": 1.0, "observed": 1.0}]
    figures = calibration([{"confidence": 0.9, "ranker_rank": 1}, {"confidence": 0.2, "ranker_rank": 4},
                           {"confidence": None, "ranker_rank": 1}])
    assert figures["n"] == 2 and figures["brier"] == pytest.approx((0.01 + 0.04) / 2, abs=1e-4)
    assert figures["brier_constant"] == 0.25
    assert calibration([{"confidence": None, "ranker_rank": 1}]) is None


def test_a_full_case_is_more_confident_than_a_vague_one(pipeline):
    assert MODEL_PATH.is_file(), "the fitted model ships with the code: python -m bench calibrate writes it"
    full = pipeline.ranker.rank(DiagnosisCase(
        phenotypes=("Wide nasal bridge", "Posteriorly rotated ears", "Chorioretinal coloboma", "Proptosis"),
        gene="CHD7", variant="c.2443-2A>G"))
    vague = pipeline.ranker.rank(DiagnosisCase(phenotypes=("Hypertelorism", "Low-set ears")))
    assert full.answer.name == "CHARGE syndrome"
    assert full.confidence > LOW_CONFIDENCE > vague.confidence
