"""`python -m app` as a real process: a busy port is named in one line before anything loads, and a
stop (Ctrl-C, SIGTERM), while loading or while the vector index still loads behind a serving app, is
quiet: no traceback, no complaint from the background load it cut short."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time

import pytest

from tests.support.app_process import (
    REPO_ROOT,
    app_environment,
    as_from_a_terminal,
    free_port,
    launch_app,
    private_cache,
)

QUIET_STOP_S = 60
NOISE = ("Traceback", "could not be loaded", "cannot schedule", "Error", "error:", "Exception")


def test_a_busy_port_is_named_before_anything_loads(test_settings):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "app", "--port", str(port)], cwd=REPO_ROOT,
                              env=app_environment(test_settings), capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"error: port {port} on 127.0.0.1 is in use: another program listens there. Stop it, or choose another "
        "port with --port"]
    assert done.stdout == ""  # not one progress line: nothing was loaded


def test_a_port_this_machine_cannot_listen_on_is_named(test_settings):
    done = subprocess.run([sys.executable, "-m", "app", "--host", "192.0.2.1", "--port", str(free_port())],
                          cwd=REPO_ROOT, env=app_environment(test_settings), capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: cannot listen on 192.0.2.1:") and "--host" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def after(log: str, line: str) -> str:
    return log.split(line, 1)[1] if line in log else ""


@pytest.mark.slow
@pytest.mark.parametrize("stop, code", [(signal.SIGINT, 128 + signal.SIGINT), (signal.SIGTERM, 128 + signal.SIGTERM)],
                         ids=["ctrl-c", "sigterm"])
def test_a_stop_while_the_vector_index_loads_is_quiet(pipeline, tmp_path, stop, code):
    """The app serves at once and loads the vector index behind (a cache of its own without the index:
    minutes to build); stopped then, the load it cuts short says nothing."""
    app = launch_app(private_cache(pipeline, tmp_path / "cache"), tmp_path / "app.log")
    try:
        assert app.health().get("vector_index") != "ready"  # still loading when the stop comes
        app.process.send_signal(stop)
        assert app.process.wait(timeout=QUIET_STOP_S) == code
    finally:
        if app.process.poll() is None:
            app.process.kill()
            app.process.wait()
    time.sleep(1)  # the log is complete once the process is gone
    tail = after(app.log_path.read_text(), "serving on ")
    assert tail, app.log_tail()
    assert not [word for word in NOISE if word in tail], tail
    assert tail.strip().splitlines()[1:] == (["stopped"] if stop == signal.SIGINT else []), tail


@pytest.mark.slow
def test_ctrl_c_while_loading_is_quiet(pipeline, tmp_path):
    settings = private_cache(pipeline, tmp_path / "cache")
    log_path = tmp_path / "app.log"
    with open(log_path, "w") as log:
        process = subprocess.Popen([sys.executable, "-m", "app", "--port", str(free_port())], cwd=REPO_ROOT,
                                   env=app_environment(settings), stdout=log, stderr=subprocess.STDOUT,
                                   preexec_fn=as_from_a_terminal)
    try:
        deadline = time.monotonic() + 120
        while "opening the" not in log_path.read_text() and time.monotonic() < deadline:
            assert process.poll() is None, log_path.read_text()
            time.sleep(0.1)
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=QUIET_STOP_S) == 128 + signal.SIGINT
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    text = log_path.read_text()
    assert "serving on" not in text and text.rstrip().endswith("stopped"), text
    assert not [word for word in NOISE if word in text], text
