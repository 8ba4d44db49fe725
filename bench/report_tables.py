"""The report's markdown tables, each built from the latest results ({command: {variant: record}})."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kg_dump.data_files import PUBLICATION_OPEN_SET, PUBLICATION_SET
from retrieval.hold_out import WHOLE_PAPER
from retrieval.retriever import MODES

Records = dict[str, dict[str, dict[str, Any]]]
# a diagnosis result's "questions" is its file's stem
SELECTIVE, NON_SELECTIVE = Path(PUBLICATION_SET).stem, Path(PUBLICATION_OPEN_SET).stem
PUBLICATION_STEMS = {SELECTIVE: "selective", NON_SELECTIVE: "non-selective"}


def md_table(headers: list[str], rows: list[list[Any]]) -> list[str]:
    def cell(value: Any) -> str:
        return "–" if value is None else str(value).replace("|", "\\|")

    return ["| " + " | ".join(headers) + " |", "|" + "|".join(" --- " for _ in headers) + "|",
            *("| " + " | ".join(cell(v) for v in row) + " |" for row in rows)]


def pct(value: float | None, digits: int = 1) -> str | None:
    return None if value is None else f"{value * 100:.{digits}f} %"


def ms(value: float | None) -> str | None:
    return None if value is None else f"{value:.1f}"


def _results(records: Records, command: str) -> list[dict[str, Any]]:
    return [r["result"] for _, r in sorted(records.get(command, {}).items())]


def _full_publication(records: Records, stem: str, mode: str, hold_out: bool) -> dict[str, Any] | None:
    """The grounded-or-whatever run of the whole file (no --limit) in `mode`."""
    for variant, record in records.get("diagnosis", {}).items():
        result = record["result"]
        if (result["questions"] == stem and result["mode"] == mode and result["hold_out_case"] == hold_out
                and "limit" not in variant and not result.get("temperature")):
            return result
    return None


def targets(records: Records) -> list[str]:
    rows = []
    for stem, goal in ((SELECTIVE, 0.98), (NON_SELECTIVE, 0.95)):
        kind = PUBLICATION_STEMS[stem]
        found = _full_publication(records, stem, "cypher", False)
        if found:
            acc = found["accuracy"]
            rows.append([f"Publication {kind}, {found['backend']}, top-1 ≥ {goal:.0%}",
                         f"{pct(acc['top1_linked'])} linked, {pct(acc['top1_strict'])} strict (n={acc['n']})",
                         _met(acc["top1_linked"] >= goal)])
    domain = records.get("domain", {})
    cypher = next((r["result"] for v, r in domain.items() if v.startswith("cypher") and "limit" not in v), None)
    if cypher:
        lowest = min(cypher["tasks"].items(), key=lambda kv: kv[1]["coverage"])
        rows.append(["domain coverage ≥ 95 % per task (cypher mode)",
                     f"lowest: {lowest[0]} {pct(lowest[1]['coverage'])}",
                     _met(all(t["coverage"] >= 0.95 for t in cypher["tasks"].values()))])
    perf = next(iter(_results(records, "perf")), None)
    if perf:
        total = perf["stages"].get("cypher", {}).get("total")
        if total:
            rows.append(["diagnose p50 ≤ 100 ms without an LLM", f"{total['p50']:.0f} ms", _met(total["p50"] <= 100)])
        glee = perf.get("glee_baseline", {})
        if "ratio_p50" in glee:
            rows.append(["vector retrieval ≥ 100× faster than the per-question GLEE refit",
                         f"{glee['ratio_p50']:.0f}×", _met(glee["ratio_p50"] >= 100)])
        scale = perf.get("scaling")
        if scale and scale.get("ratio_largest_to_fpkg_p50"):
            rows.append([f"diagnose p50 at {scale['largest']} within 2× of FPKG's",
                         f"{scale['ratio_largest_to_fpkg_p50']:.2f}×", _met(scale["ratio_largest_to_fpkg_p50"] <= 2)])
    for result in _results(records, "consistency"):
        rows.append([f"consistency 100 % ({result['backend']})", pct(result["consistency"]),
                     _met(result["consistency"] == 1.0)])
    for result in _results(records, "temperature"):
        rows.append([f"σ over temperatures = 0 ({result['backend']})", f"{result['sigma_top1_linked']:.4f}",
                     _met(result["sigma_top1_linked"] == 0)])
    return md_table(["target", "measured", "met"], rows) if rows else []


def _met(ok: bool) -> str:
    return "yes" if ok else "**no**"


def publication(records: Records) -> list[str]:
    rows = []
    for result in _results(records, "diagnosis"):
        acc = result["accuracy"]
        kind = PUBLICATION_STEMS.get(result["questions"], result["questions"])
        held = "no" if not result["hold_out_case"] else (result.get("hold_out_rule") or WHOLE_PAPER)
        rows.append([kind, result["mode"], result["backend"], held, acc["n"],
                     pct(acc["top1_strict"]), pct(acc["top1_linked"]), pct(acc["top10_linked"]),
                     ms(result["latency_ms"].get("p50"))])
    rows.sort(key=lambda r: (r[0], MODES.index(r[1]) if r[1] in MODES else len(MODES), r[3]))
    return md_table(["questions", "mode", "backend", "case held out", "n", "top-1 strict", "top-1 linked",
                     "top-10 linked", "p50 ms"], rows) if rows else []


def domain(records: Records) -> list[str]:
    runs = _results(records, "domain")
    if not runs:
        return []
    tasks = list(dict.fromkeys(t for r in runs for t in r["tasks"]))
    headers = ["task"] + [f"{r['mode']} ({r['backend']})" for r in runs]
    rows = []
    for task in tasks:
        row = [task]
        for r in runs:
            part = r["tasks"].get(task)
            if part is None:
                row.append(None)
            elif "semantic_f1" in part:
                row.append(f"{pct(part['coverage'])} / {part['semantic_f1']:.3f}")
            else:
                row.append(pct(part["coverage"]))
        rows.append(row)
    note = next((r["semantic_note"] for r in runs if "semantic_note" in r), "")
    return ["Each cell: coverage of the reference items / semantic F1. " + note + ".", "",
            *md_table(headers, rows)]


def reference_doubts(records: Records) -> list[str]:
    """Questions whose reference the graph's answer misses most: candidates for reference errors."""
    runs = {r["mode"]: r for r in _results(records, "domain")}
    run = runs.get("cypher")
    if not run:
        return []
    rows = []
    for task, part in run["tasks"].items():
        for low in part["below_target"]:
            rows.append([task, low["question"], pct(low["coverage"], 0), ", ".join(low["missing"][:8])])
    return (["Cypher-mode answers below 95 % coverage, with the reference items they miss (look at these before "
             "trusting the reference: e.g. an item listed for the wrong disease)", "",
             *md_table(["task", "question", "coverage", "missing reference items"], rows)] if rows else [])


def repeats(records: Records) -> list[str]:
    rows = []
    for r in _results(records, "consistency"):
        rows.append(["consistency", r["backend"], r["mode"], r["questions"],
                     f"{pct(r['consistency'])} ({r['repeats']} repeats, T={r['temperature']:g})"])
    for r in _results(records, "temperature"):
        per_t = ", ".join(f"{row['temperature']:g}: {pct(row['accuracy']['top1_linked'], 0)}"
                          for row in r["by_temperature"])
        rows.append(["temperature", r["backend"], r["mode"], r["questions"],
                     f"σ = {r['sigma_top1_linked']:.4f}; top-1 linked per T: {per_t}"])
    return md_table(["experiment", "backend", "mode", "questions", "result"], rows) if rows else []


def stages(records: Records) -> list[str]:
    perf = next(iter(_results(records, "perf")), None)
    if not perf:
        return []
    from bench.perf import STAGE_NAMES

    modes = list(perf["stages"])
    rows = []
    for stage, name in STAGE_NAMES.items():
        row = [name]
        for mode in modes:
            p = perf["stages"][mode].get(stage)
            row += [ms(p["p50"]), ms(p["p95"])] if p else [None, None]
        rows.append(row)
    headers = ["stage (ms)"] + [f"{m} {q}" for m in modes for q in ("p50", "p95")]
    out = md_table(headers, rows)
    glee = perf.get("glee_baseline", {})
    if "refit_ms" in glee:
        out += ["", *md_table(["vector retrieval, same links", "p50 ms", "p95 ms", "n"], [
            ["ours (cached GLEE + text index)", ms(glee["vector_ms"]["p50"]), ms(glee["vector_ms"]["p95"]),
             glee["vector_ms"]["n"]],
            ["paper: GLEE refit on the whole graph per question", ms(glee["refit_ms"]["p50"]),
             ms(glee["refit_ms"]["p95"]), glee["refit_ms"]["n"]],
            ["ratio (p50)", f"{glee['ratio_p50']:.0f}×", None, None]])]
    return out


def scaling(records: Records) -> list[str]:
    perf = next(iter(_results(records, "perf")), None)
    if not perf or not perf.get("scaling"):
        return []
    rows_in = perf["scaling"]["rows"]
    bases = [rows_in[0]["diagnose_ms"].get("p50"), rows_in[min(1, len(rows_in) - 1)]["diagnose_ms"].get("p50")]

    def ratio(row: dict[str, Any], base: float | None) -> str | None:
        return f"{row['diagnose_ms']['p50'] / base:.2f}×" if base else None

    rows = [[r["graph"], r["nodes"], r["relationships"], r["load_s"], r.get("profiles_load_s"), r.get("server_rss_mb"),
             ms(r["diagnose_ms"].get("p50")), ms(r["diagnose_ms"].get("p95")), ms(r["queries_ms"].get("p50")),
             ms(r["ask_ms"].get("p50")), ratio(r, bases[0]), ratio(r, bases[1])] for r in rows_in]
    return ["Same cases and questions on every graph, interleaved case by case, all graphs side by side in a "
            "private embedded FalkorDB; the "
            "synthetic graphs are disjoint renamed copies of FPKG+HPO, so a query's neighbourhood does not grow "
            "with them (FPKG alone answers smaller neighbourhoods: fewer diseases per gene and phenotype).", "",
            *md_table(["graph", "nodes", "relationships", "load s", "profiles read s", "server MB added",
                       "diagnose p50 ms", "p95 ms", "graph queries p50 ms", "template ask p50 ms", "vs FPKG",
                       "vs FPKG+HPO"], rows)]


def starts(records: Records) -> list[str]:
    perf = next(iter(_results(records, "perf")), None)
    if not perf:
        return []
    rows = []
    if "starts" in perf:
        for name, s in (("cold start (fresh cache: graph build)", perf["starts"]["cold"]),
                        ("restart from snapshot", perf["starts"]["restart"])):
            rows.append([name, s["ready_s"], s["first_answer_s"], s["process_s"], s["peak_rss_mb"],
                         s.get("server_rss_mb")])
    memory = perf["memory"]
    rows.append(["this benchmark process (peak)", None, None, None, memory["bench_peak_rss_mb"],
                 memory["falkordb_server_rss_mb"]])
    return md_table(["start", "ready s", "first answer s", "with imports s", "peak RSS MB", "FalkorDB RSS MB"],
                    rows)


def totals(records: Records) -> list[str]:
    run = records.get("all", {}).get("all")
    if not run:
        return []
    parts = ", ".join(f"{k} {v:.0f} s" for k, v in run["result"]["seconds"].items())
    return [f"`python -m bench all` took {run['result']['total_s']:.0f} s ({parts})."]


TABLES = [("Targets", targets), ("Publication set: diagnostic accuracy", publication),
          ("Domain questions: coverage and semantic score per task", domain),
          ("Consistency and temperature", repeats), ("Latency per stage", stages),
          ("Scaling", scaling), ("Starts and memory", starts), ("Reference answers to check", reference_doubts),
          ("Run time", totals)]
