"""The report's PNG plots (matplotlib, no display): one function per plot, skipped without its results."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only; must precede pyplot
import matplotlib.pyplot as plt  # noqa: E402

Records = dict[str, dict[str, dict[str, Any]]]


def _perf(records: Records) -> dict[str, Any] | None:
    return next((r["result"] for r in records.get("perf", {}).values()), None)


def scaling_plot(records: Records, out: Path) -> bool:
    perf = _perf(records)
    rows = (perf or {}).get("scaling", {}).get("rows")
    if not rows:
        return False
    fig, ax = plt.subplots(figsize=(6, 4))
    nodes = [r["nodes"] for r in rows]
    for key, label in (("p50", "diagnose p50"), ("p95", "diagnose p95")):
        ax.plot(nodes, [r["diagnose_ms"][key] for r in rows], marker="o", label=label)
    ax.plot(nodes, [r["ask_ms"]["p50"] for r in rows], marker="s", label="template ask p50")
    for r in rows:
        ax.annotate(r["graph"], (r["nodes"], r["diagnose_ms"]["p50"]), textcoords="offset points", xytext=(4, 4),
                    fontsize=8)
    ax.set_xscale("log")
    ax.set_xlabel("nodes in the graph")
    ax.set_ylabel("ms")
    ax.set_title("Latency against graph size")
    ax.legend()
    return _save(fig, out)


def stages_plot(records: Records, out: Path) -> bool:
    perf = _perf(records)
    if not perf or not perf.get("stages"):
        return False
    modes = list(perf["stages"])
    stages = [s for s in ("ner", "linking", "queries", "vector_retrieval", "ranking", "generation", "total")
              if any(s in perf["stages"][m] for m in modes)]
    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.8 / len(modes)
    for i, mode in enumerate(modes):
        values = [perf["stages"][mode].get(s, {}).get("p50", 0) for s in stages]
        ax.bar([x + i * width for x in range(len(stages))], values, width, label=f"{mode} p50")
    ax.set_xticks([x + width * (len(modes) - 1) / 2 for x in range(len(stages))], stages, rotation=20)
    ax.set_ylabel("ms")
    ax.set_title("Median latency per stage")
    ax.legend()
    return _save(fig, out)


def domain_plot(records: Records, out: Path) -> bool:
    runs = [r["result"] for _, r in sorted(records.get("domain", {}).items())]
    if not runs:
        return False
    tasks = list(dict.fromkeys(t for r in runs for t in r["tasks"]))
    fig, ax = plt.subplots(figsize=(8, 4))
    width = 0.8 / len(runs)
    for i, run in enumerate(runs):
        values = [run["tasks"].get(t, {}).get("coverage", 0) * 100 for t in tasks]
        ax.bar([x + i * width for x in range(len(tasks))], values, width, label=f"{run['mode']} ({run['backend']})")
    ax.axhline(95, color="grey", linestyle="--", linewidth=1, label="target 95 %")
    ax.set_xticks([x + width * (len(runs) - 1) / 2 for x in range(len(tasks))], tasks, rotation=12, fontsize=8)
    ax.set_ylabel("coverage %")
    ax.set_ylim(0, 105)
    ax.set_title("Domain questions: coverage of the reference items")
    ax.legend(fontsize=8)
    return _save(fig, out)


def temperature_plot(records: Records, out: Path) -> bool:
    runs = [r["result"] for _, r in sorted(records.get("temperature", {}).items())]
    if not runs:
        return False
    fig, ax = plt.subplots(figsize=(6, 4))
    for run in runs:
        rows = run["by_temperature"]
        ax.plot([r["temperature"] for r in rows], [r["accuracy"]["top1_linked"] * 100 for r in rows], marker="o",
                label=f"{run['backend']} ({run['mode']}), σ = {run['sigma_top1_linked']:.3f}")
    ax.set_xlabel("temperature")
    ax.set_ylabel("top-1 accuracy %")
    ax.set_ylim(0, 105)
    ax.set_title("Accuracy across temperatures")
    ax.legend()
    return _save(fig, out)


def _save(fig, out: Path) -> bool:
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return True


PLOTS = {"scaling.png": scaling_plot, "stages.png": stages_plot, "domain.png": domain_plot,
         "temperature.png": temperature_plot}


def make_plots(records: Records, folder: Path) -> list[str]:
    """Draw every plot whose results exist; returns their paths."""
    return [str(folder / name) for name, plot in PLOTS.items() if plot(records, folder / name)]
