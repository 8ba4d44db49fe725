"""How likely the differential's top answer is right: logistic models over what the ranking shows.

The features are read off a finished Diagnosis (score margin, which evidence the top answer has,
how many candidates the gene supports, how well the phenotypes match, how many were linked and
how much they say). One
model per case shape, because the same margin means different things for a published patient
(gene, variant and phenotypes) and for a patient described by phenotypes (and a gene) alone. The
weights are fitted on the development split of `python -m bench generalise` by
`python -m bench calibrate`, which writes `confidence_model.json` beside this file; without that
file no confidence is given.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

MODEL_PATH = Path(__file__).with_name("confidence_model.json")
# Below this probability the app says "low confidence" (docs/diagnosis.md).
LOW_CONFIDENCE = 0.5
# A model fitted on a few hundred development cases cannot say "certain": it never says more.
MOST_CONFIDENT = 0.95
# No finding of the patient matched the top answer: the gene alone spoke, and that is said as low.
NO_FINDING_MATCHED = 0.3
FEATURES = ("margin", "gene", "variant", "cases", "gene_candidates", "similarity", "exact_share", "phenotypes",
            "information", "annotated", "selective", "patients", "cardinal", "published", "group", "explained")
# one model per input shape: the patient's gene known to the graph (one it links to several diseases apart: among
# allelic disorders only the findings decide), else findings alone, few (1-3) or more
SHAPES = ("gene", "allelic", "few_findings", "findings")
FEW_FINDINGS = 3
ALLELIC = 2  # diseases the gene is linked to, from which the findings must choose
SHAPE_WORDS = {"gene": "the patient's gene and its findings",
               "allelic": "the patient's gene, which causes several diseases, and its findings",
               "few_findings": "few findings and no gene", "findings": "the findings alone, no gene"}


def linked_findings(diagnosis) -> int:
    return sum(1 for link in diagnosis.links if link.type in ("FACIAL_PHENOTYPE", "FINDING")
               and (link.node_id is not None or link.ids))


def case_shape(diagnosis) -> str:
    """The case's input shape (SHAPES): what its confidence is calibrated on."""
    if any(link.type == "GENE" and link.node_id is not None for link in diagnosis.links):
        return "allelic" if diagnosis.gene_disorders >= ALLELIC else "gene"
    return "few_findings" if linked_findings(diagnosis) <= FEW_FINDINGS else "findings"


def features(diagnosis) -> dict[str, float] | None:
    """The top answer's features, None when nothing was ranked."""
    ranked = diagnosis.ranked
    if not ranked:
        return None
    top = ranked[0]
    second = ranked[1].score if len(ranked) > 1 else 0.0
    linked = linked_findings(diagnosis)
    return {
        "margin": top.score - second,
        "gene": float("gene" in top.parts),
        "variant": float("variant" in top.parts),
        "cases": top.parts.get("cases", 0.0),
        "gene_candidates": math.log1p(sum("gene" in r.parts for r in ranked)),
        "similarity": top.similarity,
        "exact_share": top.exact / linked if linked else 0.0,
        "phenotypes": math.log1p(linked),
        "information": diagnosis.information,  # one common term says little, however well it matches
        # a disease known by one or two terms matches a vague description perfectly, and says little
        "annotated": math.log1p(top.annotated),
        "selective": float(diagnosis.selective),
        "patients": top.parts.get("patients", 0.0),  # published patients like this one
        "cardinal": top.parts.get("cardinal", 0.0),
        "published": top.parts.get("published", 0.0),  # how often it is published
        "group": float(bool(top.ranked_members)),  # a group shown first: right when the truth is a member
        "explained": top.explained,  # what its annotations and published patients explain of the findings
    }


@dataclass(frozen=True)
class Logistic:
    """Standardised features → logistic regression, as fitted by scikit-learn."""
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float

    def probability(self, values: dict[str, float]) -> float:
        z = self.intercept + sum(c * (values[name] - m) / s
                                 for name, m, s, c in zip(FEATURES, self.mean, self.scale, self.coef, strict=True))
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


@dataclass(frozen=True)
class ConfidenceModel:
    models: dict[str, Logistic]  # by case shape
    fitted_on: dict

    def probability(self, values: dict[str, float], shape: str) -> float:
        found = min(self.models[shape].probability(values), MOST_CONFIDENT)
        matched = values["similarity"] > 0 or values["explained"] > 0  # by annotation, or by published patients
        return found if matched else min(found, NO_FINDING_MATCHED)

    def save(self, path: Path = MODEL_PATH) -> None:
        path.write_text(json.dumps({"features": FEATURES, "low_confidence_below": LOW_CONFIDENCE,
                                    "models": {shape: vars(model) for shape, model in self.models.items()},
                                    "fitted_on": self.fitted_on}, indent=1) + "\n")

    @classmethod
    def load(cls, path: Path = MODEL_PATH) -> ConfidenceModel | None:
        """The fitted model, or None when there is none (or it was fitted on other features)."""
        if not path.is_file():
            return None
        data = json.loads(path.read_text())
        if tuple(data.get("features", ())) != FEATURES or set(data.get("models", {})) != set(SHAPES):
            return None
        models = {shape: Logistic(tuple(m["mean"]), tuple(m["scale"]), tuple(m["coef"]), float(m["intercept"]))
                  for shape, m in data["models"].items()}
        return cls(models, data.get("fitted_on", {}))


def label(probability: float | None, shape: str | None = None, findings: int | None = None) -> str:
    """What the app shows beside the answer, with what the confidence rests on in words."""
    if probability is None:
        return ""
    rests = ""
    if shape in SHAPE_WORDS:
        counted = f" ({findings} finding{'s' if findings != 1 else ''} recognised)" if findings is not None else ""
        rests = (f" It rests on {SHAPE_WORDS[shape]}{counted}, calibrated on published patients with the same "
                 "kind of input.")
    if probability < LOW_CONFIDENCE:
        return (f"**Low confidence** ({probability:.0%} that the top answer is right, below "
                f"{LOW_CONFIDENCE:.0%}): treat the ranking as a list to examine, not an answer.{rests}")
    return f"Confidence {probability:.0%} that the top-ranked answer is right.{rests}"
