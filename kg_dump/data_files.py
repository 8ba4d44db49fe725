"""The data folder: where FPKG's published files live, and fetching them when missing.

Files are pinned to one upstream commit and verified by sha256, so a download can never
silently change the graph or the benchmarks.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from fpkg.errors import DataFileError
from kg_dump.fetch import fetch_file

UPSTREAM_REPO = "zhelishisongjie/Facial-Phenotype-RAG"
UPSTREAM_COMMIT = "fe9bcbf568d598e15fc69ee7368d70d7434862de"


@dataclass(frozen=True)
class DataFile:
    local: str  # path inside the data folder
    upstream: str  # path inside the upstream repository
    sha256: str

    @property
    def url(self) -> str:
        return f"https://github.com/{UPSTREAM_REPO}/raw/{UPSTREAM_COMMIT}/{quote(self.upstream)}"


# The data files the code reads by name: their paths inside the data folder.
PUBLICATION_SET = "datasets/Publication_patient_question.csv"  # selective: four options each
PUBLICATION_OPEN_SET = "datasets/Publication_patient_question_withoutchoices.csv"
DOMAIN_QA = "datasets/domain_qa.xlsx"

DATA_FILES = {
    f.local: f
    for f in [
        DataFile("FPKG.dump", "KG/FPKG.dump",
                 "16a605ada168d33cba94a113a790f5c2749d6abc4094c7e6f07ec7dcd848a896"),
        DataFile(PUBLICATION_SET, "Datasets/Publication_patient_question.csv",
                 "dce743d6f2d78ff1733118330ce5382807ba7fbbd205b5d442786b67882271f5"),
        DataFile(PUBLICATION_OPEN_SET, "Datasets/Publication_patient_question_withoutchoices.csv",
                 "166752d1adcd807ae5a44a3e904d35fc020b79849cf5b0b4af4a95e2835ed634"),
        DataFile("datasets/GMDB_patient_question.csv", "Datasets/GMDB_patient_question.csv",
                 "2f63f23f11a34a5683ba71dea6455f22a479e2d55daae2dea0993f6dee13e9bc"),
        DataFile("datasets/GMDB_patient_question_withoutchoices.csv",
                 "Datasets/GMDB_patient_question_withoutchoices.csv",
                 "0dd6e39fc1494ecc6dd8324adca9269b2d645a6ba0334c2fdb3cecc5d6c3849b"),
        DataFile(DOMAIN_QA, "Datasets/Domain QA.xlsx",
                 "644119ed9a48e92533d422c78dd59509a202b63aa2847d4649a64d277a161e44"),
        DataFile("corpus/train.txt", "corpus/train.txt",
                 "945a03bf020ef0c0fc8398e793d598f356c3da255a3904a8e0a3deb849ac459d"),
        DataFile("corpus/dev.txt", "corpus/dev.txt",
                 "f76ff7b111fad0dffddbaddab4fe5619cda0598b42979a451da0ba347c150c1e"),
        DataFile("corpus/test.txt", "corpus/test.txt",
                 "6244dc4bd2667e9ba1031a833f33191f3d045c7ec847b83529c93e2aad90da16"),
    ]
}


def data_file(data_dir: Path, local: str, *, download: bool = True, mirror: str | None = None,
              progress: Callable[[str], None] = lambda _: None) -> Path:
    """Path of a data file, fetched into `data_dir` (and verified) when missing; `mirror`:
    FPKG_SOURCES_MIRROR (kg_dump.fetch.mirrored)."""
    spec = DATA_FILES[local]
    path = data_dir / local
    if path.exists():
        return path
    if not download:
        raise DataFileError(f"{path} is missing. {_how_to_fix(spec, data_dir)}")
    existing = next(p for p in (data_dir, *data_dir.parents) if p.exists())
    if not os.access(existing, os.W_OK):
        raise DataFileError(f"{path} is missing and {data_dir} is not writable. {_how_to_fix(spec, data_dir)}")
    try:
        fetch_file(spec.url, path, spec.sha256, mirror=mirror, progress=progress)
    except DataFileError as e:
        raise DataFileError(f"{e}; nothing was saved. {_how_to_fix(spec, data_dir)}") from e
    return path


def _how_to_fix(spec: DataFile, data_dir: Path) -> str:
    return (f"Offline, set FPKG_DATA_DIR to a folder that holds {spec.local}, with the other sources' folders "
            f"(mondo/, phenopacket-store/, hpo-translations/) beside it (README: Set up); or save {spec.url} "
            f"(sha256 {spec.sha256}) as {data_dir / spec.local}.")
