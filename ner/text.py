"""Splitting raw text into corpus-like words, keeping character offsets.

The corpus separates brackets, commas, semicolons and question marks from words but keeps
HGVS strings (``c.1529delG``, ``p.Gly510Alafs*12``) and hyphenated terms whole, so raw text
is split the same way before the model sees it.
"""

from __future__ import annotations

import re
from typing import NamedTuple

_WORD = re.compile(r"""[(),;?!\[\]{}"]|[^\s(),;?!\[\]{}"]+""")
# 'p.', 'c.', 'g.' (HGVS prefixes written apart, as in 'c. 743C > T') keep their dot.
_KEEP_DOT = re.compile(r"[A-Za-z]\.|\d+\.\d*")
# Control characters other than tab and newline; replaced one-for-one so offsets hold.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


class Word(NamedTuple):
    text: str
    start: int
    end: int


def clean(text: str) -> str:
    """Replace control characters by spaces without changing the length."""
    return _CONTROL.sub(" ", text)


def split_words(text: str) -> list[Word]:
    """Words of ``text`` with their character offsets; a final '.' or ':' is split off."""
    words: list[Word] = []
    for match in _WORD.finditer(text):
        token, start, end = match.group(), match.start(), match.end()
        if len(token) > 1 and token[-1] in ".:" and not _KEEP_DOT.fullmatch(token):
            words.append(Word(token[:-1], start, end - 1))
            words.append(Word(token[-1], end - 1, end))
        else:
            words.append(Word(token, start, end))
    return words


def trim_span(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink a span past surrounding spaces, trailing '.,;:' and unbalanced brackets."""
    while start < end and (text[start].isspace() or text[start] in ",;:"):
        start += 1
    while end > start and (text[end - 1].isspace() or text[end - 1] in ".,;:"):
        end -= 1
    for opening, closing in ("()", "[]"):
        piece = text[start:end]
        if piece.endswith(closing) and piece.count(closing) > piece.count(opening):
            end -= 1
        piece = text[start:end]
        if piece.startswith(opening) and piece.count(opening) > piece.count(closing):
            start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
