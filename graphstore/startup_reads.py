"""The rows a start reads from the graph, kept in a file for the next start on the same build.

A start reads ~120,000 rows (names, synonyms, annotations, gene links) to build the linker and the
diseases' profiles: about two seconds of queries. They change only when the graph is rebuilt, so
they are saved once under a name that carries the build's fingerprint (its manifest's hash) and a
restart reads them back in a fraction of that. Requests never go through this: it answers only the
queries a start asks, and anything else goes to the store.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from fpkg.pickles import read_pickle, write_pickle
from graphstore.store import GraphStore

FORMAT = 1  # bump when the file's layout changes


class StartupReads:
    def __init__(self, store: GraphStore, fingerprint: str | None, cache_dir: Path):
        self.store = store
        self.path = cache_dir / "startup" / f"rows-{fingerprint}.pickle" if fingerprint else None
        self.rows: dict[str, list[dict[str, Any]]] = {}
        self.loaded = False
        saved = read_pickle(self.path) if self.path is not None else None
        if saved is not None:  # else none yet, or damaged: read the graph again and rewrite it
            self.rows, self.loaded = saved, True
        self._new = False

    @classmethod
    def for_manifest(cls, store: GraphStore, manifest: Path, cache_dir: Path, layer: str = "") -> StartupReads:
        """Keyed by the build's manifest and by `layer`, a fingerprint of what was written onto the
        build since (the curated overlay)."""
        fingerprint = None
        if manifest.is_file():
            digest = hashlib.sha256(f"{FORMAT}\n{layer}\n".encode() + manifest.read_bytes()).hexdigest()
            fingerprint = digest[:16]
        return cls(store, fingerprint, cache_dir)

    def query(self, cypher: str, params: dict[str, Any] | None = None, *,
              timeout_ms: int = 5000) -> list[dict[str, Any]]:
        key = f"{cypher}\n{sorted((params or {}).items())!r}"
        if key not in self.rows:
            self.rows[key] = self.store.query(cypher, params, timeout_ms=timeout_ms)
            self._new = True
        return self.rows[key]

    def save(self) -> None:
        """Write the rows read from the graph this start, once, atomically; older builds' files go."""
        if self.path is None or not self._new:
            return
        write_pickle(self.path, self.rows)
        for old in self.path.parent.glob("rows-*.pickle"):
            if old != self.path:
                old.unlink(missing_ok=True)
        self._new = False
