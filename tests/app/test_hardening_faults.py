"""Faults: the graph server killed mid-session, the LLM endpoint down, slow or answering garbage,
the NER model missing, a corrupt graph snapshot. A request either recovers or says clearly what
failed, and the one after it succeeds; a failing LLM never hides the graph's grounded answer.

The tests that kill or corrupt a server use one of their own (a copy of the session graph's
snapshot, or a cache folder of their own), never the session's.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import time
from dataclasses import replace
from pathlib import Path

import pytest

from diagnosis.ranker import DiagnosisCase
from fpkg.errors import StoreError
from graphstore.embedded_falkordb import RDB_NAME, STATE_NAME, EmbeddedFalkorDB, is_redis_server
from graphstore.falkordb_store import FalkorDBStore
from graphstore.store import open_store
from kg_dump.build import manifest_path
from llm.endpoint import EndpointGenerator
from llm.factory import clear_cache
from ner.predict import EntityRecognizer
from service.pipeline import Pipeline, PipelineResult
from tests.support.app_process import launch_app, private_cache
from tests.support.hardening_support import pipeline_like, with_endpoint, with_generator
from tests.support.openai_server import running_server

CHARGE = DiagnosisCase(("Wide nasal bridge", "Posteriorly rotated ears", "Chorioretinal coloboma"),
                       gene="CHD7", variant="c.2443-2A>G", age_years=5, sex="female")
GROUNDED_CHARGE = "Most likely: CHARGE syndrome"
CROUZON_Q = "What facial phenotypes are associated with Crouzon syndrome?"
LLM_FAILED = "LLM failed"


def grounded_with_notice(result: PipelineResult) -> None:
    assert result.done and result.answer.startswith(GROUNDED_CHARGE), result.answer[:300]
    assert any(LLM_FAILED in n and "grounded answer" in n for n in result.notices), result.notices


# ---- the graph server killed -------------------------------------------------------------------
@pytest.fixture(scope="module")
def own_server_pipeline(pipeline, tmp_path_factory):
    """The session's graph and indexes, served by an embedded FalkorDB of its own, started from a
    copy of the session server's snapshot: this one may be killed."""
    server = pipeline.store.server
    if server is None or not server.rdb_path.is_file():
        pytest.skip("the session graph is not in an embedded FalkorDB with a snapshot")
    folder = tmp_path_factory.mktemp("killable") / "falkordb"
    folder.mkdir()
    shutil.copy(server.rdb_path, folder / RDB_NAME)
    own = EmbeddedFalkorDB(folder).start()
    store = FalkorDBStore(pipeline.store.graph_name, server=own, owns_server=True)
    started = pipeline_like(pipeline, store=store)
    yield started
    started.close()


def kill(server: EmbeddedFalkorDB) -> None:
    pid = server.pid
    assert pid is not None and pid != os.getpid()
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while server.is_alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not server.is_alive()


@pytest.mark.parametrize("request_kind", ["diagnose", "ask"])
def test_graph_server_killed_mid_session(pipeline, own_server_pipeline, request_kind):
    expected = pipeline.store.counts()
    pipeline = own_server_pipeline
    server = pipeline.store.server
    call = (lambda: pipeline.diagnose(CHARGE)) if request_kind == "diagnose" else (lambda: pipeline.ask(CROUZON_Q))
    before = call()
    restarts = server.restarts
    kill(server)
    try:  # the next request recovers (restart from the snapshot) or says clearly that it failed
        after_kill = call()
        assert after_kill.answer == before.answer
    except StoreError as e:
        assert "FalkorDB" in str(e) or "graph" in str(e)
    assert call().answer == before.answer  # and the one after that succeeds
    assert server.restarts == restarts + 1 and server.is_alive()
    assert pipeline.store.counts() == expected  # restarted from its snapshot, whole


# ---- the LLM endpoint down, slow, or answering garbage ---------------------------------------------
def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again when the block ends: nothing listens there


def test_llm_endpoint_down(pipeline):
    down = with_endpoint(pipeline, f"http://127.0.0.1:{closed_port()}/v1")
    try:
        result = down.diagnose(CHARGE, backend="endpoint")
        asked = down.ask(CROUZON_Q, backend="endpoint")
    finally:
        clear_cache()
    grounded_with_notice(result)
    assert any("cannot reach" in n for n in result.notices)
    # shown, but not the LLM's answer: nothing is predicted, and why is recorded
    assert "cannot reach" in result.llm_failed and result.predicted is None and result.ranked
    # a free question: the LLM can write no query, the templates answer, the grounded writer words it
    assert any("could not write a query" in n for n in asked.notices)
    assert any(LLM_FAILED in n for n in asked.notices) and "Hypertelorism" in asked.answer


def test_llm_endpoint_slower_than_its_timeout(pipeline, llm_stall):
    with running_server() as server:
        server.behaviour = "slow"  # holds the reply until the test ends
        settings = replace(pipeline.settings, llm_backend="endpoint", llm_endpoint=server.url)
        slow = with_generator(pipeline, EndpointGenerator(settings, timeout=0.5, retries=0))
        result = slow.diagnose(CHARGE)
        assert llm_stall.holding  # the answer came while the server still held the LLM's reply
        asked = len(server.requests)
        llm_stall.released.set()
    grounded_with_notice(result)
    assert any("did not answer within 0.5 s" in n for n in result.notices)
    assert asked == 1  # one request, given up on at its timeout, not retried


def through_endpoint(pipeline, behaviour: str = "ok", reply: str | None = None,
                     question: str | None = None) -> PipelineResult:
    """CHARGE diagnosed (or `question` asked) through a loopback OpenAI-compatible server that
    behaves so (tests/support/openai_server.py) and replies `reply`."""
    with running_server() as server:
        server.behaviour = behaviour
        if reply is not None:
            server.reply = reply
        answering = with_endpoint(pipeline, server.url)
        try:
            if question is not None:
                return answering.ask(question, backend="endpoint")
            return answering.diagnose(CHARGE, backend="endpoint")
        finally:
            clear_cache()


@pytest.mark.parametrize("behaviour, reply, says", [
    ("500", None, "HTTP 500"),
    # a streamed reply that is one broken JSON body, or a body without choices, carries no text
    ("bad_json", None, "empty reply"),
    ("no_choices", None, "empty reply"),
    ("bad_stream", None, "malformed JSON"),  # words, then a broken chunk: the words are replaced
    ("ok", "", "empty reply"),
    ("ok", " \n\t ", "empty reply"),
])
def test_llm_endpoint_answering_garbage(pipeline, behaviour, reply, says):
    result = through_endpoint(pipeline, behaviour, reply)
    grounded_with_notice(result)
    assert any(says in n for n in result.notices), result.notices


def test_llm_endpoint_closing_the_connection_mid_reply(pipeline):
    """Half of the streamed reply, then the server is gone: the half is not taken for an answer."""
    result = through_endpoint(pipeline, "cut_stream",
                              "CHARGE syndrome is the most likely diagnosis given the coloboma and the ears.")
    grounded_with_notice(result)
    assert result.predicted is None and result.llm_failed
    assert any("closed the connection in the middle of its reply" in n for n in result.notices), result.notices


@pytest.mark.parametrize("reply", ["Je ne peux pas répondre à cette question sans plus d'informations.",
                                   "I am not sure; more tests are needed.", "抱歉，我无法确定。"])
def test_an_llm_reply_naming_no_disease_is_no_prediction(pipeline, reply):
    """A reply in another language, or one that names nothing: shown, never scored as a diagnosis."""
    result = through_endpoint(pipeline, reply=reply)
    assert result.done and result.answer.startswith(reply)
    assert result.predicted is None and result.llm_failed == "the reply names no disease"
    assert any("could not be read as an answer: the reply names no disease" in n for n in result.notices)


@pytest.mark.parametrize("behaviour", ["bad_json", "no_choices", "500"])
def test_free_question_with_an_llm_answering_garbage(pipeline, behaviour):
    """The LLM writes no usable query and no answer: the templates and the grounded writer answer."""
    result = through_endpoint(pipeline, behaviour, question=CROUZON_Q)
    assert "Hypertelorism" in result.answer and any(run.origin.startswith("template:") for run in result.cypher)
    assert any("could not write a query" in n for n in result.notices)
    assert any(LLM_FAILED in n and "grounded answer" in n for n in result.notices), result.notices


# ---- the NER model missing ------------------------------------------------------------------------
@pytest.mark.parametrize("model", ["missing folder", None])
def test_ner_model_missing_runs_rules_only_with_a_notice(pipeline, tmp_path, model):
    given = str(tmp_path / "no-such-model") if model else None
    recognizer = EntityRecognizer.load(given, gene_vocabulary=pipeline.linker.names("Genotype"))
    assert not recognizer.model_available and "using rules only" in recognizer.notice
    rules_only = pipeline_like(pipeline, recognizer=recognizer)
    result = rules_only.diagnose_question("A 5 year old girl with a CHD7 mutation, c.2443-2A>G, a wide nasal "
                                          "bridge and chorioretinal coloboma. What disease might she have?")
    assert recognizer.notice in result.notices  # the user is told the model is missing
    assert result.case.gene == "CHD7" and result.case.age_years == 5.0
    assert result.answer.startswith(GROUNDED_CHARGE)


# ---- a corrupt graph snapshot -----------------------------------------------------------------------
def test_corrupt_snapshot_is_rebuilt_from_the_dump(pipeline, tmp_path):
    """A cache folder of its own: the session's built indexes and manifest, and a snapshot of garbage.
    The start discards the snapshot, sees the store no longer matches the manifest, and rebuilds."""
    if pipeline.settings.graph_backend != "falkordb" or pipeline.settings.falkordb_url:
        pytest.skip("needs the embedded FalkorDB (a remote server's graph must not be rebuilt here)")
    source = pipeline.settings.cache_dir
    settings = replace(pipeline.settings, cache_dir=tmp_path)
    for cached in [*source.glob("hpo_layer-*.json.gz"), manifest_path(pipeline.settings)]:
        shutil.copy(cached, tmp_path / cached.name)  # the HPO layer, parsed once, and the manifest
    if (source / "linking").is_dir():
        shutil.copytree(source / "linking", tmp_path / "linking")  # the linker's name vectors
    snapshot = tmp_path / "falkordb" / RDB_NAME
    snapshot.parent.mkdir()
    snapshot.write_bytes(os.urandom(64 * 1024))
    expected = pipeline.store.counts()

    rebuilt = Pipeline.start(settings, progress=lambda message: None)
    try:
        assert rebuilt.store.snapshot_discarded and not rebuilt.build_report.skipped
        assert rebuilt.store.counts() == expected
        assert rebuilt.diagnose(CHARGE).answer.startswith(GROUNDED_CHARGE)
    finally:
        rebuilt.close()
    with open_store(settings) as store:  # the rebuilt graph was snapshotted: the next start is quick
        assert not store.snapshot_discarded and store.counts() == expected
    assert list(Path(snapshot.parent).glob(f"{RDB_NAME}.corrupt-*"))  # the bad file is kept aside


# ---- the app stopped ----------------------------------------------------------------------------------
@pytest.mark.slow
def test_app_stopped_with_sigterm_stops_the_graph_server_it_started(pipeline, tmp_path):
    """`docker stop` sends SIGTERM: the app exits through its cleanup and takes down the embedded
    FalkorDB it started (a cache folder of its own: a copy of the session's snapshot and indexes)."""
    settings = private_cache(pipeline, tmp_path / "cache")
    app = launch_app(settings, tmp_path / "app.log")
    try:
        graph_server = json.loads((settings.cache_dir / "falkordb" / STATE_NAME).read_text())["pid"]
        assert is_redis_server(graph_server)
        app.process.send_signal(signal.SIGTERM)
        assert app.process.wait(timeout=60) == 128 + signal.SIGTERM
    finally:
        if app.process.poll() is None:
            app.process.kill()
    deadline = time.monotonic() + 10
    while is_redis_server(graph_server) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not is_redis_server(graph_server), app.log_tail()
