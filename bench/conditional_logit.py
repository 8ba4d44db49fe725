"""A conditional logit: the weights under which each case's true candidate is most probable among its
candidates (McFadden's choice model; the softmax over one case's candidates). It fits the ranker's linear
score, Σ weight × part, by maximum likelihood, with an L2 penalty and each weight's sign held where the
evidence has a known direction.

A case is (X, right): X its candidates × kinds part values, `right` which candidates are the true disease
(an OMIM entry and its Orphanet twin may both be). A case none of whose candidates is right teaches nothing
and is left out; `case_weights` let each (set, condition) cell count the same.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from scipy.special import logsumexp

PENALTY = 0.01  # L2 on the weights: small, it keeps weights of rarely seen kinds from drifting


def fit(cases: list[tuple[np.ndarray, np.ndarray]], case_weights: list[float], bounds: list[tuple],
        start: np.ndarray) -> np.ndarray:
    """The weights maximising Σ case weight × log P(right | case) − PENALTY × |w|²."""
    usable = [(X, right, w) for (X, right), w in zip(cases, case_weights, strict=True) if right.any()]

    def loss(weights: np.ndarray) -> tuple[float, np.ndarray]:
        total, gradient = 0.0, np.zeros_like(weights)
        for X, right, w in usable:
            scores = X @ weights
            every = logsumexp(scores)
            of_right = logsumexp(scores[right])
            total -= w * (of_right - every)
            p_all = np.exp(scores - every)
            p_right = np.exp(scores[right] - of_right)
            gradient -= w * (p_right @ X[right] - p_all @ X)
        return total + PENALTY * weights @ weights, gradient + 2 * PENALTY * weights

    if not usable:
        return start
    lower = np.array([-np.inf if lo is None else lo for lo, _ in bounds])
    upper = np.array([np.inf if hi is None else hi for _, hi in bounds])
    return minimize(loss, np.clip(start, lower, upper), jac=True, method="L-BFGS-B", bounds=bounds).x
