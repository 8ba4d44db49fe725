"""Strict entity-level scores: seqeval (IOB2, strict mode) on word tags, and the same
precision/recall/F1 on character spans for predictions made on raw text."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from seqeval.metrics import classification_report
from seqeval.scheme import IOB2

from ner.corpus import Sentence
from ner.labels import ENTITY_TYPES
from ner.tagger import WordTagger

EVAL_FILE = "eval_results.json"


def seqeval_scores(gold: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]]) -> dict:
    """Per-type and micro precision/recall/F1/support, strict IOB2 matching."""
    report = classification_report(
        [list(t) for t in gold], [list(t) for t in predicted],
        mode="strict", scheme=IOB2, output_dict=True, zero_division=0,
    )
    return _tidy(report)


def _tidy(report: dict) -> dict:
    scores: dict = {"per_type": {}, "micro": {}}
    for name, values in report.items():
        row = {
            "precision": float(values["precision"]), "recall": float(values["recall"]),
            "f1": float(values["f1-score"]), "support": int(values["support"]),
        }
        if name == "micro avg":
            scores["micro"] = row
        elif name in ENTITY_TYPES:
            scores["per_type"][name] = row
    return scores


def evaluate_tagger(tagger: WordTagger, sentences: Sequence[Sentence]) -> dict:
    """seqeval scores of a model on corpus sentences (words as the corpus splits them)."""
    predicted = tagger.tag([s.tokens for s in sentences])
    pred_tags = [[t.label for t in row] for row in predicted]
    scores = seqeval_scores([s.tags for s in sentences], pred_tags)
    scores["sentences"] = len(sentences)
    return scores


Entity = tuple[str, int, int]  # (type, char_start, char_end)


def span_scores(gold: Iterable[Iterable[Entity]], predicted: Iterable[Iterable[Entity]]) -> dict:
    """Exact-match (type and both boundaries) P/R/F1 per type and micro over documents."""
    true_pos: Counter[str] = Counter()
    n_gold: Counter[str] = Counter()
    n_pred: Counter[str] = Counter()
    for gold_doc, pred_doc in zip(gold, predicted, strict=True):
        gold_set, pred_set = set(gold_doc), set(pred_doc)
        n_gold.update(kind for kind, _, _ in gold_set)
        n_pred.update(kind for kind, _, _ in pred_set)
        true_pos.update(kind for kind, _, _ in gold_set & pred_set)
    per_type = {
        kind: _prf(true_pos[kind], n_pred[kind], n_gold[kind])
        for kind in ENTITY_TYPES if n_gold[kind] or n_pred[kind]
    }
    micro = _prf(sum(true_pos.values()), sum(n_pred.values()), sum(n_gold.values()))
    return {"per_type": per_type, "micro": micro}


def _prf(tp: int, n_pred: int, n_gold: int) -> dict:
    precision = tp / n_pred if n_pred else 0.0
    recall = tp / n_gold if n_gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "support": n_gold}


def format_scores(scores: dict, title: str = "") -> str:
    """A plain-text table of per-type and micro scores."""
    lines = [title] if title else []
    lines.append(f"{'type':<18} {'P':>7} {'R':>7} {'F1':>7} {'n':>6}")
    rows = list(scores["per_type"].items()) + [("micro", scores["micro"])]
    for name, row in rows:
        lines.append(
            f"{name:<18} {row['precision']:7.4f} {row['recall']:7.4f} {row['f1']:7.4f} {row['support']:6d}"
        )
    return "\n".join(lines)


def write_eval(model_dir: Path, split: str, scores: dict, data_file: Path | None = None) -> Path:
    """Merge one split's scores into ``eval_results.json`` in the model folder."""
    path = Path(model_dir) / EVAL_FILE
    results = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    entry = dict(scores)
    if data_file is not None:
        entry["data"] = Path(data_file).name
    results[split] = entry
    path.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return path
