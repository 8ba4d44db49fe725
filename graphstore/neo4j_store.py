"""Neo4j adapter through the official `neo4j` driver.

Reads run in read transactions (``execute_read``) with a transaction timeout, so the
server refuses writes. A load replaces the whole content of the configured database in
ONE write transaction (delete the old graph, create the new one): a failure rolls it
back and leaves the previous graph as it was. Point it at a database dedicated to FPKG.
Indexes are created (idempotently) before that transaction, as Neo4j does not mix
schema and data changes in one transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import neo4j
from neo4j.exceptions import DriverError, Neo4jError, ServiceUnavailable, SessionExpired
from neo4j.graph import Node as NNode
from neo4j.graph import Path as NPath
from neo4j.graph import Relationship as NRel

from fpkg.errors import LoadError, QueryRejected, QueryTimeout, SettingsError, StoreError, StoreUnavailable
from graphstore.store import (
    NODE_ID_KEY,
    REL_ID_KEY,
    GraphStore,
    WriteCounts,
    batches,
    labels_clause,
    match_node,
    missing_endpoints,
    plan_load,
    quote_name,
)

if TYPE_CHECKING:
    from fpkg.config import Settings
    from graphstore.graph import Graph

T = TypeVar("T")
INDEX_WAIT_S = 300


class Neo4jStore(GraphStore):
    def __init__(self, uri: str, *, user: str = "neo4j", password: str | None = None,
                 database: str | None = None) -> None:
        auth = (user, password) if password is not None else None
        # give up on an unreachable server within seconds, not the driver's 30 s default
        self._driver = neo4j.GraphDatabase.driver(uri, auth=auth, max_transaction_retry_time=5.0,
                                                  connection_acquisition_timeout=10.0)
        self.uri = uri
        self.database = database

    @classmethod
    def from_settings(cls, settings: Settings) -> Neo4jStore:
        if not settings.neo4j_uri:
            raise SettingsError("GRAPH_BACKEND=neo4j needs NEO4J_URI (e.g. bolt://localhost:7687)")
        return cls(settings.neo4j_uri, user=settings.neo4j_user, password=settings.neo4j_password)

    def __repr__(self) -> str:
        return f"Neo4jStore({self.uri!r}, database={self.database!r})"

    # ---- reads --------------------------------------------------------------------------
    def query(self, cypher: str, params: dict[str, Any] | None = None, *,
              timeout_ms: int = 5000) -> list[dict[str, Any]]:
        if timeout_ms < 1:
            raise ValueError("timeout_ms must be >= 1")

        @neo4j.unit_of_work(timeout=timeout_ms / 1000)
        def work(tx: neo4j.ManagedTransaction) -> list[dict[str, Any]]:
            result = tx.run(cypher, params or {})
            rows = _Rows(tx)
            return rows.convert(list(result))

        return self._read(work)

    def is_empty(self) -> bool:
        return self.query("MATCH (n) RETURN 1 AS one LIMIT 1") == []

    def health(self) -> bool:
        try:
            self._driver.verify_connectivity()
        except (Neo4jError, DriverError, OSError):
            return False
        return True

    # ---- writes (private path) ---------------------------------------------------------
    def write(self, cypher: str, params: dict[str, Any] | None = None) -> WriteCounts:
        def work(tx: neo4j.ManagedTransaction) -> WriteCounts:
            counters = tx.run(cypher, params or {}).consume().counters
            return WriteCounts(counters.relationships_created, counters.relationships_deleted)

        return self._write(work, lambda e: QueryRejected(f"write refused: {e.message} [{e.code}]"))

    def load(self, graph: Graph, *, batch_size: int = 5000,
             indexes: Sequence[tuple[str, str]] = ()) -> None:
        plan = plan_load(graph)
        specs = [(label, NODE_ID_KEY) for label in sorted(plan.labels)]
        specs += [(label, prop) for label, prop in indexes if label in plan.labels]
        self.create_indexes(specs)

        def work(tx: neo4j.ManagedTransaction) -> None:
            tx.run("MATCH (n) DETACH DELETE n").consume()
            for labels, rows in plan.nodes.items():
                q = f"UNWIND $rows AS r CREATE (n{labels_clause(labels)}) SET n = r.p"
                for batch in batches(rows, batch_size, desc=f"loading {':'.join(labels)} nodes"):
                    created = tx.run(q, rows=list(batch)).consume().counters.nodes_created
                    if created != len(batch):
                        raise LoadError(f"created {created} of {len(batch)} {labels} nodes")
            for (start, rel_type, end), rows in plan.relationships.items():
                q = (f"UNWIND $rows AS r MATCH {match_node('a', start, 's')} "
                     f"MATCH {match_node('b', end, 'e')} "
                     f"CREATE (a)-[x:{quote_name(rel_type, 'type')}]->(b) SET x = r.p")
                for batch in batches(rows, batch_size, desc=f"loading {rel_type} relationships"):
                    created = tx.run(q, rows=list(batch)).consume().counters.relationships_created
                    if created != len(batch):
                        raise LoadError(f"created {created} of {len(batch)} {rel_type} relationships; "
                                        f"(id, start, end) without a node: {missing_endpoints(graph)}")

        self._write(work, lambda e: LoadError(f"load failed, previous graph kept: {e}"))

    def create_indexes(self, specs: Iterable[tuple[str, str]]) -> None:
        try:
            with self._driver.session(database=self.database) as session:
                for label, prop in dict.fromkeys(specs):
                    name = quote_name(f"fpkg_{label}_{prop}", "index")
                    session.run(f"CREATE INDEX {name} IF NOT EXISTS FOR (n:{quote_name(label)}) "
                                f"ON (n.{quote_name(prop, 'property')})").consume()
                session.run("CALL db.awaitIndexes($s)", s=INDEX_WAIT_S).consume()
        except (ServiceUnavailable, SessionExpired) as e:
            raise StoreUnavailable(f"Neo4j unreachable: {e}") from e
        except Neo4jError as e:
            raise LoadError(f"index creation failed: {e}") from e

    def close(self) -> None:
        self._driver.close()

    # ---- internals ----------------------------------------------------------------------
    def _write(self, work: Callable[[neo4j.ManagedTransaction], T], failed: Callable[[Neo4jError], StoreError]) -> T:
        """`work` in one write transaction: raising inside rolls all of it back."""
        try:
            with self._driver.session(database=self.database) as session:
                return session.execute_write(work)
        except (ServiceUnavailable, SessionExpired) as e:
            raise StoreUnavailable(f"Neo4j unreachable: {e}") from e
        except Neo4jError as e:
            raise failed(e) from e
        finally:
            self._schema_cache = None

    def _read(self, work: Callable[[neo4j.ManagedTransaction], T]) -> T:
        try:
            with self._driver.session(database=self.database,
                                      default_access_mode=neo4j.READ_ACCESS) as session:
                return session.execute_read(work)
        except (ServiceUnavailable, SessionExpired) as e:
            raise StoreUnavailable(f"Neo4j unreachable: {e}") from e
        except Neo4jError as e:
            code = e.code or ""
            if "TransactionTimedOut" in code or "Transaction.Terminated" in code:
                raise QueryTimeout(f"query stopped at its time limit ({e.message})") from e
            if code.startswith("Neo.ClientError."):
                raise QueryRejected(f"{e.message} [{code}]") from e
            raise StoreError(f"Neo4j error: {e}") from e
        except DriverError as e:
            raise StoreUnavailable(f"Neo4j driver error: {e}") from e


class _Rows:
    """Driver records -> plain rows, with the same entity shapes as the FalkorDB adapter."""

    def __init__(self, tx: neo4j.ManagedTransaction) -> None:
        self.tx = tx
        self.pending: list[tuple[dict[str, Any], NRel]] = []

    def convert(self, records: list[neo4j.Record]) -> list[dict[str, Any]]:
        rows = [{key: self.value(v) for key, v in record.items()} for record in records]
        self._resolve_ends()
        return rows

    def value(self, v: Any) -> Any:
        if isinstance(v, NNode):
            props = dict(v)
            nid = props.pop(NODE_ID_KEY, None)
            return {"id": nid, "labels": sorted(v.labels), "properties": props}
        if isinstance(v, NRel):
            props = dict(v)
            rel = {"id": props.pop(REL_ID_KEY, None), "type": v.type, "start": None, "end": None,
                   "properties": props}
            self.pending.append((rel, v))
            return rel
        if isinstance(v, NPath):
            return {"nodes": [self.value(n) for n in v.nodes],
                    "relationships": [self.value(r) for r in v.relationships]}
        if isinstance(v, list):
            return [self.value(x) for x in v]
        if isinstance(v, dict):
            return {k: self.value(x) for k, x in v.items()}
        if hasattr(v, "iso_format"):  # neo4j.time values
            return v.iso_format()
        return v

    def _resolve_ends(self) -> None:
        """A relationship carries only its ends' element ids; look their nids up."""
        nid_of: dict[str, Any] = {}
        missing: set[str] = set()
        for _rel, raw in self.pending:
            for node in (raw.start_node, raw.end_node):
                if node is None:
                    continue
                if NODE_ID_KEY in node:
                    nid_of[node.element_id] = node[NODE_ID_KEY]
                else:
                    missing.add(node.element_id)
        if missing - nid_of.keys():
            q = "MATCH (n) WHERE elementId(n) IN $ids RETURN elementId(n) AS e, n.nid AS nid"
            nid_of.update((r["e"], r["nid"]) for r in self.tx.run(q, ids=sorted(missing)))
        for rel, raw in self.pending:
            rel["start"] = nid_of.get(raw.start_node.element_id) if raw.start_node else None
            rel["end"] = nid_of.get(raw.end_node.element_id) if raw.end_node else None
