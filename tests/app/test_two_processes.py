"""Two app processes behind a real load balancer (Debian's haproxy) serve one graph: a FalkorDB server
of their own on loopback (started from a copy of the session graph's snapshot), `FALKORDB_URL` at it,
one shared state folder. A curated merge made through one process is in the other's answers at its
next request, an undo through the other is in the first's; neither process rebuilds or rewrites the
graph; signed-in sessions work on both; `bench load` through the balancer has no error."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from bench import load
from curation.graph_writes import clear
from graphstore.embedded_falkordb import RDB_NAME, EmbeddedFalkorDB
from graphstore.falkordb_store import FalkorDBStore
from tests.app.test_accounts_server import add_users, client, session_cookie
from tests.app.test_curation_app import REPORT, curated_triples, table
from tests.support.app_process import ARTIFACTS, free_port, launch_app

pytestmark = [pytest.mark.slow]

HAPROXY = "/usr/sbin/haproxy"
ATTACHED = "the graph was built before: used as it is\n"  # as it is, the curated overlay in it: nothing set aside
FACT = ("Crouzon syndrome", "Exhibit", "Ptosis")
# Gradio's queue lives in one process: a client's call and the stream of its answer must reach the
# same one, so the balancer pins each client (its cookie) to the server it first reached.
HAPROXY_CONFIG = """
global
    maxconn 512
defaults
    mode http
    timeout connect 5s
    timeout client 300s
    timeout server 300s
frontend fpkg
    bind 127.0.0.1:{port}
    default_backend apps
backend apps
    balance roundrobin
    cookie FPKG_SERVER insert indirect nocache
    option httpchk GET /healthz
{servers}
"""


class Cluster:
    def __init__(self, pipeline, folder: Path):
        server = pipeline.store.server
        if server is None:
            pytest.skip("the session graph is not in an embedded FalkorDB with a snapshot to copy")
        pipeline.store.snapshot()
        (folder / "falkordb").mkdir(parents=True)
        shutil.copy(server.rdb_path, folder / "falkordb" / RDB_NAME)
        self.graph_server = EmbeddedFalkorDB(folder / "falkordb").start()
        self.store = FalkorDBStore(pipeline.settings.graph_name, url=self.graph_server.url)
        clear(self.store)  # what other tests of the session curated
        self.counts = self.store.counts()
        self.state = folder / "state"
        add_users(self.state)
        env = {"FALKORDB_URL": self.graph_server.url, "FPKG_STATE_DIR": str(self.state)}
        ARTIFACTS.mkdir(exist_ok=True)
        self.apps = [launch_app(pipeline.settings, ARTIFACTS / f"app-cluster-{name}.log", env=env)
                     for name in ("a", "b")]
        self.port = free_port()
        servers = "\n".join(f"    server {name} 127.0.0.1:{app.url.rsplit(':', 1)[1]} check cookie {name}"
                            for name, app in zip("ab", self.apps, strict=True))
        config = folder / "haproxy.cfg"
        config.write_text(HAPROXY_CONFIG.format(port=self.port, servers=servers))
        self.balancer = subprocess.Popen([HAPROXY, "-db", "-f", str(config)], stdout=subprocess.DEVNULL,
                                         stderr=open(ARTIFACTS / "haproxy.log", "w"))  # noqa: SIM115
        self.url = f"http://127.0.0.1:{self.port}"
        self._wait_for_balancer()

    def _wait_for_balancer(self) -> None:
        for _ in range(120):
            try:
                if httpx.get(f"{self.url}/healthz", timeout=5).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if self.balancer.poll() is not None:
                raise RuntimeError(f"haproxy exited: {(ARTIFACTS / 'haproxy.log').read_text()[-2000:]}")
            time.sleep(0.5)
        raise RuntimeError("haproxy did not answer /healthz")

    def stop(self) -> None:
        self.balancer.terminate()
        self.balancer.wait(timeout=30)
        for app in self.apps:
            app.process.terminate()
            app.process.wait(timeout=60)
        self.store.close()
        self.graph_server.stop()


@pytest.fixture(scope="module")
def cluster(pipeline, tmp_path_factory):
    if not Path(HAPROXY).is_file():
        pytest.skip(f"haproxy is not installed ({HAPROXY}; apt-get install -y haproxy, as .ci/run does)")
    made = Cluster(pipeline, tmp_path_factory.mktemp("cluster"))
    yield made
    made.stop()


def test_each_process_uses_the_graph_as_it_is(cluster):
    for app in cluster.apps:
        assert ATTACHED in app.log_path.read_text(), app.log_tail()
    assert cluster.store.counts() == cluster.counts  # nobody built, cleared or replayed anything


def test_a_merge_through_one_process_is_answered_by_the_other_and_an_undo_too(cluster):
    first, second = (app.url for app in cluster.apps)
    assert FACT not in curated_triples(second)
    cara = client(first, session_cookie(first, "cara"))
    row = [True, "Disease", FACT[0], FACT[1], "FacePhenotype", FACT[2], ""]
    said, *_ = cara.predict(table([row]), REPORT, "", api_name="/merge")
    assert "Merged batch 1" in said, said
    assert FACT in curated_triples(second)  # the other process, at its next request
    # a session signed in through one process is good on the other (the secret is in the shared state)
    ada = client(second, session_cookie(first, "ada"))
    ada.predict("1", "1", api_name="/undo")
    assert FACT not in curated_triples(first)
    assert FACT not in curated_triples(second)
    assert cluster.store.counts() == cluster.counts


def test_merges_through_two_processes_get_batch_numbers_of_their_own(cluster):
    made = []
    for app, phenotype in zip(cluster.apps, ("Hypertelorism", "Proptosis"), strict=True):
        curator = client(app.url, session_cookie(app.url, "cara"))
        row = [True, "Disease", "Crouzon syndrome", "Exhibit", "FacePhenotype", phenotype, ""]
        said = curator.predict(table([row]), REPORT, "", api_name="/merge")[0]
        made.append(int(re.search(r"Merged batch (\d+)", said).group(1)))
    records = [json.loads(line) for line in (cluster.state / "curated-overlay.jsonl").read_text().splitlines()]
    merged = [record["batch"] for record in records if record["kind"] == "merge"]
    assert made[0] != made[1] and merged[-2:] == made and len(set(merged)) == len(merged)


def test_the_balancer_spreads_clients_and_a_load_run_through_it_has_no_error(cluster):
    pinned = set()
    for _ in range(2):  # round robin: two new clients reach the two servers
        with httpx.Client(base_url=cluster.url, timeout=60) as fresh:
            fresh.get("/healthz")
            pinned.add(fresh.cookies.get("FPKG_SERVER"))
    assert pinned == {"a", "b"}
    result = load.run_load(cluster.url, 4, 6, max_seconds=600, request_timeout_s=120, sample_every=6)
    assert result["errors"] == 0, result["error_samples"]
    assert result["ok"] == result["planned"] == 24
