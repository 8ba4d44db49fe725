"""`python -m app` as a subprocess on a free loopback port, shared by the app's test modules.

One server per test session (started by whichever module needs it first, stopped at exit):
starting it costs ~30 s of imports and index loading, too much to pay per module.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, replace
from pathlib import Path

from fpkg.config import Settings, access_settings

# the users issue's settings: a test that wants them passes them in `env`
ACCESS_VARIABLES = ("FPKG_STATE_DIR", "FPKG_USERS_FILE", "FPKG_ANONYMOUS", "FPKG_HISTORY", "FPKG_SESSION")
REPO_ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO_ROOT / "artifacts"
START_TIMEOUT_S = 600  # a cold cache builds the graph and the linker vectors first
VECTOR_TIMEOUT_S = 840  # a cold cache builds the vector index: minutes on a busy CPU


@dataclass
class AppServer:
    url: str
    process: subprocess.Popen
    log_path: Path
    started_s: float

    def health(self) -> dict:
        with urllib.request.urlopen(f"{self.url}/healthz", timeout=5) as response:
            return json.loads(response.read())

    def log_tail(self, chars: int = 4000) -> str:
        return self.log_path.read_text(errors="replace")[-chars:] if self.log_path.exists() else ""

    def wait_for_vector_index(self, timeout_s: float = VECTOR_TIMEOUT_S) -> None:
        deadline = time.monotonic() + timeout_s
        while self.health().get("vector_index") != "ready":
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError(f"the vector index was not ready after {timeout_s:.0f} s:\n{self.log_tail()}")
            time.sleep(2)


_server: AppServer | None = None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def app_environment(settings: Settings) -> dict[str, str]:
    """The test settings as environment variables: real data, the grounded writer, no NER model."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("LLM_", "NER_MODEL", *ACCESS_VARIABLES))}
    env.update(FPKG_DATA_DIR=str(settings.data_dir), FPKG_CACHE_DIR=str(settings.cache_dir),
               FPKG_STATE_DIR=str(access_settings(settings).state_dir),
               LLM_BACKEND="grounded", NER_MODEL="rules", GRADIO_ANALYTICS_ENABLED="False", PYTHONUNBUFFERED="1",
               FPKG_IN_CONTAINER="0", HF_HUB_OFFLINE="1")
    env.pop("SPACE_ID", None)
    return env


def start_app(settings: Settings) -> AppServer:
    """The session's app server, started on first call; raises with the log when it cannot start."""
    global _server
    if _server is not None and _server.process.poll() is None:
        return _server
    ARTIFACTS.mkdir(exist_ok=True)
    _server = launch_app(settings, ARTIFACTS / "app-server.log")
    atexit.register(stop_app)
    return _server


def private_cache(pipeline, folder: Path) -> Settings:
    """The session's settings with a cache folder of their own: a copy of the session graph's
    snapshot, build manifest and linker index, so that a second app starts its own graph server
    on the same graph without rebuilding it (the session's server is never touched)."""
    from graphstore.embedded_falkordb import RDB_NAME
    from kg_dump.build import manifest_path

    server = pipeline.store.server
    if server is None or not server.rdb_path.is_file():
        import pytest

        pytest.skip("the session graph is not in an embedded FalkorDB with a snapshot")
    source = pipeline.settings.cache_dir
    settings = replace(pipeline.settings, cache_dir=folder)
    (folder / "falkordb").mkdir(parents=True)
    shutil.copy(server.rdb_path, folder / "falkordb" / RDB_NAME)
    shutil.copy(manifest_path(pipeline.settings), manifest_path(settings))
    if (source / "linking").is_dir():
        shutil.copytree(source / "linking", folder / "linking")
    return settings


def as_from_a_terminal() -> None:
    """In the child: SIGINT as a terminal's Ctrl-C delivers it, even where the test runner itself was
    started in the background with SIGINT ignored (which a child would inherit)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def launch_app(settings: Settings, log_path: Path, timeout_s: float = START_TIMEOUT_S,
               env: dict[str, str] | None = None) -> AppServer:
    """`python -m app` on a free port, returned once /healthz says ok (the caller stops it);
    `env` overrides the test environment (an LLM backend, say)."""
    port = free_port()
    began = time.monotonic()
    with open(log_path, "w") as log:
        process = subprocess.Popen([sys.executable, "-m", "app", "--port", str(port)], cwd=REPO_ROOT,
                                   env=app_environment(settings) | (env or {}), stdout=log,
                                   stderr=subprocess.STDOUT, preexec_fn=as_from_a_terminal)
    server = AppServer(f"http://127.0.0.1:{port}", process, log_path, 0.0)
    deadline = began + timeout_s
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"python -m app exited with {process.returncode}:\n{server.log_tail()}")
        try:
            if server.health().get("status") == "ok":
                break
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass  # not listening yet
        if time.monotonic() > deadline:
            process.kill()
            process.wait()
            raise RuntimeError(f"python -m app did not answer within {timeout_s:.0f} s:\n{server.log_tail()}")
        time.sleep(0.5)
    server.started_s = time.monotonic() - began
    return server


def stop_app() -> None:
    global _server
    if _server is None:
        return
    _server.process.terminate()
    try:
        _server.process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        _server.process.kill()
        _server.process.wait()
    _server = None
