"""Markdown an answer is written in: tables a clinician scans (finding | A | B) and numbered lists.

Cells and items are names from the graph: a '|' in one would split a cell, and a line that starts with a
number and a stop would read as a list of its own; both are escaped here, nothing else is touched (the app
escapes what could become HTML).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def cell(text: object) -> str:
    """One table cell: a '|' escaped, line breaks made spaces."""
    return " ".join(str(text if text is not None else "").split()).replace("|", "\\|")


def table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A GitHub-flavoured Markdown table; '' when there are no rows."""
    rows = [[cell(value) for value in row] for row in rows]
    if not rows:
        return ""
    lines = ["| " + " | ".join(cell(h) for h in headers) + " |", "|" + "|".join(" --- " for _ in headers) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def numbered(items: Iterable[str]) -> str:
    """'1. A\\n2. B': one item a line, numbered from 1."""
    return "\n".join(f"{i}. {' '.join(str(item).split())}" for i, item in enumerate(items, start=1))


def and_list(names: Sequence[str]) -> str:
    """'A', 'A and B', 'A, B and C'."""
    names = [name for name in names if name]
    if len(names) <= 1:
        return names[0] if names else ""
    return ", ".join(names[:-1]) + " and " + names[-1]
