"""Fetching one file over HTTP(S): from its upstream URL or a mirror of it, written atomically,
checked against its pinned sha256 (nothing is saved on a mismatch), with progress lines."""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from pathlib import Path

import requests

from fpkg.errors import DataFileError, SettingsError

CONNECT_TIMEOUT_S, READ_TIMEOUT_S = 15, 60
CHUNK = 1 << 20
LARGE = 8 << 20  # a file this big reports each quarter as it comes


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def mirrored(url: str, mirror: str | None) -> str:
    """`https://host/path` read from `<mirror>/host/path` (FPKG_SOURCES_MIRROR), else as it is."""
    if not mirror:
        return url
    if not mirror.startswith(("http://", "https://")):
        raise SettingsError(f"FPKG_SOURCES_MIRROR={mirror!r}: use an http:// or https:// address")
    return f"{mirror.rstrip('/')}/{url.split('://', 1)[1]}"


def fetch_file(url: str, path: Path, sha256: str | None, *, mirror: str | None = None,
               progress: Callable[[str], None] = lambda _: None) -> dict:
    """Download `url` (or its mirror) to `path`; returns {"url", "bytes", "sha256"}. Raises
    DataFileError with the reason when the server cannot be reached, answers an error, or the file's
    sha256 is not `sha256` (then nothing is saved)."""
    source = mirrored(url, mirror)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.part-{os.getpid()}")
    started = time.perf_counter()
    digest, size = hashlib.sha256(), 0
    try:
        with requests.get(source, stream=True, timeout=(CONNECT_TIMEOUT_S, READ_TIMEOUT_S)) as response:
            response.raise_for_status()
            total = int(response.headers.get("Content-Length") or 0)
            if total >= LARGE:  # a line now: it takes a while where the network is slow
                progress(f"  {path.name} ({_mb(total)}) from {source}")
            quarter = 1
            with open(partial, "wb") as out:
                for chunk in response.iter_content(CHUNK):
                    out.write(chunk)
                    digest.update(chunk)
                    size += len(chunk)
                    if total >= LARGE and quarter < 4 and size >= total * quarter / 4:
                        progress(f"  {path.name}: {quarter * 25} % ({_mb(size)})")
                        quarter += 1
        actual = digest.hexdigest()
        if sha256 and actual != sha256:
            raise DataFileError(f"{source} has sha256 {actual}, expected {sha256}")
        partial.replace(path)
    except requests.RequestException as e:
        raise DataFileError(f"could not download {source}: {_reason(e)}") from e
    finally:
        partial.unlink(missing_ok=True)  # gone already when the file was kept
    progress(f"  {path.name}: {_mb(size)} in {time.perf_counter() - started:.1f} s"
             + (", sha256 checked" if sha256 else f", sha256 {actual[:12]}"))
    return {"url": url, "bytes": size, "sha256": actual}


def _mb(size: int) -> str:
    return f"{size / 1e6:.1f} MB"


def _reason(error: requests.RequestException) -> str:
    """One short line: the server's status, or why it could not be reached."""
    if isinstance(error, requests.HTTPError) and error.response is not None:
        return f"the server answered {error.response.status_code} {error.response.reason}"
    if isinstance(error, requests.Timeout):
        return "no answer in time"
    if isinstance(error, requests.ConnectionError):
        return "the server cannot be reached (offline, or a wrong address)"
    return str(error).splitlines()[0][:200]
