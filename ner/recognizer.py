"""What the pipeline needs from an entity recogniser (`ner.predict.EntityRecognizer` is one)."""

from __future__ import annotations

from typing import Protocol

from ner.spans import Span


class Recognizer(Protocol):
    notice: str | None  # why the model is not in use (rules only), or None
    model_name: str | None

    def predict(self, text: str | None) -> list[Span]:
        """The entity spans in `text`, with character offsets into it."""
        ...
