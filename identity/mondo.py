"""Disease identity from MONDO: which OMIM, Orphanet and OMIM-phenotypic-series entries are one
disease, which are groups over numbered members, the gene that defines a member of a series, and
the names of diseases (OMIM entries newer than the graph's HPO release) that the graph lacks.

Read from the data folder's `mondo/` tables (Mondo Disease Ontology, CC BY 4.0; its README lists
them). Pure data: nothing here knows the graph.
"""

from __future__ import annotations

import csv
import hashlib
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from fpkg.errors import DataFileError
from fpkg.names import fold_name
from fpkg.pickles import read_pickle, write_pickle

TABLES = ("exactmatch_omim.tsv", "exactmatch_orphanet.tsv", "exactmatch_omimps.tsv", "rare_subclass_edges.tsv",
          "labels.tsv", "disease_series_by_gene.tsv")
CREDIT = "Mondo Disease Ontology (Vasilevsky et al.), https://mondo.monarchinitiative.org, CC BY 4.0"
# The tables' MONDO commit and date, as the folder's README gives them.
CACHE_FORMAT = 2  # of the pickled tables: a new format is made anew
RELEASE = "monarch-initiative/mondo at fad2512b4845f483fc1268cdf0bf7a8ef43697cb (2026-08-21)"
_PREFIXES = {"Orphanet:": "ORPHA:"}  # as HPO writes Orphanet ids


@dataclass
class Mondo:
    """MONDO's identity tables, indexed. An empty `Mondo()` knows nothing (the tables are missing)."""

    labels: dict[str, str] = field(default_factory=dict)  # MONDO id -> label
    xrefs: dict[str, str] = field(default_factory=dict)  # "OMIM:n", "ORPHA:n", "OMIMPS:n" -> MONDO id
    xref_labels: dict[str, str] = field(default_factory=dict)  # "OMIM:n" ... -> the source's own label
    parents: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # rare subclass edges
    children: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    series_gene: dict[str, str] = field(default_factory=dict)  # member MONDO id -> the gene that defines it
    series_of: dict[str, str] = field(default_factory=dict)  # member MONDO id -> its series' MONDO id
    release: str = ""

    @classmethod
    def load(cls, folder: Path | None) -> Mondo:
        """The tables in `folder`; an empty Mondo when `folder` is None or holds none of them."""
        if folder is None or not any((folder / name).is_file() for name in TABLES):
            return cls()
        missing = [name for name in TABLES if not (folder / name).is_file()]
        if missing:
            raise DataFileError(f"{folder} lacks the MONDO tables {', '.join(missing)}")
        mondo = cls(release=RELEASE)
        for name in ("exactmatch_omim.tsv", "exactmatch_orphanet.tsv", "exactmatch_omimps.tsv"):
            for row in _rows(folder / name):
                xref = _xref(row["xref_id"])
                mondo.xrefs.setdefault(xref, row["mondo_id"])
                mondo.xref_labels[xref] = row["xref_label"]
                mondo.labels.setdefault(row["mondo_id"], row["mondo_label"])
        for row in _rows(folder / "labels.tsv"):
            mondo.labels.setdefault(row["mondo_id"], row["label"])
        for row in _rows(folder / "rare_subclass_edges.tsv"):
            mondo.parents[row["child"]].add(row["parent"])
            mondo.children[row["parent"]].add(row["child"])
        for row in _rows(folder / "disease_series_by_gene.tsv"):
            mondo.series_gene[row["mondo_id"]] = row["gene_symbol"]
            mondo.series_of[row["mondo_id"]] = row["series_id"]
            mondo.labels.setdefault(row["mondo_id"], row["mondo_label"])
        return mondo

    @classmethod
    def load_cached(cls, folder: Path | None, cache_dir: Path) -> Mondo:
        """`load(folder)`, kept in `cache_dir` with its name indexes made, under the tables' sizes and times:
        reading and folding ~100k labels takes a second of every start."""
        if folder is None:
            return cls()
        path = cls.cache_path(folder, cache_dir)
        mondo = read_pickle(path)
        if not isinstance(mondo, cls):
            mondo = cls.load(folder)
            _ = mondo.ids_of, mondo.by_name, mondo.by_words, mondo.name_words  # made once, kept with it
            write_pickle(path, mondo)
        return mondo

    @staticmethod
    def cache_path(folder: Path, cache_dir: Path) -> Path:
        """Where `load_cached` keeps the tables of `folder`: one file per MONDO release and tables."""
        key = hashlib.sha256(f"{CACHE_FORMAT}|{RELEASE}|{folder}|{tables_fingerprint(folder)}".encode()).hexdigest()
        return cache_dir / f"mondo-{key[:16]}.pickle"

    def __bool__(self) -> bool:
        return bool(self.xrefs)

    def of(self, disease_id: str | None) -> str | None:
        """The MONDO id an OMIM, ORPHA or OMIMPS id maps to exactly."""
        return self.xrefs.get(disease_id or "")

    def is_group(self, mondo_id: str | None) -> bool:
        """A class with rare subclasses: an Orphanet group, an OMIM phenotypic series, a named group."""
        return bool(mondo_id and self.children.get(mondo_id))

    def ancestors(self, mondo_id: str) -> set[str]:
        found, todo = set(), list(self.parents.get(mondo_id, ()))
        while todo:
            parent = todo.pop()
            if parent not in found:
                found.add(parent)
                todo.extend(self.parents.get(parent, ()))
        return found

    def descendants(self, mondo_id: str) -> set[str]:
        found, todo = set(), list(self.children.get(mondo_id, ()))
        while todo:
            child = todo.pop()
            if child not in found:
                found.add(child)
                todo.extend(self.children.get(child, ()))
        return found

    @cached_property
    def ids_of(self) -> dict[str, list[str]]:
        """MONDO id -> its OMIM, ORPHA and OMIMPS ids."""
        found: dict[str, list[str]] = defaultdict(list)
        for xref, mondo_id in sorted(self.xrefs.items()):
            found[mondo_id].append(xref)
        return dict(found)

    def omim_of(self, mondo_id: str) -> str | None:
        return next((x for x in self.ids_of.get(mondo_id, ()) if x.startswith("OMIM:")), None)

    @cached_property
    def by_name(self) -> dict[str, str]:
        """A folded name -> the one MONDO id it names: MONDO's labels and the OMIM and Orphanet
        labels mapped to them. A name two classes share names neither."""
        return _unique_keys(self._names(), fold_name)

    @cached_property
    def by_words(self) -> dict[str, str]:
        """The same, keyed by the name's words in any order ("renal tubular acidosis, distal, 2" is
        "distal renal tubular acidosis 2": the same words, numbers included)."""
        return _unique_keys(self._names(), _sorted_words)

    @cached_property
    def name_words(self) -> frozenset[str]:
        """Every folded word of every name: a run of words holding another is no name (a fast test)."""
        return frozenset(word for name, _ in self._names() for word in fold_name(name).split())

    def named_folded(self, folded: str) -> str | None:
        """`named` for a name already folded (`fold_name`): a question's runs of words, folded once."""
        words = folded.split()
        if not words or not all(word in self.name_words for word in words):
            return None
        return self.by_name.get(folded) or self.by_words.get(" ".join(sorted(words)))

    def _names(self) -> list[tuple[str, str]]:
        return [*((label, m) for m, label in self.labels.items()),
                *((label, self.xrefs[x]) for x, label in self.xref_labels.items())]

    def named(self, name: str) -> str | None:
        """The MONDO id a disease name is, written as MONDO, OMIM or Orphanet write it (case,
        punctuation, accents and word order aside), or None."""
        return self.named_folded(fold_name(name))

    def label(self, mondo_id: str) -> str:
        return self.labels.get(mondo_id, mondo_id)

    def names_of(self, mondo_id: str) -> list[str]:
        """Every name of the disease: MONDO's label, then the OMIM and Orphanet labels it maps."""
        found = [self.labels[mondo_id]] if mondo_id in self.labels else []
        found += [self.xref_labels[x] for x in self.ids_of.get(mondo_id, ()) if x in self.xref_labels]
        return list(dict.fromkeys(found))


def tables_fingerprint(folder: Path) -> str:
    """Which tables a graph was built with (sizes and times): a change rebuilds it."""
    found = [(name, (folder / name).stat()) for name in TABLES if (folder / name).is_file()]
    return ";".join(f"{name}:{stat.st_size}:{int(stat.st_mtime)}" for name, stat in found) or "none"


def _sorted_words(name: str) -> str:
    return " ".join(sorted(fold_name(name).split()))


def _unique_keys(names: list[tuple[str, str]], key) -> dict[str, str]:
    found: dict[str, set[str]] = defaultdict(set)
    for name, mondo_id in names:
        found[key(name)].add(mondo_id)
    return {k: next(iter(ids)) for k, ids in found.items() if len(ids) == 1 and k}


def _xref(value: str) -> str:
    for prefix, ours in _PREFIXES.items():
        if value.startswith(prefix):
            return ours + value[len(prefix):]
    return value


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))
