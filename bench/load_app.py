"""The app under load: started on loopback (or found by its port), stopped, its memory and CPU read.

`python -m bench load` and `python -m bench server-cost` share these: the app's process is found by
the port it listens on, and its cost is read with psutil over it and its children (the embedded
graph server), which does not depend on how busy the load generator is.
"""

from __future__ import annotations

import ipaddress
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

import psutil

from fpkg.errors import BenchError

REPO_ROOT = Path(__file__).resolve().parent.parent
START_TIMEOUT_S = 600  # a cold cache builds the graph and indexes first


def check_loopback(url: str) -> str:
    """The URL without a trailing slash; refuses anything but http(s) to a loopback address."""
    parsed = urlparse(url)
    host = parsed.hostname or ""
    if parsed.scheme not in ("http", "https") or not host:
        raise BenchError(f"--url {url!r} is not an http(s) URL")
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise BenchError(f"--url must point at a loopback address (127.0.0.1, ::1, localhost), not {host!r}")
    return url.rstrip("/")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def health(url: str) -> dict | None:
    """The app's /healthz answer, None while it does not answer 200."""
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=5) as response:
            return json.loads(response.read()) if response.status == 200 else None
    except (urllib.error.URLError, ConnectionError, TimeoutError, ValueError):
        return None


def healthy(url: str) -> bool:
    return health(url) is not None


def wait_for_vector_index(url: str, timeout_s: float) -> None:
    """The app loads the vector index in the background after it starts answering: wait for it,
    so that its memory is counted before the run, not as growth."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        state = health(url) or {}
        if state.get("vector_index", "ready") == "ready":
            return
        time.sleep(1)


def start_app(log_path: Path, timeout_s: float = START_TIMEOUT_S,
              extra_env: dict[str, str] | None = None) -> tuple[str, subprocess.Popen]:
    """`python -m app` on a free loopback port, with the environment's settings (and `extra_env`)."""
    port = free_port()
    env = dict(os.environ, GRADIO_ANALYTICS_ENABLED="False", PYTHONUNBUFFERED="1", **(extra_env or {}))
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "w") as log:
        process = subprocess.Popen([sys.executable, "-m", "app", "--host", "127.0.0.1", "--port", str(port)],
                                   cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout_s
    while not healthy(url):
        if process.poll() is not None or time.monotonic() > deadline:
            stop_app(process)
            tail = log_path.read_text(errors="replace")[-2000:]
            raise BenchError(f"python -m app did not start (exit {process.returncode}); log {log_path}:\n{tail}")
        time.sleep(0.5)
    return url, process


def stop_app(process: subprocess.Popen) -> None:
    """Stop the app and the graph server it started. SIGINT, not SIGTERM: uvicorn re-raises the
    signal it caught after shutting down, and only SIGINT (KeyboardInterrupt) lets the app's
    `finally` stop its embedded FalkorDB; any child left over is stopped here by its pid."""
    try:
        children = psutil.Process(process.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        children = []
    for stop, wait_s in ((lambda: process.send_signal(signal.SIGINT), 30), (process.terminate, 10),
                         (process.kill, 10)):
        if process.poll() is not None:
            break
        stop()
        try:
            process.wait(timeout=wait_s)
        except subprocess.TimeoutExpired:
            continue
    for child in children:
        try:
            child.terminate()
            child.wait(timeout=10)
        except psutil.NoSuchProcess:
            continue
        except psutil.TimeoutExpired:
            child.kill()


def serving_process(url: str) -> psutil.Process | None:
    """The process listening on the URL's port (None when it cannot be seen, e.g. another user's)."""
    port = urlparse(url).port or 80
    try:
        for conn in psutil.net_connections(kind="tcp"):
            if conn.status == psutil.CONN_LISTEN and conn.laddr.port == port and conn.pid:
                return psutil.Process(conn.pid)
    except psutil.AccessDenied:
        return None
    return None


def memory_mb(process: psutil.Process | None) -> dict[str, float] | None:
    """Resident memory of the app process, and of it with its children (the embedded graph server)."""
    if process is None:
        return None
    try:
        own = process.memory_info().rss
        children = sum(child.memory_info().rss for child in process.children(recursive=True))
    except psutil.Error:
        return None
    return {"app": round(own / 2**20, 1), "app_and_children": round((own + children) / 2**20, 1)}




@dataclass
class SignedInUsers:
    """--history: a state folder with one password user per load user, and their session cookies."""

    state_dir: Path
    passwords: dict[str, str] = field(default_factory=dict)
    cookies: list[str] = field(default_factory=list)

    @classmethod
    def create(cls, state_dir: Path, count: int) -> SignedInUsers:
        from accounts.users_file import UsersFile

        users = UsersFile(state_dir / "users.json")
        made = cls(state_dir)
        for n in range(count):
            made.passwords[f"load-user-{n}"] = secrets.token_urlsafe(12)
            users.add(f"load-user-{n}", "viewer", made.passwords[f"load-user-{n}"])
        return made

    def app_env(self) -> dict[str, str]:
        return {"FPKG_STATE_DIR": str(self.state_dir), "FPKG_HISTORY": "server"}

    def sign_in(self, url: str) -> None:
        import httpx

        from accounts.sessions import COOKIE

        for name, password in self.passwords.items():
            response = httpx.post(f"{url}/signin", data={"username": name, "password": password}, timeout=60)
            if response.status_code != 303:
                raise BenchError(f"{name} could not sign in: HTTP {response.status_code}")
            self.cookies.append(f"{COOKIE}={response.cookies[COOKIE]}")

    def headers(self, user: int) -> dict[str, str] | None:
        return {"Cookie": self.cookies[user % len(self.cookies)]} if self.cookies else None

    def entries(self) -> int:
        import sqlite3

        with sqlite3.connect(self.state_dir / "history.sqlite3") as db:
            return db.execute("SELECT count(*) FROM history").fetchone()[0]



def graph_servers(process: psutil.Process) -> list[psutil.Process]:
    """Servers on this machine the app talks to that are not its children: an embedded graph server
    another process started (the app attached to it), or one named by FALKORDB_URL on loopback."""
    try:
        ports = {c.raddr.port for c in process.net_connections(kind="tcp")
                 if c.raddr and c.status == psutil.CONN_ESTABLISHED and ipaddress.ip_address(c.raddr.ip).is_loopback}
        listening = {c.laddr.port: c.pid for c in psutil.net_connections(kind="tcp")
                     if c.status == psutil.CONN_LISTEN and c.pid}
        family = {process.pid, *(child.pid for child in process.children(recursive=True))}
    except (psutil.Error, ValueError):
        return []
    pids = {listening[port] for port in ports if port in listening} - family - {os.getpid()}
    return [psutil.Process(pid) for pid in sorted(pids)]


def cpu_seconds(process: psutil.Process | None, servers: list[psutil.Process] = ()) -> float | None:
    """CPU time (user and system) of the process, its living children and `servers`, in seconds."""
    if process is None:
        return None
    try:
        family = [process, *process.children(recursive=True), *servers]
        times = [member.cpu_times() for member in family]
    except psutil.Error:
        return None
    return sum(t.user + t.system for t in times)


def own_cpu_seconds() -> float:
    """This process's CPU time: what the load generator itself spent."""
    times = psutil.Process().cpu_times()
    return times.user + times.system
