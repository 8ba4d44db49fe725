"""python -m bench calibrate: fit the top answer's confidence on the development cases, then
measure how well it is calibrated on the test cases.

    python -m bench calibrate [--sets lopo,simulated] [--limit N] [--seed S] [--hold-out-rule R] [--json]

Runs `generalise` on the dev split, fits a logistic regression of "the top answer is right" on the
features of diagnosis/confidence.py, writes diagnosis/confidence_model.json, and runs the test
split with it: the Brier score, a reliability table (10 bins) and its plot. Each `generalise` run
reports the same calibration figures for whichever model is in place. Each published patient's own
paper is held out under `--hold-out-rule` (the whole paper by default: retrieval/hold_out.py).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

from bench import generalise
from bench.diagnosis import add_rule_argument, rule_variant
from bench.reliability import answer_right, calibration, reliability_markdown
from bench.results import results_dir, variant_name
from diagnosis.confidence import FEATURES, MODEL_PATH, SHAPES, ConfidenceModel, Logistic
from fpkg.errors import BenchError
from retrieval.hold_out import RULE_NAMES, WHOLE_PAPER


def fit_logistic(rows: list[dict[str, float]], right: list[bool]) -> Logistic:
    """A logistic regression of `right` on the rows' features (standardised first)."""
    from sklearn.linear_model import LogisticRegressionCV
    from sklearn.preprocessing import StandardScaler

    if len(set(right)) < 2:  # nothing to regress on: the smoothed share right, whatever the features
        share = (sum(right) + 1) / (len(right) + 2)
        return Logistic((0.0,) * len(FEATURES), (1.0,) * len(FEATURES), (0.0,) * len(FEATURES),
                        round(math.log(share / (1 - share)), 6))
    matrix = [[row[name] for name in FEATURES] for row in rows]
    scaler = StandardScaler().fit(matrix)
    scale = [s if s > 0 else 1.0 for s in scaler.scale_]
    standardised = [[(x - m) / s for x, m, s in zip(row, scaler.mean_, scale, strict=True)] for row in matrix]
    # the regularisation chosen by 5-fold cross-validation of the Brier score on these dev cases:
    # strong for the 320 published patients, weak for the 10,000 simulated ones
    model = LogisticRegressionCV(Cs=10, cv=5, scoring="neg_brier_score", max_iter=2000).fit(standardised, right)
    return Logistic(tuple(round(float(m), 6) for m in scaler.mean_), tuple(round(float(s), 6) for s in scale),
                    tuple(round(float(c), 6) for c in model.coef_[0]), round(float(model.intercept_[0]), 6))


def fit(items: list[dict[str, Any]], fitted_on: dict) -> ConfidenceModel:
    """One logistic model per case shape, over the items' features and whether the top answer was right."""
    models = {}
    for shape in SHAPES:
        chosen = [item for item in items if item["shape"] == shape and item["features"]]
        if not chosen:
            raise BenchError(f"no development case of the shape {shape!r}: calibrate on --sets lopo,simulated")
        models[shape] = fit_logistic([item["features"] for item in chosen], [answer_right(item) for item in chosen])
    counts = {shape: sum(item["shape"] == shape for item in items if item["features"]) for shape in SHAPES}
    return ConfidenceModel(models, {**fitted_on, "cases": counts})


def plot(figures: dict[str, dict[str, Any]], path: Path) -> Path:
    """The reliability diagram: stated confidence against the share right, one line per split."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4.5, 4.5))
    ax.plot([0, 1], [0, 1], color="grey", linestyle="--", linewidth=1, label="perfect")
    for name, f in figures.items():
        ax.plot([r["stated"] for r in f["reliability"]], [r["observed"] for r in f["reliability"]], marker="o",
                label=f"{name} (Brier {f['brier']:.3f})")
    ax.set_xlabel("stated confidence"), ax.set_ylabel("share of top answers right")
    ax.set_xlim(0, 1), ax.set_ylim(0, 1), ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def run(pipeline, *, sets: list[str], limit: int | None, seed: int, model_path: Path = MODEL_PATH,
        rule: str = WHOLE_PAPER) -> dict[str, Any]:
    dev = generalise.run(pipeline, sets=sets, splits=["dev"], limit=limit, seed=seed, rules=[rule])
    model = fit(dev["items"], {"sets": sets, "split": "dev", "limit": limit, "seed": seed,
                               "hpo": dev["hpo"]["hp_obo"], "hold_out_rule": rule})
    model.save(model_path)
    test = generalise.run(pipeline, sets=sets, splits=["test"], limit=limit, seed=seed, rules=[rule])

    def with_model(items: list[dict[str, Any]]) -> list[dict[str, Any]]:  # the new model, not the ranker's
        return [{**item, "confidence": model.probability(item["features"], item["shape"])}
                for item in items if item["features"]]
    figures = {}
    for split, items in (("dev", with_model(dev["items"])), ("test", with_model(test["items"]))):
        figures[split] = calibration(items)
        for name in sets:  # each set apart: a model can fit the mixture and miss one kind of patient
            figures[f"{split}, {name}"] = calibration([item for item in items if item["set"] == name])
        for shape in SHAPES:  # and each input shape: thin input must not borrow the others' confidence
            figures[f"{split}, {shape}"] = calibration([item for item in items if item["shape"] == shape])
    return {"model": str(model_path), "fitted_on": model.fitted_on, "features": FEATURES,
            "coef": {shape: dict(zip(FEATURES, m.coef, strict=True)) for shape, m in model.models.items()},
            "hpo": test["hpo"], "calibration": figures, "cells": {"dev": dev["cells"], "test": test["cells"]}}


def summary(result: dict[str, Any]) -> str:
    cases = ", ".join(f"{n} {shape}" for shape, n in result["fitted_on"]["cases"].items())
    rule = RULE_NAMES[result["fitted_on"].get("hold_out_rule") or WHOLE_PAPER]
    lines = [f"calibrate: fitted on dev cases ({cases}; sets {', '.join(result['fitted_on']['sets'])}; {rule}); "
             f"wrote {result['model']}", "",
             "| feature | " + " | ".join(SHAPES) + " |", "|---|" + "---:|" * len(SHAPES)]
    lines += [f"| {name} | " + " | ".join(f"{result['coef'][shape][name]:+.3f}" for shape in SHAPES) + " |"
              for name in FEATURES]
    for split, figures in result["calibration"].items():
        if figures:
            lines += ["", *reliability_markdown(split, figures)]
    return "\n".join(lines)


def register(subparsers, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser("calibrate", parents=[common], help="fit the answer's confidence on dev, test it",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", type=generalise.names_list(tuple(generalise.CONDITIONS)),
                        default=list(generalise.CONDITIONS))
    parser.add_argument("--limit", type=int, help="at most N cases per set, condition and split")
    parser.add_argument("--seed", type=int, default=0, help="the simulated patients' seed")
    parser.add_argument("--model-out", type=Path, default=MODEL_PATH,
                        help=f"where to write the model (default: diagnosis/{MODEL_PATH.name})")
    add_rule_argument(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, context) -> tuple[str, dict[str, Any], str]:
    if args.limit is not None and args.limit < 1:
        raise BenchError(f"--limit must be at least 1, not {args.limit}")
    result = run(context.pipeline, sets=args.sets, limit=args.limit, seed=args.seed, model_path=args.model_out,
                 rule=args.hold_out_rule)
    figures = {split: f for split, f in result["calibration"].items() if f and "," not in split}
    if figures:
        result["plot"] = str(plot(figures, results_dir(args.results_dir) / "calibration.png"))
    return (variant_name("+".join(args.sets), args.limit and f"limit{args.limit}", rule_variant(args.hold_out_rule)),
            result, summary(result))
