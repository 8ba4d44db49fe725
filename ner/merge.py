"""Combining model spans with rule spans.

Precedence (rule spans never overlap each other, nor do model spans):
1. A model span that overlaps two or more rule spans is dropped: the model has run several
   entities together ('5yo F, c.1234del in KMT2D' as one MUTATION), as a model trained on
   template text does on free text.
Then, for each rule span:
2. No model span overlaps it: it is added.
3. A model span of the same type contains it: the model span is kept when what it adds reads
   as part of a variant (the corpus' convention, e.g. 'c.1137_1146del TAGTATGTCT'); when it adds
   other words ('c.922A>G - dx') the rule's span wins.
4. A longer model span of another type contains it and the rule is a vocabulary or word
   rule (GENE, RACE, GENDER, AGE): the model span is kept, since a symbol inside a longer
   entity is usually part of its name ('PTEN hamartoma tumour syndrome'). With equal
   boundaries the rule's type wins: a symbol from the gene list is a gene.
5. Otherwise the rule wins and the overlapping model spans are dropped: the rules are
   syntactic (an HGVS string is a variant whatever the model says) and their boundaries
   are exact where the model cuts free text at odd places.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence

from ner.rules import VARIANT_LIKE
from ner.spans import Span

_CONTEXT_SENSITIVE = frozenset({"GENE", "RACE", "GENDER", "AGE"})
_WORDS = re.compile(r"\w")
_LETTERS_AND_DIGITS = re.compile(r"\b(?=\w*\d)(?=\w*[A-Za-z])\w+")  # 'ala344Pro', 'BCL11B_v001'; not '2', 'dx'


def merge_spans(model_spans: Iterable[Span], rule_spans: Iterable[Span]) -> list[Span]:
    """The union of both lists under the precedence above, sorted by start offset."""
    rules = sorted(rule_spans, key=lambda s: (s.start, s.end))
    model = [m for m in sorted(model_spans, key=lambda s: (s.start, s.end)) if len(_overlapping(rules, m)) < 2]
    dropped: set[int] = set()
    added: list[Span] = []
    for rule in rules:
        overlapping = [k for k in _overlapping(model, rule) if k not in dropped]
        if overlapping and _model_keeps(rule, [model[k] for k in overlapping]):
            continue
        dropped.update(overlapping)
        added.append(rule)
    kept = [m for k, m in enumerate(model) if k not in dropped]
    return sorted(kept + added, key=lambda s: (s.start, s.end))


def _overlapping(spans: Sequence[Span], target: Span) -> range:
    """Indexes of the spans (disjoint, sorted) that overlap ``target``, by bisection."""
    ends = _EndsView(spans)
    first = bisect_right(ends, target.start)
    last = bisect_left(_StartsView(spans), target.end)
    return range(first, max(first, last))


class _StartsView(Sequence):
    def __init__(self, spans: Sequence[Span]) -> None:
        self.spans = spans

    def __len__(self) -> int:
        return len(self.spans)

    def __getitem__(self, i):
        return self.spans[i].start


class _EndsView(_StartsView):
    def __getitem__(self, i):
        return self.spans[i].end  # sorted too, since the spans are disjoint


def _model_keeps(rule: Span, overlapping: list[Span]) -> bool:
    for m in overlapping:
        if not m.contains(rule):
            continue
        if m.type == rule.type:
            extra = m.text[:rule.start - m.start] + " " + m.text[rule.end - m.start:]
            return m.type != "MUTATION" or not _WORDS.search(extra) or bool(VARIANT_LIKE.search(extra)) \
                or bool(_LETTERS_AND_DIGITS.search(extra))
        if rule.type in _CONTEXT_SENSITIVE and (m.start, m.end) != (rule.start, rule.end):
            return True
    return False
