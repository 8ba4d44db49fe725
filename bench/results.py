"""The results folder: one JSON file per run, the latest kept per command and variant.

    results/<command>/<variant>.json   e.g. results/diagnosis/Publication_patient_question-cypher-grounded.json

The folder is `results/` at the repository root (git-ignored) unless FPKG_RESULTS_DIR or
--results-dir says otherwise. Every file records when and where it ran and how to rerun it.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shlex
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psutil

REPO_ROOT = Path(__file__).resolve().parent.parent
RESULTS_ENV = "FPKG_RESULTS_DIR"
_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]+")


def results_dir(override: str | Path | None = None) -> Path:
    if override:
        return Path(override)
    return Path(os.environ.get(RESULTS_ENV) or REPO_ROOT / "results")


def cpu_model() -> str:
    """The CPU's marketing name (Linux /proc/cpuinfo), else what platform knows."""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(errors="replace").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def machine() -> dict[str, Any]:
    torch = sys.modules.get("torch")  # only when the run used it: importing it costs seconds
    return {"cpus": os.cpu_count(), "ram_gb": round(psutil.virtual_memory().total / 2**30, 1),
            "cpu_model": cpu_model(), "python": platform.python_version(), "platform": platform.platform(),
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "torch_threads": torch.get_num_threads() if torch is not None else None}


def variant_name(*parts: object) -> str:
    """A file-name-safe variant from its parts, empty parts left out."""
    return "-".join(_UNSAFE.sub("_", str(p)) for p in parts if p not in (None, "", False))


def save(command: str, variant: str, result: dict[str, Any], *, seconds: float,
         argv: list[str] | None = None, folder: str | Path | None = None,
         provenance: dict[str, Any] | None = None) -> Path:
    """Write one run's record (replacing the previous run of the same command and variant);
    `provenance`: the HPO release, graph and NER model behind the figures."""
    argv = [a for a in (sys.argv[1:] if argv is None else argv) if a != "--json"]  # output format only
    record = {"command": command, "variant": variant,
              "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
              "seconds": round(seconds, 2), "rerun": "python -m bench " + shlex.join(argv),
              "machine": machine(), "provenance": provenance or {}, "result": result}
    path = results_dir(folder) / command / f"{variant or command}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(record, indent=1, default=_plain))
    tmp.replace(path)  # a reader never sees half a file
    return path


def latest(folder: str | Path | None = None) -> dict[str, dict[str, dict[str, Any]]]:
    """Every stored run: {command: {variant: record}}."""
    root = results_dir(folder)
    found: dict[str, dict[str, dict[str, Any]]] = {}
    if not root.is_dir():
        return found
    for path in sorted(root.glob("*/*.json")):
        record = json.loads(path.read_text())
        found.setdefault(path.parent.name, {})[path.stem] = record
    return found


def _plain(value: Any) -> Any:
    """JSON for the odd types results hold (paths, sets, numpy scalars)."""
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, set | frozenset | tuple):
        return sorted(value) if isinstance(value, set | frozenset) else list(value)
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"cannot store {type(value).__name__} in a result")
