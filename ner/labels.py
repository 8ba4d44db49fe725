"""The label set, BIO decoding and the mapping of generic ``LABEL_i`` names.

The published ``hfchloe/FP_NER`` model indexed its labels in sorted order and may carry
only ``LABEL_0..12`` in its config; our models use the same 13 labels in the same order,
so either kind of checkpoint decodes the same way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from fpkg.errors import LabelError

ENTITY_TYPES: tuple[str, ...] = (
    "AGE", "DISEASE", "FACIAL_PHENOTYPE", "GENDER", "GENE", "MUTATION", "RACE",
)

# Sorted, exactly as the paper's training script indexed them (no I-AGE, no I-GENDER).
LABELS: tuple[str, ...] = (
    "B-AGE", "B-DISEASE", "B-FACIAL_PHENOTYPE", "B-GENDER", "B-GENE", "B-MUTATION", "B-RACE",
    "I-DISEASE", "I-FACIAL_PHENOTYPE", "I-GENE", "I-MUTATION", "I-RACE", "O",
)
LABEL2ID: dict[str, int] = {label: i for i, label in enumerate(LABELS)}
ID2LABEL: dict[int, str] = dict(enumerate(LABELS))

_GENERIC = re.compile(r"LABEL_(\d+)")


def is_valid_tag(tag: str) -> bool:
    """True for ``O`` and for ``B-``/``I-`` followed by a known entity type."""
    if tag == "O":
        return True
    prefix, _, entity = tag.partition("-")
    return prefix in ("B", "I") and entity in ENTITY_TYPES


def resolve_id2label(id2label: Mapping[int, str]) -> dict[int, str]:
    """Return real tag names for a model config's ``id2label``.

    Generic names (``LABEL_0`` ...) are read through the sorted label list; named labels
    must all be valid tags.
    """
    names = {int(i): str(name) for i, name in id2label.items()}
    generic = [_GENERIC.fullmatch(name) for name in names.values()]
    if all(generic):
        if len(names) != len(LABELS):
            raise LabelError(
                f"the model has {len(names)} generic labels; expected {len(LABELS)} "
                f"(the sorted list {', '.join(LABELS)})"
            )
        return {i: LABELS[int(_GENERIC.fullmatch(name).group(1))] for i, name in names.items()}
    unknown = sorted(name for name in names.values() if not is_valid_tag(name))
    if unknown:
        raise LabelError(f"the model's labels include unknown tags: {', '.join(unknown)}")
    return names


def tag_spans(tags: Sequence[str]) -> list[tuple[str, int, int]]:
    """Decode BIO tags into ``(type, first, last_exclusive)`` word ranges.

    Lenient like seqeval's default mode: an ``I-X`` that does not continue an ``X`` span
    starts a new one, because a model's stray ``I-`` is still evidence of an entity.
    """
    spans: list[tuple[str, int, int]] = []
    current: list = []  # [type, start]
    for i, tag in enumerate(tags):
        prefix, _, entity = tag.partition("-")
        continues = prefix == "I" and current and current[0] == entity
        if current and not continues:
            spans.append((current[0], current[1], i))
            current = []
        if prefix in ("B", "I") and not continues:
            current = [entity, i]
    if current:
        spans.append((current[0], current[1], len(tags)))
    return spans
