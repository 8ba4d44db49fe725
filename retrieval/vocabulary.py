"""Names as people write them: normalisation, and splitting lists whose items contain commas."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection

_NON_WORD = re.compile(r"[^0-9a-z]+")


def fold_plural(word: str) -> str:
    if len(word) > 3 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def normalise(text: str) -> str:
    """Lower case, accents and punctuation dropped, plurals folded: 'Low-set EARS' → 'low set ear',
    'Cantú' → 'cantu'."""
    unaccented = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return " ".join(fold_plural(w) for w in _NON_WORD.sub(" ", unaccented.lower()).split())


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
