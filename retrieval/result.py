"""One result type for every retrieval mode: triples, the Cypher run, links and timings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Link:
    """A mention in the user's text, resolved to a graph node."""

    mention: str
    type: str  # NER type: FACIAL_PHENOTYPE, GENE, DISEASE, MUTATION
    node_id: int | None  # None when nothing was close enough
    label: str | None = None
    name: str | None = None
    score: float = 0.0
    method: str = ""  # exact, synonym, mondo, typo, fuzzy, embedding, none
    # a disease MONDO knows and the graph does not annotate: its OMIM and MONDO ids (node_id None)
    ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Triple:
    head: str
    relation: str
    tail: str
    head_id: int
    tail_id: int
    head_label: str
    tail_label: str
    source: str = ""  # FPKG, HPO or FPKG+HPO
    pmids: tuple[int, ...] = ()
    score: float | None = None

    def text(self) -> str:
        return f"({self.head}) -[{self.relation}]-> ({self.tail})"


@dataclass
class CypherRun:
    """A query that ran (or was refused), with the parameters and the checker's corrections."""

    query: str
    params: dict[str, Any] = field(default_factory=dict)
    origin: str = "template"  # template:<intent> or llm
    corrections: list[str] = field(default_factory=list)
    rows: int = 0
    error: str | None = None


@dataclass
class RetrievalResult:
    mode: str  # cypher, vector, none
    triples: list[Triple] = field(default_factory=list)
    cypher: list[CypherRun] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)
    intent: str | None = None
    lead: str | None = None  # a sentence that answers the question's kind (yes/no, count, ...)
    complete: bool = False  # the lead is the whole answer (a summary); the triples are its evidence
    listing: str | None = None  # a list answer's items, numbered in the order that matters (Markdown), below the lead
    focus: tuple[int, ...] = ()  # the nodes asked about: their facts first, the others as related
    also: str | None = None  # the other names of the diseases listed, said after the facts
    # what became of the LLM's own query (text-to-Cypher): as_written, repaired (by the checker or a
    # repair round), empty (ran, found nothing), rejected (none could run), failed (no query written)
    llm_query: str | None = None
