"""The span type returned by inference, and its building from word tags."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ner.labels import tag_spans
from ner.text import Word, trim_span


@dataclass(frozen=True)
class WordTag:
    """The model's label for one word and its probability."""

    label: str
    score: float


@dataclass(frozen=True)
class Span:
    """An entity mention: ``text == source_text[start:end]``."""

    type: str
    text: str
    start: int
    end: int
    score: float
    source: str = "model"  # "model", "rules" or "dictionary"

    def overlaps(self, other: Span) -> bool:
        return self.start < other.end and other.start < self.end

    def contains(self, other: Span) -> bool:
        return self.start <= other.start and other.end <= self.end


# Words a name never starts or ends with, and the mark that separates two names in a list: a
# model trained on template text runs a name on into the next words ('Smith-Magenis syndrome
# and', 'Rett syndrome; CDKL5 deficiency disorder'). Variants keep theirs ('c.2908C > T ; ( p.X )').
LEADING_WORDS = frozenset({"a", "an", "the", "his", "her", "their", "its", "and", "or", "with", "of", "in", "?", "-"})
TRAILING_WORDS = frozenset({"a", "an", "the", "and", "or", "with", "of", "in", "to", "for", "on", "(", "-", "–",
                            "+", "/", "due", "rather", "than", "vs", "versus"})
SEPARATORS = frozenset({";", "|"})


def spans_from_words(text: str, words: Sequence[Word], tags: Sequence[WordTag]) -> list[Span]:
    """Character spans for the BIO-tagged words; score is the mean word probability."""
    spans = []
    for kind, run_first, run_last in tag_spans([t.label for t in tags]):
        for first, last in _name_parts(kind, words, run_first, run_last):
            start, end = trim_span(text, words[first].start, words[last - 1].end)
            if start >= end:
                continue
            score = sum(t.score for t in tags[first:last]) / (last - first)
            spans.append(Span(kind, text[start:end], start, end, round(score, 4), "model"))
    return spans


def _name_parts(kind: str, words: Sequence[Word], first: int, last: int) -> list[tuple[int, int]]:
    """The word ranges of a tagged run: split at separators, edge words dropped (not variants)."""
    if kind == "MUTATION":
        return [(first, last)]
    parts, start = [], first
    for i in range(first, last + 1):
        # a separator before one last word is the corpus' way to add an abbreviation ('CHUNG-JANSEN
        # SYNDROME ; CHUJANS'); before more words it parts two names
        if i == last or words[i].text in SEPARATORS and last - i > 2:
            a, b = start, _before_unclosed_bracket(words, start, i)
            while a < b and words[a].text.lower() in LEADING_WORDS:
                a += 1
            while b > a and words[b - 1].text.lower() in TRAILING_WORDS:
                b -= 1
            if a < b:
                parts.append((a, b))
            start = i + 1
    return parts


def _before_unclosed_bracket(words: Sequence[Word], first: int, last: int) -> int:
    """Where the name ends if a '(' in it is never closed ('Marfan syndrome (FBN1'): before that
    bracket. A closed one stays, as the corpus writes abbreviations ('Verheij syndrome ( VRJS )')."""
    open_at: list[int] = []
    for i in range(first, last):
        if words[i].text == "(":
            open_at.append(i)
        elif words[i].text == ")" and open_at:
            open_at.pop()
    return open_at[0] if open_at else last
