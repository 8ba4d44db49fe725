"""The embedded FalkorDB server: start, stop, snapshot, restart after a kill, bad snapshots.

Each test starts its own server in tmp_path (about 50 ms), as these tests kill them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from fpkg.errors import GraphNotLoaded, StoreUnavailable
from graphstore.embedded_falkordb import RDB_NAME, EmbeddedFalkorDB
from graphstore.falkordb_store import FalkorDBStore
from graphstore.graph import Graph, Node, Relationship
from tests.support.paths import REPO_ROOT


def chain_graph(n_nodes: int, rels_per_node: int) -> Graph:
    labels = ["Disease", "FacePhenotype", "Genotype"]
    nodes = [Node(i, [labels[i % 3]], {"name": f"node {i}", "syn": [f"s{i}"]}) for i in range(n_nodes)]
    rels = [Relationship(n_nodes * k + i, f"R{k}", i, (i * 7 + k + 1) % n_nodes, {"k": k})
            for i in range(n_nodes) for k in range(rels_per_node)]
    return Graph(nodes, rels)


def kill(server: EmbeddedFalkorDB) -> None:
    assert server.pid is not None
    os.kill(server.pid, signal.SIGKILL)
    psutil.Process(server.pid).wait(timeout=5)


def test_starts_private_on_loopback_and_stops(tmp_path: Path) -> None:
    with EmbeddedFalkorDB(tmp_path) as server:
        assert server.owner
        client = server.client()
        assert client.ping()
        assert client.config_get("bind")["bind"] == "127.0.0.1"
        assert client.config_get("protected-mode")["protected-mode"] == "yes"
        assert client.config_get("save")["save"] == ""
        with pytest.raises(redis.AuthenticationError):  # a password guards it from other local users
            redis.Redis(host=server.host, port=server.port, retry=Retry(NoBackoff(), 0)).ping()
        # one listening socket only: no Bolt port, nothing outside loopback
        listening = [c.laddr for c in psutil.Process(server.pid).net_connections() if c.status == "LISTEN"]
        assert listening == [("127.0.0.1", server.port)]
        assert oct((tmp_path / "redis.conf").stat().st_mode & 0o777) == "0o600"
        pid = server.pid
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    assert not (tmp_path / "server.json").exists()


def test_stopped_at_interpreter_exit(tmp_path: Path) -> None:
    code = ("import sys; from graphstore.embedded_falkordb import EmbeddedFalkorDB; "
            "s = EmbeddedFalkorDB(sys.argv[1]).start(); print(s.pid)")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True,
                         check=True, timeout=60, cwd=REPO_ROOT)
    pid = int(out.stdout.strip())
    deadline = time.monotonic() + 5
    while psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() < deadline, "the server outlived its process"
        time.sleep(0.02)


def test_killed_server_restarts_from_snapshot(tmp_path: Path) -> None:
    with EmbeddedFalkorDB(tmp_path) as server:
        store = FalkorDBStore("g", server=server)
        store.load(chain_graph(300, 2))
        store.snapshot()
        assert (tmp_path / RDB_NAME).is_file()
        before = store.counts()
        kill(server)
        assert store.query("MATCH (n) RETURN count(n) AS n") == [{"n": 300}]  # restarted, retried
        assert server.restarts == 1 and server.is_alive()
        assert store.counts() == before
        assert store.health()


def test_killed_server_without_snapshot_comes_back_empty(tmp_path: Path) -> None:
    with EmbeddedFalkorDB(tmp_path) as server:
        store = FalkorDBStore("g", server=server)
        store.load(chain_graph(30, 1))
        kill(server)
        with pytest.raises(GraphNotLoaded):  # the server is back, the unsaved graph is not
            store.query("MATCH (n) RETURN count(n) AS n")
        assert store.is_empty()
        store.load(chain_graph(30, 1))
        assert store.counts()["total_nodes"] == 30


def test_restart_that_fails_raises_store_unavailable(tmp_path: Path) -> None:
    with EmbeddedFalkorDB(tmp_path) as server:
        store = FalkorDBStore("g", server=server)
        store.load(chain_graph(30, 1))
        store.snapshot()
        server.startup_timeout_s = 0.0  # the restart cannot succeed in no time
        kill(server)
        with pytest.raises(StoreUnavailable, match="did not restart"):
            store.query("MATCH (n) RETURN count(n) AS n")
        assert not store.health()
        server.startup_timeout_s = 30.0
        assert store.query("MATCH (n) RETURN count(n) AS n") == [{"n": 30}]  # the one after succeeds


def test_snapshot_restart_keeps_counts_and_indexes(tmp_path: Path) -> None:
    graph = chain_graph(6000, 5)  # 6k nodes, 30k relationships
    with EmbeddedFalkorDB(tmp_path) as server:
        store = FalkorDBStore("fpkg", server=server)
        store.load(graph, indexes=[("Disease", "name")])
        store.snapshot()
        before = store.counts()
    with EmbeddedFalkorDB(tmp_path) as server:  # how fast is bench perf's to measure
        assert not server.snapshot_discarded
        store = FalkorDBStore("fpkg", server=server)
        assert store.counts() == before
        indexed = store.query("CALL db.indexes() YIELD label, properties")
        assert {"label": "Disease", "properties": ["nid", "name"]} in indexed


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_corrupt_snapshot_is_discarded(tmp_path: Path, damage: str) -> None:
    with EmbeddedFalkorDB(tmp_path) as server:
        FalkorDBStore("g", server=server).load(chain_graph(2000, 2))
        server.snapshot()
    rdb = tmp_path / RDB_NAME
    data = rdb.read_bytes()
    rdb.write_bytes(os.urandom(4096) if damage == "garbage" else data[: len(data) // 2])
    with EmbeddedFalkorDB(tmp_path) as server:
        assert server.snapshot_discarded
        assert server.discarded_path is not None and server.discarded_path.is_file()
        assert not rdb.exists()
        store = FalkorDBStore("g", server=server)
        assert store.snapshot_discarded and store.is_empty()
        store.load(chain_graph(10, 1))  # the caller rebuilds
        store.snapshot()
    with EmbeddedFalkorDB(tmp_path) as server:
        assert not server.snapshot_discarded
        assert FalkorDBStore("g", server=server).counts()["total_nodes"] == 10


def test_second_opener_attaches_and_takes_over(tmp_path: Path) -> None:
    first = EmbeddedFalkorDB(tmp_path).start()
    second = EmbeddedFalkorDB(tmp_path).start()
    try:
        assert first.owner and not second.owner and second.port == first.port
        FalkorDBStore("g", server=first).load(chain_graph(10, 1))
        first.snapshot()
        assert FalkorDBStore("g", server=second).counts()["total_nodes"] == 10
        first.stop()
        store = FalkorDBStore("g", server=second)
        assert store.counts()["total_nodes"] == 10  # second became the owner, from the snapshot
        assert second.owner and second.is_alive()
    finally:
        second.stop()
        first.stop()


def test_orphan_of_a_killed_owner_is_stopped(tmp_path: Path) -> None:
    orphan = EmbeddedFalkorDB(tmp_path).start()
    orphan_pid = orphan.pid
    orphan._unlock()  # what the owner's death does; its server keeps running
    try:
        with EmbeddedFalkorDB(tmp_path) as server:
            assert server.owner and server.pid != orphan_pid
            proc = psutil.Process(orphan_pid) if psutil.pid_exists(orphan_pid) else None
            assert proc is None or proc.status() == psutil.STATUS_ZOMBIE
    finally:
        orphan._proc = None  # already gone
        orphan.stop()
