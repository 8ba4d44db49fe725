"""Files the app writes for download, and the only files its handlers read.

- Public exports (an Explore Sankey: the graph's own data) go to a folder of their own under the
  temporary folder, swept of files older than their age limit whenever a new one is written.
- Private exports (a user's history, the curated overlay) go to the state folder's export area:
  owner-only (0700 folders, 0600 files), named with a random token, removed once expired. Gradio
  serves a copy of each from its cache; `PrivateExports.may_fetch` lets only the export's owner fetch
  it, and only until it expires (app/server.py asks it for every file request).
- A handler reads a file only from Gradio's upload folder (what a user uploaded) or the export area
  (`uploaded_file`): never a path a request names elsewhere.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import tempfile
import time
from pathlib import Path

from gradio.utils import get_upload_folder

from fpkg.errors import InputError

EXPORTS_FOLDER = "exports"  # in the state folder
EXPORT_MAX_AGE_S = 600  # private exports hold case details: kept minutes, not hours
TOKEN = re.compile(r"-([0-9a-f]{32})\.[a-z]+$")  # the token at the end of a private export's name


def export_folder(name: str, max_age_s: float) -> Path:
    """The folder for `name`'s public exports, swept of files older than `max_age_s`."""
    folder = Path(tempfile.gettempdir()) / name
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        if time.time() - old.stat().st_mtime > max_age_s:
            old.unlink(missing_ok=True)
    return folder


class PrivateExports:
    """`root/files/<token>/<name>`: the exports (the only folder Gradio may serve them from);
    `root/owners/<token>.json`: whose each is and when it was made, written first, never served."""

    def __init__(self, root: Path, max_age_s: float = EXPORT_MAX_AGE_S):
        self.root, self.max_age_s = Path(root), max_age_s
        self.files, self.owners = self.root / "files", self.root / "owners"

    def write(self, owner: str | None, stem: str, suffix: str, text: str) -> Path:
        """A new export of `text` for `owner` (None: someone not signed in, whom only the export's
        unguessable name identifies); returns its path."""
        self.sweep()
        for folder in (self.root, self.files, self.owners):
            folder.mkdir(mode=0o700, exist_ok=True, parents=True)
        token = secrets.token_hex(16)
        path = self.files / token / f"{stem}-{token}{suffix}"
        _write_private(self.owners / f"{token}.json", json.dumps({"owner": owner, "at": time.time(),
                                                                  "name": path.name}))
        path.parent.mkdir(mode=0o700)
        _write_private(path, text)
        return path

    def may_fetch(self, file_name: str, user: str | None) -> bool:
        """Whether `user` may fetch the private export named `file_name`: not when it expired or is
        someone else's."""
        found = TOKEN.search(file_name)
        if found is None:
            return False
        record = self._record(found.group(1))
        if record is None or record.get("name") != file_name:
            return False
        if self._expired(record):
            self._remove(found.group(1), record)
            return False
        return record.get("owner") is None or record.get("owner") == user

    def sweep(self) -> int:
        """Removes every expired export (and Gradio's copies of it); how many went."""
        removed = 0
        for record_path in self.owners.glob("*.json") if self.owners.is_dir() else ():
            record = self._record(record_path.stem)
            if record is None or self._expired(record):
                self._remove(record_path.stem, record)
                removed += 1
        for folder in self.files.iterdir() if self.files.is_dir() else ():  # left by a crash mid-write
            if not (self.owners / f"{folder.name}.json").exists() and time.time() - folder.stat().st_mtime > \
                    self.max_age_s:
                shutil.rmtree(folder, ignore_errors=True)
        return removed

    def _record(self, token: str) -> dict | None:
        try:
            record = json.loads((self.owners / f"{token}.json").read_text())
        except (OSError, ValueError):
            return None
        return record if isinstance(record, dict) else None

    def _expired(self, record: dict) -> bool:
        return not isinstance(record.get("at"), (int, float)) or time.time() - record["at"] > self.max_age_s

    def _remove(self, token: str, record: dict | None) -> None:
        shutil.rmtree(self.files / token, ignore_errors=True)
        (self.owners / f"{token}.json").unlink(missing_ok=True)
        name = (record or {}).get("name")
        if isinstance(name, str) and TOKEN.search(name):
            for copy in Path(get_upload_folder()).glob(f"*/{name}"):
                copy.unlink(missing_ok=True)


def is_private_export(file_name: str) -> bool:
    return TOKEN.search(file_name) is not None


def _write_private(path: Path, text: str) -> None:
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        out.write(text)


def uploaded_file(file: object, exports: PrivateExports) -> Path:
    """The file a handler was given, when it lies in Gradio's upload folder or the export area;
    InputError otherwise (a path on the server named by the request is never read)."""
    given = str(file) if isinstance(file, (str, Path)) else getattr(file, "name", None) or getattr(file, "path", None)
    if not given:
        raise InputError("Choose a file to upload.")
    path = Path(given).resolve()
    for area in (Path(get_upload_folder()), exports.files):
        area = area.resolve()
        if path != area and path.is_relative_to(area) and path.is_file():
            return path
    raise InputError("That file was not uploaded here: upload the file itself.")
