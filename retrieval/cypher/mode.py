"""Cypher mode: intent templates, or an LLM writing Cypher that the checker repairs.

With an LLM, its query goes through `check_cypher` and runs read-only with a time limit;
errors go back to the LLM for at most two repairs — only when no template recognises the
question: a repair round costs a CPU model seconds, and a template answer is already at
hand — and an empty or failed result falls back to the templates. Every query run and every
correction is kept with the evidence.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from fpkg.errors import LLMError, QueryRejected, StoreError
from fpkg.names import normalise
from graphstore.schema import NAME_PROPERTIES
from graphstore.store import GraphStore
from llm.base import GenerationRequest, Generator
from llm.parse import extract_cypher
from llm.prompts import cypher_messages
from retrieval.cypher.checker import check_cypher
from retrieval.cypher.templates import TEMPLATE_LIMIT, run_template
from retrieval.intent import detect_intent, find_mentions, nothing_found
from retrieval.linking import EntityLinker
from retrieval.question_types import answer_structured
from retrieval.ranked import list_lead, listing
from retrieval.relations import SUMMARY, recognise
from retrieval.result import CypherRun, Link, RetrievalResult, Triple
from retrieval.retriever import Retriever
from retrieval.summary import summarise

if TYPE_CHECKING:
    from fpkg.config import Settings

MAX_REPAIRS = 2
LLM_QUERY_TIMEOUT_MS = 3000
CYPHER_REPLY_TOKENS = 160  # a query fits in far fewer; a model that rambles (C++, prose) is cut short
# Few-shot (question, Cypher) pairs for the LLM, one per common question shape. Their questions
# and entities are none of any evaluation set's (the paper's domain QA and patient files, the
# development sets): a prompt must not hold an item it is scored on (tests/retrieval guards it).
EXAMPLES = [
    ("Which facial features does Van der Woude syndrome show?",
     "MATCH (d:Disease)-[:Exhibit]->(p:FacePhenotype) WHERE toLower(d.dname) = 'van der woude syndrome' "
     "RETURN d.dname AS head, 'Exhibit' AS relation, p.phenotypeName AS tail LIMIT 50"),
    ("Which diseases is the gene PAX3 linked to?",
     "MATCH (g:Genotype)-[:Cause]->(d:Disease) WHERE g.geneName = 'PAX3' "
     "RETURN g.geneName AS head, 'Cause' AS relation, d.dname AS tail LIMIT 50"),
    ("Which genes are linked to lower lip pits?",
     "MATCH (g:Genotype)-[:Affect]->(p:FacePhenotype) WHERE toLower(p.phenotypeName) = 'lower lip pit' "
     "RETURN g.geneName AS head, 'Affect' AS relation, p.phenotypeName AS tail LIMIT 50"),
    ("What other names does a preauricular skin tag have?",
     "MATCH (p:FacePhenotype) WHERE toLower(p.phenotypeName) = 'preauricular skin tag' "
     "RETURN p.phenotypeName AS head, 'has_synonym' AS relation, p.synonyms AS tail LIMIT 1"),
    ("Which facial phenotypes does EYA1 affect?",
     "MATCH (g:Genotype)-[:Affect]->(p:FacePhenotype) WHERE g.geneName = 'EYA1' "
     "RETURN g.geneName AS head, 'Affect' AS relation, p.phenotypeName AS tail LIMIT 50"),
]
LLM_QUERY_OUTCOMES = ("as_written", "repaired", "empty", "rejected", "failed")  # RetrievalResult.llm_query
PROMPT_SHOTS = 5  # examples the prompt shows: 5 chosen on dev by `bench cypher-prompts` (0, 1, 3, 5 compared)

# Cypher mode finds things by their names; a feature described in other words is vector mode's
# strength (the fuzzy question set: bench question-devset --set fuzzy).
VECTOR_HINT = "Vector mode searches the graph by meaning rather than by name: it may find what this describes."


class CypherRetriever(Retriever):
    def __init__(self, store: GraphStore, linker: EntityLinker):
        self.store, self.linker = store, linker

    @classmethod
    def create(cls, store: GraphStore, linker: EntityLinker, settings: Settings) -> CypherRetriever:
        return cls(store, linker)

    def retrieve(self, question: str, links: Sequence[Link] | None = None,
                 generator: Generator | None = None) -> RetrievalResult:
        started = time.perf_counter()
        result = RetrievalResult(mode="cypher")
        # every reading of each name: intent detection falls back on the others
        mentions = list(links) if links is not None else find_mentions(question, self.linker, alternatives=True)
        result.links = mentions
        if generator is not None and generator.is_llm:
            template_ready = detect_intent(question, mentions) is not None
            self._llm_query(question, generator, result, repairs=0 if template_ready else MAX_REPAIRS)
            if not result.triples:
                last = result.cypher[-1] if result.cypher else None
                what = "could not be run" if last is None or last.error else "found nothing"
                result.notices.append(f"The LLM's query {what}; the intent templates answered instead.")
        structured = None
        if not result.triples and links is None:
            structured = answer_structured(question, find_mentions(question, self.linker), self.store, self.linker)
        if structured is not None:
            result.intent, result.lead, result.complete = structured.intent, structured.lead, structured.complete
            result.listing = structured.listing
            result.triples, result.cypher = structured.triples, result.cypher + structured.runs
        elif not result.triples:
            intent, _ = recognise(question, mentions)
            if intent is None:
                result.notices.append("No known question type and graph entity were recognised in the question.")
                result.notices.append(VECTOR_HINT)
                result.lead = nothing_found(question, mentions)
            elif intent.name == SUMMARY:
                summary = summarise(self.store, intent.links[0])
                result.intent, result.lead, result.complete = summary.intent, summary.text, True
                result.triples, result.cypher = summary.triples, result.cypher + summary.runs
            else:
                result.intent = intent.name
                triples, runs = run_template(self.store, intent.name, [lk.node_id for lk in intent.links])
                result.triples, result.cypher = triples, result.cypher + runs
                result.lead = list_lead(intent, triples, capped=any(run.rows >= TEMPLATE_LIMIT for run in runs))
                result.listing = listing(intent.name, {lk.node_id for lk in intent.links}, triples, self.linker)
        result.timings_ms["cypher_retrieval"] = round((time.perf_counter() - started) * 1000, 2)
        return result

    def label_of_literal(self, name: str) -> str | None:
        key = normalise(name)
        labels = [label for label in ("Disease", "FacePhenotype", "Genotype") if key in self.linker.vocabulary(label)]
        return labels[0] if len(labels) == 1 else None

    def query_by_llm(self, question: str, generator: Generator, shots: int = PROMPT_SHOTS,
                     with_schema: bool = True) -> RetrievalResult:
        """The LLM's own query alone, without the templates' fallback (the prompt study's unit)."""
        result = RetrievalResult(mode="cypher")
        self._llm_query(question, generator, result, shots, with_schema)
        return result

    def _llm_query(self, question: str, generator: Generator, result: RetrievalResult,
                   shots: int = PROMPT_SHOTS, with_schema: bool = True, repairs: int = MAX_REPAIRS) -> None:
        schema = self.store.schema()
        previous, error = None, None
        result.llm_query = "rejected"  # unless a query runs below
        for attempt in range(1 + repairs):
            messages = cypher_messages(question, schema.describe() if with_schema else "", EXAMPLES[:shots],
                                       previous, error)
            try:
                request = GenerationRequest(messages, temperature=0.0, max_new_tokens=CYPHER_REPLY_TOKENS)
                reply = generator.generate(request)
            except LLMError as e:
                result.notices.append(f"The LLM could not write a query: {e}")
                result.llm_query = "failed"
                return
            written = extract_cypher(reply)
            if previous is not None and written.strip() == previous.strip():
                result.notices.append("The LLM repeated a query that had failed; no more repair rounds.")
                return  # the same query gives the same error: another round cannot improve it
            check = check_cypher(written, schema, label_of_literal=self.label_of_literal)
            run = CypherRun(check.query or written, origin="llm", corrections=list(check.corrections))
            result.cypher.append(run)
            if check.rejected or check.problems:
                run.error = "; ".join(check.problems) or f"rejected ({check.reason})"
                if check.rejected:
                    result.notices.append(f"Blocked an LLM-written query: {run.error}")
                previous, error = written, run.error
                continue
            try:
                rows = self.store.query(check.query, timeout_ms=LLM_QUERY_TIMEOUT_MS)
            except StoreError as e:
                run.error = str(e)
                if isinstance(e, QueryRejected) and "refused a write" in run.error:  # the server's own guard
                    result.notices.append("Blocked an LLM-written query: the graph store refused it as a write")
                previous, error = written, run.error
                continue
            run.rows = len(rows)
            result.triples = rows_as_triples(rows)
            if not rows:
                result.llm_query = "empty"
            else:
                result.llm_query = "as_written" if attempt == 0 and not run.corrections else "repaired"
            return


def rows_as_triples(rows: list[dict]) -> list[Triple]:
    """Arbitrary result rows as triples: (head, relation, tail) columns when the query returned
    them, else (first column's value, other column's name, its value)."""
    triples = []
    for row in rows:
        if {"head", "relation", "tail"} <= set(row):
            triples.append(Triple(str(row["head"]), str(row["relation"]), str(row["tail"]), -1, -1, "", "", "llm"))
            continue
        columns = list(row)
        if not columns:
            continue
        head = _plain(row[columns[0]])
        for column in columns[1:] or columns:
            triples.append(Triple(head, column, _plain(row[column]), -1, -1, "", "", "llm"))
    return triples


def _plain(value: object) -> str:
    if isinstance(value, dict) and "properties" in value:
        props = value["properties"]
        names = (NAME_PROPERTIES[label] for label in ("Disease", "FacePhenotype", "Genotype"))
        return str(next((props[key] for key in names if key in props), props))
    return str(value)
