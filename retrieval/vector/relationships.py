"""The graph's relationships in memory, for vector mode's neighbourhoods.

Read once with the vector index and cached beside it, so a question's neighbourhood is found by
binary search (~0.3 ms) instead of a read query (~15 ms on one core). Each row is one stored relationship,
its direction kept; parallel ones (FPKG keeps one per article) stay separate rows. Curated
relationships change while the app runs (merge, undo, import): `with_curated` swaps in the
store's current ones, so vector mode never shows an undone fact.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from graphstore.schema import CURATED as CURATED_SOURCE

ROWS_QUERY = "MATCH (a)-[r]->(b) {where}RETURN a.nid AS s, type(r) AS t, b.nid AS e, r.source AS src, r.pmid AS pmid"
_ARRAYS = ("starts", "ends", "types", "sources", "pmid_starts", "pmids")


@dataclass
class Relationships:
    """Parallel arrays, one row per relationship; `types` and `sources` are codes into the name lists,
    the PMIDs of row i are ``pmids[pmid_starts[i]:pmid_starts[i + 1]]``."""

    n_nodes: int
    starts: np.ndarray  # int32 index rows
    ends: np.ndarray
    types: np.ndarray  # int16
    type_names: list[str]
    sources: np.ndarray  # int16
    source_names: list[str]
    pmid_starts: np.ndarray  # int64, one more than there are rows
    pmids: np.ndarray  # int64

    def __post_init__(self) -> None:
        # rows sorted by their unordered pair, so a set of pairs is found by binary search
        keys = self._keys(np.minimum(self.starts, self.ends), np.maximum(self.starts, self.ends))
        self._order = np.argsort(keys, kind="stable")
        self._sorted_keys = keys[self._order]

    def __len__(self) -> int:
        return len(self.starts)

    @classmethod
    def from_rows(cls, rows: Iterable[dict], row_of: dict[int, int], n_nodes: int) -> Relationships:
        """From `ROWS_QUERY` rows; relationships of nodes outside `row_of` (nid -> index row) are left out."""
        starts, ends, types, sources, pmid_lists = [], [], [], [], []
        type_codes: dict[str, int] = {}
        source_codes: dict[str, int] = {"": 0}
        for row in rows:
            start, end = row_of.get(row["s"]), row_of.get(row["e"])
            if start is None or end is None:
                continue
            starts.append(start)
            ends.append(end)
            types.append(type_codes.setdefault(row["t"], len(type_codes)))
            sources.append(source_codes.setdefault(row["src"] or "", len(source_codes)))
            pmid_lists.append(pmid_list(row["pmid"]))
        lengths = np.fromiter((len(p) for p in pmid_lists), dtype=np.int64, count=len(pmid_lists))
        return cls(n_nodes, np.asarray(starts, dtype=np.int32), np.asarray(ends, dtype=np.int32),
                   np.asarray(types, dtype=np.int16), list(type_codes), np.asarray(sources, dtype=np.int16),
                   list(source_codes), np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
                   np.asarray([p for ps in pmid_lists for p in ps], dtype=np.int64))

    def pairs(self) -> np.ndarray:
        """(m, 2) start and end rows, for the adjacency."""
        return np.stack([self.starts, self.ends], axis=1).astype(np.int64)

    def between(self, pairs: Iterable[tuple[int, int]]) -> np.ndarray:
        """The rows of every relationship between each (a, b) pair of index rows, either direction."""
        pairs = np.asarray(sorted(pairs), dtype=np.int64).reshape(-1, 2)
        if not len(pairs) or not len(self):
            return np.zeros(0, dtype=np.int64)
        keys = self._keys(pairs.min(axis=1), pairs.max(axis=1))
        first = np.searchsorted(self._sorted_keys, keys, side="left")
        counts = np.searchsorted(self._sorted_keys, keys, side="right") - first
        # the positions first[j] .. first[j] + counts[j] - 1 of every pair j, in one array
        offsets = np.repeat(first - (np.cumsum(counts) - counts), counts)
        return self._order[np.arange(counts.sum()) + offsets]

    def row(self, i: int) -> tuple[int, str, int, str, list[int]]:
        """(start row, type, end row, source, PMIDs) of relationship `i`."""
        return (int(self.starts[i]), self.type_names[self.types[i]], int(self.ends[i]),
                self.source_names[self.sources[i]], self.pmids[self.pmid_starts[i]:self.pmid_starts[i + 1]].tolist())

    def with_curated(self, curated: Relationships) -> Relationships:
        """These relationships with the curated ones replaced by `curated` (the store's current ones)."""
        keep = self.sources != _code(self.source_names, CURATED_SOURCE)
        type_names, source_names = list(self.type_names), list(self.source_names)
        types = _recoded(curated.types, curated.type_names, type_names)
        sources = _recoded(curated.sources, curated.source_names, source_names)
        lengths = np.diff(self.pmid_starts)
        pmid_lengths = np.concatenate([lengths[keep], np.diff(curated.pmid_starts)])
        return Relationships(self.n_nodes, np.concatenate([self.starts[keep], curated.starts]),
                             np.concatenate([self.ends[keep], curated.ends]),
                             np.concatenate([self.types[keep], types]), type_names,
                             np.concatenate([self.sources[keep], sources]), source_names,
                             np.concatenate([[0], np.cumsum(pmid_lengths)]).astype(np.int64),
                             np.concatenate([self.pmids[np.repeat(keep, lengths)], curated.pmids]))

    def save(self, folder: Path) -> dict:
        """Writes the arrays into `folder`; returns the names for the index's meta.json."""
        for name in _ARRAYS:
            np.save(folder / f"rel_{name}.npy", getattr(self, name))
        return {"n_nodes": self.n_nodes, "type_names": self.type_names, "source_names": self.source_names}

    @classmethod
    def load(cls, folder: Path, meta: dict) -> Relationships:
        arrays = {name: np.load(folder / f"rel_{name}.npy") for name in _ARRAYS}
        return cls(meta["n_nodes"], type_names=meta["type_names"], source_names=meta["source_names"], **arrays)

    def _keys(self, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        return low.astype(np.int64) * self.n_nodes + high.astype(np.int64)


def _code(names: list[str], name: str) -> int:
    return names.index(name) if name in names else -1


def _recoded(codes: np.ndarray, names: list[str], into: list[str]) -> np.ndarray:
    """`codes` into `names`, as codes into `into` (names it lacks are appended to it)."""
    for name in names:
        if name not in into:
            into.append(name)
    return np.asarray([into.index(name) for name in names], dtype=np.int16)[codes]


def pmid_list(value: Any) -> list[int]:
    """A relationship's `pmid` as a list of ints (stored as an int, a string or a list)."""
    out: list[int] = []
    for v in value if isinstance(value, list) else [value]:
        if isinstance(v, bool) or v is None:
            continue
        if isinstance(v, int):
            out.append(v)
        elif isinstance(v, float) and v.is_integer():
            out.append(int(v))
        elif isinstance(v, str):
            out.extend(int(p) for p in v.replace(",", ";").split(";") if p.strip().isdigit())
    return list(dict.fromkeys(out))
