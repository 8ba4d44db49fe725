"""Whether the Hugging Face Hub can be reached, learned once (fpkg/hub.py), and what the recogniser then
says of a model it cannot have: against a port that refuses, HF_HUB_OFFLINE, and a real local HTTP
server standing in for a Hub mirror that does not hold the model."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from huggingface_hub import constants

from fpkg import hub
from ner.predict import EntityRecognizer
from tests.support.app_process import REPO_ROOT, free_port
from tests.support.source_mirror import QuietHandler, serving

RAW = ("Errno", "ConnectError", "Got:", "Traceback", "httpx")


@pytest.fixture(autouse=True)
def learned_anew(monkeypatch):
    """Each test learns for itself; the Hub client's offline mode and endpoint are put back after."""
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "ENDPOINT", constants.ENDPOINT)
    for name in hub.PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    hub.forget()
    yield
    hub.forget()


class NoSuchModel(QuietHandler):
    """A Hub mirror that holds no model: every model is answered as the Hub answers an unknown one."""

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.send_response(404)
        self.send_header("X-Error-Code", "RepoNotFound")
        self.send_header("X-Error-Message", "Repository not found")
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"error": "Repository not found"}')

    do_HEAD = do_GET  # noqa: N815


def mirror():
    """A local Hub mirror without the model (the folder it is given to serve is never read)."""
    return serving(REPO_ROOT, NoSuchModel)


def test_a_hub_that_refuses_is_learned_once_and_every_later_lookup_reads_the_cache(monkeypatch):
    monkeypatch.setattr(constants, "ENDPOINT", f"http://127.0.0.1:{free_port()}")  # nothing listens there
    started = time.perf_counter()
    reason = hub.offline_reason()
    assert reason == "127.0.0.1 refused the connection" and time.perf_counter() - started < hub.PROBE_S
    with mirror() as url:  # the Hub answering now changes nothing: it was learned once
        monkeypatch.setattr(constants, "ENDPOINT", url)
        assert hub.offline_reason() == reason
        recognizer = EntityRecognizer.load("someone/some-model", rules=False)
    assert not constants.HF_HUB_OFFLINE  # the Hub client's own offline mode would refuse an LLM endpoint too
    assert not recognizer.model_available
    assert recognizer.unavailable == ("it is not in this machine's Hugging Face cache, and the Hugging Face Hub "
                                      "cannot be reached")
    assert not any(word in recognizer.notice for word in RAW), recognizer.notice


def test_hf_hub_offline_set_is_offline_without_a_connection(monkeypatch):
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(constants, "ENDPOINT", "http://192.0.2.1")  # would hang if it were asked
    started = time.perf_counter()
    assert hub.offline_reason() == "HF_HUB_OFFLINE is set" and time.perf_counter() - started < 0.5


def test_a_reachable_mirror_without_the_model_is_said_plainly(monkeypatch):
    with mirror() as url:
        monkeypatch.setattr(constants, "ENDPOINT", url)
        assert hub.offline_reason() is None
        started = time.perf_counter()
        recognizer = EntityRecognizer.load("someone/absent-model", rules=False)
        assert time.perf_counter() - started < 5
    assert not recognizer.model_available
    assert recognizer.notice == ("NER model someone/absent-model could not be loaded (the Hugging Face Hub has no "
                                 "model of that name (or it is private)); using rules only")


def test_a_model_missing_offline_loads_neither_torch_nor_transformers(tmp_path):
    """The start's look-up of the published model, offline with nothing cached: no second of torch."""
    code = ("import sys; from ner.predict import EntityRecognizer; "
            "r = EntityRecognizer.load('hfchloe/FP_NER', rules=False); "
            "print(r.model_available, 'torch' in sys.modules, 'transformers' in sys.modules)")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(tmp_path / "empty-hub")}
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False", "False"]
