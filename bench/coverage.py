"""Scoring a domain answer against its reference: item coverage and a MiniLM BERTScore-style score.

Coverage: the reference answer ("Facial phenotypes associated with X include A, B, ...") is
split into items by the graph's vocabulary (names hold commas: "High, narrow palate"). An
item is *named* when its normalised text occurs in the normalised answer as whole words,
or, tolerant of HPO synonyms, when any name or synonym of the graph node the item names does.

Semantic score: BERTScore's greedy matching (Zhang et al. 2020) on the token embeddings of the
local all-MiniLM-L6-v2 (last layer, no idf weights, no baseline rescaling), each text read in
comma/sentence segments. It is NOT the
paper's RoBERTa-large BERTScore: the numbers are comparable between our runs, not with the paper.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

import numpy as np

from fpkg.names import normalise
from retrieval.vocabulary import split_names

SEMANTIC_NOTE = ("semantic score: BERTScore-style greedy token matching with the local all-MiniLM-L6-v2 "
                 "(last layer, segments of the text, no idf, no rescaling) - not the paper's RoBERTa-large BERTScore")
ALIAS_LABELS = ("FacePhenotype", "Disease", "Genotype")


def reference_body(reference: str) -> str:
    """The list part of a reference answer: after its 'include' (or 'are'), without the final stop."""
    text = " ".join(reference.split())
    for cue in (" include ", " are "):
        if cue in text:
            text = text.split(cue, 1)[1]
            break
    return text.strip().rstrip(".").strip()


def reference_items(reference: str, vocabulary: Iterable[str]) -> list[str]:
    """The reference's items, split by the graph's vocabulary, duplicates dropped."""
    vocabulary = vocabulary if isinstance(vocabulary, set | frozenset) else set(vocabulary)
    items, seen = [], set()
    for item in split_names(reference_body(reference), vocabulary):
        item = re.sub(r"^and\s+", "", item.strip())
        key = normalise(item)
        if key and key not in seen:
            seen.add(key)
            items.append(item)
    return items


class AliasIndex:
    """Normalised names and synonyms of the graph's nodes, from the entity linker's aliases."""

    def __init__(self, linker, labels: Iterable[str] = ALIAS_LABELS):
        self.nodes_of: dict[str, set[tuple[str, int]]] = defaultdict(set)
        self.texts_of: dict[tuple[str, int], set[str]] = defaultdict(set)
        for label in labels:
            index = linker.indexes.get(label)
            for alias in index.aliases if index else ():
                key = normalise(alias.text)
                if key:
                    self.nodes_of[key].add((label, alias.node_id))
                    self.texts_of[(label, alias.node_id)].add(key)
        self.vocabulary = frozenset(self.nodes_of)

    def keys(self, item: str, synonyms: bool = True) -> set[str]:
        """The texts that count as naming `item`."""
        key = normalise(item)
        found = {key} if key else set()
        if synonyms:
            for node in self.nodes_of.get(key, ()):
                found |= self.texts_of[node]
        return found

    def in_graph(self, item: str) -> bool:
        return normalise(item) in self.nodes_of


def coverage(items: list[str], answer: str, index: AliasIndex, *, synonyms: bool = True) -> dict:
    """Share of `items` the answer names, with the ones it misses."""
    padded = f" {normalise(answer)} "
    missing = [item for item in items if not any(f" {k} " in padded for k in index.keys(item, synonyms))]
    share = (len(items) - len(missing)) / len(items) if items else None
    return {"coverage": None if share is None else round(share, 4), "items": len(items),
            "named": len(items) - len(missing), "missing": missing,
            "missing_not_in_graph": [m for m in missing if not index.in_graph(m)]}


class TokenScorer:
    """BERTScore-style precision, recall and F1 from MiniLM token embeddings.

    Texts are read in segments (split at commas, semicolons, line breaks and sentence ends),
    each segment in its own context, and every distinct segment is embedded once: domain
    answers and references are mostly lists of the same names, so this keeps the whole
    benchmark to seconds on two cores where reading every answer whole took minutes."""

    def __init__(self, model: str | None = None, batch_size: int = 64):
        from retrieval.vector.embedder import load_embedder

        self.model = load_embedder(model)
        self.batch_size = batch_size
        self._segments: dict[str, np.ndarray] = {}

    def vectors(self, text: str) -> np.ndarray:
        """Unit token vectors of `text` ([CLS] and [SEP] of each segment left out)."""
        segments = segment(text)
        new = sorted({s for s in segments if s not in self._segments}, key=len)
        if new:
            encoded = self.model.encode(new, output_value="token_embeddings", batch_size=self.batch_size,
                                        show_progress_bar=False)
            for text_segment, tokens in zip(new, encoded, strict=True):
                vectors = np.asarray(tokens.float().cpu())[1:-1]
                norms = np.linalg.norm(vectors, axis=1, keepdims=True)
                self._segments[text_segment] = vectors / np.where(norms == 0, 1.0, norms)
        parts = [self._segments[s] for s in segments if len(self._segments[s])]
        return np.concatenate(parts) if parts else np.zeros((0, 0), dtype=np.float32)  # scores 0

    def score(self, candidate: str, reference: str) -> dict[str, float]:
        cand, ref = self.vectors(candidate), self.vectors(reference)
        if not len(cand) or not len(ref):
            return {"precision": 0.0, "recall": 0.0, "f1": 0.0}
        similarity = cand @ ref.T
        precision = float(similarity.max(axis=1).mean())  # each answer token's best reference match
        recall = float(similarity.max(axis=0).mean())  # each reference token's best answer match
        f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
        return {"precision": round(precision, 4), "recall": round(recall, 4), "f1": round(f1, 4)}


_SEGMENT_BREAK = re.compile(r"[,;\n]|(?<=[.!?:])\s+")


def segment(text: str) -> list[str]:
    return [part.strip() for part in _SEGMENT_BREAK.split(text) if part.strip()]
