"""Whether each finding of a text is said of the patient (present), as absent, of a relative (family history) or
hedged, and whether a gene was tested negative: NegEx/ConText by negspacy (spaCy), with the clause a clinician
means.

negspacy looks for a cue in the same sub-sentence as the finding, before it or after it. Three rules make the
sub-sentence the clause a clinician writes:
- a clinician's list ends a cue's scope at each comma, unless the list is closed by "or"/"nor" ("no seizures,
  scoliosis or heart defect" negates all three; "no speech, deep-set eyes and constipation" only speech), and at
  "and" before a new noun phrase ("no hypotonia and a short neck");
- a cue that is part of a target's name ("absent speech", "no speech" read as Absent speech) is no cue for
  targets of that kind;
- a word that is part of a cue ("does not have") does not end the scope that cue opens.

spaCy and negspacy take a second to import: they are loaded at the first text read, in the background once a
start is done (`warm`), never while a start is under way.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from ner.cue_words import FAMILY, GENE_TESTED_NEGATIVE, HEDGE, Cues, negation

PRESENT, ABSENT, FAMILY_HISTORY, HEDGED = "present", "absent", "family", "hedged"
FINDING, GENE = "FINDING", "GENE"  # the kinds of target
_HARD_ENDS = {".", ";", ":", "!", "\n"}
_LIST_CLOSERS = {"or", "nor"}
_NOUN_PHRASE_STARTS = {"a", "an", "the", "his", "her", "their", "its", "some", "several", "mild", "severe"}
_PIPES = (("negated", FINDING), ("family", FINDING), ("hedged", FINDING), ("gene_negative", GENE))


@dataclass(frozen=True)
class Target:
    start: int  # character offsets in the text
    end: int
    kind: str = FINDING


class ContextReader:
    """One spaCy pipeline (a blank English tokenizer, the clause rule, four negspacy pipes), made once."""

    def __init__(self) -> None:
        import spacy
        from negspacy.negation import Negex
        from negspacy.termsets import termset
        from spacy.language import Language

        _register(Language, Negex)
        self.nlp = spacy.blank("en")
        self.nlp.add_pipe("fpkg_clauses")
        cues: dict[str, Cues] = {"negated": negation(termset("en_clinical").get_patterns()), "family": FAMILY,
                                 "hedged": HEDGE, "gene_negative": GENE_TESTED_NEGATIVE}
        for name, kind in _PIPES:
            self.nlp.add_pipe("fpkg_negex", name=name, config={"neg_termset": cues[name].termset(),
                                                              "ent_types": [kind], "extension_name": name})

    def polarities(self, text: str, targets: list[Target]) -> list[str]:
        """Each target's polarity, in order: a finding's present / absent / family / hedged; a gene's present or
        absent (tested negative). A target that overlaps an earlier one keeps that one's reading."""
        doc = self.nlp.make_doc(text)
        spans, order = [], []
        taken: set[int] = set()
        for i, target in enumerate(targets):
            span = doc.char_span(target.start, target.end, label=target.kind, alignment_mode="expand")
            if span is None or taken.intersection(range(span.start, span.end)):
                continue
            taken.update(range(span.start, span.end))
            spans.append(span)
            order.append(i)
        doc.ents = spans
        for _, pipe in self.nlp.pipeline:
            doc = pipe(doc)
        read = [PRESENT] * len(targets)
        for i, span in zip(order, spans, strict=True):  # a span's extensions live in its doc, by its offsets
            read[i] = _polarity(span)
        return read


def _polarity(span) -> str:
    if span.label_ == GENE:
        return ABSENT if span._.gene_negative else PRESENT
    if span._.family:  # "her mother has no ptosis" says nothing of the patient either
        return FAMILY_HISTORY
    if span._.hedged:
        return HEDGED
    return ABSENT if span._.negated else PRESENT


_lock = threading.Lock()
_reader: ContextReader | None = None


def context_reader() -> ContextReader:
    """The process's one ContextReader, made at first use (about a second: spaCy's import)."""
    global _reader
    with _lock:
        if _reader is None:
            _reader = ContextReader()
        return _reader


def warm() -> threading.Thread:
    """Make the ContextReader in a thread of its own, so that the first description read does not wait for it."""
    thread = threading.Thread(target=context_reader, name="warm-context", daemon=True)
    thread.start()
    return thread


def _register(language, negex_class) -> None:
    """The clause component and the negspacy pipe that knows what a cue is not (once per process)."""
    if "fpkg_clauses" in language.factories:
        return

    @language.component("fpkg_clauses")
    def clauses(doc):
        """Sentence starts at the clause boundaries a clinician's description has (this module's docstring)."""
        words = [token.lower_ for token in doc]
        for i, token in enumerate(doc):
            token.is_sent_start = i == 0 or _clause_starts(words, i)
        return doc

    class ClauseNegex(negex_class):
        """negspacy's Negex, less the cues inside a target's name and the terminations inside a cue."""

        def process_negations(self, doc):
            preceding, following, terminating = super().process_negations(doc)
            targets = [(span.start, span.end) for span in doc.ents if span.label_ in self.ent_types]
            preceding = [m for m in preceding if not _overlaps(m, targets)]
            following = [m for m in following if not _overlaps(m, targets)]
            cues = [(start, end) for _, start, end in preceding + following]
            return preceding, following, [m for m in terminating if not _overlaps(m, cues)]

    language.factory("fpkg_negex", default_config={"neg_termset": None, "ent_types": None,
                                                   "extension_name": "negex", "chunk_prefix": None,
                                                   "span_keys": None})(ClauseNegex)


def _overlaps(match: tuple[int, int, int], spans: list[tuple[int, int]]) -> bool:
    _, start, end = match
    return any(start < other_end and other_start < end for other_start, other_end in spans)


def _clause_starts(words: list[str], i: int) -> bool:
    """Whether a new clause starts at word i: after a hard boundary, after a comma that does not continue a list
    closed by "or", at "and" before a new noun phrase."""
    before = words[i - 1]
    if before in _HARD_ENDS or before.strip() == "" and "\n" in before:
        return True
    if before == ",":
        for word in words[i:]:
            if word in _HARD_ENDS:
                break
            if word in _LIST_CLOSERS:
                return False
        return True
    return words[i] == "and" and i + 1 < len(words) and words[i + 1] in _NOUN_PHRASE_STARTS
