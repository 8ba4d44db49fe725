"""The service the app and the benchmarks share: `diagnose` a case and `ask` a question.

Each returns a `PipelineResult` (the answer, the ranked differential, the triples, the
Cypher that ran, the links and timings); the `*_stream` forms yield it as the answer grows.
Each request is validated once here (mode, backend, fields); the pipeline owns the retrieval
modes' readiness (a mode's index loads once, in the background or at its first request) and
makes the hold-out rule once per request for the ranker and the retrieval mode.
"""

from __future__ import annotations

import functools
import gc
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from curation.layer import CuratedLayer
from curation.overlay import OVERLAY_FILE, Overlay
from diagnosis.confidence import linked_findings
from diagnosis.conflicts import CHECKED_DISEASES, Conflict, against_exclusions
from diagnosis.ontology import PhenotypeOntology
from diagnosis.profiles import DiseaseProfiles
from diagnosis.ranker import Diagnosis, DiagnosisCase, DiagnosisRanker, RankedDisease
from fpkg import hub
from fpkg.config import Settings, access_settings
from fpkg.errors import LLMError, LLMTimeout, LLMUnavailable, NotReady
from fpkg.locks import file_lock
from graphstore.startup_reads import StartupReads
from graphstore.store import GraphStore, open_store
from kg_dump.build import BuildReport, built_relationships, ensure_built, manifest_path, mondo_folder
from kg_dump.cardinal import DiseaseAnnotations
from kg_dump.sources import ensure_sources, releases_line, source_lines
from kg_dump.translations import Translations
from llm.base import GenerationRequest, Generator, Unavailable
from llm.factory import check_backend, make_generator
from llm.grounded import GroundedWriter
from llm.prompts import EVIDENCE_CHARS, ask_messages, rag_diagnosis_messages, vanilla_diagnosis_messages
from ner.context import warm as warm_context
from ner.recognizer import Recognizer
from retrieval.findings import FindingLinker
from retrieval.hold_out import WHOLE_PAPER, HoldOut
from retrieval.linking import EntityLinker
from retrieval.result import CypherRun, Link, RetrievalResult, Triple
from retrieval.retriever import MODES, Retriever, retriever_class
from retrieval.vector.index import VectorIndex
from service import source_caches
from service.answer_check import AnswerCheck, AnswerChecker, Evidence, checked_choice, marked_answer, standing_line
from service.answers import (
    diagnosis_evidence,
    facts_evidence,
    named_otherwise,
    other_names_line,
    readings,
    reply_to_prediction,
)
from service.feature_answers import answer_features
from service.gene_words import ordinary_symbols
from service.languages import COMMON, Translator
from service.reader import CaseReading, Reader
from service.reading import findings_read, variant_read
from service.validation import (
    validate_backend,
    validate_case,
    validate_mode,
    validate_question,
    validate_temperature,
)

DIAGNOSIS_REPLY_TOKENS = 160
# A request waits at most this long for a mode whose index is still loading (vector mode's loads in
# seconds from the cache, or is built in minutes on a cold cache), then is told to try again.
MODE_WAIT_S = 60
ANSWER_REPLY_TOKENS = 384
PREBUILD_STOP_S = 60  # a vector index built beside the start, told to stop: a batch, or its last steps
NOTHING_TO_ANSWER = ("Nothing to answer with: mode 'none' uses no graph retrieval, and no LLM is configured "
                     "(LLM_BACKEND=grounded). Choose the Cypher or vector mode, or configure an LLM backend.")


@dataclass
class PipelineResult:
    kind: str  # diagnosis or ask
    mode: str
    backend: str
    answer: str = ""
    ranked: list[RankedDisease] = field(default_factory=list)
    predicted: RankedDisease | None = None  # the answer's disease (an LLM's reply parsed back)
    triples: list[Triple] = field(default_factory=list)
    cypher: list[CypherRun] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)
    selective: bool = False
    confidence: float | None = None  # that the graph's top-ranked answer is right
    confidence_shape: str = ""  # the input's shape it is calibrated on, and how many findings were recognised
    findings_linked: int = 0
    conflicts: list[Conflict] = field(default_factory=list)  # facts behind the answer that disagree
    llm_failed: str | None = None  # why the LLM gave no usable answer (the grounded one is shown)
    llm_query: str | None = None  # what became of the LLM's Cypher query (RetrievalResult.llm_query)
    case: DiagnosisCase | None = None
    done: bool = False
    reading: list[str] = field(default_factory=list)  # how the case was read (service/reading.py)
    llm_answer: str | None = None  # the LLM's reply as it wrote it (`answer` is it checked: answer_check.py)
    check: AnswerCheck | None = None  # every name the LLM's answer gives, checked against the evidence
    record: RankedDisease | None = None  # the answer of record: the LLM's choice, or the graph's first

    def predictions(self) -> list[RankedDisease]:
        """The answer first, then the rest of the ranking."""
        first = [self.predicted] if self.predicted else []
        return first + [r for r in self.ranked if r is not self.predicted]


def overlay_path(settings: Settings) -> Path:
    """The curated overlay lives with the users' state, not in the cache (which may be wiped)."""
    return access_settings(settings).state_dir / OVERLAY_FILE


class StartStages:
    """The start's progress messages, each timed until the next: where a start spends its seconds."""

    def __init__(self, progress: Callable[[str], None]):
        self.progress, self.marks = progress, [("checking the LLM backend and the sources", time.perf_counter())]
        progress("checking the LLM backend and the sources")

    def said(self, message: str) -> None:
        self.marks.append((message, time.perf_counter()))
        self.progress(message)

    def seconds(self) -> list[tuple[str, float]]:
        """(message, seconds until the next message), the last (ready) left out."""
        return [(message, round(after - at, 3))
                for (message, at), (_, after) in zip(self.marks[:-1], self.marks[1:], strict=True)]


class Pipeline:
    evidence_chars = EVIDENCE_CHARS  # how much evidence an LLM is given (bench context-size varies it)
    diagnosis_reply_tokens = DIAGNOSIS_REPLY_TOKENS  # a diagnosis reply's cap (bench diagnosis --max-new-tokens)

    def __init__(self, settings: Settings, store: GraphStore, linker: EntityLinker,
                 ontology: PhenotypeOntology, recognizer: Recognizer, build_report: BuildReport | None,
                 profiles: DiseaseProfiles, findings: FindingLinker, startup_reads: GraphStore | None = None,
                 curated: CuratedLayer | None = None, translator: Translator | None = None):
        self.settings, self.store, self.linker, self.recognizer = settings, store, linker, recognizer
        self.start_stages: list[tuple[str, float]] = []  # set by start(): each start-up stage's seconds
        # questions and descriptions in the HPO's other languages, read into English (service/languages.py)
        self.translator = translator or Translator(Translations(), findings.hpo)
        # a pipeline made in code without one: the overlay of the settings, not replayed
        self.curated = curated or CuratedLayer(store, Overlay(overlay_path(settings)))
        self.curated.review = access_settings(settings).review  # one or two curators per merged batch
        self.curated.listeners.append(self.curated_changed)
        self.build_report = build_report
        self.ranker = DiagnosisRanker(store, linker, ontology, profiles, findings, startup_reads=startup_reads)
        self.checker = AnswerChecker(store, linker, self.ranker.twin_of)  # what an LLM's answer names
        self.ontology, self.profiles, self.findings = ontology, profiles, findings
        # the one reader of a description or a question's case (service/reader.py)
        ordinary = ordinary_symbols(linker.names("Genotype"), " ".join(COMMON.values()).split(), settings.cache_dir)
        self.reader = Reader(recognizer, linker, findings, ontology, ordinary, self.translator)
        # HPO's whole annotation of each disease, for Ask's feature lists and comparisons (shared, not copied)
        self.annotations = DiseaseAnnotations(findings.hpo, profiles.hpo_terms, profiles.hpo_excluded)
        # the grounded writer always, and the configured LLM backend: on a public Space anyone could
        # otherwise load a 7B model onto a CPU
        self.backends = tuple(dict.fromkeys(["grounded", settings.llm_backend]))
        self._retrievers: dict[str, Retriever] = {}
        # one lock per mode: a first vector request builds its index for a minute without
        # holding up Cypher requests, and two racing requests build it once
        self._retriever_locks = {mode: threading.Lock() for mode in MODES}
        self.closed = False  # set by close(): a stop while an index loads in the background says nothing
        self.warming: threading.Thread | None = None  # the negation reader loading (warm_reader)
        self.vector_prebuild: threading.Thread | None = None  # the vector index built beside a first start
        self._halt_prebuild = threading.Event()

    @functools.cached_property
    def knowledge(self) -> str:
        """The sources' releases, the HPO's among them, as exports name them."""
        return releases_line(self.settings, with_folder=False)

    @classmethod
    def start(cls, settings: Settings, progress: Callable[[str], None] = print, *, warm: bool = True) -> Pipeline:
        """Open the store, build the graph if it is not there yet, load the indexes. Each stage is said
        as it begins, in words (and timed: `start_stages`). `warm`: load the negation reader's spaCy in
        the background once ready (the app does it once it serves, `warm_reader`)."""
        # The start makes millions of long-lived objects: the cyclic collector, left on, would scan them
        # again and again as they are made (a quarter of a restart), and after the start at every full
        # collection. Off while it runs; then what it made is set aside from collection (`gc.freeze`).
        collecting = gc.isenabled()
        gc.disable()
        try:
            pipeline = cls._start(settings, progress)
        finally:
            if collecting:
                gc.enable()
        gc.freeze()
        if warm:
            pipeline.warm_reader()
        return pipeline

    def warm_reader(self) -> threading.Thread:
        """The negation reader's spaCy (a second and a half to import), loaded in a thread of its own beside
        the first requests rather than in the start; `warming` is that thread (benches wait for it)."""
        self.warming = warm_context()
        return self.warming

    @classmethod
    def _start(cls, settings: Settings, progress: Callable[[str], None]) -> Pipeline:
        from ner.model_choice import choose_model
        from ner.predict import EntityRecognizer

        started = time.perf_counter()
        stages = StartStages(progress)
        progress = stages.said  # each message starts a stage: how long each took is kept (bench perf)
        ner = choose_model(settings)
        if ner.on_hub:
            hub.start()  # whether the Hub answers, learned beside the start and once (fpkg/hub.py)
        check_backend(settings)  # a misconfigured LLM is reported now, not at the first request
        ensure_sources(settings, progress)  # a first start fetches what is missing, each file checked
        for line in source_lines(settings):
            progress(line)
        progress(f"opening the {settings.graph_backend} graph store")
        with ThreadPoolExecutor(1, thread_name_prefix="open-store") as opener:
            opening = opener.submit(open_store, settings)  # an embedded server loads its snapshot meanwhile
            deriving = source_caches.Deriving(settings) if source_caches.missing(settings) else None
            if deriving is not None:
                progress("deriving disease identity (MONDO), the HPO's annotations and its translations beside "
                         "the graph (once per release, then kept in the cache)")
            else:
                progress("reading disease identity (MONDO), the HPO's annotations and its translations (derived "
                         "once per release, kept in the cache)")
                sources = source_caches.read(settings)
            store = opening.result()
        curated, report = prepare_graph(store, settings, progress)
        progress(curated.problem or (f"curated facts: {curated.replayed.relationships} from "
                                     f"{curated.replayed.batches} batches" if curated.replayed.batches else
                                     "curated facts: none yet"))
        if deriving is not None:
            progress("reading disease identity (MONDO), the HPO's annotations and its translations (derived beside "
                     "the graph)")
            deriving.wait()
            sources = source_caches.read(settings)  # what the other process left (made here if it failed)
        mondo, hpo, translator = sources.mondo, sources.hpo, sources.translator
        progress(f"disease identity: MONDO {mondo.release}" if mondo else
                 f"disease identity: no MONDO tables in {mondo_folder(settings)} (MONDO_DATA_DIR): diseases the "
                 "graph lacks are not recognised by name")
        reads = StartupReads.for_manifest(store, manifest_path(settings), settings.cache_dir,
                                          layer=curated.overlay.digest())
        progress("reading the names the graph holds, for linking" + ("" if reads.loaded else
                 " (a first start on this graph indexes them: about half a minute)"))
        linker = EntityLinker.from_store(reads, settings.cache_dir, mondo)
        both_cores = threading.Event()  # set once ready: the vector index then embeds on both cores
        halt = threading.Event()  # set by close(): a process that ends never leaves it inside torch
        if not report.skipped:  # a graph this start built has no vector index yet: made beside the rest
            progress("building the vector index in the background (on one core until the start is done)")
            prebuild: threading.Thread | None = VectorIndex.prebuild(store, settings.cache_dir, both_cores, halt)
        else:
            prebuild = None
        progress("reading the phenotype ontology and the diseases' phenotypes")
        # HPO's whole annotations rank the diseases (not graph edges: kg_dump/hpo_profiles.py)
        ontology = PhenotypeOntology.from_store(reads, hpo)
        profiles = DiseaseProfiles.from_store(reads, hpo)
        findings = FindingLinker(hpo, linker.known_words, ontology.term_node, settings.cache_dir,
                                 translator.finding_keys())
        progress(f"languages read besides English: {', '.join(translator.languages()) or 'none'}")
        progress("setting up NER: the HPO dictionary and rules" + (f", and the model {ner.model} ({ner.reason})"
                                                                   if ner.model else f" ({ner.reason})"))
        recognizer = EntityRecognizer.load(ner.model, gene_vocabulary=linker.names("Genotype"), revision=ner.revision)
        progress(recogniser_line(recognizer, ner.reason, hub.offline_reason() if ner.on_hub else None))
        progress("preparing the ranker, the published patients and the reader")
        pipeline = cls(settings, store, linker, ontology, recognizer, report, profiles, findings, reads, curated,
                       translator)
        reads.save()
        progress(f"ready in {time.perf_counter() - started:.1f} s")
        pipeline.start_stages = stages.seconds()
        pipeline.vector_prebuild, pipeline._halt_prebuild = prebuild, halt
        both_cores.set()
        return pipeline

    def retriever(self, mode: str, wait_s: float = -1) -> Retriever:
        """The retriever for `mode`, created on first use, once even when requests race (vector
        mode's node vectors take about a minute the first time, then come from the cache).
        `wait_s`: how long to wait for another thread that is creating it (-1: as long as it takes)."""
        return self._retriever(validate_mode(mode), wait_s)

    def _retriever(self, mode: str, wait_s: float = MODE_WAIT_S) -> Retriever:
        if mode in self._retrievers:
            return self._retrievers[mode]
        if not self._retriever_locks[mode].acquire(timeout=wait_s):
            raise NotReady(f"the {mode} mode's index is still being built (this happens once, on a first "
                           "start); try again in a few minutes, or use the Cypher mode")
        try:
            if mode not in self._retrievers:
                self._retrievers[mode] = retriever_class(mode).create(self.store, self.linker, self.settings)
        finally:
            self._retriever_locks[mode].release()
        return self._retrievers[mode]

    def ready(self, mode: str) -> bool:
        """Whether `mode` answers at once (its index is loaded)."""
        return mode in self._retrievers

    def warm_in_background(self, mode: str, progress: Callable[[str], None] = print) -> threading.Thread:
        """Load `mode`'s index in a thread of its own: the app answers at once, and a first request in
        that mode waits for it (at most MODE_WAIT_S)."""
        def load() -> None:
            try:
                self.retriever(mode)
                message = f"the {mode} index is ready"
            except Exception as e:  # noqa: BLE001 - the first request in this mode retries and reports it
                message = f"the {mode} mode could not be loaded yet: {e}"
            if not self.closed:  # after a stop, the load failing as the process ends is no news
                progress(message)

        thread = threading.Thread(target=load, name=f"warm-{mode}", daemon=True)
        thread.start()
        return thread

    def curated_changed(self) -> None:
        """After a merge, undo or import: retrievers holding a copy of the graph take the change in."""
        for retriever in list(self._retrievers.values()):
            retriever.curated_changed()

    def generator(self, backend: str | None) -> Generator:
        """The backend's generator; one whose model cannot be loaded answers every request with its reason
        (the grounded answer is then the answer of record, and it says why)."""
        name = validate_backend(backend or self.settings.llm_backend, self.backends)
        try:
            return make_generator(self.settings, name)
        except LLMUnavailable as e:
            return Unavailable(name, str(e))

    # ---- diagnosis ---------------------------------------------------------------------
    def read_language(self, text: str) -> tuple[str, list[str]]:
        """The text in English (as written when it is English) and, when it was not, what was read."""
        reading = self.translator.read(text)
        said = reading.said()
        return reading.text, [said] if said else []

    def read(self, text: str) -> CaseReading:
        """What a description or a question's case says, read once (service/reader.py)."""
        return self.reader.read(validate_question(text))  # the cleaned text: no control or zero-width characters

    def parse_question(self, question: str) -> tuple[DiagnosisCase, list[str]]:
        reading = self.read(question)
        notices = reading.notices()
        if reading.gene is None:
            notices.append("No gene was recognised in the text.")
        if self.recognizer.notice:  # e.g. the NER model is missing: rules only
            notices.append(self.recognizer.notice)
        return reading.case(), notices

    def diagnose_question(self, question: str, **options) -> PipelineResult:
        question = validate_question(question)
        started = time.perf_counter()
        case, notices = self.parse_question(question)
        parsed_ms = round((time.perf_counter() - started) * 1000, 2)
        result = self.diagnose(case, question=question, **options)
        result.notices[:0] = notices
        result.timings_ms = {"ner": parsed_ms, **result.timings_ms}  # the question's parse: NER and rules
        return result

    def diagnose(self, case: DiagnosisCase, **options) -> PipelineResult:
        return _last(self.diagnose_stream(case, **options))

    def diagnose_stream(self, case: DiagnosisCase, *, mode: str = "cypher", backend: str | None = None,
                        temperature: float = 0.0, seed: int = 0, exclude_pmids: frozenset[int] = frozenset(),
                        hold_out_rule: str = WHOLE_PAPER, question: str | None = None) -> Iterator[PipelineResult]:
        case, mode = validate_case(case), validate_mode(mode)
        temperature = validate_temperature(temperature)
        self.curated.follow()  # a merge or undo made through another process sharing the graph
        generator = self.generator(backend)
        retriever = self._retriever(mode)
        result = PipelineResult("diagnosis", mode, generator.name, selective=bool(case.options), case=case)
        question = question or describe_case(case)
        if not retriever.uses_graph:
            yield from self._answer(result, generator, vanilla_diagnosis_messages(question, case.options),
                                    None, temperature, seed, case.options)
            return
        hold_out = self.hold_out(exclude_pmids, hold_out_rule)
        diagnosis = self.ranker.rank(case, hold_out)
        result.ranked, result.links, result.cypher = diagnosis.ranked, diagnosis.links, diagnosis.cypher
        result.conflicts = diagnosis.conflicts
        conflicting = [t for conflict in diagnosis.conflicts for t in conflict.triples]
        result.triples = conflicting + list(diagnosis.triples)  # both sides of a disagreement, first
        result.notices = [*readings(diagnosis.links), *diagnosis.notices]
        result.reading = [*findings_read(diagnosis.links, self.ontology),
                          *filter(None, [variant_read(diagnosis, case.variant, case.gene)])]
        result.confidence = diagnosis.confidence
        result.confidence_shape, result.findings_linked = diagnosis.shape, linked_findings(diagnosis)
        result.timings_ms.update(diagnosis.timings_ms)
        extra: list[Triple] = []
        retrieved = retriever.for_diagnosis(question, [lk for lk in diagnosis.links if lk.node_id], hold_out)
        if retrieved is not None:
            extra = retrieved.triples
            result.triples = _unique(extra + result.triples)
            result.notices += retrieved.notices
            result.timings_ms[f"{mode}_retrieval"] = retrieved.timings_ms.get("total", 0.0)
        messages = rag_diagnosis_messages(question, diagnosis_evidence(diagnosis, extra), case.options,
                                          self.evidence_chars)
        yield from self._answer(result, generator, messages, diagnosis, temperature, seed, case.options)

    def rank(self, case: DiagnosisCase, exclude_pmids: frozenset[int] = frozenset(),
             hold_out_rule: str = WHOLE_PAPER) -> Diagnosis:
        """The ranked differential alone, without a retrieval mode or a writer (the generalisation
        benchmark scores it over thousands of cases)."""
        return self.ranker.rank(case, self.hold_out(exclude_pmids, hold_out_rule))

    def hold_out(self, pmids: frozenset[int], rule: str = WHOLE_PAPER) -> HoldOut:
        """What a case must not see of its own papers, under `rule` (retrieval/hold_out.py RULES): made once per
        request for the ranker and the retrieval mode alike."""
        return HoldOut.of(self.store, pmids, rule, self.profiles)

    # ---- free questions ----------------------------------------------------------------
    def ask(self, question: str, **options) -> PipelineResult:
        return _last(self.ask_stream(question, **options))

    def ask_stream(self, question: str, *, mode: str = "cypher", backend: str | None = None,
                   temperature: float = 0.0, seed: int = 0) -> Iterator[PipelineResult]:
        question, mode = validate_question(question), validate_mode(mode)
        temperature = validate_temperature(temperature)
        self.curated.follow()
        generator = self.generator(backend)
        retriever = self._retriever(mode)
        result = PipelineResult("ask", mode, generator.name)
        question, read = self.read_language(question)
        result.notices += read
        if not retriever.uses_graph:
            yield from self._answer(result, generator, [{"role": "user", "content": question}], None,
                                    temperature, seed, None)
            return
        retrieved = retriever.retrieve(question, generator=generator)
        answer_features(retrieved, question, self.store, self.annotations)
        groups = [note for link in retrieved.links if link.type == "DISEASE"
                  if (note := self.ranker.groups.note(self.store, link.node_id))]
        if groups:  # a group's answer says it is one, and which diseases it holds: after the answer
            said_after(retrieved, " ".join(dict.fromkeys(groups)))
        retrieved.also = other_names_line(retrieved, self.linker)
        named = named_otherwise(retrieved.links)  # the name asked about, under the answer's first line
        if named:  # the answer is under the graph's name
            first, *rest = (retrieved.lead or "").split("\n", 1)
            retrieved.lead = "\n".join([*([first] if first else []), " ".join(named), *rest])
        if read:  # the language read, first
            retrieved.lead = "\n".join([*read, *([retrieved.lead] if retrieved.lead else [])])
        if "total" in retrieved.timings_ms:
            retrieved.timings_ms[f"{mode}_retrieval"] = retrieved.timings_ms.pop("total")
        _take(result, retrieved)
        self._check_exhibits(result)
        evidence = [*([retrieved.lead] if retrieved.lead else []), *([retrieved.listing] if retrieved.listing else []),
                    *(c.text for c in result.conflicts),
                    *facts_evidence(retrieved.triples), *([retrieved.also] if retrieved.also else [])]
        yield from self._answer(result, generator, ask_messages(question, evidence, self.evidence_chars),
                                retrieved, temperature, seed, None)

    def _check_exhibits(self, result: PipelineResult) -> None:
        """A listed disease phenotype that HPO excludes for that disease (diagnosis/conflicts.py)."""
        diseases = list(dict.fromkeys(t.head_id for t in result.triples if t.relation == "Exhibit"
                                      and t.head_label == "Disease" and t.head_id is not None))[:CHECKED_DISEASES]
        if diseases:
            result.conflicts, run = against_exclusions(self.store, diseases, [])
            result.cypher.append(run)
            result.triples = [t for c in result.conflicts for t in c.triples] + result.triples

    # ---- generation --------------------------------------------------------------------
    def _answer(self, result: PipelineResult, generator: Generator, messages: list[dict], grounding,
                temperature: float, seed: int, options: dict[str, str] | None) -> Iterator[PipelineResult]:
        started = time.perf_counter()
        if grounding is None and not generator.is_llm:
            result.answer, result.done = NOTHING_TO_ANSWER, True
            yield result
            return
        if generator.notice:
            result.notices.append(generator.notice)
        if grounding is not None and self.curated.problem:  # the graph answered without them
            result.notices.append(f"Curated facts are not in this answer: {self.curated.problem}")
        # a diagnosis reply is a name and two sentences; a small model left at 512 tokens rambles for seconds
        limit = self.diagnosis_reply_tokens if result.kind == "diagnosis" else ANSWER_REPLY_TOKENS
        request = GenerationRequest(messages, temperature=temperature, seed=seed, grounding=grounding,
                                    max_new_tokens=limit)
        try:
            for piece in self._pieces(generator, request, started):
                result.answer += piece
                yield result
            if generator.is_llm and not result.answer.strip():
                raise LLMError("it returned an empty reply")
        except LLMError as e:
            self._grounded_instead(result, generator.name, str(e), request, grounding)
        result.timings_ms["generation"] = round((time.perf_counter() - started) * 1000, 2)
        if isinstance(grounding, Diagnosis) or grounding is None:
            if result.llm_failed:  # the fallback is the graph's answer: never scored as the LLM's
                result.predicted = None
            elif generator.is_llm or grounding is None:
                result.predicted = reply_to_prediction(result.answer, grounding, options, self.linker)
                if result.predicted is None:
                    result.llm_failed = "the reply chose none of the options" if options else \
                        "the reply names no disease"
                    result.notices.append(f"The {generator.name} LLM's reply could not be read as an answer: "
                                          f"{result.llm_failed}.")
            else:
                result.predicted = grounding.answer
            result.record = result.predicted if grounding is None or not generator.is_llm else grounding.answer
        if generator.is_llm and result.llm_answer is None:  # the LLM's own words: checked against the evidence
            self._check(result, messages, grounding)
        if result.conflicts:  # said after the answer, whoever wrote it
            result.answer = result.answer.rstrip() + "\n\n" + "\n".join(f"⚠ {c.text}" for c in result.conflicts)
        result.done = True
        yield result

    def _pieces(self, generator: Generator, request: GenerationRequest, started: float) -> Iterator[str]:
        """The reply's pieces; an LLM still writing after LLM_TIMEOUT_S is stopped (LLMTimeout)."""
        limit = self.settings.llm_timeout_s if generator.is_llm else None
        stream = generator.stream(request)
        try:
            for piece in stream:
                yield piece
                if limit is not None and time.perf_counter() - started > limit:
                    raise LLMTimeout(f"it was still writing after {limit:g} s (LLM_TIMEOUT_S)")
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()  # a local model stops generating

    def _grounded_instead(self, result: PipelineResult, name: str, why: str, request: GenerationRequest,
                          grounding) -> None:
        """The graph's grounded answer as the answer of record, saying why the LLM's is not there."""
        result.llm_failed = why
        result.notices.append(f"The {name} LLM failed ({why}); showing the grounded answer instead.")
        grounded = GroundedWriter().generate(replace(request, grounding=grounding))
        result.answer = f"{grounded}\n\n(The {name} LLM gave no answer ({why}): this is the graph's grounded answer.)"
        result.llm_answer = ""  # nothing of the LLM's to check

    def _check(self, result: PipelineResult, messages: list[dict], grounding) -> None:
        """Every name the LLM's answer gives, marked in it when the evidence does not hold it or the graph
        contradicts it; for a diagnosis, where its choice stands and which answer is the answer of record."""
        given = [m["content"] for m in messages if m["role"] == "user"]  # not the prompt's examples
        held = [node for r in result.ranked for node in (r.node_id, r.group_node)]
        evidence = Evidence.of(given, result.triples, result.links, held)
        result.llm_answer = result.answer
        check = self.checker.check(result.answer, evidence)
        if isinstance(grounding, Diagnosis):
            check.standing = standing_line(result.predicted, grounding.ranked)
            same = self.checker.same_disease(result.predicted)
            result.record, check.record = checked_choice(result.predicted, grounding.ranked, check, evidence, same)
        result.check = check
        result.answer = marked_answer(result.answer, check)

    def close(self) -> None:
        self.closed = True
        self._halt_prebuild.set()
        if self.vector_prebuild is not None:  # it stops at its next batch (the next caller builds the index)
            self.vector_prebuild.join(PREBUILD_STOP_S)
        self.store.close()
        gc.unfreeze()  # what the start set aside may be collected again (a process that starts another)


def prepare_graph(store: GraphStore, settings: Settings,
                  progress: Callable[[str], None]) -> tuple[CuratedLayer, BuildReport]:
    """The built graph with the curated overlay on it, one process at a time (several app processes
    may share a graph server and a state folder). A graph that is already built and holds exactly the
    overlay's live batches is used as it is: nothing is written, so a process that starts beside
    others never changes what they serve. Otherwise the curated layer is set aside, the graph is
    built if its inputs changed, and the layer is put back."""
    path = overlay_path(settings)
    with file_lock(path.with_name("graph-start.lock")):
        progress("checking that the graph store holds the graph these sources make")
        curated = CuratedLayer.attach(store, path, built_relationships(settings))
        if curated is not None:
            report = ensure_built(store, settings, with_hpo=settings.with_hpo,
                                  added_relationships=curated.replayed.relationships, progress=progress)
            if report.skipped:
                progress("the graph was built before: used as it is")
                return curated, report
        curated = CuratedLayer.set_aside(store, path)  # the build is compared without it
        report = ensure_built(store, settings, with_hpo=settings.with_hpo, progress=progress)
        if report.skipped:
            progress("the graph was built before: used as it is (the curated overlay set aside and put back)")
        curated.put_back()
    return curated, report


def recogniser_line(recognizer, reason: str, offline: str | None = None) -> str:
    """The start-up line that says which recogniser answers, and why (a model that failed to load
    leaves the dictionary and rules: why, in plain words; `offline`: why the Hub cannot be reached)."""
    if recognizer.notice is None and recognizer.model_name:
        return f"NER in use: the model {recognizer.model_name} ({reason}), with the HPO dictionary and rules"
    unavailable = getattr(recognizer, "unavailable", None)
    if unavailable:
        return (f"NER in use: the HPO dictionary and rules only. The model {recognizer.model_name} could not be "
                f"loaded: {unavailable}" + (f" ({offline})" if offline else "") + ".")
    return f"NER in use: the HPO dictionary and rules only ({reason})"


def describe_case(case: DiagnosisCase) -> str:
    """The case in the Publication set's words, for prompts and vector retrieval."""
    who = " ".join(part for part in [
        f"{case.age_years:g} years old" if case.age_years is not None else "", case.sex or "",
        case.ethnicity or ""] if part)
    text = f"There is a {who + ' ' if who else ''}patient"
    if case.gene:
        text += f" with a mutation in {case.gene}" + (f", namely, {case.variant}" if case.variant else "")
    if case.phenotypes:
        text += f" and with facial phenotypes of {', '.join(case.phenotypes)}"
    if case.other_findings:
        text += f", and with {', '.join(case.other_findings)}"
    if case.excluded:
        text += f", without {', '.join(case.excluded)}"
    return text + ". What disease might this patient have?"


def _last(results: Iterator[PipelineResult]) -> PipelineResult:
    result = None
    for result in results:  # noqa: B007 - the stream's last item is the finished result
        pass
    return result


def _take(result: PipelineResult, retrieved: RetrievalResult) -> None:
    result.triples, result.cypher, result.links = retrieved.triples, retrieved.cypher, retrieved.links
    result.llm_query = retrieved.llm_query
    result.notices += readings(retrieved.links) + retrieved.notices
    result.timings_ms.update(retrieved.timings_ms)


def said_after(retrieved: RetrievalResult, note: str) -> None:
    """A note said after the answer: below a list's items, after a lead (a blank line apart: a line right below
    a Markdown table would be read as one of its rows), or alone."""
    if retrieved.listing:
        retrieved.listing += "\n\n" + note
    else:
        retrieved.lead = "\n\n".join([*([retrieved.lead] if retrieved.lead else []), note])


def _unique(triples: list[Triple]) -> list[Triple]:
    seen, kept = set(), []
    for triple in triples:
        key = (triple.head_id, triple.relation, triple.tail_id, triple.head, triple.tail)
        if key not in seen:
            seen.add(key)
            kept.append(triple)
    return kept
