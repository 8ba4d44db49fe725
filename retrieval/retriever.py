"""One interface for every retrieval mode, and the registry that names the modes.

A mode is a `Retriever` subclass in a module of its own plus one line in `RETRIEVERS`; the
pipeline, the form's choices, input validation and the benchmarks all read the modes from here.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from retrieval.hold_out import NOTHING_HELD_OUT, HoldOut
from retrieval.result import Link, RetrievalResult

if TYPE_CHECKING:
    from fpkg.config import Settings
    from graphstore.store import GraphStore
    from llm.base import Generator
    from retrieval.linking import EntityLinker

# mode -> "module:class", imported on first use (vector mode loads torch and FAISS)
RETRIEVERS: dict[str, str] = {
    "cypher": "retrieval.cypher.mode:CypherRetriever",
    "vector": "retrieval.vector.mode:VectorRetriever",
    "none": "retrieval.retriever:NoRetriever",
}
MODES: tuple[str, ...] = tuple(RETRIEVERS)


class Retriever(ABC):
    """Finds the graph evidence for a question."""

    uses_graph: ClassVar[bool] = True  # False: the paper's vanilla baseline (the LLM alone)

    @classmethod
    @abstractmethod
    def create(cls, store: GraphStore, linker: EntityLinker, settings: Settings) -> Retriever:
        """The retriever over `store`, with what it needs built or loaded (may take long)."""

    @abstractmethod
    def retrieve(self, question: str, links: Sequence[Link] | None = None,
                 generator: Generator | None = None) -> RetrievalResult:
        """Evidence for a free question. `links`: its mentions, already resolved (None: the
        retriever finds them itself); `generator`: an LLM the mode may use (text-to-Cypher)."""

    def for_diagnosis(self, question: str, links: Sequence[Link],
                      hold_out: HoldOut = NOTHING_HELD_OUT) -> RetrievalResult | None:
        """Evidence to add beside the diagnosis ranker's own graph queries (None: nothing), none of
        it from a held-out paper."""
        return None

    def curated_changed(self) -> None:  # noqa: B027 - most modes read the store at each question
        """Curated facts were merged, undone or imported: a mode holding a copy of the graph refreshes it."""


class NoRetriever(Retriever):
    """Mode `none`: no graph retrieval; the LLM answers alone."""

    uses_graph = False

    @classmethod
    def create(cls, store: GraphStore, linker: EntityLinker, settings: Settings) -> NoRetriever:
        return cls()

    def retrieve(self, question: str, links: Sequence[Link] | None = None,
                 generator: Generator | None = None) -> RetrievalResult:
        return RetrievalResult(mode="none")


def retriever_class(mode: str) -> type[Retriever]:
    """The class registered for `mode`; an unknown mode names the known ones."""
    from fpkg.errors import InputError

    try:
        module_name, class_name = RETRIEVERS[mode].split(":")
    except (KeyError, TypeError, AttributeError):
        raise InputError(f"Unknown retrieval mode {mode!r}; choose one of {', '.join(MODES)}.") from None
    return getattr(importlib.import_module(module_name), class_name)
