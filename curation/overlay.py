"""The curated overlay: an append-only file of merged batches and their undoing, replayed onto the
graph after every build so that a rebuild never loses them.

One JSON record per line, each carrying the SHA-256 of its own content:

    {"kind": "merge", "batch": 3, "curator": "cara", "at": "...", "pmid": "123", "text_sha256": "...",
     "facts": [{"head_label": "Disease", "head": "...", "relation": "Exhibit", ...}], "sha256": "..."}
    {"kind": "undo", "batch": 3, "by": "ada", "at": "...", "sha256": "..."}

With two-person review a batch is first proposed (`"kind": "propose"`, the same fields as a merge,
not applied), then merged by another curator (a merge record with `"approved_by"`), or declined (an
undo of the proposal).

A line whose checksum does not match (edited by hand) or that is not JSON stops the overlay from
being applied at all, with a message naming the line: applying what is left could bring back facts
an undo removed. A last line cut short (a crash while writing) never completed: it is ignored,
and cut away before the next record is appended.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from curation.facts import Fact
from fpkg.errors import InputError, OverlayError

OVERLAY_FILE = "curated-overlay.jsonl"
# how messages name the file: never by its path (they reach users and /healthz)
THE_OVERLAY = f"the curated overlay ({OVERLAY_FILE} in the state folder)"


@dataclass(frozen=True)
class Batch:
    batch: int
    curator: str
    at: str
    facts: tuple[Fact, ...]
    pmid: str = ""
    text_sha256: str = ""
    approved_by: str = ""  # two-person review: the curator who merged another's proposal

    def provenance(self) -> str:
        return f"PMID {self.pmid}" if self.pmid else f"text sha256 {self.text_sha256[:12]}"

    def record(self, kind: str) -> dict:
        record = {"kind": kind, "batch": self.batch, "curator": self.curator, "at": self.at, "pmid": self.pmid,
                  "text_sha256": self.text_sha256, "facts": [fact.as_dict() for fact in self.facts]}
        return record | ({"approved_by": self.approved_by} if self.approved_by else {})


@dataclass
class OverlayState:
    batches: dict[int, Batch] = field(default_factory=dict)  # every merge, live or undone
    proposed: dict[int, Batch] = field(default_factory=dict)  # every proposal, merged, declined or pending
    undone: dict[int, str] = field(default_factory=dict)  # batch -> who undid (or declined) it
    cut_short: bool = False  # the last line never completed

    def live(self) -> list[Batch]:
        return [b for n, b in sorted(self.batches.items()) if n not in self.undone]

    def pending(self) -> list[Batch]:
        """Proposals still waiting for a second curator."""
        return [b for n, b in sorted(self.proposed.items()) if n not in self.batches and n not in self.undone]


def _sealed(record: dict) -> str:
    body = json.dumps(record, sort_keys=True, ensure_ascii=False)
    return json.dumps({**record, "sha256": hashlib.sha256(body.encode()).hexdigest()}, ensure_ascii=False)


def _opened(line: str, number: int, source: str) -> dict:
    try:
        record = json.loads(line)
        claimed = record.pop("sha256")
    except (ValueError, KeyError, AttributeError, TypeError):
        raise OverlayError(f"line {number} of {source} is not a record (edited by hand?); "
                           "restore the file from an export, or remove that line, then restart") from None
    body = json.dumps(record, sort_keys=True, ensure_ascii=False)
    if hashlib.sha256(body.encode()).hexdigest() != claimed:
        raise OverlayError(f"line {number} of {source} was changed by hand (its checksum does "
                           "not match); restore the file from an export, or remove that line, then restart")
    return record


def _batch(record: dict) -> Batch:
    return Batch(int(record["batch"]), str(record["curator"]), str(record["at"]),
                 tuple(Fact.from_dict(f) for f in record["facts"]), str(record.get("pmid", "")),
                 str(record.get("text_sha256", "")), str(record.get("approved_by", "")))


def parse(text: str, source: str) -> OverlayState:
    """The overlay's records, checked; OverlayError for a damaged line (`source` names the file in
    messages)."""
    state = OverlayState()
    lines = text.split("\n")
    complete, last = lines[:-1], lines[-1]
    state.cut_short = bool(last.strip())
    for number, line in enumerate(complete, 1):
        if not line.strip():
            continue
        record = _opened(line, number, source)
        try:
            if record["kind"] == "merge":
                state.batches[int(record["batch"])] = _batch(record)
            elif record["kind"] == "propose":
                state.proposed[int(record["batch"])] = _batch(record)
            elif record["kind"] == "undo":
                state.undone[int(record["batch"])] = str(record["by"])
            else:
                raise KeyError("kind")
        except (KeyError, TypeError, ValueError, InputError) as e:
            raise OverlayError(f"line {number} of {source} is not a valid record ({e})") from e
    return state


class Overlay:
    def __init__(self, path: Path):
        self.path = Path(path)

    def read(self) -> OverlayState:
        if not self.path.is_file():
            return OverlayState()
        return parse(self.path.read_text(encoding="utf-8"), THE_OVERLAY)

    def digest(self) -> str:
        """Changes with every record: keys what a start caches of the graph with curated facts."""
        if not self.path.is_file():
            return "none"
        return hashlib.sha256(self.path.read_bytes()).hexdigest()[:16]

    def add_merge(self, batch: Batch) -> None:
        self._append(batch.record("merge"))

    def add_proposal(self, batch: Batch) -> None:
        self._append(batch.record("propose"))

    def add_undo(self, batch: int, by: str) -> None:
        self._append({"kind": "undo", "batch": batch, "by": by, "at": now()})

    def _append(self, record: dict) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.is_file():
            text = self.path.read_bytes()
            if text and not text.endswith(b"\n"):  # a record cut short by a crash: it never counted
                with open(self.path, "r+b") as out:
                    out.truncate(text.rfind(b"\n") + 1)
        descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(descriptor, "a", encoding="utf-8") as out:
            out.write(_sealed(record) + "\n")
            out.flush()
            os.fsync(out.fileno())


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
