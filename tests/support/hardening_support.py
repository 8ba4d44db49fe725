"""Shared by the hardening suites: a fingerprint of the whole graph's content (the `graph_baseline`
fixture in conftest.py takes one before a test), and a pipeline that answers with a given generator
(a scripted fake LLM or an endpoint client).

Each suite checks the graph in a test of its own that takes its baseline, runs every hostile case
of the suite again, and compares: it holds when run alone. A fingerprint reads every row of the graph
(seconds), so the cases are grouped into that one test rather than fingerprinted one by one."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

from graphstore.store import GraphStore
from llm.base import Generator
from llm.factory import clear_cache
from service.pipeline import Pipeline

FINGERPRINT_TIMEOUT_MS = 300_000
# Plain values, serialised here. The first version built each row on the server,
# `toString(n.nid) + '|' + toJSON(labels(n)) + '|' + toJSON(properties(n))`: on a freshly loaded graph
# FalkorDB 4.16 returns one of the ~20k rows as "" in about one read in five (a different node each
# time; the node reads correctly alone), which failed CI with an unchanged graph.
_NODE_ROWS = "MATCH (n) RETURN n.nid AS nid, labels(n) AS labels, properties(n) AS properties"
_RELATIONSHIP_ROWS = ("MATCH (a)-[r]->(b) RETURN a.nid AS start, type(r) AS type, b.nid AS end, "
                      "properties(r) AS properties")


@dataclass(frozen=True)
class GraphFingerprint:
    nodes: int
    relationships: int
    checksum: str  # sha256 over the sorted rows: every node's nid, labels and properties, every relationship
    rows: frozenset[str] = field(default=frozenset(), compare=False, repr=False)  # to say what changed


def graph_fingerprint(store: GraphStore) -> GraphFingerprint:
    counts = store.counts()
    digest = hashlib.sha256()
    every_row: set[str] = set()
    for query in (_NODE_ROWS, _RELATIONSHIP_ROWS):
        rows = [json.dumps(row, sort_keys=True, ensure_ascii=False)
                for row in store.query(query, timeout_ms=FINGERPRINT_TIMEOUT_MS)]
        digest.update("\n".join(sorted(rows)).encode("utf-8", "surrogatepass"))
        digest.update(b"\x00")
        every_row.update(rows)
    return GraphFingerprint(counts["total_nodes"], counts["total_relationships"], digest.hexdigest(),
                            frozenset(every_row))


def changes(before: GraphFingerprint, after: GraphFingerprint, shown: int = 10) -> str:
    """The rows only one of the two fingerprints holds: the assertion message of a changed graph."""
    gone, new = sorted(before.rows - after.rows), sorted(after.rows - before.rows)
    return (f"{len(gone)} rows gone, {len(new)} rows new\n"
            + "\n".join([f"- {row[:300]}" for row in gone[:shown]] + [f"+ {row[:300]}" for row in new[:shown]]))


def assert_unchanged(store: GraphStore, baseline: GraphFingerprint) -> None:
    """The graph holds what it held at the baseline; if not, the message says which rows changed."""
    after = graph_fingerprint(store)
    assert after == baseline, changes(baseline, after)


@contextmanager
def unchanged_graph(store: GraphStore, baseline: GraphFingerprint) -> Iterator[None]:
    """Checks the graph against `baseline` when the block ends, also when a case in it raised
    (the changed rows are then the failure, the case's error its context)."""
    try:
        yield
    finally:
        assert_unchanged(store, baseline)


def with_generator(pipeline: Pipeline, generator: Generator) -> Pipeline:
    """The same graph, indexes and NER, answering with `generator` whatever backend is asked for."""
    copy = pipeline_like(pipeline)
    copy._retrievers = pipeline._retrievers  # the built indexes, shared
    copy.generator = lambda backend: generator
    return copy


def with_endpoint(pipeline: Pipeline, url: str) -> Pipeline:
    """The same graph and indexes, configured for an OpenAI-compatible endpoint at `url`."""
    clear_cache()  # the factory caches one client per endpoint
    settings = replace(pipeline.settings, llm_backend="endpoint", llm_endpoint=url, llm_model="test-model")
    copy = pipeline_like(pipeline, settings=settings)
    copy._retrievers = pipeline._retrievers  # the built indexes, shared
    return copy


def pipeline_like(pipeline: Pipeline, *, settings=None, store=None, recognizer=None) -> Pipeline:
    """A pipeline over the same linker, ontology and profiles, with some parts of its own."""
    return Pipeline(settings or pipeline.settings, store or pipeline.store, pipeline.linker, pipeline.ontology,
                    recognizer or pipeline.recognizer, pipeline.build_report, pipeline.profiles, pipeline.findings)
