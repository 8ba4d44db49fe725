"""The curated layer of a running graph: merge a reviewed batch, undo one, export and import the
overlay; the graph and the overlay file always agree.

A merge writes the graph first and then appends the overlay record; if the record cannot be
written, the batch is taken out of the graph again. An undo does the reverse. One lock orders them
within the process, and a file lock beside the overlay between the processes that share the state
folder and the graph (several app processes behind a balancer): a change made through one is seen
by the others at their next request (`follow`). A damaged overlay (OverlayError) is not applied at
all: the graph then holds no curated fact and merging is refused until the file is mended.

Every batch says where its facts come from (a PMID, or the source text's SHA-256). With two-person
review (`review="two"`, FPKG_CURATION_REVIEW) a curator's batch is only proposed; another curator
approves it (then it is merged) or an admin declines it.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from curation.facts import Fact
from curation.graph_writes import apply_batch, batches_in_graph, check_facts, clear, remove_batch
from curation.overlay import Batch, Overlay, OverlayState, now, parse
from fpkg.errors import InputError, OverlayError
from fpkg.locks import file_lock
from graphstore.store import GraphStore

PMID_DIGITS = 9
EXCLUDED_BY_HPO = ("UNWIND $pairs AS pair MATCH (d:Disease) WHERE d.dname = pair.disease AND d.excludes IS NOT NULL "
                   "MATCH (p:FacePhenotype) WHERE p.phenotypeName = pair.phenotype "
                   "AND p.hpo_id IN split(d.excludes, ';') "
                   "RETURN DISTINCT d.dname AS disease, p.phenotypeName AS phenotype, p.hpo_id AS hpo")


def checked_pmid(pmid: object) -> str:
    text = str(pmid or "").strip().removeprefix("PMID:").removeprefix("PMID").strip()
    if text and not (text.isdigit() and len(text) <= PMID_DIGITS):
        raise InputError(f"{str(pmid)[:40]!r} is not a PubMed id (digits only, e.g. 26551301).")
    return text


def hpo_exclusions(store: GraphStore, facts: list[Fact]) -> list[str]:
    """Facts HPO contradicts: a finding its NOT annotations exclude for the disease (the curator
    decides; the answer's conflict check names it too once merged)."""
    pairs = [{"disease": f.head, "phenotype": f.tail} for f in facts if f.relation == "Exhibit"]
    rows = store.query(EXCLUDED_BY_HPO, {"pairs": pairs}) if pairs else []
    return [f"HPO records {row['disease']} as NOT having {row['phenotype']} ({row['hpo']})." for row in rows]


@dataclass(frozen=True)
class Replay:
    batches: int
    relationships: int


class CuratedLayer:
    def __init__(self, store: GraphStore, overlay: Overlay, review: str = "one"):
        self.store, self.overlay, self.review = store, overlay, review
        self._lock = threading.Lock()
        self.problem: str | None = None  # why the overlay is not applied
        self.replayed: Replay | None = None
        self.listeners: list[Callable[[], None]] = []  # told after each merge and undo (e.g. copies of the graph)
        self._checked: tuple[tuple, str | None] | None = None  # the overlay file's stat, and what was wrong
        self._seen = self._stat()  # the overlay as this process last took it in (`follow`)

    @classmethod
    def set_aside(cls, store: GraphStore, path: Path) -> CuratedLayer:
        """Before a start compares the store with the build: the curated layer taken off the graph.
        Without an overlay file there is nothing to take off (were curated facts left in the graph,
        the comparison would fail and the build replace the graph)."""
        layer = cls(store, Overlay(path))
        if layer.overlay.path.is_file() and not store.is_empty():
            clear(store)
        return layer

    def put_back(self) -> None:
        """After the build: the overlay's live batches written onto the graph, or, when the overlay
        is damaged, none (`problem` says why)."""
        try:
            live = self.overlay.read().live()
        except OverlayError as e:
            self.problem = str(e)
            return
        self.replayed = Replay(len(live), sum(apply_batch(self.store, batch) for batch in live))

    @classmethod
    def attach(cls, store: GraphStore, path: Path, built_relationships: int | None = None) -> CuratedLayer | None:
        """The layer of a graph that already holds exactly the overlay's live batches (another process
        applied them, or this graph's snapshot has them): nothing is written. None when the graph holds
        other curated batches or the overlay cannot be read (then set it aside and put it back).
        `built_relationships`: how many the build wrote; with no live batch, a graph that holds exactly
        those holds no curated fact (every curated fact adds one), which spares a scan of every
        relationship."""
        layer = cls(store, Overlay(path))
        if store.is_empty():
            return None
        try:
            live = layer.overlay.read().live()
        except OverlayError:
            return None
        if not live and built_relationships is not None and store.totals()[1] == built_relationships:
            layer.replayed = Replay(0, 0)
            return layer
        in_graph = batches_in_graph(store)
        if set(in_graph) != {batch.batch for batch in live}:
            return None
        layer.replayed = Replay(len(live), sum(in_graph.values()))
        return layer

    @classmethod
    def open(cls, store: GraphStore, path: Path) -> CuratedLayer:
        """The layer replayed onto the graph as it stands."""
        layer = cls.set_aside(store, path)
        layer.put_back()
        return layer

    def state(self) -> OverlayState:
        self._usable()
        try:
            return self.overlay.read()
        except OverlayError as e:  # damaged since the start
            raise InputError(f"Curated facts are switched off: {e}") from e

    def health(self) -> str | None:
        """What is wrong with the curated facts now (for /healthz), else None: the overlay was damaged
        at the start (none applied), or has been since (the file read again when it changed)."""
        if self.problem:
            return f"curated facts are not applied: {self.problem}"
        try:
            stat = self.overlay.path.stat()
            key = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
        except FileNotFoundError:
            return None
        if self._checked is None or self._checked[0] != key:
            try:
                self.overlay.read()
                self._checked = (key, None)
            except OverlayError as e:
                self._checked = (key, f"the curated overlay is damaged: {e}")
        return self._checked[1]

    def follow(self) -> bool:
        """Called before each request: when another process sharing the state folder has merged or
        undone a batch since, the listeners are told (the graph itself is shared). True if so."""
        stat = self._stat()
        if stat == self._seen:
            return False
        self._seen = stat
        for listener in self.listeners:
            listener()
        return True

    def _stat(self) -> tuple | None:
        try:
            stat = self.overlay.path.stat()
        except FileNotFoundError:
            return None
        return stat.st_ino, stat.st_mtime_ns, stat.st_size

    def _exclusive(self):
        """This process's lock, then the one shared with the other processes (fpkg/locks.py)."""
        stack = ExitStack()
        stack.enter_context(self._lock)
        stack.enter_context(file_lock(self.overlay.path.with_name(self.overlay.path.name + ".lock")))
        return stack

    def merge(self, curator: str, facts: list[Fact], pmid: str = "", text: str = "") -> Batch:
        """One reviewed batch with its provenance (the PMID, else the source text's SHA-256): into the
        graph and the overlay, or, with two-person review, proposed (`pending`) for another curator."""
        self._usable()
        pmid = checked_pmid(pmid)
        facts = check_facts(self.store, facts)
        if not pmid and not text.strip():
            raise InputError("Say where the facts come from: a PMID, or the text they were taken from.")
        digest = hashlib.sha256(text.encode()).hexdigest() if not pmid else ""
        return self._submit(curator, facts, pmid, digest)

    def _submit(self, curator: str, facts: list[Fact], pmid: str, digest: str) -> Batch:
        with self._exclusive():
            batch = Batch(self._next_batch(), curator, now(), tuple(facts), pmid, digest)
            if self.review == "two":
                self.overlay.add_proposal(batch)
                return batch
            self._apply(batch)
        self._changed()
        return batch

    def approve(self, batch_number: int, approver: str) -> Batch:
        """Two-person review: another curator's proposal merged by `approver`."""
        with self._exclusive():
            state = self.state()
            proposal = state.proposed.get(batch_number)
            if proposal is None:
                raise InputError(f"There is no proposed batch {batch_number}.")
            if batch_number in state.batches or batch_number in state.undone:
                done = "merged" if batch_number in state.batches else f"declined by {state.undone[batch_number]}"
                raise InputError(f"Batch {batch_number} was already {done}.")
            if approver == proposal.curator:
                raise InputError(f"Batch {batch_number} was proposed by {approver}: another curator must merge it.")
            batch = Batch(batch_number, proposal.curator, now(), tuple(check_facts(self.store, list(proposal.facts))),
                          proposal.pmid, proposal.text_sha256, approver)
            self._apply(batch)
        self._changed()
        return batch

    def _apply(self, batch: Batch) -> None:
        apply_batch(self.store, batch)
        try:
            self.overlay.add_merge(batch)
        except OSError:
            remove_batch(self.store, batch.batch)
            raise

    def _next_batch(self) -> int:
        state = self.state()
        return max([*state.batches, *state.proposed], default=0) + 1

    def undo(self, batch_number: int, by: str) -> Batch:
        """A merged batch taken out of the graph, or a pending proposal declined."""
        with self._exclusive():
            state = self.state()
            batch = state.batches.get(batch_number) or state.proposed.get(batch_number)
            if batch is None:
                raise InputError(f"There is no curated batch {batch_number}.")
            if batch_number in state.undone:
                raise InputError(f"Batch {batch_number} was already undone by {state.undone[batch_number]}.")
            if batch_number not in state.batches:  # a proposal: nothing in the graph
                self.overlay.add_undo(batch_number, by)
                return batch
            remove_batch(self.store, batch_number)
            try:
                self.overlay.add_undo(batch_number, by)
            except OSError:
                apply_batch(self.store, batch)
                raise
        self._changed()
        return batch

    def export_text(self) -> str:
        self._usable()
        return self.overlay.path.read_text(encoding="utf-8") if self.overlay.path.is_file() else ""

    def import_text(self, text: str, curator: str) -> list[Batch]:
        """Every live batch of an exported overlay, merged again (or, with two-person review, proposed)
        as new batches by `curator`, their provenance kept; a damaged export is refused whole, and so
        is one naming a node the graph does not hold or a batch without provenance (checked before
        anything is written)."""
        self._usable()
        imported = parse(text if text.endswith("\n") else text + "\n", "the imported file")
        batches = [(batch, check_facts(self.store, list(batch.facts))) for batch in imported.live()]
        if not batches:
            raise InputError("The imported file holds no curated batch to merge.")
        for batch, _ in batches:
            if not batch.pmid and not batch.text_sha256:
                raise InputError(f"Batch {batch.batch} of the imported file does not say where its facts come from "
                                 "(no PMID, no source text): nothing was imported.")
        return [self._submit(curator, facts, batch.pmid, batch.text_sha256) for batch, facts in batches]

    def _changed(self) -> None:
        self._seen = self._stat()  # this process's own change: taken in below
        self.store.snapshot()
        for listener in self.listeners:
            listener()

    def _usable(self) -> None:
        if self.problem:
            raise InputError(f"Curated facts are switched off: {self.problem}")
