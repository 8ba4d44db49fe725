"""`python -m bench load` and `server-cost`: short runs against the session's app, through the light HTTP
client and through gradio_client."""

from __future__ import annotations

import json

import pytest

from bench import load
from bench.__main__ import main
from fpkg.errors import BenchError
from tests.support.app_process import app_environment, free_port, private_cache


@pytest.mark.slow
@pytest.mark.parametrize("client", ["http", "gradio"])
def test_a_short_load_run_reports_latency_errors_cpu_and_memory(app_server, tmp_path, capsys, client):
    code = main(["load", "--users", "3", "--requests", "4", "--url", app_server.url, "--json", "--sample-every", "3",
                 "--results-dir", str(tmp_path), "--client", client])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert result["requests"] == result["planned"] == 12 and result["errors"] == 0 and result["ok"] == 12
    assert result["client"] == client and result["server_cpu_ms_per_request"] > 0
    assert result["generator_cpu_ms_per_request"] > 0
    assert {"/diagnose", "/ask"} <= set(result["latency_s_by_endpoint"])
    assert 0 < result["latency_s"]["p50"] <= result["latency_s"]["p95"]
    memory = result["memory_mb"]
    assert result["app_pid"] == app_server.process.pid  # found by the port it listens on
    assert memory["before"]["app"] > 100 and memory["after"]["app"] > 100
    assert memory["growth_pct"] == pytest.approx(
        100 * (memory["after"]["app"] - memory["before"]["app"]) / memory["before"]["app"], abs=0.2)
    # a reading every third request, plotted; the second half's growth read off the readings
    assert [sample["requests"] for sample in memory["samples"]] == [3, 6, 9, 12]
    assert memory["late_growth_pct"] == pytest.approx(
        100 * (memory["samples"][3]["app"] / memory["samples"][2]["app"] - 1), abs=0.01)
    assert (tmp_path / "load" / "3x4.json").is_file() and (tmp_path / "load-memory-3x4.png").stat().st_size > 1000


@pytest.mark.slow
def test_with_history_every_signed_in_answer_is_written_on_the_server(pipeline, tmp_path, monkeypatch, capsys):
    settings = private_cache(pipeline, tmp_path / "cache")  # the app it starts has a graph server of its own
    for key, value in app_environment(settings).items():
        monkeypatch.setenv(key, value)
    code = main(["load", "--users", "2", "--requests", "3", "--history", "--json", "--results-dir", str(tmp_path)])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert result["errors"] == 0 and result["ok"] == 6 and result["started_app"]
    assert result["history_entries"] == result["ok"] + result["warm_up_requests"] == 14


@pytest.mark.slow
def test_server_cost_reports_cpu_per_request_and_the_handlers_stages(app_server, tmp_path, capsys):
    code = main(["server-cost", "--cpu-samples", "3", "--modes", "cypher", "--url", app_server.url, "--json",
                 "--results-dir", str(tmp_path)])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result["requests"]) == {"/diagnose cypher", "/ask cypher"}
    diagnose = result["requests"]["/diagnose cypher"]
    assert diagnose["server_cpu_ms"]["n"] == 3 and diagnose["server_cpu_ms"]["p50"] >= 0
    assert {"queries", "ranking", "generation", "evidence_picture", "total"} <= set(diagnose["handler_ms"])
    assert (tmp_path / "server-cost" / "3-cypher.json").is_file()


@pytest.mark.slow
def test_a_failed_answer_is_an_error_not_an_answer(app_server):
    from bench.load_client import HttpClient, call
    from fpkg.errors import LoadRequestFailed

    client = HttpClient(app_server.url)
    try:
        with pytest.raises(LoadRequestFailed, match="error"):
            call(client, "/ask", ("", "cypher", "grounded", 0.0), 60)  # an empty question: the app says what to fix
        assert call(client, "/ask", ("Which genes cause CHARGE syndrome?", "cypher", "grounded", 0.0), 60)[0]
    finally:
        client.close()


def test_history_needs_an_app_of_its_own():
    with pytest.raises(BenchError, match="drop --url"):
        load.handle_load(load_args(url="http://127.0.0.1:1", history=True), None)


def load_args(**given):
    import argparse

    defaults = dict(url=None, history=False, client="http", users=1, requests=1, max_seconds=1.0, request_timeout_s=1.0,
                    sample_every=1, start_timeout_s=1.0, results_dir=None)
    return argparse.Namespace(**{**defaults, **given})


@pytest.mark.slow
def test_the_run_stops_at_its_time_limit(app_server):
    result = load.run_load(app_server.url, 2, 50, max_seconds=0.0, request_timeout_s=120)
    assert result["stopped_by_time"] and result["requests"] <= 2  # at most the request under way per user


@pytest.mark.parametrize("url", ["http://10.0.0.1:7860", "http://example.com", "https://8.8.8.8", "ftp://127.0.0.1",
                                 "http://0.0.0.0:7860"])
def test_only_loopback_addresses(url):
    with pytest.raises(BenchError, match="loopback|http"):
        load.check_loopback(url)


@pytest.mark.parametrize("url", ["http://127.0.0.1:7860", "http://localhost:7860/", "http://[::1]:7860",
                                 "http://127.1.2.3:80"])
def test_loopback_addresses_are_accepted(url):
    assert load.check_loopback(url) == url.rstrip("/")


def test_no_app_at_the_url_is_a_clear_error(capsys):
    assert main(["load", "--users", "1", "--requests", "1", "--url", f"http://127.0.0.1:{free_port()}"]) == 2
    assert "no app answers" in capsys.readouterr().err
