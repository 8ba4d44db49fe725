"""Text as a reader should see it: HTML escapes undone, variants in HGVS form, sentences told apart
from names. Only for display: the stored text stays as it is in the evidence (the triples).
"""

from __future__ import annotations

import html
import re

_SPACES = re.compile(r"\s+")
# "c. 16295G > A", "c.481 + 1G > A", "p. Arg1280Cys": the spaces FPKG's curators typed inside a change
_AFTER_PREFIX = re.compile(r"\b([cgmnpr])\.\s+(?=[\w*(\[-])")
_AROUND_OPERATOR = re.compile(r"(?<=[\dA-Za-z*)\]])\s*([>+_]|-(?=\d))\s*(?=[\dA-Za-z(\[*])")
_BEFORE_COMMA = re.compile(r"\s+([,;])")
_HGVS = re.compile(r"\b[cgmnpr]\.\s*[\d*(\[A-Z-]")
_SENTENCE_WORDS = 5


# full-width forms ("（IDDFBA）" in FPKG's names) as their ASCII letters: many fonts draw them as empty boxes
_FULL_WIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}


def plain(text: str) -> str:
    """`text` with full-width punctuation, letters and digits written in ASCII."""
    return text.translate(_FULL_WIDTH)


def clean(text: object) -> str:
    """One line of display text: HTML entities decoded (`&gt;` -> `>`), runs of spaces made one."""
    return _SPACES.sub(" ", html.unescape(str(text if text is not None else ""))).strip()


def hgvs(text: object) -> str:
    """A variant as HGVS writes it: 'c. 16295G > A' -> 'c.16295G>A', 'c.481 + 1G > A' -> 'c.481+1G>A',
    'p. Arg1280Cys' -> 'p.Arg1280Cys'; text that holds no HGVS change is only cleaned."""
    value = clean(text)
    if not _HGVS.search(value):
        return value
    value = _AFTER_PREFIX.sub(r"\1.", value)
    value = _AROUND_OPERATOR.sub(r"\1", value)
    return _SPACES.sub(" ", _BEFORE_COMMA.sub(r"\1 ", value)).strip()


def is_sentence(name: object) -> bool:
    """A node name that is a sentence (curation or source noise: 'CHD7 mutations account for ~60% of
    cases'), not a gene's or a variant's name."""
    value = clean(name)
    words = value.split()
    if "%" in value or value.endswith("."):
        return len(words) > 2
    return len(words) >= _SENTENCE_WORDS and not _HGVS.search(value)


def display_name(name: object, label: str | None) -> str:
    """A node's name for display: a variant in HGVS form, anything else cleaned."""
    return hgvs(name) if label == "Variation" else clean(name)


def age_words(years: float) -> str:
    """An age as a clinician writes it (and the form reads it back): months under two years, else years
    ("11 months", "18 months", "4.5 years")."""
    if years < 2:
        months = round(years * 12, 1)
        return f"{months:g} month{'' if months == 1 else 's'}"
    return f"{round(years, 2):g} years"
