"""LLM_BACKEND=endpoint against a real OpenAI-compatible server: llama.cpp's own server
(`python -m llama_cpp.server`) on loopback, serving the 4-bit SmolLM2 model."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

import pytest
import requests

from tests.llm.smollm2 import require_smollm2
from tests.support.hardening_support import clear_cache, with_endpoint

pytestmark = pytest.mark.slow
START_TIMEOUT_S = 120


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory):
    model = require_smollm2()
    pytest.importorskip("uvicorn", reason="llama_cpp.server needs llama-cpp-python[server]")
    port = free_port()
    # its log goes to a file: llama.cpp writes enough to fill a pipe nobody reads, and then stalls
    log_path = tmp_path_factory.mktemp("llama-server") / "server.log"
    log = open(log_path, "w")  # noqa: SIM115 - open while the server runs, closed below
    process = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host",
                                "127.0.0.1", "--port", str(port), "--n_ctx", "4096"],
                               stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + START_TIMEOUT_S
    try:
        while True:
            if process.poll() is not None:
                pytest.fail(f"llama_cpp.server exited: {log_path.read_text()[-2000:]}")
            try:
                if requests.get(f"{url}/models", timeout=2).ok:
                    break
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama_cpp.server did not answer within {START_TIMEOUT_S} s")
            time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


def test_ask_and_diagnose_through_the_real_server(pipeline, llama_server):
    served = with_endpoint(pipeline, llama_server)
    try:
        pieces = []
        for partial in served.ask_stream("What facial phenotypes are associated with Crouzon syndrome?",
                                         backend="endpoint"):
            pieces.append(partial.answer)
        asked = partial
        result = served.diagnose_question(
            "A 5 year old girl with a CHD7 variant, chorioretinal coloboma and posteriorly rotated ears. "
            "What disease might this patient have? Choose from the following options: "
            "A. Kabuki syndrome B. CHARGE syndrome C. Noonan syndrome D. Apert syndrome", backend="endpoint")
    finally:
        clear_cache()
    assert asked.done and asked.answer.strip() and not asked.llm_failed
    assert len({p for p in pieces if p}) > 2  # the reply streamed in pieces
    assert not any("LLM failed" in notice for notice in asked.notices)
    assert asked.triples and any(run.origin == "llm" or run.origin.startswith("template:") for run in asked.cypher)
    # a reply that picks an option is scored as the model's; one that picks none is recorded as such
    assert result.llm_failed == "the reply chose none of the options" or result.predicted.option in "ABCD"
