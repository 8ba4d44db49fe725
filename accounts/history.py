"""A user's history of questions and diagnoses: entries, their export, and the server-side store.

By default the app keeps history in the user's browser (nothing about a patient is stored on the
server) as a list of `Entry.as_dict()`; with FPKG_HISTORY=server, signed-in users' entries go to an
embedded SQLite database instead, deleted after FPKG_HISTORY_DAYS. Every statement is
parameterised: text that looks like SQL is stored as text.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from fpkg.errors import InputError

KINDS = ("diagnose", "ask")
MAX_ENTRIES = 500  # per user, the oldest go first (in the browser and on the server)
MAX_SUMMARY = 300
CSV_FIELDS = ("id", "at", "kind", "summary", "inputs")
SCHEMA = """
CREATE TABLE IF NOT EXISTS history (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user TEXT NOT NULL,
    at TEXT NOT NULL,
    kind TEXT NOT NULL,
    inputs TEXT NOT NULL,
    summary TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS history_by_user ON history (user, id);
"""


@dataclass(frozen=True)
class Entry:
    id: int
    at: str  # ISO 8601, UTC
    kind: str  # diagnose or ask
    inputs: dict = field(default_factory=dict)  # the form's fields, by name
    summary: str = ""  # the answer's first line

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: object) -> Entry | None:
        """An entry from the browser's store; None when it is not one (edited, from another version)."""
        try:
            entry = cls(int(data["id"]), str(data["at"]), str(data["kind"]), dict(data["inputs"]),
                        str(data.get("summary", "")))
        except (TypeError, KeyError, ValueError):
            return None
        return entry if entry.kind in KINDS else None

    def label(self) -> str:
        return f"#{self.id} · {self.at[:16].replace('T', ' ')} · {self.kind} · {self.summary[:60]}"


def new_entry(entry_id: int, kind: str, inputs: dict, summary: str, now: datetime | None = None) -> Entry:
    if kind not in KINDS:
        raise InputError(f"Unknown history kind {kind!r}")
    at = (now or datetime.now(UTC)).isoformat(timespec="seconds")
    return Entry(entry_id, at, kind, dict(inputs), " ".join(summary.split())[:MAX_SUMMARY])


def browser_entries(stored: object) -> list[Entry]:
    """The browser's list read back, newest first, skipping anything that is not an entry."""
    entries = [Entry.from_dict(item) for item in stored] if isinstance(stored, list) else []
    return sorted((e for e in entries if e is not None), key=lambda e: -e.id)


def as_json(entries: Iterable[Entry]) -> str:
    return json.dumps([entry.as_dict() for entry in entries], indent=1, ensure_ascii=False)


def as_csv(entries: Iterable[Entry]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, CSV_FIELDS)
    writer.writeheader()
    for entry in entries:
        writer.writerow({**entry.as_dict(), "inputs": json.dumps(entry.inputs, ensure_ascii=False)})
    return out.getvalue()


class HistoryStore:
    """Entries per user in one SQLite file; safe to use from the app's worker threads."""

    def __init__(self, path: Path, retention_days: float):
        self.path = Path(path)
        self.retention = timedelta(days=retention_days)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.executescript(SCHEMA)
        self.purge()

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=10)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            with db:  # one transaction: committed, or rolled back on an error
                yield db
        finally:
            db.close()

    def add(self, user: str, kind: str, inputs: dict, summary: str) -> Entry:
        entry = new_entry(0, kind, inputs, summary)
        with self._connect() as db:
            cursor = db.execute("INSERT INTO history (user, at, kind, inputs, summary) VALUES (?, ?, ?, ?, ?)",
                                (user, entry.at, entry.kind, json.dumps(entry.inputs), entry.summary))
            db.execute("DELETE FROM history WHERE user = ? AND id NOT IN "
                       "(SELECT id FROM history WHERE user = ? ORDER BY id DESC LIMIT ?)", (user, user, MAX_ENTRIES))
        self.purge()
        return Entry(cursor.lastrowid, entry.at, entry.kind, entry.inputs, entry.summary)

    def entries(self, user: str) -> list[Entry]:
        """The user's entries, newest first."""
        with self._connect() as db:
            rows = db.execute("SELECT id, at, kind, inputs, summary FROM history WHERE user = ? ORDER BY id DESC",
                              (user,)).fetchall()
        return [Entry(row[0], row[1], row[2], json.loads(row[3]), row[4]) for row in rows]

    def delete(self, user: str, entry_id: int) -> bool:
        with self._connect() as db:
            return db.execute("DELETE FROM history WHERE user = ? AND id = ?", (user, entry_id)).rowcount > 0

    def delete_all(self, user: str) -> int:
        with self._connect() as db:
            return db.execute("DELETE FROM history WHERE user = ?", (user,)).rowcount

    def purge(self, now: datetime | None = None) -> int:
        """Deletes every entry older than the retention period; how many went."""
        cutoff = ((now or datetime.now(UTC)) - self.retention).isoformat(timespec="seconds")
        with self._connect() as db:
            return db.execute("DELETE FROM history WHERE at < ?", (cutoff,)).rowcount
