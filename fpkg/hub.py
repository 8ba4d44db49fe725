"""Whether the Hugging Face Hub can be reached, learned once per process.

A start asks the Hub for the NER model, and the model's tokenizer and weights are looked up after it:
offline, each lookup used to try the network, fail and fall back on its own, and say so in the raw
words of the HTTP client. Here the answer is learned once and quickly: HF_HUB_OFFLINE set, or the
Hub's host (or the proxy in between) not taking a connection within PROBE_S, is offline; a lookup that
finds the Hub silent after all says so (`went_offline`). Offline, a lookup reads the local cache only
(`cached_snapshot`) and the files it finds are loaded from their folder. The Hub client's own offline
mode is left alone: it would refuse every request the client makes, an LLM endpoint's on this machine
included. `start()` begins the probe in a thread of its own, so the start goes on meanwhile;
`offline_reason()` waits for it.
"""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path
from urllib.parse import urlsplit

PROBE_S = 1.5  # a Hub (or a mirror) that answers does so in milliseconds
PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")

_lock = threading.Lock()
_probe: threading.Thread | None = None
_reason: list[str | None] = []  # [] until learned; then [None] (reachable) or [why not]


def start() -> None:
    """Begin learning whether the Hub answers (once per process; later calls do nothing)."""
    global _probe
    with _lock:
        if _probe is None and not _reason:
            _probe = threading.Thread(target=_learn, name="hub-probe", daemon=True)
            _probe.start()


def offline_reason() -> str | None:
    """Why the Hub cannot be reached, in plain words, or None when it can (waits for the probe)."""
    start()
    if _probe is not None:
        _probe.join(PROBE_S + 0.5)  # a name lookup that hangs is given up on, not waited for
    with _lock:
        if not _reason:
            _set_offline(f"{_endpoint_host()} did not answer within {PROBE_S:g} s")
        return _reason[0]


def went_offline(reason: str) -> None:
    """A lookup found the Hub unreachable after all: every later one goes to the cache."""
    with _lock:
        _reason[:] = []
        _set_offline(reason)


def cached_snapshot(repo_id: str, revision: str | None = None) -> Path | None:
    """The folder of a Hub model in the local Hub cache, laid out as the Hub client lays it out
    (`models--owner--name/snapshots/<commit>`, the commit named in `refs/<revision>` unless `revision`
    is one), or None. Read without the client's download machinery, whose import alone takes a third
    of a second of every offline start."""
    from huggingface_hub import constants

    repo = Path(constants.HF_HUB_CACHE) / f"models--{repo_id.replace('/', '--')}"
    ref = repo / "refs" / (revision or "main")
    commit = ref.read_text().strip() if ref.is_file() else revision
    folder = repo / "snapshots" / commit if commit else None
    return folder if folder is not None and folder.is_dir() else None


def forget() -> None:
    """Learn again at the next lookup (tests that start and stop a Hub of their own)."""
    global _probe
    with _lock:
        _probe = None
        _reason[:] = []


def _learn() -> None:
    reason = _why_unreachable()
    with _lock:
        if _reason:  # given up on meanwhile
            return
        if reason is None:
            _reason.append(None)
        else:
            _set_offline(reason)


def _why_unreachable() -> str | None:
    from huggingface_hub import constants

    if constants.HF_HUB_OFFLINE:
        return "HF_HUB_OFFLINE is set"
    host, port = _target()
    try:
        socket.create_connection((host, port), timeout=PROBE_S).close()
    except OSError as e:
        if isinstance(e, socket.gaierror):
            return f"{host} cannot be looked up: no network, or no name server"
        if isinstance(e, TimeoutError):
            return f"{host} did not answer within {PROBE_S:g} s"
        return f"{host} refused the connection"
    return None


def _target() -> tuple[str, int]:
    """The host and port a Hub request connects to first: the proxy's when one is set."""
    from huggingface_hub import constants

    proxy = next((os.environ[name] for name in PROXY_VARIABLES if os.environ.get(name)), None)
    url = urlsplit(proxy if proxy and "://" in proxy else f"http://{proxy}" if proxy else constants.ENDPOINT)
    return url.hostname or "huggingface.co", url.port or (443 if url.scheme == "https" else 80)


def _endpoint_host() -> str:
    from huggingface_hub import constants

    return urlsplit(constants.ENDPOINT).hostname or constants.ENDPOINT


def _set_offline(reason: str) -> None:
    _reason.append(reason)
