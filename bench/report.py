"""python -m bench report: the latest results as markdown tables and PNG plots.

    python -m bench report [--results-page RESULTS.md | --no-results-page] [--json]

Writes results/RESULTS.md and results/plots/*.png, and replaces the part of the results page
(RESULTS.md at the repository root) between `<!-- results:start -->` and `<!-- results:end -->`
(nothing else; a page without the markers gets a "## Results" section appended). Sections whose
results are missing are left out of results/RESULTS.md; each run's command to rerun it is listed.
The results page is left alone when results/ lacks a section its block already shows (a machine
holding only some runs would otherwise drop the others' published figures): the output names
those sections.
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench import report_plots, results
from bench.report_tables import TABLES, md_table

RESULTS_PAGE = results.REPO_ROOT / "RESULTS.md"
START, END = "<!-- results:start -->", "<!-- results:end -->"


def replace_section(text: str, section: str) -> str:
    """`text` with what lies between the markers replaced by `section` (appended if absent)."""
    start, end = text.find(START), text.find(END)
    if start == -1 or end == -1 or end < start:
        if START in text or END in text:
            raise ValueError("the results page has only one of the results markers, or them in the wrong order")
        return text.rstrip("\n") + f"\n\n## Results\n\n{START}\n{section.strip()}\n{END}\n"
    return text[:start + len(START)] + "\n" + section.strip() + "\n" + text[end:]


def refresh_results_page(path: Path, section: str) -> list[str]:
    """Replace the results page's block with `section`, unless that would drop a section it shows.
    Returns the titles of the sections `section` lacks (the page is then unchanged)."""
    text = path.read_text(encoding="utf-8")
    start, end = text.find(START), text.find(END)
    shown = _titles(text[start:end]) if -1 < start < end else []
    missing = [title for title in shown if title not in _titles(section)]
    if not missing:
        path.write_text(replace_section(text, section), encoding="utf-8")
    return missing


def _titles(block: str) -> list[str]:
    """The bold section titles (`**Title**` lines) of a rendered results block."""
    return [line.strip()[2:-2] for line in block.splitlines()
            if line.strip().startswith("**") and line.strip().endswith("**") and len(line.strip()) > 4]


def header(records: dict[str, dict[str, dict[str, Any]]]) -> list[str]:
    runs = [r for variants in records.values() for r in variants.values()]
    newest = max(runs, key=lambda r: r["finished_at"])
    m = newest["machine"]
    return [f"Measured {newest['finished_at'][:10]} on {m['cpus']} CPU cores ({m['cpu_model']}), "
            f"{m['ram_gb']} GB RAM, Python {m['python']}; load average at the end {m['load_average']} "
            f"(the machine is shared: latencies include other people's work), torch threads "
            f"{m.get('torch_threads')}. Rerun everything with `python -m bench all` "
            f"(then `python -m bench report`), or the single commands listed at the end."]


def render(records: dict[str, dict[str, dict[str, Any]]], plots: list[str], plot_prefix: str) -> str:
    if not records:
        return "_No results yet: run `python -m bench all`._"
    lines = header(records)
    for title, table in TABLES:
        rows = table(records)
        if rows:
            lines += ["", f"**{title}**", "", *rows]
    if plots:
        lines += ["", "**Plots** (written by `python -m bench report`; results/ is not committed)", ""]
        lines += [f"![{Path(p).stem}]({plot_prefix}{Path(p).name})" for p in plots]
    commands = sorted({r["rerun"] for variants in records.values() for r in variants.values()})
    lines += ["", "**Commands to rerun**", "", "```", *commands, "```"]
    return "\n".join(lines)


def make_report(folder: str | Path | None = None,
                results_page: Path | None = RESULTS_PAGE) -> tuple[str, str, list[str]]:
    """Write results/RESULTS.md and the plots; refresh `results_page` when given and present. Returns
    (path, markdown, the page's sections results/ lacks: when any, the page was left alone)."""
    root = results.results_dir(folder)
    records = results.latest(root)
    plots = report_plots.make_plots(records, root / "plots")
    markdown = render(records, plots, "plots/")
    root.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    (root / "RESULTS.md").write_text(f"# Benchmark results\n\n_Report made {stamp}._\n\n{markdown}\n")
    missing: list[str] = []
    if results_page is not None and results_page.exists():
        relative = _relative(root / "plots", results_page.parent)
        missing = refresh_results_page(results_page, render(records, plots, relative + "/"))
    return str(root / "RESULTS.md"), markdown, missing


def _relative(path: Path, start: Path) -> str:
    try:
        return str(path.resolve().relative_to(start.resolve()))
    except ValueError:
        return str(path.resolve())


def register(subparsers, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser("report", parents=[common], help="markdown tables, plots, RESULTS.md's block",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_results_page_arguments(parser)
    parser.set_defaults(handler=handle)


def add_results_page_arguments(parser: argparse.ArgumentParser) -> None:
    """--results-page PATH / --no-results-page (--readme and --no-readme: hidden, deprecated aliases)."""
    parser.add_argument("--results-page", type=Path, default=RESULTS_PAGE, metavar="PATH",
                        help="the page whose results block to refresh (default: RESULTS.md at the repository root)")
    parser.add_argument("--no-results-page", action="store_true", help="leave the results page alone")
    parser.add_argument("--readme", type=Path, dest="results_page", help=argparse.SUPPRESS)
    parser.add_argument("--no-readme", action="store_true", dest="no_results_page", help=argparse.SUPPRESS)


def results_page(args: argparse.Namespace) -> Path | None:
    """The page to refresh, or None when the command line says to leave it alone."""
    return None if args.no_results_page else args.results_page


def handle(args: argparse.Namespace, context) -> tuple[None, dict[str, Any], str]:
    page = results_page(args)
    path, markdown, missing = make_report(args.results_dir, page)
    refreshed = page is not None and page.exists() and not missing
    note = f"; {page} refreshed" if refreshed else ""
    if missing:
        note = (f"; {page} left alone: results/ holds no runs for {', '.join(missing)}, which it shows "
                "(run them, or `python -m bench all`, first)")
    return None, {"report": path, "results_page": str(page) if refreshed else None, "results_page_kept": missing,
                  "markdown": markdown}, markdown + f"\n\n(written to {path}{note})"


__all__ = ["add_results_page_arguments", "md_table", "make_report", "refresh_results_page", "replace_section",
           "results_page"]
