"""Splitting lists of names whose items contain commas."""

from __future__ import annotations

from collections.abc import Collection

from fpkg.names import normalise


def split_names(text: str, vocabulary: Collection[str], max_join: int = 4) -> list[str]:
    """Split a comma-separated list whose items may themselves hold commas.

    `vocabulary` holds normalised names; consecutive pieces are joined back together when
    the joined text is a known name ("High, narrow palate" stays one item).
    """
    pieces = [p.strip() for p in text.split(",")]
    pieces = [p for p in pieces if p]
    items: list[str] = []
    i = 0
    while i < len(pieces):
        taken = 1
        for size in range(min(max_join, len(pieces) - i), 1, -1):
            if normalise(", ".join(pieces[i:i + size])) in vocabulary:
                taken = size
                break
        items.append(", ".join(pieces[i:i + taken]))
        i += taken
    return items
