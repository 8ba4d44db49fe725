"""Vector mode: the relation a question asks about, found by its words' vector, returned whole;
then nodes near the question, their 1-hop neighbourhoods, re-ranked triples.

A question's linked names are replaced by "this" and its vector compared with phrases for each
relation a node can be asked about (RELATION_QUESTIONS: "other names for this facial feature",
"which diseases are caused by variants in this gene", ...); the nearest, for a linked node of
its kind (else the node nearest the whole question, when close: a feature described rather than
named), brings all of that node's triples of that relation (capped at the templates' row limit,
with a notice), synonyms included as facts. Below RELATION_MIN_SIMILARITY the question asks
none of them, and only the near triples below answer it.

The question's text vector and the linked nodes' vectors give the query vector; FAISS
returns the top-K nodes; the linked nodes and those seed the neighbourhood, whose relationships
(kept with their direction as stored) come from the index's copy of them, not a store query;
the triples are re-ranked by cosine similarity to the question (seed 001) and the top-n above a
threshold kept. Nothing is refitted per question.

Re-ranking composes each triple's vector from cached ones, ``head + relation + tail``
(node text vectors from the index, one vector per relationship type), instead of running
MiniLM over every triple's text: on 2 CPU cores that costs milliseconds per triple, far
beyond the 30 ms budget for a few hundred triples. ``rerank="embed"`` embeds the triple
texts in one batch, as seed 001 does, for comparison.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np
from threadpoolctl import ThreadpoolController

from fpkg.names import fold_plural
from graphstore.store import GraphStore
from retrieval.cypher.templates import TEMPLATE_LIMIT, TEMPLATES, run_template
from retrieval.hold_out import NOTHING_HELD_OUT, HoldOut
from retrieval.intent import Intent, find_mentions, nothing_found
from retrieval.linking import TYPE_TO_LABEL
from retrieval.options import split_question
from retrieval.question_types import answer_structured
from retrieval.ranked import list_lead, listing
from retrieval.relations import SUMMARY, recognise
from retrieval.result import Link, RetrievalResult, Triple
from retrieval.retriever import Retriever
from retrieval.summary import summarise
from retrieval.vector.embedder import embed
from retrieval.vector.index import VectorIndex

if TYPE_CHECKING:
    from fpkg.config import Settings
    from llm.base import Generator
    from retrieval.linking import EntityLinker

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
# What a question can ask of a linked node, in words: the question's vector picks the nearest whose
# node is linked, and that relation's neighbourhood is returned whole (retrieval.cypher.templates'
# read queries, capped at their row limit).
RELATION_QUESTIONS = {
    "phenotypes_of_disease": "what dysmorphic facial features and phenotypes does this disease or syndrome have",
    "genes_of_disease": "which genes cause this disease or syndrome",
    "diseases_of_gene": "which diseases or syndromes are caused by variants in this gene",
    "phenotypes_of_gene": "what facial features and dysmorphisms do patients with variants in this gene have",
    "genes_with_phenotype": "which genes are linked to this facial feature",
    "diseases_with_phenotypes": "which diseases or syndromes show this facial feature",
    "synonyms_of_phenotype": "other names and synonyms for this facial feature",
}
RELATION_MIN_SIMILARITY = 0.25  # below it the question asks none of them: near triples only
NEAREST_MIN_SIMILARITY = 0.5  # the nearest node stands for a feature described, not named (fuzzy dev)
RERANK_MODES = ("composed", "embed")
LABEL_TO_TYPE = {label: kind for kind, label in TYPE_TO_LABEL.items()}


@dataclass(slots=True)
class _Edge:
    """A (head, type, tail) of the neighbourhood; parallel relationships merged into it."""

    head: int  # index rows
    relation: str
    tail: int
    sources: set[str] = field(default_factory=set)
    pmids: list[int] = field(default_factory=list)


class VectorRetriever(Retriever):
    """Retrieval over a `VectorIndex` of the graph `store` holds (same fingerprint).

    `threads` limits torch and BLAS to that many threads during a retrieval (None leaves
    them): one short text and matrix-vector products gain little from more threads on an
    idle machine, and on a busy one their spin-waiting made the question embedding ~15x
    and the similarity products ~10x slower here. The limits are process-wide while set."""

    def __init__(self, store: GraphStore, index: VectorIndex, *, per_seed: int = 8,
                 max_relationships: int = 600, rerank: str = "composed",
                 threads: int | None = 1, shared: int = 10, linker: EntityLinker | None = None) -> None:
        if rerank not in RERANK_MODES:
            raise ValueError(f"rerank must be one of {', '.join(RERANK_MODES)}, not {rerank!r}")
        if per_seed < 1 or max_relationships < 1:
            raise ValueError("per_seed and max_relationships must be >= 1")
        self.store = store
        self.index = index
        self.linker = linker  # finds a free question's mentions when none are given
        self.per_seed = per_seed
        self.max_relationships = max_relationships
        self.rerank = rerank
        self.threads = threads
        self.shared = shared
        # one batch now rather than model calls inside a question's time budget
        phrases = embed(list(RELATION_PHRASES.values()), index.config.model)
        self._relation_vectors = dict(zip(RELATION_PHRASES, phrases, strict=True))
        self._question_kinds = embed(list(RELATION_QUESTIONS.values()), index.config.model)
        self._rebuilt = index.stats.get("rebuilt")  # said once, with the first answer
        self._asking_words = _words(" ".join(RELATION_QUESTIONS.values()))

    @classmethod
    def create(cls, store: GraphStore, linker: EntityLinker, settings: Settings) -> VectorRetriever:
        """Loads the node vectors from the cache, or builds them (about a minute the first time)."""
        return cls(store, VectorIndex.load_or_build(store, settings.cache_dir), linker=linker)

    def curated_changed(self) -> None:
        self.index.refresh_curated(self.store)

    def for_diagnosis(self, question: str, links: Sequence[Link], hold_out: HoldOut = NOTHING_HELD_OUT,
                      **options: Any) -> RetrievalResult:
        """The evidence around a patient's case: a description asks no relation of its nodes. The case
        is embedded without its options list (the nodes are linked already; their names doubled the
        text and the time); its closing question stays, since it finds similar published patients
        (RESULTS.md, vector mode). Triples from a held-out paper are left out.
        `options`: `retrieve`'s."""
        stem, _ = split_question(question) if isinstance(question, str) else (question, {})
        found = self.retrieve(stem, links, relation=False, **options)
        if hold_out:
            found.triples = [t for t in found.triples if hold_out.keeps(t)]
        return found

    def retrieve(self, question: str, links: Sequence[Link] | None = None, generator: Generator | None = None,
                 *, top_k: int = 5, top_n: int = 20, threshold: float = 0.3,
                 question_vector: np.ndarray | None = None, relation: bool = True) -> RetrievalResult:
        """With `relation`, first the whole neighbourhood of the relation the question asks about
        (unscored; see `_asked_relation`); then the triples around the nodes nearest to the
        question and its linked nodes, best first: at most `top_n`, each scoring at least
        `threshold` (cosine similarity).

        `question_vector`: the question's unit embedding (the index's model) when the caller
        has it already; embedding a 70-token patient case costs ~20-25 ms on one core."""
        if top_k < 0 or top_n < 1:
            raise ValueError("top_k must be >= 0 and top_n >= 1")
        if not -1.0 <= threshold <= 1.0:
            raise ValueError("threshold is a cosine similarity, in [-1, 1]")
        if links is None:
            links = find_mentions(question, self.linker) if self.linker is not None else ()
        with _limited_threads(self.threads):
            return self._retrieve(question, links, top_k, top_n, threshold, question_vector, relation)

    def _retrieve(self, question: str, links: Sequence[Link], top_k: int, top_n: int,
                  threshold: float, question_vector: np.ndarray | None, relation: bool) -> RetrievalResult:
        started = time.perf_counter()
        timings: dict[str, float] = {}
        result = RetrievalResult(mode="vector", links=list(links), timings_ms=timings)
        if self._rebuilt:
            result.notices.append(self._rebuilt)
            self._rebuilt = None

        clock = time.perf_counter()
        text = question.strip() if isinstance(question, str) else ""
        named = [link for link in links if link.node_id is not None]
        # what the question asks, without its names (see _asked_relation); embedded in the same batch
        asking = [self._without_names(text, named)] if text and relation else []
        asking_vector = None
        if question_vector is not None:
            question_vector = np.asarray(question_vector, dtype=np.float32).reshape(-1)
            if question_vector.shape != (self.index.text_dim,):
                raise ValueError(f"question_vector must have {self.index.text_dim} dimensions")
            if asking:
                asking_vector = embed(asking, self.index.config.model)[0]
        elif text:
            vectors = embed([text, *asking], self.index.config.model)
            question_vector, asking_vector = vectors[0], (vectors[1] if asking else None)
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
        edges = self._neighbourhood(seeds, query)
        timings["neighbourhood"] = _ms(clock)

        clock = time.perf_counter()
        nearest = [(row, score) for row, score in found if row not in linked]
        intent, how = recognise(text, named) if text and relation else (None, "")
        summary, asked, focus = None, [], ()
        structured = answer_structured(text, named, self.store, self.linker) if intent is not None else None
        if structured is not None:  # what two names have in common, a count, a yes/no
            asked, result.lead, result.intent = structured.triples, structured.lead, structured.intent
            result.complete, result.listing = structured.complete, structured.listing
            result.cypher.extend(structured.runs)
        elif intent is not None and intent.name == SUMMARY and how != "default":
            summary = summarise(self.store, intent.links[0])
        elif intent is not None and how == "cue" and intent.name in TEMPLATES:
            asked, runs = run_template(self.store, intent.name, [lk.node_id for lk in intent.links])
            result.cypher.extend(runs)
            result.intent = intent.name
        elif asking_vector is not None:
            asked = self._asked_relation(asking_vector, named, nearest, result)
        if not asked and summary is None and intent is not None and structured is None:
            summary = summarise(self.store, intent.links[0]) if intent.name == SUMMARY else None
            if summary is None and intent.name in TEMPLATES:
                asked, runs = run_template(self.store, intent.name, [lk.node_id for lk in intent.links])
                result.cypher.extend(runs)
                result.intent = intent.name
        if summary is not None:
            asked, result.lead, result.complete, result.intent = summary.triples, summary.text, True, summary.intent
            result.cypher.extend(summary.runs)
        elif structured is None and result.intent in TEMPLATES and asked:  # a list, numbered under its lead
            needs = TEMPLATES[result.intent].needs  # the names the list is of (a feature described: the nearest)
            asking = {link.node_id for link in named if link.label == needs} or {t.head_id for t in asked[:1]}
            result.listing = listing(result.intent, asking, asked, self.linker)
            focus = tuple(asking)
            result.lead = result.lead or _list_lead(result.intent, named, asked)
        result.focus = tuple(link.node_id for link in named) or focus
        timings["relation"] = _ms(clock)

        clock = time.perf_counter()
        target = question_vector if question_vector is not None else self._mean_text(linked_rows)
        scores = self._scores(edges, target)
        order = np.argsort(-scores, kind="stable")
        near = [self._triple(edges[i], float(scores[i])) for i in order[:top_n] if scores[i] >= threshold]
        known = {(t.head_id, t.relation, t.tail_id) for t in asked}
        result.triples = asked + [t for t in near if (t.head_id, t.relation, t.tail_id) not in known]
        timings["rerank"] = _ms(clock)
        if not result.triples:
            result.notices.append(f"no triple scored {threshold} or more among {len(edges)} "
                                  f"from {len(seeds)} nodes")
            result.lead = nothing_found(text, list(links))  # says what was looked for, as Cypher mode does
        timings["total"] = _ms(started)
        return result

    # ---- steps -----------------------------------------------------------------------------
    def _without_names(self, question: str, linked: list[Link]) -> str:
        """The question with each linked name replaced by "this" ("other names for hypertelorism?"
        -> "other names for this?"): a long name would outweigh the words that say what is asked.
        A mention made of those words ("dysmorphic facial features") stays: it is the question."""
        for link in sorted(linked, key=lambda lk: -len(lk.mention)):
            if not _words(link.mention) <= self._asking_words:
                question = re.sub(re.escape(link.mention), "this", question, flags=re.IGNORECASE)
        return question

    def _asked_relation(self, asking: np.ndarray, linked: list[Link], nearest: list[tuple[int, float]],
                        result: RetrievalResult) -> list[Triple]:
        """The whole neighbourhood of the relation the question asks about (RELATION_QUESTIONS;
        `asking` is the vector of the question without its names), for the linked nodes it applies
        to, else for the node nearest the question (`nearest`: index rows and similarities) when it
        is of that kind and close (a feature described, not named); [] when it asks none of them
        closely enough."""
        similarity = self._question_kinds @ asking
        for i in np.argsort(-similarity):
            if similarity[i] < RELATION_MIN_SIMILARITY:
                return []
            intent = list(RELATION_QUESTIONS)[i]
            ids = self._nodes_of(TEMPLATES[intent].needs, linked, nearest)
            if ids:
                break
        else:
            return []
        triples, runs = run_template(self.store, intent, ids)
        result.cypher.extend(runs)
        result.intent = intent
        if any(run.rows >= TEMPLATE_LIMIT for run in runs):
            result.notices.append(f"only the first {TEMPLATE_LIMIT} facts of '{TEMPLATES[intent].description}' "
                                  "are shown")
        return triples

    def _nodes_of(self, label: str, linked: list[Link], nearest: list[tuple[int, float]]) -> list[int]:
        """The linked nodes of `label`; else the nodes of that label named exactly as a linked
        mention ("distichiasis" is a disease and a facial feature: asked for its synonyms, the
        feature); else the nearest node of that label if it is close enough."""
        ids = [link.node_id for link in linked if link.label == label]
        if not ids and self.linker is not None:
            kind = LABEL_TO_TYPE.get(label)
            for link in linked:
                again = self.linker.link(link.mention, kind) if kind else None
                if again is not None and again.node_id is not None and again.method in ("exact", "synonym"):
                    ids.append(again.node_id)
        if not ids:
            ids = [int(self.index.ids[row]) for row, score in nearest[:1]
                   if self.index.labels[row] == label and score >= NEAREST_MIN_SIMILARITY]
        return list(dict.fromkeys(ids))

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

    def _pairs(self, seeds: list[int], query: np.ndarray) -> set[tuple[int, int]]:
        """Which adjacent (row, row) pairs to fetch, chosen on the index's cached adjacency:

        - every pair among the seeds and the `shared` nodes adjacent to most seeds (e.g.
          the diseases that exhibit several of the question's phenotypes): the evidence
          that ties the question's entities together;
        - each seed with its `per_seed` neighbours nearest the query vector (a facial
          phenotype can have over a thousand neighbours)."""
        if not seeds:
            return set()
        indptr, indices = self.index.adjacency.indptr, self.index.adjacency.indices
        neighbours = [indices[indptr[s]:indptr[s + 1]] for s in seeds]
        # every neighbour once: how many seeds it touches, its similarity to the query
        candidates, touches = np.unique(np.concatenate(neighbours), return_counts=True)
        similarity = self.index.similarities(candidates, query)
        group = list(dict.fromkeys(seeds))
        if self.shared and len(group) > 1:
            shared = np.flatnonzero((touches >= 2) & ~np.isin(candidates, group))
            best = np.lexsort((-similarity[shared], -touches[shared]))[:self.shared]  # most seeds first
            group += candidates[shared[best]].tolist()
        in_group = np.zeros(len(indptr) - 1, dtype=bool)
        in_group[group] = True
        pairs: set[tuple[int, int]] = set()
        for node in group:
            adjacent = indices[indptr[node]:indptr[node + 1]]
            pairs.update((min(node, m), max(node, m)) for m in adjacent[in_group[adjacent]].tolist())
        for seed, adjacent in zip(seeds, neighbours, strict=True):
            if len(adjacent) > self.per_seed:
                scores = similarity[np.searchsorted(candidates, adjacent)]
                adjacent = adjacent[np.argpartition(-scores, self.per_seed)[:self.per_seed]]
            pairs.update((min(seed, m), max(seed, m)) for m in adjacent.tolist())
        return pairs

    def _neighbourhood(self, seeds: list[int], query: np.ndarray) -> list[_Edge]:
        """The relationships of the chosen pairs (at most `max_relationships`), from the index's
        copy of them; parallel ones (FPKG keeps one per article) become one triple with all their
        PMIDs."""
        relationships = self.index.relationships
        merged: dict[tuple[int, str, int], _Edge] = {}
        for i in relationships.between(self._pairs(seeds, query))[:self.max_relationships].tolist():
            head, rel_type, tail, source, pmids = relationships.row(i)
            edge = merged.get((head, rel_type, tail))
            if edge is None:
                edge = merged[(head, rel_type, tail)] = _Edge(head, rel_type, tail)
            if source:
                edge.sources.update(source.split("+"))
            edge.pmids.extend(p for p in pmids if p not in edge.pmids)
        return list(merged.values())

    def _scores(self, edges: list[_Edge], target: np.ndarray | None) -> np.ndarray:
        if not edges or target is None:
            return np.zeros(0 if target is None else len(edges), dtype=np.float32)
        if self.rerank == "embed":
            vectors = embed([self._triple(e).text() for e in edges], self.index.config.model)
        else:
            text = self.index.text
            vectors = (text[[e.head for e in edges]] + text[[e.tail for e in edges]]
                       + np.stack([self._relation_vector(e.relation) for e in edges]))
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True).clip(min=1e-9)
        return vectors @ target

    def _relation_vector(self, rel_type: str) -> np.ndarray:
        if rel_type not in self._relation_vectors:  # a type the graph gained later
            self._relation_vectors[rel_type] = embed([rel_type.replace("_", " ")], self.index.config.model)[0]
        return self._relation_vectors[rel_type]

    def _triple(self, edge: _Edge, score: float | None = None) -> Triple:
        index = self.index
        return Triple(head=index.names[edge.head], relation=edge.relation, tail=index.names[edge.tail],
                      head_id=int(index.ids[edge.head]), tail_id=int(index.ids[edge.tail]),
                      head_label=index.labels[edge.head], tail_label=index.labels[edge.tail],
                      source="+".join(sorted(edge.sources)), pmids=tuple(edge.pmids),
                      score=None if score is None else round(score, 4))

    def _mean_text(self, rows: list[int]) -> np.ndarray | None:
        if not rows:
            return None
        mean = self.index.text[rows].mean(axis=0)
        norm = np.linalg.norm(mean)
        return mean / norm if norm > 0 else None


def _list_lead(intent: str, named: list[Link], triples: list[Triple]) -> str | None:
    """The list's first line, as Cypher mode writes it, for the linked names of the template's kind."""
    needs = TEMPLATES[intent].needs
    links = tuple(link for link in named if link.label == needs)
    return list_lead(Intent(intent, needs, links), triples) if links else None


@lru_cache(maxsize=1)
def _blas() -> ThreadpoolController:
    return ThreadpoolController()


@contextmanager
def _limited_threads(threads: int | None) -> Iterator[None]:
    if threads is None:
        yield
        return
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        with _blas().limit(limits=threads, user_api="blas"):
            yield
    finally:
        torch.set_num_threads(before)


def _words(text: str) -> set[str]:
    return {fold_plural(word) for word in re.findall(r"[a-z]+", text.lower())}


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 3)
