"""Fitting the evidence weights: the conditional logit on known data, and the command on a few dev cases."""

from __future__ import annotations

import json

import numpy as np

from bench import conditional_logit
from bench.__main__ import main
from diagnosis.evidence import KINDS, WEIGHT_SETS


def test_the_likelihood_finds_the_kind_that_tells_the_truth_and_keeps_signs():
    rng = np.random.default_rng(0)
    cases = []
    for _ in range(200):  # 20 candidates; kind 0 is higher for the truth, kind 1 is noise, kind 2 lower for it
        values = rng.normal(size=(20, 3))
        values[0, 0] += 1.5
        values[0, 2] -= 1.0
        cases.append((values, np.arange(20) == 0))
    fitted = conditional_logit.fit(cases, [1.0] * len(cases), [(0.0, None), (0.0, None), (0.0, None)], np.zeros(3))
    assert fitted[0] > 1.0 > abs(fitted[1])  # the telling kind weighs, the noise hardly
    assert fitted[2] == 0.0  # held at its bound: it would be negative
    unconstrained = conditional_logit.fit(cases, [1.0] * len(cases), [(None, None)] * 3, np.zeros(3))
    assert unconstrained[2] < -0.5


def test_a_case_none_of_whose_candidates_is_right_teaches_nothing():
    start = np.array([0.3, 0.7])
    nothing = [(np.ones((3, 2)), np.zeros(3, dtype=bool))]
    assert np.array_equal(conditional_logit.fit(nothing, [1.0], [(None, None)] * 2, start), start)


def test_the_command_fits_every_set_on_a_few_dev_cases(capsys, pipeline, tmp_path):
    capsys.readouterr()
    assert main(["fit-weights", "--sets", "phenopackets,lopo", "--limit", "4", "--passes", "0", "--dry-run",
                 "--json", "--results-dir", str(tmp_path), "--torch-threads", "0"], pipeline=pipeline) == 0
    out = json.loads(capsys.readouterr().out)
    assert not out["written"] and set(out["weights"]) == set(WEIGHT_SETS)
    for weights in out["weights"].values():
        assert set(weights) == {kind.name for kind in KINDS}
        assert weights["breadth"] <= 0 and weights["contradicted"] >= 0.05  # signs held where they have one
    assert out["weights"]["gene"]["variant"] >= out["weights"]["gene"]["gene"]
    cells = out["after"]["cells"]
    assert "lopo gene_variant_phenotypes" in cells and all(0 <= c["top1"] <= c["top10"] <= 1 for c in cells.values())


def test_a_set_not_fitted_keeps_its_weights_and_says_so(capsys, pipeline, tmp_path):
    capsys.readouterr()
    assert main(["fit-weights", "--sets", "phenopackets", "--limit", "3", "--passes", "0", "--fit", "gene,face",
                 "--dry-run", "--json", "--results-dir", str(tmp_path), "--torch-threads", "0"], pipeline=pipeline) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["how"]["findings"] == "kept" and out["weights"]["findings"] == out["start"]["findings"]
    for name in ("gene", "face"):  # the likelihood's weights, or those in place where they score better on dev
        assert out["how"][name] in ("likelihood", "the weights in place (better on dev)")
        assert (out["weights"][name] == out["start"][name]) == out["how"][name].startswith("the weights in place")
