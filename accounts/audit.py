"""The audit log: who did what to the graph and to the users, and when; append-only JSON lines.

Lines are only ever appended (never rewritten); a line that cannot be read back (a crash mid-write,
an edit by hand) is reported as such rather than hidden or fatal.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

AUDIT_FILE = "audit.jsonl"  # in the state folder
_LOCK = threading.Lock()


@dataclass(frozen=True)
class AuditRecord:
    at: str
    actor: str
    action: str
    detail: str


class AuditLog:
    def __init__(self, path: Path):
        self.path = Path(path)

    def record(self, actor: str, action: str, detail: str = "") -> AuditRecord:
        record = AuditRecord(datetime.now(UTC).isoformat(timespec="seconds"), actor, action, detail)
        line = json.dumps(record.__dict__, ensure_ascii=False) + "\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with _LOCK:
            descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            with os.fdopen(descriptor, "a", encoding="utf-8") as out:
                out.write(line)
                out.flush()
                os.fsync(out.fileno())
        return record

    def records(self) -> tuple[list[AuditRecord], int]:
        """Every readable record, oldest first, and how many lines could not be read."""
        if not self.path.is_file():
            return [], 0
        records, unreadable = [], 0
        for line in self.path.read_text(encoding="utf-8", errors="replace").splitlines():
            if not line.strip():
                continue
            try:
                records.append(AuditRecord(**json.loads(line)))
            except (ValueError, TypeError):
                unreadable += 1
        return records, unreadable
