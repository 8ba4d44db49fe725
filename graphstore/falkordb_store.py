"""FalkorDB adapter through the native `falkordb` client (never the Bolt port).

Reads go through ``GRAPH.RO_QUERY``, so the server itself refuses writes. A load builds
the new graph under a staging key and swaps it in with redis ``RENAME`` (atomic; it
frees the old graph), so a failed load leaves the previous graph untouched.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import redis
from falkordb import FalkorDB
from falkordb.edge import Edge as FEdge
from falkordb.node import Node as FNode
from falkordb.path import Path as FPath
from redis.backoff import NoBackoff
from redis.retry import Retry

from fpkg.errors import GraphNotLoaded, LoadError, QueryRejected, QueryTimeout, StoreUnavailable
from graphstore.embedded_falkordb import EmbeddedFalkorDB
from graphstore.store import (
    NODE_ID_KEY,
    REL_ID_KEY,
    GraphStore,
    WriteCounts,
    batches,
    labels_clause,
    missing_endpoints,
    plan_load,
    quote_name,
)

if TYPE_CHECKING:
    from falkordb.graph import Graph as FGraph

    from fpkg.config import Settings
    from graphstore.graph import Graph

T = TypeVar("T")
# The client-side limit is the server's plus this much: a few Cypher functions (a huge
# range()) run long before the server checks its own timeout.
SOCKET_GRACE_S = 5.0
INDEX_WAIT_S = 120.0
LOAD_LOCK_S = 3600


WRITE_TIMEOUT_S = 30.0


class FalkorDBStore(GraphStore):
    def __init__(self, graph_name: str, *, url: str | None = None,
                 server: EmbeddedFalkorDB | None = None, owns_server: bool = False) -> None:
        if (url is None) == (server is None):
            raise ValueError("give exactly one of url= or server=")
        self.graph_name = graph_name
        self.staging_name = f"{graph_name}__staging"
        self.load_lock_name = f"{graph_name}__loading"  # one load of a graph at a time
        self.url = url
        self.server = server
        self._owns_server = owns_server
        self._clients: dict[float | None, FalkorDB] = {}
        self._clients_lock = threading.Lock()  # stores are shared by the app's worker threads

    @classmethod
    def from_settings(cls, settings: Settings) -> FalkorDBStore:
        """Connect to FALKORDB_URL if set, else start the embedded server in the cache folder."""
        if settings.falkordb_url:
            return cls(settings.graph_name, url=settings.falkordb_url)
        server = EmbeddedFalkorDB(settings.cache_dir / "falkordb").start()
        return cls(settings.graph_name, server=server, owns_server=True)

    def __repr__(self) -> str:
        where = repr(self.server) if self.server else "url=<FALKORDB_URL>"
        return f"FalkorDBStore({self.graph_name!r}, {where})"

    @property
    def snapshot_discarded(self) -> bool:
        """True when the embedded server found a corrupt snapshot and started empty."""
        return bool(self.server and self.server.snapshot_discarded)

    # ---- reads --------------------------------------------------------------------------
    def query(self, cypher: str, params: dict[str, Any] | None = None, *,
              timeout_ms: int = 5000) -> list[dict[str, Any]]:
        if timeout_ms < 1:
            raise ValueError("timeout_ms must be >= 1")
        _check_params(params)

        def run(db: FalkorDB) -> list[dict[str, Any]]:
            # A fresh Graph object each time: the client caches label and property names
            # by position, which a load (here or in another process) renumbers.
            graph = db.select_graph(self.graph_name)
            try:
                result = graph.ro_query(cypher, params, timeout=int(timeout_ms))
            except (ValueError, TypeError) as e:  # a parameter the client cannot encode
                raise QueryRejected(f"bad query parameter: {e}") from e
            return _Rows(graph, timeout_ms).convert(result)

        return self._with_retry(run, socket_timeout=timeout_ms / 1000 + SOCKET_GRACE_S)

    def is_empty(self) -> bool:
        if not self._with_retry(lambda db: db.connection.exists(self.graph_name), None):
            return True
        return self.query("MATCH (n) RETURN n LIMIT 1") == []

    def health(self) -> bool:
        try:
            return bool(self._with_retry(lambda db: db.connection.ping(), socket_timeout=5.0))
        except (StoreUnavailable, redis.RedisError):
            return False

    # ---- writes (private path) ---------------------------------------------------------
    def write(self, cypher: str, params: dict[str, Any] | None = None) -> WriteCounts:
        """One statement: FalkorDB runs each query atomically. Not retried after a lost connection
        (it may have been applied); the curated layer's statements are idempotent anyway."""
        _check_params(params)
        try:
            graph = self._db(WRITE_TIMEOUT_S).select_graph(self.graph_name)
            result = graph.query(cypher, params, timeout=int(WRITE_TIMEOUT_S * 1000))
        except redis.ConnectionError as e:
            raise StoreUnavailable(f"FalkorDB unreachable: {e}") from e
        except redis.RedisError as e:
            raise QueryRejected(f"write refused: {e}") from e
        finally:
            self._schema_cache = None
        return WriteCounts(result.relationships_created, result.relationships_deleted)

    def load(self, graph: Graph, *, batch_size: int = 5000,
             indexes: Sequence[tuple[str, str]] = ()) -> None:
        plan = plan_load(graph)
        self._with_retry(lambda db: db.connection.ping(), socket_timeout=5.0)  # restart if it died
        db = self._db(None)
        token = uuid.uuid4().hex
        # expires, so that a load killed midway does not block the next one for long
        if not db.connection.set(self.load_lock_name, token, nx=True, ex=LOAD_LOCK_S):
            raise LoadError(f"another load of graph {self.graph_name!r} is running (redis key "
                            f"{self.load_lock_name!r}, expires within {LOAD_LOCK_S} s)")
        try:
            db.connection.delete(self.staging_name)  # left over from a load that crashed
            staging = db.select_graph(self.staging_name)
            # nid indexes first, on the empty graph: built as nodes arrive, ready for MATCH
            specs = [(label, NODE_ID_KEY) for label in sorted(plan.labels)]
            specs += [(label, prop) for label, prop in indexes if label in plan.labels]
            self._create_indexes(staging, specs)
            internal_id = self._create_nodes(staging, plan.nodes, batch_size)
            self._create_relationships(staging, plan.relationships, internal_id, batch_size, graph)
            if db.connection.exists(self.staging_name):
                self._wait_for_indexes(staging)
                db.connection.rename(self.staging_name, self.graph_name)  # atomic swap
            else:  # an empty graph has no key
                db.connection.delete(self.graph_name)
        except redis.ConnectionError as e:
            raise StoreUnavailable(f"the FalkorDB server went away during the load: {e}") from e
        except redis.RedisError as e:
            self._drop_staging(db)
            raise LoadError(f"load of graph {self.graph_name!r} failed, previous graph kept: {e}") from e
        except LoadError:
            self._drop_staging(db)
            raise
        finally:
            self._schema_cache = None
            with contextlib.suppress(redis.RedisError):  # it expires anyway
                if db.connection.get(self.load_lock_name) == token:
                    db.connection.delete(self.load_lock_name)

    @staticmethod
    def _create_nodes(staging: FGraph, groups: dict[tuple[str, ...], list[dict[str, Any]]],
                      batch_size: int) -> dict[int, int]:
        """Create the nodes; returns nid -> FalkorDB's internal id, for relationships."""
        internal_id: dict[int, int] = {}
        for labels, rows in groups.items():
            # ids in row order: Create emits its records in input order (a wrong pairing
            # would be caught by the nid check when relationships are created)
            q = f"UNWIND $rows AS r CREATE (n{labels_clause(labels)}) SET n = r.p RETURN collect(id(n))"
            for batch in batches(rows, batch_size, desc=f"loading {':'.join(labels)} nodes"):
                result = staging.query(_with_rows(batch, q))
                ids = result.result_set[0][0]
                if result.nodes_created != len(batch) or len(ids) != len(batch):
                    raise LoadError(f"created {result.nodes_created} of {len(batch)} {labels} nodes")
                internal_id.update(zip((r["p"][NODE_ID_KEY] for r in batch), ids, strict=True))
        return internal_id

    @staticmethod
    def _create_relationships(staging: FGraph, groups: dict[Any, list[dict[str, Any]]],
                              internal_id: dict[int, int], batch_size: int, graph: Graph) -> None:
        """Match ends by internal id (a seek, ~30x faster than the nid index here; the WITH
        is what lets FalkorDB plan NodeByIdSeek for a value from UNWIND), checking the nid."""
        by_type: dict[str, list[dict[str, Any]]] = {}  # ends are matched by id: labels not needed
        for (_start, rel_type, _end), rows in groups.items():
            by_type.setdefault(rel_type, []).extend(rows)
        for rel_type, rows in by_type.items():
            q = ("UNWIND $rows AS r WITH r.s AS s, r.e AS e, r.sn AS sn, r.en AS en, r.p AS p "
                 f"MATCH (a) WHERE id(a) = s AND a.{NODE_ID_KEY} = sn "
                 f"MATCH (b) WHERE id(b) = e AND b.{NODE_ID_KEY} = en "
                 f"CREATE (a)-[x:{quote_name(rel_type, 'type')}]->(b) SET x = p")
            for batch in batches(rows, batch_size, desc=f"loading {rel_type} relationships"):
                try:
                    ids = [{"s": internal_id[r["s"]], "e": internal_id[r["e"]], "sn": r["s"], "en": r["e"],
                            "p": r["p"]} for r in batch]
                except KeyError:
                    raise LoadError(f"relationships whose start or end is not a node of the graph "
                                    f"(id, start, end): {missing_endpoints(graph)}") from None
                created = staging.query(_with_rows(ids, q)).relationships_created
                if created != len(batch):
                    raise LoadError(f"created {created} of {len(batch)} {rel_type} relationships")

    def create_indexes(self, specs: Iterable[tuple[str, str]]) -> None:
        graph = self._db(None).select_graph(self.graph_name)
        try:
            self._create_indexes(graph, list(specs))
            self._wait_for_indexes(graph)
        except redis.ConnectionError as e:
            raise StoreUnavailable(f"FalkorDB unreachable: {e}") from e
        except redis.RedisError as e:
            raise LoadError(f"index creation failed: {e}") from e

    def snapshot(self) -> None:
        """Embedded: write the RDB the next start loads. Remote server: its own SAVE."""
        if self.server is not None:
            self.server.snapshot()
        else:
            self._with_retry(lambda db: db.connection.save(), None)

    def close(self) -> None:
        self.close_clients()
        if self.server is not None and self._owns_server:
            self.server.stop()

    # ---- internals ----------------------------------------------------------------------
    def _db(self, socket_timeout: float | None) -> FalkorDB:
        """A client whose socket gives up after `socket_timeout` (None: never); one per limit."""
        key = None if socket_timeout is None else float(math.ceil(socket_timeout))
        with self._clients_lock:
            return self._clients.get(key) or self._new_client(key)

    def _new_client(self, key: float | None) -> FalkorDB:
        no_retry = Retry(NoBackoff(), 0)  # we retry once ourselves, after a restart
        if self.server is not None:
            client = FalkorDB(host=self.server.host, port=self.server.port,
                              password=self.server.password or None, socket_timeout=key, retry=no_retry)
        else:
            client = FalkorDB.from_url(str(self.url), socket_timeout=key, retry=no_retry)
        self._clients[key] = client
        return client

    def _with_retry(self, fn: Callable[[FalkorDB], T], socket_timeout: float | None) -> T:
        """Run `fn`; if the server is gone, restart it (embedded) or reconnect, retry once."""
        retried = False
        while True:
            try:
                return fn(self._db(socket_timeout))
            except redis.TimeoutError as e:
                raise QueryTimeout(f"no answer within {socket_timeout:.0f} s (client limit)") from e
            except redis.ConnectionError as e:
                if retried:
                    raise StoreUnavailable(f"FalkorDB unreachable after a restart: {e}") from e
                self._recover(e)
                retried = True
            except redis.ResponseError as e:
                raise _map_response_error(e, self.graph_name) from e

    def _recover(self, error: Exception) -> None:
        self.close_clients()
        if self.server is not None:
            try:
                self.server.ensure_running()
            except StoreUnavailable as e:
                raise StoreUnavailable(f"FalkorDB died ({error}) and did not restart: {e}") from e

    def close_clients(self) -> None:
        with self._clients_lock:
            clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            client.connection.close()

    def _drop_staging(self, db: FalkorDB) -> None:
        # the load error being raised matters more than a failure to clean up after it
        with contextlib.suppress(redis.RedisError):
            db.connection.delete(self.staging_name)

    @staticmethod
    def _create_indexes(graph: FGraph, specs: Sequence[tuple[str, str]]) -> None:
        existing: set[tuple[str, str]] = set()
        if graph.client.connection.exists(graph.name):
            for label, props, *_ in graph.ro_query("CALL db.indexes() YIELD label, properties").result_set:
                existing.update((label, p) for p in props)
        for label, prop in dict.fromkeys(specs):  # dedupe, keep order
            if (label, prop) not in existing:
                graph.query(f"CREATE INDEX FOR (n:{quote_name(label)}) ON (n.{quote_name(prop, 'property')})")

    @staticmethod
    def _wait_for_indexes(graph: FGraph) -> None:
        """Indexes build in the background; a swapped-in graph should have them ready."""
        deadline = time.monotonic() + INDEX_WAIT_S
        while time.monotonic() < deadline:
            rows = graph.ro_query("CALL db.indexes() YIELD status").result_set
            if all(status == "OPERATIONAL" for (status,) in rows):
                return
            time.sleep(0.01)
        raise LoadError(f"indexes of {graph.name!r} not ready after {INDEX_WAIT_S:.0f} s")


def _check_params(value: Any) -> None:
    """Parameters travel inside the query text: refuse what the server would misread
    (a NUL ends the text early; NaN and infinity have no literal)."""
    if isinstance(value, str) and "\x00" in value:
        raise QueryRejected("query parameters cannot contain the NUL character")
    if isinstance(value, float) and not math.isfinite(value):
        raise QueryRejected(f"query parameters cannot be {value}")
    if isinstance(value, dict):
        for item in value.values():
            _check_params(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _check_params(item)


def _with_rows(rows: Sequence[Any], query: str) -> str:
    """``CYPHER rows=[...] <query>``: the client's own parameter encoder is pure-Python
    recursion and dominated load time; this one escapes strings the same way."""
    return f"CYPHER rows={_literal(rows)} {query}"


def _literal(v: Any) -> str:
    kind = type(v)
    if kind is str:
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if kind is bool:
        return "true" if v else "false"
    if kind is int or kind is float:
        return repr(v)
    if kind is dict:
        return "{" + ",".join(f"`{k}`:{_literal(x)}" for k, x in v.items()) + "}"
    if kind is list or kind is tuple:
        return "[" + ",".join(map(_literal, v)) + "]"
    raise LoadError(f"cannot encode {v!r} ({kind.__name__}) as a parameter")


def _map_response_error(e: redis.ResponseError, graph_name: str) -> Exception:
    message = str(e)
    if "timed out" in message:
        return QueryTimeout(f"query stopped at its time limit ({message})")
    if "empty key" in message:
        return GraphNotLoaded(f"graph {graph_name!r} is not loaded; build it with `python -m kg_dump build`")
    if "read-only" in message:
        return QueryRejected(f"queries are read-only; the server refused a write: {message}")
    return QueryRejected(message)


class _Rows:
    """Turns the client's result into plain rows: nodes and relationships become dicts
    keyed by the portable ids (nid, rid) instead of the store's internal ids."""

    def __init__(self, graph: FGraph, timeout_ms: int) -> None:
        self.graph = graph
        self.timeout_ms = timeout_ms
        self.nid_of: dict[int, Any] = {}  # internal node id -> nid
        self.pending: list[dict[str, Any]] = []  # relationships whose ends need a nid

    def convert(self, result: Any) -> list[dict[str, Any]]:
        columns = [name for _type, name in result.header]
        rows = [dict(zip(columns, (self.value(v) for v in row), strict=True)) for row in result.result_set]
        self._resolve_ends()
        return rows

    def value(self, v: Any) -> Any:
        if isinstance(v, FNode):
            props = dict(v.properties)
            nid = props.pop(NODE_ID_KEY, None)
            self.nid_of[v.id] = nid
            return {"id": nid, "labels": sorted(v.labels or []), "properties": props}
        if isinstance(v, FEdge):
            props = dict(v.properties)
            rel = {"id": props.pop(REL_ID_KEY, None), "type": v.relation,
                   "start": v.src_node, "end": v.dest_node, "properties": props}
            self.pending.append(rel)
            return rel
        if isinstance(v, FPath):
            return {"nodes": [self.value(n) for n in v.nodes()],
                    "relationships": [self.value(e) for e in v.edges()]}
        if isinstance(v, list):
            return [self.value(x) for x in v]
        if isinstance(v, dict):
            return {k: self.value(x) for k, x in v.items()}
        return v

    def _resolve_ends(self) -> None:
        unknown = {i for rel in self.pending for i in (rel["start"], rel["end"]) if i not in self.nid_of}
        if unknown:
            q = "UNWIND $ids AS i MATCH (n) WHERE id(n) = i RETURN i, n.nid"
            res = self.graph.ro_query(q, {"ids": sorted(unknown)}, timeout=self.timeout_ms)
            self.nid_of.update((i, nid) for i, nid in res.result_set)
        for rel in self.pending:
            rel["start"], rel["end"] = self.nid_of.get(rel["start"]), self.nid_of.get(rel["end"])
