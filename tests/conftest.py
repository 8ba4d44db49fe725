"""Shared fixtures: one real embedded FalkorDB per test session, stores on it, the data folder."""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import pytest

from fpkg.config import Settings
from graphstore.embedded_falkordb import EmbeddedFalkorDB
from graphstore.falkordb_store import FalkorDBStore
from graphstore.graph import Graph
from graphstore.store import GraphStore
from tests.support.app_process import ACCESS_VARIABLES

# The shared data folder beside the checkout, as laid out for CI.
DEFAULT_DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "fpkg"


@pytest.fixture(scope="session")
def falkordb_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedFalkorDB]:
    """The session's embedded FalkorDB server (own folder under pytest's tmp dir).

    Share it through `graph_store` / `falkordb_store`, which use a unique graph name per
    test. Tests that kill or snapshot a server start their own instead."""
    with EmbeddedFalkorDB(tmp_path_factory.mktemp("falkordb")) as server:
        yield server


@pytest.fixture
def falkordb_store(falkordb_server: EmbeddedFalkorDB) -> Iterator[FalkorDBStore]:
    """A FalkorDB store on the session server, on a graph name of its own, removed after."""
    store = FalkorDBStore(f"test_{uuid.uuid4().hex[:12]}", server=falkordb_server)
    yield store
    store.load(Graph())  # loading the empty graph deletes the test's graph
    store.close()


@pytest.fixture(params=["falkordb", "neo4j"])
def graph_store(request: pytest.FixtureRequest) -> Iterator[GraphStore]:
    """Every configured backend in turn: FalkorDB always; Neo4j when NEO4J_URI is set.

    The Neo4j store REPLACES the content of its database (NEO4J_DATABASE or the
    server's default): point NEO4J_URI at a server meant for tests."""
    if request.param == "falkordb":
        yield request.getfixturevalue("falkordb_store")
        return
    uri = os.environ.get("NEO4J_URI")
    if not uri:
        pytest.skip("NEO4J_URI is not set: no Neo4j server to run the contract against")
    from graphstore.neo4j_store import Neo4jStore

    store = Neo4jStore(uri, user=os.environ.get("NEO4J_USER", "neo4j"),
                       password=os.environ.get("NEO4J_PASSWORD"),
                       database=os.environ.get("NEO4J_DATABASE"))
    yield store
    store.load(Graph())
    store.close()


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The FPKG data folder (FPKG_DATA_DIR, else the shared copy); skips without the dump."""
    path = Path(os.environ.get("FPKG_DATA_DIR", DEFAULT_DATA_DIR))
    if not (path / "FPKG.dump").is_file():
        pytest.skip(f"no FPKG.dump in {path} (set FPKG_DATA_DIR)")
    return path


@pytest.fixture(scope="session")
def test_settings(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """Settings for the whole system under test: the real data, the grounded writer, and a
    cache folder (FPKG_CACHE_DIR when set, so CI and repeated runs reuse built indexes)."""
    cache = os.environ.get("FPKG_CACHE_DIR") or str(tmp_path_factory.mktemp("cache"))
    environ = {key: value for key, value in os.environ.items()
               if not key.startswith(("LLM_", "NER_MODEL", *ACCESS_VARIABLES))}
    # no NER model: rules and dictionary, whatever a developer trained into the cache (ner.model_choice);
    # users, history and sessions in a folder of the session's own, open to anonymous users
    environ.update({"FPKG_DATA_DIR": str(data_dir), "FPKG_CACHE_DIR": cache, "LLM_BACKEND": "grounded",
                    "NER_MODEL": "rules", "FPKG_STATE_DIR": str(tmp_path_factory.mktemp("state"))})
    return Settings.from_env(environ)


@pytest.fixture(scope="session")
def pipeline(test_settings: Settings):
    """The real pipeline on the full graph (FPKG + HPO) in its embedded FalkorDB."""
    from service.pipeline import Pipeline

    started = Pipeline.start(test_settings, progress=lambda message: None)
    yield started
    started.close()


@pytest.fixture
def graph_baseline(pipeline):
    """A fingerprint of the session graph (every node and relationship with its properties) taken
    right before the test: the test runs its hostile cases, then compares with
    `hardening_support.assert_unchanged(pipeline.store, graph_baseline)` (or `unchanged_graph`),
    which names the rows that changed."""
    from tests.support.hardening_support import graph_fingerprint

    return graph_fingerprint(pipeline.store)


CHROMIUM = "/usr/bin/chromium"  # Debian's package; no browser download
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser() -> Iterator:
    """Headless Chromium through Playwright; skips where the chromium package is missing."""
    if not os.path.exists(CHROMIUM):
        pytest.skip("Debian's chromium is not installed (apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="session")
def app_server(test_settings):
    """The session's `python -m app` subprocess (tests/support/app_process.py)."""
    from tests.support.app_process import start_app

    return start_app(test_settings)


@pytest.fixture
def page(browser, app_server):
    """A fresh page on the app that records every JavaScript dialog (an alert() would mean
    injected script ran)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    opened = context.new_page()
    opened.dialogs = []
    opened.on("dialog", lambda dialog: (opened.dialogs.append(dialog.message), dialog.dismiss()))
    opened.set_default_timeout(30_000)
    opened.goto(app_server.url)
    opened.wait_for_selector("#diag-submit")
    yield opened
    context.close()


# ---- a loopback LLM server that stalls ----------------------------------------------------------
STALL_CAP_S = 120  # a stalled reply is sent after this long at the latest (pytest-timeout guards beyond)


@dataclass
class Stall:
    """The loopback server's "slow" behaviour, made a stall that lasts until the test releases it:
    a client that returns while `stalled` is set and `released` is not gave up (its timeout fired)
    before the server sent anything; without a working timeout it would wait STALL_CAP_S and then
    get an ordinary reply."""

    stalled: threading.Event = field(default_factory=threading.Event)  # a request reached the stall
    released: threading.Event = field(default_factory=threading.Event)  # the test let it go
    ended: threading.Event = field(default_factory=threading.Event)  # the stall is over: a reply follows

    def sleep(self, _seconds: float) -> None:
        self.stalled.set()
        self.released.wait(STALL_CAP_S)
        self.ended.set()

    @property
    def holding(self) -> bool:
        """A request reached the server and is still held there, unanswered."""
        return self.stalled.is_set() and not self.ended.is_set()


@pytest.fixture
def llm_stall(monkeypatch: pytest.MonkeyPatch) -> Iterator[Stall]:
    """Set `server.behaviour = "slow"` on a tests.support.openai_server server: it stalls until this test ends."""
    from tests.support import openai_server

    stall = Stall()
    monkeypatch.setattr(openai_server, "time", SimpleNamespace(sleep=stall.sleep))
    yield stall
    stall.released.set()  # let the held handler thread finish


@pytest.fixture(scope="session")
def store_phenopacket(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real GA4GH phenopacket from the store's release zip beside the data folder (a LEOPARD syndrome 1
    patient of PTPN11: findings present and excluded, a variant, sex), as a file a user would upload."""
    import zipfile

    release = data_dir.parent / "phenopacket-store" / "all_phenopackets.zip"
    if not release.is_file():
        pytest.skip(f"no phenopacket-store release at {release}")
    path = tmp_path_factory.mktemp("phenopacket") / "PMID_12058348_Patient_1.json"
    with zipfile.ZipFile(release) as archive:
        path.write_bytes(archive.read("PTPN11/PMID_12058348_Patient_1.json"))
    return path
