"""Reading the Markdown an answer is written in: a table's rows by its header line."""

from __future__ import annotations


def table_rows(answer: str, header: str) -> list[list[str]]:
    """The rows of the Markdown table whose header line starts with `header` (cells stripped)."""
    lines = answer.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return rows
