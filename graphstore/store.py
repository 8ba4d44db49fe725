"""The graph store interface: read-only queries, schema, atomic loads, health.

Two adapters implement it: `graphstore.falkordb_store` (embedded by default) and
`graphstore.neo4j_store`. Callers get plain Python values only, never driver objects.

Result rows are dicts column -> value, where graph entities become plain dicts:

- node: ``{"id": <nid>, "labels": [sorted str, ...], "properties": {...}}`` where ``nid`` is the
  portable graph's `Node.id` (stored as the indexed property ``nid``, hidden from
  ``properties``);
- relationship: ``{"id": <rid>, "type": str, "start": <start nid>, "end": <end nid>,
  "properties": {...}}`` where ``rid`` is the portable graph's `Relationship.id`;
- path: ``{"nodes": [node, ...], "relationships": [relationship, ...]}``.
"""

from __future__ import annotations

import math
import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

from fpkg.errors import (
    GraphNotLoaded,
    LoadError,
    SettingsError,
)

if TYPE_CHECKING:
    from fpkg.config import Settings

from graphstore.graph import Graph

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Internal properties the store adds to every node / relationship.
NODE_ID_KEY = "nid"
REL_ID_KEY = "rid"
INTERNAL_KEYS = frozenset({NODE_ID_KEY, REL_ID_KEY})


@dataclass(frozen=True)
class Schema:
    """What the graph holds, computed from its data (not from declared constraints)."""

    labels: dict[str, list[str]]  # label -> sorted property keys (internal keys left out)
    patterns: list[tuple[str, str, str, int]]  # (start label, type, end label, count) as stored
    node_count: int
    relationship_count: int
    label_counts: dict[str, int] = field(default_factory=dict)

    def describe(self) -> str:
        """Compact text for an LLM prompt: node labels with their properties, then the
        relationship patterns with their direction."""
        lines = ["Node labels and their properties:"]
        for label in sorted(self.labels):
            props = ", ".join(map(cypher_name, self.labels[label]))
            count = self.label_counts.get(label)
            suffix = f"  # {count} nodes" if count is not None else ""
            lines.append(f"(:{cypher_name(label)} {{{props}}}){suffix}")
        lines.append("Relationships (direction as stored):")
        for start, rel_type, end, count in self.patterns:
            lines.append(f"(:{cypher_name(start)})-[:{cypher_name(rel_type)}]->(:{cypher_name(end)})  # {count}")
        return "\n".join(lines)


def cypher_name(name: str) -> str:
    """A name as Cypher must write it: backquoted unless a plain identifier."""
    return name if _IDENTIFIER.fullmatch(name) else f"`{name}`"


@dataclass(frozen=True)
class WriteCounts:
    relationships_created: int = 0
    relationships_deleted: int = 0


class GraphStore(ABC):
    """A graph database holding one named graph.

    `query` is always read-only. Writes: `load` (the whole graph, at build) and `write` (one fixed,
    parameterised statement of the curated layer, curation/graph_writes.py; never a question's
    Cypher), plus index creation.
    """

    _schema_cache: Schema | None = None

    @abstractmethod
    def query(self, cypher: str, params: dict[str, Any] | None = None, *,
              timeout_ms: int = 5000) -> list[dict[str, Any]]:
        """Run `cypher` read-only with `params` (always pass user values as parameters).

        Raises QueryRejected (write attempt, syntax/semantic error), QueryTimeout,
        GraphNotLoaded, StoreUnavailable."""

    def schema(self) -> Schema:
        """The graph's labels, property keys and relationship patterns, computed with read
        queries and cached until the next `load` through this store."""
        if self._schema_cache is None:
            self._schema_cache = self._compute_schema()
        return self._schema_cache

    def _compute_schema(self) -> Schema:
        try:
            counts = self.counts()
            keys = self.query(_LABEL_KEYS, timeout_ms=_STATS_TIMEOUT_MS)
            patterns = self.query(_PATTERNS, timeout_ms=_STATS_TIMEOUT_MS)
        except GraphNotLoaded:
            return Schema({}, [], 0, 0)
        labels: dict[str, list[str]] = {label: [] for label in counts["nodes"]}
        for row in keys:
            if row["key"] not in INTERNAL_KEYS:
                labels.setdefault(row["label"], []).append(row["key"])
        return Schema(
            labels={label: sorted(props) for label, props in labels.items()},
            patterns=sorted((r["start_label"], r["type"], r["end_label"], r["n"]) for r in patterns),
            node_count=counts["total_nodes"], relationship_count=counts["total_relationships"],
            label_counts=dict(counts["nodes"]))

    @abstractmethod
    def load(self, graph: Graph, *, batch_size: int = 5000,
             indexes: Sequence[tuple[str, str]] = ()) -> None:
        """Replace the stored graph with `graph`, atomically: on failure the previous graph
        stays as it was (LoadError). Every label gets an index on ``nid``; `indexes` adds
        (label, property) indexes for the lookups callers make."""

    @abstractmethod
    def write(self, cypher: str, params: dict[str, Any] | None = None) -> WriteCounts:
        """Run one parameterised write statement in one transaction: all of it or none.
        Raises QueryRejected (an error in the statement), StoreUnavailable."""

    @abstractmethod
    def create_indexes(self, specs: Iterable[tuple[str, str]]) -> None:
        """Create (label, property) range indexes if missing."""

    def counts(self) -> dict[str, Any]:
        """``{"nodes": {label: n}, "relationships": {type: n}, "total_nodes": N,
        "total_relationships": M}``; all empty when the graph does not exist."""
        try:
            nodes = self.query(_LABEL_COUNTS, timeout_ms=_STATS_TIMEOUT_MS)
            types = [row["type"] for row in self.query(_TYPES, timeout_ms=_STATS_TIMEOUT_MS)]
            # one count per type: the stores answer it from their statistics, where grouping every
            # relationship by its type scans them all (half a second of each start on FalkorDB)
            rels = {kind: self.query(_TYPE_COUNT.format(type=quote_name(kind, "relationship type")),
                                     timeout_ms=_STATS_TIMEOUT_MS)[0]["n"] for kind in types}
            total_nodes, total_relationships = self.totals()
        except GraphNotLoaded:
            return {"nodes": {}, "relationships": {}, "total_nodes": 0, "total_relationships": 0}
        return {"nodes": {r["label"]: r["n"] for r in nodes},
                "relationships": {kind: n for kind, n in rels.items() if n},
                "total_nodes": total_nodes, "total_relationships": total_relationships}

    def totals(self) -> tuple[int, int]:
        """How many nodes and relationships the graph holds (two counts the stores keep); raises
        GraphNotLoaded when there is no graph."""
        nodes = self.query(_NODE_TOTAL, timeout_ms=_STATS_TIMEOUT_MS)[0]["n"]
        return nodes, self.query(_RELATIONSHIP_TOTAL, timeout_ms=_STATS_TIMEOUT_MS)[0]["n"]

    @abstractmethod
    def is_empty(self) -> bool:
        """True when the graph does not exist or holds no node."""

    @abstractmethod
    def health(self) -> bool:
        """True when the server answers; never raises."""

    def snapshot(self) -> None:  # noqa: B027 - optional hook, a no-op for durable stores
        """Make the current graph durable so the next start is fast (no-op by default)."""

    @abstractmethod
    def close(self) -> None:
        """Release connections (and stop an embedded server this store started)."""

    def __enter__(self) -> GraphStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# Read queries both backends understand; a node counts once under each of its labels.
_STATS_TIMEOUT_MS = 120_000
_LABEL_COUNTS = "MATCH (n) UNWIND labels(n) AS label RETURN label, count(*) AS n"
_TYPES = "CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType AS type"
_TYPE_COUNT = "MATCH ()-[r:{type}]->() RETURN count(r) AS n"
_NODE_TOTAL = "MATCH (n) RETURN count(n) AS n"
_RELATIONSHIP_TOTAL = "MATCH ()-[r]->() RETURN count(r) AS n"
_LABEL_KEYS = "MATCH (n) UNWIND labels(n) AS label UNWIND keys(n) AS key RETURN DISTINCT label, key"
_PATTERNS = ("MATCH (a)-[r]->(b) UNWIND labels(a) AS start_label UNWIND labels(b) AS end_label "
             "RETURN start_label, type(r) AS type, end_label, count(*) AS n")


# ---- helpers shared by the adapters -------------------------------------------------

def check_name(name: str, what: str) -> str:
    """Labels, types and property names are pasted into Cypher (backquoted): refuse the
    few characters that could break out of the quoting."""
    if not name or "`" in name or "\x00" in name:
        raise LoadError(f"invalid {what} name {name!r}")
    return name


def quote_name(name: str, what: str = "label") -> str:
    return f"`{check_name(name, what)}`"


def clean_properties(props: dict[str, Any], owner: tuple[str, int]) -> dict[str, Any]:
    """Drop None values (also inside lists), check the types the stores accept (str, int,
    finite float, bool and uniform lists of those) and refuse the internal keys.
    `owner` is ("node" | "relationship", id), for the error message."""
    out: dict[str, Any] = {}
    for key, value in props.items():
        if value is None:
            continue
        if not key or "`" in key or "\x00" in key or key in INTERNAL_KEYS:
            raise LoadError(f"{owner[0]} {owner[1]}: property name {key!r} is empty, reserved, or holds a "
                            "backtick or NUL, which FalkorDB cannot store; rename it before loading")
        if isinstance(value, (list, tuple)):
            value = [v for v in value if v is not None]
            # Neo4j stores only lists of one type
            if not all(map(_storable, value)) or len({type(v) for v in value}) > 1:
                raise LoadError(f"{owner[0]} {owner[1]}: list property {key!r} must hold values "
                                f"of one type among str, int, float, bool")
        elif not _storable(value):
            raise LoadError(f"{owner[0]} {owner[1]}: property {key!r} = {value!r} "
                            f"({type(value).__name__}) cannot be stored")
        out[key] = value
    return out


def _storable(value: Any) -> bool:
    kind = type(value)
    return kind is str or kind is int or kind is bool or (kind is float and math.isfinite(value))


def batches(rows: Sequence[Any], size: int, desc: str | None = None) -> Iterable[Sequence[Any]]:
    """`rows` in slices of `size`; with `desc`, a progress bar on a terminal (a build loads ~175k rows)."""
    if size < 1:
        raise ValueError("batch_size must be >= 1")
    with tqdm(total=len(rows), desc=desc, unit="row", disable=True if desc is None else None, leave=False) as bar:
        for i in range(0, len(rows), size):
            yield rows[i:i + size]
            bar.update(len(rows[i:i + size]))


def missing_endpoints(graph: Graph, limit: int = 5) -> list[tuple[int, int, int]]:
    """(relationship id, start, end) of relationships whose ends are not nodes of `graph`,
    to explain a load failure."""
    ids = {node.id for node in graph.nodes}
    bad = [(r.id, r.start, r.end) for r in graph.relationships if r.start not in ids or r.end not in ids]
    return bad[:limit]


BACKENDS = {
    "falkordb": ("graphstore.falkordb_store", "FalkorDBStore"),
    "neo4j": ("graphstore.neo4j_store", "Neo4jStore"),
}


def open_store(settings: Settings) -> GraphStore:
    """The store `settings.graph_backend` names, opened (adapters are imported lazily so
    that one backend's driver is not needed to use the other)."""
    import importlib

    try:
        module_name, class_name = BACKENDS[settings.graph_backend]
    except KeyError:
        raise SettingsError(f"GRAPH_BACKEND={settings.graph_backend!r} is not known; "
                            f"use one of {', '.join(BACKENDS)}") from None
    cls = getattr(importlib.import_module(module_name), class_name)
    return cls.from_settings(settings)


@dataclass
class LoadPlan:
    """A graph grouped for batched writes: nodes by label set, relationships by
    (start label, type, end label) so each batch MATCHes through one label's nid index."""

    nodes: dict[tuple[str, ...], list[dict[str, Any]]]
    relationships: dict[tuple[str | None, str, str | None], list[dict[str, Any]]]
    labels: set[str]


def plan_load(graph: Graph) -> LoadPlan:
    nodes: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    label_of: dict[int, str | None] = {}
    for node in graph.nodes:
        if node.id in label_of:
            raise LoadError(f"node id {node.id} appears twice")
        labels = tuple(check_name(label, "label") for label in node.labels)
        label_of[node.id] = labels[0] if labels else None
        props = clean_properties(node.properties, ("node", node.id))
        props[NODE_ID_KEY] = node.id
        nodes.setdefault(labels, []).append({"p": props})
    rels: dict[tuple[str | None, str, str | None], list[dict[str, Any]]] = {}
    for rel in graph.relationships:
        # an unknown end keeps label None here and makes the load fail with a clear message
        key = (label_of.get(rel.start), check_name(rel.type, "relationship type"), label_of.get(rel.end))
        props = clean_properties(rel.properties, ("relationship", rel.id))
        props[REL_ID_KEY] = rel.id
        rels.setdefault(key, []).append({"s": rel.start, "e": rel.end, "p": props})
    all_labels = {label for labels in nodes for label in labels}
    return LoadPlan(nodes, rels, all_labels)


def match_node(var: str, label: str | None, row_key: str) -> str:
    """``(a:`Label` {nid: r.s})``: the label lets the store use that label's nid index."""
    label_part = f":{quote_name(label)}" if label else ""
    return f"({var}{label_part} {{{NODE_ID_KEY}: r.{row_key}}})"


def labels_clause(labels: tuple[str, ...]) -> str:
    return "".join(f":{quote_name(label)}" for label in labels)
