"""HPO's annotation lines with their sources, so that a paper can be held out of them.

Each line of phenotype.hpoa names its sources (column 5, `reference`: PMIDs, OMIM, ORPHA, DECIPHER, ISBN,
...). HPO writes many annotations from the very papers whose patients are evaluated (it now derives them
from phenopacket-store's cohorts), so a patient held out must not be matched against the lines its own
paper wrote: a line whose sources are papers alone (PMIDs only) goes when every one of them is held out; a
line that cites anything else stays (HPO's curators, OMIM or Orphanet said it apart from that paper).
genes_to_phenotype.txt repeats each remaining (not NOT) line as a gene, term and disease row, so a disease
with no line left loses its HPO gene links too.

Kept once per release, compactly (inside the cached `kg_dump.hpo_profiles.HpoProfiles`): every line of
each disease some of whose lines cite papers alone (about half the diseases), as numpy arrays sorted by
disease, each line's PMIDs once (CSR). A held-out paper touches only the diseases its PMIDs index.
"""

from __future__ import annotations

import csv
import math
import re
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from kg_dump.hpo_layer import ancestors_of, frequency_of

PHENOTYPE_ASPECT = "P"
INHERITANCE_ASPECT = "I"  # phenotype.hpoa's rows that give a disease's mode of inheritance
COURSE_ASPECT = "C"  # its clinical course: the onset terms (under HP:0003674 Onset) among them
ONSET_ROOT = "HP:0003674"
DISEASE_PREFIXES = ("OMIM:", "ORPHA:")
# what a line says of its disease
PRESENT, EXCLUDED, INHERITANCE, ONSET, OTHER = range(5)  # OTHER: another aspect (course, modifier), not NOT
PMID = re.compile(r"PMID:\s*(\d+)")  # (one line of the 2025-01 release writes "PMID:20037588P")


def stronger(previous: float | None, value: float) -> float:
    """Two lines' frequencies of one annotation combined: the higher one reported (NaN: not given)."""
    return value if previous is None or math.isnan(previous) else max(previous, value)


def hpo_number(hpo_id: str) -> int:
    return int(hpo_id[3:])


def hpo_id(number: int) -> str:
    return f"HP:{number:07d}"


def papers_alone(reference: str) -> tuple[int, ...]:
    """The PMIDs of a line whose sources are papers alone; () when it cites anything else (or nothing)."""
    sources = [source.strip() for source in reference.split(";") if source.strip()]
    found = [PMID.match(source) for source in sources]
    if not sources or not all(found):
        return ()
    return tuple(sorted({int(match.group(1)) for match in found}))


@dataclass(frozen=True)
class KeptLines:
    """What a disease's lines say once some papers are held out."""

    present: dict[str, float] = field(default_factory=dict)  # HPO id -> frequency (NaN: not given)
    excluded: frozenset[str] = frozenset()  # NOT annotations
    inheritance: frozenset[str] = frozenset()  # HPO's names of the modes ("Autosomal dominant inheritance")
    onset: frozenset[str] = frozenset()  # onset terms (HPO ids)
    any_left: bool = False  # a line is left that genes_to_phenotype.txt repeats as a gene row (not NOT)


@dataclass
class SourcedLines:
    diseases: list[str]  # OMIM and ORPHA ids with a line citing papers alone; a disease's number is its place
    disease: np.ndarray  # int32 per line, ascending: the lines of one disease are contiguous
    kind: np.ndarray  # int8: PRESENT, EXCLUDED, INHERITANCE, ONSET, OTHER
    hpo: np.ndarray  # int32: the term's HPO number (HP:0000316 -> 316)
    frequency: np.ndarray  # float32 (NaN: not given)
    cited_at: np.ndarray  # int64, one more than the lines: line i's PMIDs are cited[cited_at[i]:cited_at[i + 1]]
    cited: np.ndarray  # int64: the PMIDs of lines whose sources are papers alone (none for the others)
    mode_names: dict[int, str] = field(default_factory=dict)  # inheritance terms' HPO number -> name

    @classmethod
    def empty(cls) -> SourcedLines:
        none = np.zeros(0, dtype=np.int32)
        return cls([], none, none.astype(np.int8), none, none.astype(np.float32), np.zeros(1, dtype=np.int64),
                   np.zeros(0, dtype=np.int64))

    @classmethod
    def read(cls, hpoa_path: Path, terms: dict[str, dict]) -> SourcedLines:
        """The lines of phenotype.hpoa's OMIM and ORPHA diseases some of whose lines cite papers alone;
        `terms`: hp.obo's terms by id (`kg_dump.hpo_layer.read_terms`)."""
        below = ancestors_of(terms)
        by_disease: dict[str, list[tuple[int, int, float, tuple[int, ...]]]] = defaultdict(list)
        mode_names: dict[int, str] = {}
        with open(hpoa_path, encoding="utf-8") as f:
            for row in csv.DictReader((line for line in f if not line.startswith("#")), delimiter="\t"):
                disease, term = row["database_id"], row["hpo_id"]
                if not disease.startswith(DISEASE_PREFIXES) or term not in terms:
                    continue
                kind = _kind(row, below)
                if kind is None:
                    continue
                if kind == INHERITANCE:
                    mode_names[hpo_number(term)] = terms[term]["name"]
                frequency = frequency_of(row["frequency"]) if kind == PRESENT else None
                by_disease[disease].append((kind, hpo_number(term), math.nan if frequency is None else frequency,
                                            papers_alone(row["reference"])))
        diseases = sorted(d for d, lines in by_disease.items() if any(cited for *_, cited in lines))
        lines = [(number, *line) for number, d in enumerate(diseases) for line in by_disease[d]]
        sizes = [len(line[4]) for line in lines]
        return cls(diseases, np.array([line[0] for line in lines], dtype=np.int32),
                   np.array([line[1] for line in lines], dtype=np.int8),
                   np.array([line[2] for line in lines], dtype=np.int32),
                   np.array([line[3] for line in lines], dtype=np.float32),
                   np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)]).astype(np.int64),
                   np.array([pmid for line in lines for pmid in line[4]], dtype=np.int64),
                   {n: name for n, name in mode_names.items()})

    def __len__(self) -> int:
        return len(self.disease)

    @cached_property
    def _citing(self) -> dict[int, np.ndarray]:
        """A PMID -> the diseases (numbers) some line of which cites it among papers alone (built at first use)."""
        line_of = np.repeat(np.arange(len(self)), np.diff(self.cited_at))
        found: dict[int, set[int]] = defaultdict(set)
        for pmid, disease in zip(self.cited.tolist(), self.disease[line_of].tolist(), strict=True):
            found[pmid].add(disease)
        return {pmid: np.array(sorted(diseases), dtype=np.int32) for pmid, diseases in found.items()}

    def citing(self, pmids: frozenset[int]) -> list[str]:
        """The diseases (ids) some of whose lines these papers alone are the sources of."""
        numbers = {int(d) for pmid in pmids for d in self._citing.get(pmid, ())}
        return [self.diseases[d] for d in sorted(numbers)]

    @cached_property
    def number(self) -> dict[str, int]:
        return {disease: i for i, disease in enumerate(self.diseases)}

    def kept(self, disease: str, pmids: frozenset[int]) -> KeptLines:
        """What the disease's lines say without those whose sources are all among `pmids`."""
        number = self.number[disease]
        start, end = np.searchsorted(self.disease, [number, number + 1])
        present: dict[str, float] = {}
        excluded, modes, onsets, any_left = set(), set(), set(), False
        for line in range(int(start), int(end)):
            cited = self.cited[self.cited_at[line]:self.cited_at[line + 1]]
            if len(cited) and pmids.issuperset(cited.tolist()):
                continue  # every source of the line held out
            kind, term = int(self.kind[line]), int(self.hpo[line])
            any_left = any_left or kind != EXCLUDED
            if kind == PRESENT:
                present[hpo_id(term)] = stronger(present.get(hpo_id(term)), float(self.frequency[line]))
            elif kind == EXCLUDED:
                excluded.add(hpo_id(term))
            elif kind == INHERITANCE:
                modes.add(self.mode_names[term])
            elif kind == ONSET:
                onsets.add(hpo_id(term))
        return KeptLines(present, frozenset(excluded), frozenset(modes), frozenset(onsets), any_left)


def _kind(row: dict, below) -> int | None:
    """What the line says (None: a NOT of an aspect the ranker does not read)."""
    aspect, negated = row["aspect"], row["qualifier"] == "NOT"
    if aspect == PHENOTYPE_ASPECT:
        return EXCLUDED if negated else PRESENT
    if negated:
        return None
    if aspect == INHERITANCE_ASPECT:
        return INHERITANCE
    if aspect == COURSE_ASPECT and ONSET_ROOT in below(row["hpo_id"]):
        return ONSET
    return OTHER
