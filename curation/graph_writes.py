"""The one write path for curated facts: fixed, parameterised statements, one per schema pattern.

Labels and relationship types come from CURATED_PATTERNS only (never from text); names, curator,
time and provenance are parameters. A curated relationship carries `source = "curated"` and its
batch number, so a batch is removed by number and the whole layer by source.
"""

from __future__ import annotations

from collections import defaultdict

from curation.facts import CURATED_PATTERNS, KIND_WORDS, NAME_PROPERTY, Fact, checked
from curation.overlay import Batch
from fpkg.errors import InputError, StoreError
from graphstore.schema import CURATED
from graphstore.store import GraphStore, quote_name

MAX_BATCH_FACTS = 500  # one reviewed report gives tens; more is not a review
_FOUND = "UNWIND $names AS name MATCH (n:{label}) WHERE n.{prop} = name RETURN DISTINCT name"
# one fact a statement: the first node of each name (names are unique per label in practice)
_MERGE = ("MATCH (h:{head}) WHERE h.{head_prop} = $head WITH h LIMIT 1 "
          "MATCH (t:{tail}) WHERE t.{tail_prop} = $tail WITH h, t LIMIT 1 "
          "MERGE (h)-[r:{rel} {{batch: $batch}}]->(t) "
          "SET r.source = $source, r.curator = $curator, r.at = $at, r.pmid = $pmid, "
          "r.text_sha256 = $text_sha256, r.sentence = $sentence")
_REMOVE_BATCH = "MATCH ()-[r]->() WHERE r.source = $source AND r.batch = $batch DELETE r"
_REMOVE_ALL = "MATCH ()-[r]->() WHERE r.source = $source DELETE r"
_BATCHES = "MATCH ()-[r]->() WHERE r.source = $source RETURN r.batch AS batch, count(r) AS relationships"


def missing_nodes(store: GraphStore, facts: list[Fact]) -> list[str]:
    """The facts' names the graph does not hold under their label, as "gene 'XYZ'"."""
    wanted: dict[str, set[str]] = defaultdict(set)
    for fact in facts:
        wanted[fact.head_label].add(fact.head)
        wanted[fact.tail_label].add(fact.tail)
    missing = []
    for label, names in sorted(wanted.items()):
        query = _FOUND.format(label=quote_name(label), prop=quote_name(NAME_PROPERTY[label], "property"))
        found = {row["name"] for row in store.query(query, {"names": sorted(names)})}
        missing += [f"{KIND_WORDS[label]} {name!r}" for name in sorted(names - found)]
    return missing


def check_facts(store: GraphStore, facts: list[Fact]) -> list[Fact]:
    """The facts checked against the schema and the graph; InputError naming every problem."""
    if not facts:
        raise InputError("No fact is accepted: accept at least one before merging.")
    if len(facts) > MAX_BATCH_FACTS:
        raise InputError(f"{len(facts):,} facts in one batch; a batch holds at most {MAX_BATCH_FACTS} (merge a "
                         "report at a time).")
    facts = [checked(fact) for fact in facts]
    missing = missing_nodes(store, facts)
    if missing:
        raise InputError(f"The graph has no {', '.join(missing)}: curated facts link nodes the graph already "
                         "holds (edit the name to one it has, or reject the fact).")
    return facts


def apply_batch(store: GraphStore, batch: Batch) -> int:
    """Writes the batch's facts; on any failure removes what it wrote, then raises."""
    by_pattern: dict[tuple[str, str, str], list[Fact]] = defaultdict(list)
    for fact in batch.facts:
        by_pattern[fact.pattern()].append(fact)
    params = {"batch": batch.batch, "source": CURATED, "curator": batch.curator, "at": batch.at,
              "pmid": int(batch.pmid) if batch.pmid.isdigit() else None, "text_sha256": batch.text_sha256}
    created = 0
    try:
        for pattern in CURATED_PATTERNS:  # fixed order; the labels come from here, never from text
            if by_pattern[pattern]:
                head, relation, tail = pattern
                statement = _MERGE.format(head=quote_name(head), tail=quote_name(tail),
                                          rel=quote_name(relation, "type"),
                                          head_prop=quote_name(NAME_PROPERTY[head], "property"),
                                          tail_prop=quote_name(NAME_PROPERTY[tail], "property"))
                for fact in by_pattern[pattern]:
                    row = {"head": fact.head, "tail": fact.tail, "sentence": fact.sentence}
                    created += store.write(statement, {**params, **row}).relationships_created
    except StoreError:
        remove_batch(store, batch.batch)
        raise
    return created


def remove_batch(store: GraphStore, batch: int) -> int:
    return store.write(_REMOVE_BATCH, {"source": CURATED, "batch": batch}).relationships_deleted


def batches_in_graph(store: GraphStore) -> dict[int, int]:
    """The curated batches the graph holds, with their relationships."""
    return {row["batch"]: row["relationships"] for row in store.query(_BATCHES, {"source": CURATED}, timeout_ms=60_000)}


def clear(store: GraphStore) -> int:
    """Removes every curated fact: before a build is compared with the store, and before a replay."""
    return store.write(_REMOVE_ALL, {"source": CURATED}).relationships_deleted
