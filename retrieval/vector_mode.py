"""Vector mode: nodes near the question, their 1-hop neighbourhoods, re-ranked triples.

The question's text vector and the linked nodes' vectors give the query vector; FAISS
returns the top-K nodes; the linked nodes and those seed one read query (one indexed
branch per label, per-seed and total limits) for their relationships, kept with their
direction as stored; the triples are re-ranked by cosine similarity to the question
(seed 001) and the top-n above a threshold kept. Nothing is refitted per question.

Re-ranking composes each triple's vector from cached ones, ``head + relation + tail``
(node text vectors from the index, one vector per relation type), instead of running
MiniLM over every triple's text: on 2 CPU cores that costs ~2 ms per triple, i.e. far
beyond the 30 ms budget for a few hundred triples. ``rerank="embed"`` embeds the triple
texts in one batch, as seed 001 does, for comparison.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from retrieval.embedder import embed
from retrieval.result import Link, RetrievalResult, Triple
from retrieval.store import GraphStore, quote_name
from retrieval.vector_index import VectorIndex

# How each relationship type reads, for its vector in composed re-ranking.
RELATION_PHRASES = {
    "Exhibit": "disease exhibits facial phenotype",
    "Affect": "gene affects facial phenotype",
    "Cause": "variant causes disease",
    "Have": "variant in gene",
    "with_FP": "patient sample with facial phenotype",
    "with_Var": "patient sample with variant",
    "From": "patient sample reported in article",
    "is_a": "phenotype is a subtype of",
}
RERANK_MODES = ("composed", "embed")
NEIGHBOURHOOD_TIMEOUT_MS = 2000


class VectorRetriever:
    """Retrieval over a `VectorIndex` of the graph `store` holds (same fingerprint)."""

    def __init__(self, store: GraphStore, index: VectorIndex, *, per_seed: int = 64,
                 max_relationships: int = 600, rerank: str = "composed") -> None:
        if rerank not in RERANK_MODES:
            raise ValueError(f"rerank must be one of {', '.join(RERANK_MODES)}, not {rerank!r}")
        if per_seed < 1 or max_relationships < 1:
            raise ValueError("per_seed and max_relationships must be >= 1")
        self.store = store
        self.index = index
        self.per_seed = per_seed
        self.max_relationships = max_relationships
        self.rerank = rerank
        # one batch now rather than a model call inside a question's time budget
        phrases = embed(list(RELATION_PHRASES.values()), index.config.model)
        self._relation_vectors = dict(zip(RELATION_PHRASES, phrases, strict=True))

    def retrieve(self, question: str, links: Sequence[Link] = (), *, top_k: int = 5, top_n: int = 20,
                 threshold: float = 0.3) -> RetrievalResult:
        if top_k < 0 or top_n < 1:
            raise ValueError("top_k must be >= 0 and top_n >= 1")
        if not -1.0 <= threshold <= 1.0:
            raise ValueError("threshold is a cosine similarity, in [-1, 1]")
        started = time.perf_counter()
        timings: dict[str, float] = {}
        result = RetrievalResult(mode="vector", links=list(links), timings_ms=timings)

        clock = time.perf_counter()
        text = question.strip() if isinstance(question, str) else ""
        question_vector = embed([text], self.index.config.model)[0] if text else None
        timings["embed"] = _ms(clock)

        linked_rows = self._linked_rows(links, result.notices)
        clock = time.perf_counter()
        query = self.index.query_vector(question_vector, linked_rows)
        if query is None:
            result.notices.append("nothing to search with: the question is empty and no node is linked")
            timings["total"] = _ms(started)
            return result
        linked = set(linked_rows)
        found = self.index.search(query, top_k + len(linked))
        seeds = linked_rows + [row for row, _ in found if row not in linked][:top_k]
        timings["search"] = _ms(clock)

        clock = time.perf_counter()
        triples = self._neighbourhood(seeds)
        timings["neighbourhood"] = _ms(clock)

        clock = time.perf_counter()
        target = question_vector if question_vector is not None else self._mean_text(linked_rows)
        scored = self._score(triples, target)
        kept = [t for t in scored if t.score is not None and t.score >= threshold][:top_n]
        timings["rerank"] = _ms(clock)
        result.triples = kept
        if not kept:
            result.notices.append(f"no triple scored above {threshold} among {len(triples)} "
                                  f"from {len(seeds)} nodes")
        timings["total"] = _ms(started)
        return result

    # ---- steps -----------------------------------------------------------------------------
    def _linked_rows(self, links: Iterable[Link], notices: list[str]) -> list[int]:
        rows: list[int] = []
        for link in links:
            if link.node_id is None:
                continue
            row = self.index.row_of.get(link.node_id)
            if row is None:
                notices.append(f"linked node {link.node_id} ({link.mention!r}) is not in the vector index")
            elif row not in rows:
                rows.append(row)
        return rows

    def _neighbourhood(self, seeds: list[int]) -> list[Triple]:
        """The seeds' relationships: one query with one branch per label, so each branch
        finds its seeds through that label's nid index."""
        by_label: dict[str, list[int]] = {}
        for row in seeds:
            by_label.setdefault(self.index.labels[row], []).append(int(self.index.ids[row]))
        if not by_label:
            return []
        params: dict[str, Any] = {"per_seed": self.per_seed}
        branches = []
        for i, (label, ids) in enumerate(sorted(by_label.items())):
            params[f"ids{i}"] = ids
            branches.append(
                f"MATCH (n:{quote_name(label)}) WHERE n.nid IN $ids{i} MATCH (n)-[r]-(m) "
                "WITH n, collect([startNode(r).nid, type(r), endNode(r).nid, r.source, r.pmid])"
                "[..$per_seed] AS rels UNWIND rels AS x RETURN x LIMIT $limit")
        params["limit"] = self.max_relationships  # per branch: a LIMIT binds only its own branch
        cypher = " UNION ALL ".join(branches)
        rows = self.store.query(cypher, params, timeout_ms=NEIGHBOURHOOD_TIMEOUT_MS)
        # FPKG keeps one relationship per article: parallel ones become one triple with all
        # their PMIDs (a relationship between two seeds also comes back from both ends)
        merged: dict[tuple[int, str, int], Triple] = {}
        for row in rows:
            start, rel_type, end, source, pmid = row["x"]
            head, tail = self.index.row_of.get(start), self.index.row_of.get(end)
            if head is None or tail is None:
                continue  # the graph changed since the index was built
            key = (int(start), rel_type, int(end))
            known = merged.get(key)
            if known is None:
                merged[key] = Triple(
                    head=self.index.names[head], relation=rel_type, tail=self.index.names[tail],
                    head_id=int(start), tail_id=int(end), head_label=self.index.labels[head],
                    tail_label=self.index.labels[tail], source=source or "", pmids=_pmids(pmid))
            else:
                merged[key] = replace(known, source=_merge_sources(known.source, source),
                                      pmids=tuple(dict.fromkeys(known.pmids + _pmids(pmid))))
        return list(merged.values())

    def _score(self, triples: list[Triple], target: np.ndarray | None) -> list[Triple]:
        if not triples or target is None:
            return []
        if self.rerank == "embed":
            vectors = embed([t.text() for t in triples], self.index.config.model)
        else:
            vectors = self._composed(triples)
        scores = vectors @ target
        order = np.argsort(-scores, kind="stable")
        return [_with_score(triples[i], float(scores[i])) for i in order]

    def _composed(self, triples: list[Triple]) -> np.ndarray:
        text = self.index.text
        heads = text[[self.index.row_of[t.head_id] for t in triples]]
        tails = text[[self.index.row_of[t.tail_id] for t in triples]]
        relations = np.stack([self._relation_vector(t.relation) for t in triples])
        vectors = heads + relations + tails
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True).clip(min=1e-9)

    def _relation_vector(self, rel_type: str) -> np.ndarray:
        if rel_type not in self._relation_vectors:
            phrase = RELATION_PHRASES.get(rel_type, rel_type.replace("_", " "))
            self._relation_vectors[rel_type] = embed([phrase], self.index.config.model)[0]
        return self._relation_vectors[rel_type]

    def _mean_text(self, rows: list[int]) -> np.ndarray | None:
        if not rows:
            return None
        mean = self.index.text[rows].mean(axis=0)
        norm = np.linalg.norm(mean)
        return mean / norm if norm > 0 else None


def _with_score(triple: Triple, score: float) -> Triple:
    return replace(triple, score=round(score, 4))


def _merge_sources(a: str, b: str | None) -> str:
    parts = {p for s in (a, b or "") for p in s.split("+") if p}
    return "+".join(sorted(parts))


def _pmids(value: Any) -> tuple[int, ...]:
    values = value if isinstance(value, list) else [value]
    out = []
    for v in values:
        if isinstance(v, bool) or v in (None, ""):
            continue
        if isinstance(v, int):
            out.append(v)
        elif isinstance(v, str) and v.strip().isdigit():
            out.append(int(v.strip()))
        elif isinstance(v, float) and v.is_integer():
            out.append(int(v))
    return tuple(dict.fromkeys(out))


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 3)
