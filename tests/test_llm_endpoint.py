"""The endpoint backend against a real local OpenAI-compatible HTTP server (no mocks)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from kg_dump.settings import Settings
from llm.base import (
    GenerationRequest,
    LLMBadResponse,
    LLMConfigError,
    LLMHTTPError,
    LLMTimeout,
    LLMUnavailable,
)
from llm.endpoint import EndpointGenerator, normalize_base_url

API_KEY = "sk-test-SECRET-4242"
REPLY = "The most likely diagnosis is Noonan syndrome."
REQUEST = GenerationRequest([{"role": "user", "content": "PTPN11, hypertelorism. Diagnosis?"}], seed=7)


class FakeServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)
        self.behaviour = "ok"
        self.requests: list[dict] = []

    def handle_error(self, request, client_address):
        pass  # the client hanging up on a slow reply is expected in the timeout test


class Handler(BaseHTTPRequestHandler):
    server: FakeServer

    def log_message(self, *args):  # keep pytest output clean
        pass

    def do_POST(self):  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(
            {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body}
        )
        behaviour = self.server.behaviour
        if self.path != "/v1/chat/completions":
            return self._send(404, b'{"error": "not found"}')
        if behaviour == "slow":
            time.sleep(1.5)
        if behaviour == "500":
            return self._send(500, b'{"error": "model crashed"}')
        if behaviour == "bad_json":
            return self._send(200, b'{"choices": [ {"message": ')
        if behaviour == "no_choices":
            return self._send(200, b'{"id": "x", "object": "chat.completion"}')
        if body.get("stream"):
            return self._stream(behaviour)
        reply = {
            "id": "cmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": REPLY}, "finish_reason": "stop"}
            ],
        }
        self._send(200, json.dumps(reply).encode())

    def _send(self, status: int, payload: bytes, content_type: str = "application/json"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _stream(self, behaviour: str):
        pieces = [{"role": "assistant"}] + [{"content": word} for word in REPLY.split(" ")]
        events = []
        for i, delta in enumerate(pieces):
            if i > 1:
                delta = {"content": " " + delta["content"]}
            chunk = {
                "id": "c",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": "m",
                "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
            }
            events.append(f"data: {json.dumps(chunk)}\n\n")
        if behaviour == "bad_stream":
            events.insert(3, "data: {not json\n\n")
        events.append("data: [DONE]\n\n")
        payload = "".join(events).encode()
        self._send(200, payload, content_type="text/event-stream")


@pytest.fixture(scope="module")
def server():
    srv = FakeServer()
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


@pytest.fixture()
def fake(server):
    server.behaviour = "ok"
    server.requests.clear()
    return server


def make(server, suffix="/v1", api_key=API_KEY, **kwargs) -> EndpointGenerator:
    host, port = server.server_address[:2]
    settings = Settings(
        data_dir=Path("."),
        cache_dir=Path("."),
        llm_backend="endpoint",
        llm_model="test-model",
        llm_endpoint=f"http://{host}:{port}{suffix}",
        llm_api_key=api_key,
    )
    kwargs.setdefault("backoff", 0.01)
    return EndpointGenerator(settings, **kwargs)


@pytest.mark.parametrize("suffix", ["", "/", "/v1", "/v1/", "/v1/chat/completions"])
def test_generate_with_any_base_url_form(fake, suffix):
    assert make(fake, suffix).generate(REQUEST) == REPLY
    sent = fake.requests[-1]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["body"]["model"] == "test-model"
    assert sent["body"]["messages"] == REQUEST.messages
    assert sent["body"]["seed"] == 7 and sent["body"]["temperature"] == 0.0
    assert sent["body"]["max_tokens"] == REQUEST.max_new_tokens


def test_api_key_only_in_authorization_header(fake):
    gen = make(fake)
    gen.generate(REQUEST)
    assert fake.requests[-1]["headers"]["authorization"] == f"Bearer {API_KEY}"
    assert API_KEY not in repr(gen)
    fake.behaviour = "500"
    with pytest.raises(LLMHTTPError) as info:
        gen.generate(REQUEST)
    assert API_KEY not in str(info.value) and API_KEY not in repr(info.value)


def test_without_key_no_hub_token_is_sent(fake, monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_should_never_leave_this_machine")
    make(fake, api_key=None).generate(REQUEST)
    assert "hf_should_never" not in fake.requests[-1]["headers"].get("authorization", "")


def test_stream_yields_pieces_that_join_to_the_reply(fake):
    pieces = list(make(fake).stream(REQUEST))
    assert len(pieces) > 3
    assert "".join(pieces) == REPLY
    assert fake.requests[-1]["body"]["stream"] is True


def test_timeout_is_clear_and_bounded(fake):
    fake.behaviour = "slow"
    gen = make(fake, timeout=0.3)
    start = time.perf_counter()
    with pytest.raises(LLMTimeout, match="did not answer within 0.3 s"):
        gen.generate(REQUEST)
    assert time.perf_counter() - start < 1.2
    assert len(fake.requests) == 1  # a slow server is not asked again


def test_http_500_is_retried_a_bounded_number_of_times(fake):
    fake.behaviour = "500"
    with pytest.raises(LLMHTTPError) as info:
        make(fake, retries=2).generate(REQUEST)
    assert info.value.status == 500
    assert "HTTP 500" in str(info.value) and "model crashed" in str(info.value)
    assert len(fake.requests) == 3  # first try + 2 retries


def test_http_500_on_stream_open_is_retried(fake):
    fake.behaviour = "500"
    with pytest.raises(LLMHTTPError):
        list(make(fake, retries=1).stream(REQUEST))
    assert len(fake.requests) == 2


def test_http_404_is_not_retried(fake):
    gen = make(fake, suffix="/other")
    with pytest.raises(LLMHTTPError, match="HTTP 404"):
        gen.generate(REQUEST)
    assert len(fake.requests) == 1


@pytest.mark.parametrize("behaviour", ["bad_json", "no_choices"])
def test_malformed_reply(fake, behaviour):
    fake.behaviour = behaviour
    with pytest.raises(LLMBadResponse):
        make(fake).generate(REQUEST)
    assert len(fake.requests) == 1


def test_malformed_stream_chunk(fake):
    fake.behaviour = "bad_stream"
    with pytest.raises(LLMBadResponse, match="malformed JSON"):
        list(make(fake).stream(REQUEST))


def test_unreachable_server_is_retried_then_unavailable():
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings = Settings(data_dir=Path("."), cache_dir=Path("."), llm_endpoint=f"http://127.0.0.1:{port}")
    gen = EndpointGenerator(settings, retries=1, backoff=0.01, timeout=2)
    with pytest.raises(LLMUnavailable, match="is the server running"):
        gen.generate(REQUEST)


@pytest.mark.parametrize(
    ("given", "base"),
    [
        ("http://h:8000", "http://h:8000/v1"),
        (" http://h:8000/v1/ ", "http://h:8000/v1"),
        ("https://api.example.com/openai/v1/chat/completions", "https://api.example.com/openai/v1"),
    ],
)
def test_normalize_base_url(given, base):
    assert normalize_base_url(given) == base


@pytest.mark.parametrize("bad", [None, "", "localhost:8000", "ftp://h/v1"])
def test_bad_endpoint_setting(bad):
    with pytest.raises(LLMConfigError, match="LLM_ENDPOINT"):
        normalize_base_url(bad)
