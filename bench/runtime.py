"""What every benchmark shares: the pipeline, the data files, progress bars and percentiles."""

from __future__ import annotations

import os
import statistics
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TypeVar

import numpy as np
from tqdm import tqdm

from fpkg.config import Settings
from fpkg.errors import BenchError
from kg_dump import data_files
from kg_dump.data_files import DATA_FILES, data_file

T = TypeVar("T")
# File names inside the data folder's datasets/ (kg_dump/data_files.py names the files)
PUBLICATION = Path(data_files.PUBLICATION_SET).name
PUBLICATION_OPEN = Path(data_files.PUBLICATION_OPEN_SET).name
DOMAIN_QA = Path(data_files.DOMAIN_QA).name


def dataset(settings: Settings, name: str) -> Path:
    """A file of the data folder's datasets/: one of the published files is fetched (and checked)
    when missing, as the app does."""
    local = f"datasets/{name}"
    if local in DATA_FILES:
        return data_file(settings.data_dir, local)
    path = settings.data_dir / local
    if not path.is_file() and (phenopackets_dir(settings) / name).is_file():
        return phenopackets_dir(settings) / name
    if not path.is_file():
        raise BenchError(f"{path} does not exist (is FPKG_DATA_DIR the FPKG data folder?)")
    return path


def phenopackets_dir(settings: Settings) -> Path:
    """The real-patient development set (GA4GH phenopacket-store): PHENOPACKETS_DIR, else the
    `phenopackets-dev/` folder beside the FPKG data folder."""
    given = os.environ.get("PHENOPACKETS_DIR")
    return Path(given) if given else settings.data_dir.parent / "phenopackets-dev"


def question_file(settings: Settings, given: Path | None, default: str) -> Path:
    """A question file: the path given, else that name in the data folder's datasets/, else `default` there."""
    if given is None:
        return dataset(settings, default)
    if given.exists() or given.parent != Path("."):
        return given
    return dataset(settings, given.name)


def start_pipeline(settings: Settings):
    """The app's pipeline, its start messages on stderr (stdout may carry --json)."""
    from service.pipeline import Pipeline

    return Pipeline.start(settings, progress=lambda message: print(message, file=sys.stderr))


def progress(items: Iterable[T], desc: str, total: int | None = None) -> Iterator[T]:
    """A progress bar on stderr (stdout may carry --json); sparser when stderr is a log file."""
    yield from tqdm(items, desc=desc, total=total, file=sys.stderr, leave=False,
                    mininterval=1.0 if sys.stderr.isatty() else 15.0)


def percentiles(values: Iterable[float]) -> dict[str, float]:
    values = [float(v) for v in values]
    if not values:
        return {"n": 0}
    return {"n": len(values), "p50": round(float(np.percentile(values, 50)), 3),
            "p95": round(float(np.percentile(values, 95)), 3), "mean": round(statistics.fmean(values), 3),
            "max": round(max(values), 3)}


def limit_threads(threads: int) -> int:
    """Torch's intra-op threads. On a shared 2-core machine two threads contend with other work:
    one thread embedded a question ~10x faster there. Returns what was set (0: torch absent)."""
    try:
        import torch
    except ModuleNotFoundError:
        return 0
    if threads > 0:
        torch.set_num_threads(threads)
    return torch.get_num_threads()


def server_memory_mb(server) -> float:
    """Resident memory of an embedded FalkorDB server, as it reports it (INFO memory)."""
    client = server.client()
    try:
        return round(client.info("memory")["used_memory_rss"] / 2**20, 1)
    finally:
        client.close()


def peak_rss_mb() -> float:
    """This process's peak resident memory. Linux's VmHWM belongs to the process image, whereas
    ru_maxrss survives fork and exec, so a subprocess would report its parent's peak."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    import resource

    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
