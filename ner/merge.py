"""Combining model spans with rule spans.

Precedence, for each rule span (rule spans never overlap each other):
1. No model span overlaps it: it is added.
2. A model span of the same type contains it: the model span is kept (it may carry more
   context in the corpus' convention, e.g. 'c.1137_1146del TAGTATGTCT').
3. A longer model span of another type contains it and the rule is a vocabulary or word
   rule (GENE, RACE, GENDER, AGE): the model span is kept, since a symbol inside a longer
   entity is usually part of its name ('Coffin-Siris syndrome 4 (CSS4)'). With equal
   boundaries the rule's type wins: a symbol from the gene list is a gene.
4. Otherwise the rule wins: the overlapping model spans are dropped. The rules are
   syntactic (an HGVS string is a variant whatever the model says) and their boundaries
   are exact where the model, trained on template text, cuts free text at odd places.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable

from ner.spans import Span

_CONTEXT_SENSITIVE = frozenset({"GENE", "RACE", "GENDER", "AGE"})


def merge_spans(model_spans: Iterable[Span], rule_spans: Iterable[Span]) -> list[Span]:
    """The union of both lists under the precedence above, sorted by start offset.

    Each list must be free of overlaps within itself (as BIO decoding and the rules give).
    """
    model = sorted(model_spans, key=lambda s: (s.start, s.end))
    starts = [m.start for m in model]
    ends = [m.end for m in model]  # sorted too, since the spans are disjoint
    dropped: set[int] = set()
    added: list[Span] = []
    for rule in rule_spans:
        overlapping = [k for k in range(bisect_right(ends, rule.start), bisect_left(starts, rule.end))
                       if k not in dropped]
        if overlapping and _model_keeps(rule, [model[k] for k in overlapping]):
            continue
        dropped.update(overlapping)
        added.append(rule)
    kept = [m for k, m in enumerate(model) if k not in dropped]
    return sorted(kept + added, key=lambda s: (s.start, s.end))


def _model_keeps(rule: Span, overlapping: list[Span]) -> bool:
    for m in overlapping:
        if not m.contains(rule):
            continue
        if m.type == rule.type:
            return True
        if rule.type in _CONTEXT_SENSITIVE and (m.start, m.end) != (rule.start, rule.end):
            return True
    return False
