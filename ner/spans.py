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
    source: str = "model"  # "model" or "rules"

    def overlaps(self, other: Span) -> bool:
        return self.start < other.end and other.start < self.end

    def contains(self, other: Span) -> bool:
        return self.start <= other.start and other.end <= self.end


def spans_from_words(text: str, words: Sequence[Word], tags: Sequence[WordTag]) -> list[Span]:
    """Character spans for the BIO-tagged words; score is the mean word probability."""
    spans = []
    for kind, first, last in tag_spans([t.label for t in tags]):
        start, end = trim_span(text, words[first].start, words[last - 1].end)
        if start >= end:
            continue
        score = sum(t.score for t in tags[first:last]) / (last - first)
        spans.append(Span(kind, text[start:end], start, end, round(score, 4), "model"))
    return spans
