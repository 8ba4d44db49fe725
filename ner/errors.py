"""The NER package's exceptions: one root, a subclass per kind of problem."""

from __future__ import annotations


class NerError(Exception):
    """Root of the errors raised by the ``ner`` package."""


class CorpusError(NerError, ValueError):
    """A corpus file that cannot be read; the message names the file and line."""


class LabelError(NerError, ValueError):
    """A tag or a model's label list that this project cannot interpret."""


class TrainError(NerError, RuntimeError):
    """Training cannot start or finish (missing base model, labels outside the label set)."""
