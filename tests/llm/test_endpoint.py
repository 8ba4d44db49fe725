"""The endpoint backend against a real local OpenAI-compatible HTTP server (no mocks)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fpkg.config import Settings
from fpkg.errors import LLMBadResponse, LLMConfigError, LLMHTTPError, LLMTimeout, LLMUnavailable, SettingsError
from llm.base import GenerationRequest
from llm.endpoint import EndpointGenerator, normalize_base_url
from tests.support.openai_server import REPLY, running_server

API_KEY = "sk-test-SECRET-4242"
REQUEST = GenerationRequest([{"role": "user", "content": "PTPN11, hypertelorism. Diagnosis?"}], seed=7)


@pytest.fixture(scope="module")
def server():
    with running_server() as srv:
        yield srv


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


def test_timeout_is_clear_and_bounded(fake, llm_stall):
    fake.behaviour = "slow"  # held until the test ends
    gen = make(fake, timeout=0.3)
    with pytest.raises(LLMTimeout, match="did not answer within 0.3 s"):
        gen.generate(REQUEST)
    assert llm_stall.holding  # the client gave up while the server was still holding the reply
    assert len(fake.requests) == 1  # a slow server is not asked again


def test_timeout_comes_from_the_settings(fake, llm_stall):
    fake.behaviour = "slow"
    host, port = fake.server_address[:2]
    settings = Settings.from_env({"FPKG_CACHE_DIR": ".", "LLM_BACKEND": "endpoint", "LLM_MODEL": "test-model",
                                  "LLM_ENDPOINT": f"http://{host}:{port}/v1", "LLM_TIMEOUT_S": "0.4"})
    with pytest.raises(LLMTimeout, match="did not answer within 0.4 s"):
        EndpointGenerator(settings).generate(REQUEST)
    assert llm_stall.holding and len(fake.requests) == 1


@pytest.mark.parametrize("value, problem", [("soon", "not a number"), ("0", "more than 0"), ("-3", "more than 0"),
                                            ("1e9", "at most 3600"), ("nan", "more than 0")])
def test_bad_timeout_setting_is_named(value, problem):
    with pytest.raises(SettingsError, match=f"LLM_TIMEOUT_S=.*{problem}"):
        _ = Settings.from_env({"FPKG_CACHE_DIR": ".", "LLM_TIMEOUT_S": value}).llm_timeout_s


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
