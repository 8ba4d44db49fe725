"""The data folder: where FPKG's published files live, and fetching them when missing.

Files are pinned to one upstream commit and verified by sha256, so a download can never
silently change the graph or the benchmarks.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import requests

from fpkg.errors import DataFileError

UPSTREAM_REPO = "zhelishisongjie/Facial-Phenotype-RAG"
UPSTREAM_COMMIT = "fe9bcbf568d598e15fc69ee7368d70d7434862de"
DOWNLOAD_TIMEOUT_S = 60


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


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def data_file(data_dir: Path, local: str, *, download: bool = True) -> Path:
    """Path of a data file, fetched into `data_dir` (and verified) when missing."""
    spec = DATA_FILES[local]
    path = data_dir / local
    if path.exists():
        return path
    if not download:
        raise DataFileError(f"{path} is missing. {_how_to_fix(spec, data_dir)}")
    _download(spec, path, data_dir)
    return path


def _download(spec: DataFile, path: Path, data_dir: Path) -> None:
    if not os.access(data_dir if data_dir.exists() else data_dir.parent, os.W_OK):
        raise DataFileError(
            f"{path} is missing and {data_dir} is not writable. {_how_to_fix(spec, data_dir)}")
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with requests.get(spec.url, stream=True, timeout=DOWNLOAD_TIMEOUT_S) as response:
            response.raise_for_status()
            with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as tmp:
                for chunk in response.iter_content(1 << 20):
                    tmp.write(chunk)
    except requests.RequestException as e:
        raise DataFileError(f"could not download {spec.url}: {e}. {_how_to_fix(spec, data_dir)}") from e
    tmp_path = Path(tmp.name)
    actual = sha256_of(tmp_path)
    if actual != spec.sha256:
        tmp_path.unlink()
        raise DataFileError(f"{spec.url} has sha256 {actual}, expected {spec.sha256}; nothing was saved")
    tmp_path.replace(path)


def _how_to_fix(spec: DataFile, data_dir: Path) -> str:
    return (f"Download {spec.url} (sha256 {spec.sha256}) and save it as {data_dir / spec.local}, "
            f"or set FPKG_DATA_DIR to a folder that holds {spec.local}.")
