"""GA4GH phenopacket-store (Monarch Initiative, BSD-3-Clause): its published patients, read from the
store's release zip (`all_phenopackets.zip`, `<cohort>/<id>.json`) or a folder laid out the same way.

Every file goes through the GA4GH schema (`kg_dump.phenopacket_reader`); one that is no usable
phenopacket is reported (which file, why) and skipped, never half-read. The schema check costs ~3 ms a
file, so the files are parsed in worker processes, once per release: the patients are cached under
the release's sha256, which the build manifest records too (a changed release is a new build).
"""

from __future__ import annotations

import hashlib
import os
import zipfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from fpkg.errors import DataFileError, PhenopacketError
from fpkg.pickles import read_pickle, write_pickle
from kg_dump.phenopacket_reader import PublishedPatient, parse_phenopacket

RELEASE_ZIP = "all_phenopackets.zip"
FORMAT = 1  # of the cached patients
CHUNK = 400  # files per worker task


@dataclass(frozen=True)
class Problem:
    file: str
    reason: str


@dataclass
class StoreRead:
    source: str  # the zip or folder read
    sha256: str  # of the zip, or of the folder's file names and contents
    patients: list[PublishedPatient] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def summary(self) -> dict:
        return {"source": self.source, "sha256": self.sha256, "patients": len(self.patients),
                "files_skipped": len(self.problems), "skipped": [f"{p.file}: {p.reason}" for p in self.problems[:20]]}


def store_path(folder: Path) -> Path:
    """The release zip in `folder`, else the folder itself when it holds cohort folders of JSON files."""
    zipped = folder / RELEASE_ZIP
    if zipped.is_file():
        return zipped
    if folder.is_dir() and any(folder.glob("*/*.json")):
        return folder
    raise DataFileError(f"no {RELEASE_ZIP} (nor cohort folders of phenopackets) in {folder}: set "
                        "PHENOPACKET_STORE_DIR to a folder holding phenopacket-store's release zip")


def read_store(folder: Path, cache_dir: Path | None = None, workers: int | None = None) -> StoreRead:
    """Every patient of the store in `folder`, from the cache when this release was read before."""
    path = store_path(folder)
    digest = store_sha256(path)
    cached = cache_dir / "phenopacket-store" / f"patients-{FORMAT}-{digest[:16]}.pickle" if cache_dir else None
    found = read_pickle(cached) if cached else None
    if isinstance(found, StoreRead):
        return found
    read = StoreRead(str(path), digest)
    members = _members(path)
    chunks = [members[i:i + CHUNK] for i in range(0, len(members), CHUNK)]
    workers = workers or min(len(chunks), os.cpu_count() or 1)
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            parts = list(pool.map(_read_chunk, [str(path)] * len(chunks), chunks))
    else:
        parts = [_read_chunk(str(path), chunk) for chunk in chunks]
    for patients, problems in parts:
        read.patients += patients
        read.problems += problems
    _drop_repeated_ids(read)
    if cached:
        write_pickle(cached, read)
    return read


def _members(path: Path) -> list[str]:
    if path.is_dir():
        return sorted(str(p.relative_to(path)) for p in path.glob("*/*.json"))
    try:
        with zipfile.ZipFile(path) as archive:
            return sorted(name for name in archive.namelist() if not name.endswith("/"))
    except zipfile.BadZipFile as e:
        raise DataFileError(f"{path} is not a readable zip: {e}") from None


def _read_chunk(source: str, names: list[str]) -> tuple[list[PublishedPatient], list[Problem]]:
    patients, problems = [], []
    path = Path(source)
    archive = zipfile.ZipFile(path) if path.is_file() else None
    try:
        for name in names:
            if not name.endswith(".json"):
                problems.append(Problem(name, "not a .json file"))
                continue
            try:
                data = archive.read(name) if archive else (path / name).read_bytes()
                patients.append(parse_phenopacket(data, name, cohort=name.split("/")[0] if "/" in name else ""))
            except PhenopacketError as e:
                problems.append(Problem(name, str(e).removeprefix(f"{name} ")))
            except (OSError, zipfile.BadZipFile) as e:  # a damaged member: the rest is still read
                problems.append(Problem(name, f"unreadable: {e}"))
    finally:
        if archive:
            archive.close()
    return patients, problems


def _drop_repeated_ids(read: StoreRead) -> None:
    """A patient id given twice (a cohort copied under two names) is one patient: the first is kept."""
    seen: set[str] = set()
    kept = []
    for patient in read.patients:
        if patient.id in seen:
            read.problems.append(Problem(patient.id, "the same phenopacket id again: kept once"))
            continue
        seen.add(patient.id)
        kept.append(patient)
    read.patients = kept


def store_sha256(path: Path) -> str:
    """The release zip's sha256 (a folder's: over its files' names and bytes)."""
    digest = hashlib.sha256()
    files = [path] if path.is_file() else sorted(path.glob("*/*.json"))
    for file in files:
        if path.is_dir():
            digest.update(str(file.relative_to(path)).encode() + b"\0")
        with open(file, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()
