"""What an LLM's answer names, checked against the evidence it was given and against the graph.

Every disease, gene and facial finding the answer names (as the linker reads the answer, sentence by
sentence: names and synonyms, MONDO's names, a gene only as its symbol is written; not typo or meaning
matches, which would put words in the model's mouth) and every variant it writes (its HGVS changes) is
one of:
- in the evidence: its node is one the evidence holds (the differential, the triples, the question's
  own names), or an ORPHA/OMIM twin, group or member of one; or its name is written in what the model
  was given or in the evidence's facts;
- not in the evidence: none of these. It comes from the model's own memory, or it is invented;
- contradicted: a gene named, in one clause with a cause word or a triple's arrow, as causing a disease
  that the graph does not link it to (nor the disease's twin, group or members) while it links the gene to
  others; or a facial finding said of a disease whose HPO annotation says NOT for it. A clause with a
  negation says nothing.
Being conservative, the check leaves a doubtful name unmarked rather than mark one the evidence holds.

The answer shows each mark after the name's first mention and a line saying why. For a diagnosis, a line
says where the LLM's choice stands in the graph's differential when it is not the graph's first; the
graph's first choice stays the answer of record when the LLM chose nothing readable, or a disease that
is not in the evidence or is contradicted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from fpkg.names import normalise, without_abbreviation
from fpkg.variant_keys import variant_keys
from graphstore import schema
from graphstore.store import GraphStore
from retrieval.intent import find_mentions
from retrieval.linking import EntityLinker
from retrieval.result import Link, Triple

IN_EVIDENCE, NOT_IN_EVIDENCE, CONTRADICTED = "in the evidence", "not in the evidence", "contradicted"
KINDS = {schema.DISEASE: "disease", schema.GENE: "gene", schema.PHENOTYPE: "finding"}
READ_AS_WRITTEN = ("exact", "synonym", "mondo")  # how a mention must be linked to be checked
TIMEOUT_MS = 3000
GENE_LINKS = ("MATCH (g:Genotype)-[:Cause]->(d:Disease) WHERE g.nid IN $genes "
              "RETURN g.nid AS gene, d.nid AS disease, d.dname AS name")
VARIANT_GENE_LINKS = ("MATCH (g:Genotype)<-[:Have]-(:Variation)-[:Cause]->(d:Disease) WHERE g.nid IN $genes "
                      "RETURN g.nid AS gene, d.nid AS disease, d.dname AS name")
RELATIVES = ("MATCH (d:Disease)-[:member_of]-(o:Disease) WHERE d.nid IN $diseases "
             "RETURN d.nid AS disease, o.nid AS other")
EXCLUDED = ("MATCH (d:Disease) WHERE d.nid IN $diseases AND d.excludes IS NOT NULL "
            "MATCH (p:FacePhenotype) WHERE p.nid IN $findings AND p.hpo_id IN split(d.excludes, ';') "
            "RETURN d.nid AS disease, p.nid AS finding, p.hpo_id AS hpo_id")
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")  # names are read sentence by sentence, never across two
_CLAUSES = re.compile(r"[;,]\s*|\s+(?:while|whereas|but|unlike|rather than)\s+", re.IGNORECASE)
# words that say a gene causes a disease, and the evidence's own triple form "(CHD7) -[Cause]-> (...)"
_CAUSE_WORDS = re.compile(r"\b(?:caus\w*|mutat\w*|variant\w*|due to|result\w* from|linked|associated|"
                          r"responsible|pathogenic|underl\w*)\b|-\[\w+\]\s*->", re.IGNORECASE)
_LETTER_EDGE = re.compile(r"^\W*[A-Za-z]\W*\s|\s\W*[A-Za-z]\W*$")  # a name's first or last word a letter alone
_NEGATION = re.compile(r"\b(?:no|not|never|without|absent|absence|lack\w*|rules? out|ruled out|excluded|"
                       r"exclude|nor|neither|isn't|aren't|doesn't|don't|cannot|unlikely)\b|n't\b", re.IGNORECASE)


@dataclass(frozen=True)
class CheckedName:
    mention: str  # as the answer writes it
    kind: str  # disease, gene, variant, finding
    name: str  # the graph's name (a variant: its change, as written)
    node_id: int | None
    status: str  # IN_EVIDENCE, NOT_IN_EVIDENCE or CONTRADICTED
    why: str = ""
    about: int | None = None  # the disease a contradicted gene or finding is said of

    @property
    def marked(self) -> bool:
        return self.status != IN_EVIDENCE


@dataclass
class AnswerCheck:
    names: list[CheckedName] = field(default_factory=list)
    standing: str | None = None  # where the LLM's choice stands in the graph's differential
    record: str | None = None  # why the graph's first choice is the answer of record, when it is
    evidence: Evidence | None = None  # what it was checked against

    def marked(self, status: str | None = None) -> list[CheckedName]:
        return [n for n in self.names if n.marked and (status is None or n.status == status)]

    def lines(self) -> list[str]:
        said = [n.why for n in self.marked()]
        if self.names and not said:
            said.append(f"every name it gives ({len(self.names)}) is in the evidence.")
        return [*said, *filter(None, [self.standing, self.record])]


@dataclass(frozen=True)
class Evidence:
    """What the answer is checked against: the retrieved evidence's nodes and the text it was given."""

    nodes: frozenset[int]
    text: str  # normalised: what the model was given, and the evidence's names
    changes: frozenset[str]  # the HGVS changes written in it

    @classmethod
    def of(cls, given: Iterable[str], triples: Iterable[Triple] = (), links: Iterable[Link] = (),
           nodes: Iterable[int | None] = ()) -> Evidence:
        triples = list(triples)
        names = [name for t in triples for name in (t.head, t.tail)]
        texts = [*given, *names]
        held = {*(t.head_id for t in triples), *(t.tail_id for t in triples), *(lk.node_id for lk in links), *nodes}
        return cls(frozenset(n for n in held if n is not None and n >= 0), f" {normalise(' '.join(texts))} ",
                   variant_keys("\n".join(texts)))

    def writes(self, name: str) -> bool:
        key = normalise(without_abbreviation(name)) or normalise(name)
        return bool(key) and f" {key} " in self.text


class AnswerChecker:
    """Checks LLM answers against the evidence and the graph (one per pipeline: it holds the linker and
    the ORPHA/OMIM twins)."""

    def __init__(self, store: GraphStore, linker: EntityLinker, twin_of: dict[int, int] | None = None):
        self.store, self.linker = store, linker
        self.twins: dict[int, set[int]] = {}
        for one, other in (twin_of or {}).items():
            self.twins.setdefault(one, set()).add(other)
            self.twins.setdefault(other, set()).add(one)

    def check(self, answer: str, evidence: Evidence) -> AnswerCheck:
        sentences = [(sentence, [lk for lk in find_mentions(sentence, self.linker) if _read_as_written(lk)])
                     for sentence in _SENTENCES.split(answer) if sentence.strip()]
        mentions = [link for _, links in sentences for link in links]
        family = self._family({lk.node_id for lk in mentions if lk.label == schema.DISEASE} | set(evidence.nodes))
        held = evidence.nodes | {other for node in evidence.nodes for other in family.get(node, ())}
        contradicted = self._contradictions(sentences, family)
        checked: dict[tuple[str, int], CheckedName] = {}
        for link in mentions:
            key = (link.label, link.node_id)
            if key in checked:
                continue
            if key in contradicted:
                why, about = contradicted[key]
                checked[key] = CheckedName(link.mention, KINDS[link.label], link.name, link.node_id, CONTRADICTED,
                                           why, about)
            elif link.node_id in held or evidence.writes(link.name) or evidence.writes(link.mention):
                checked[key] = CheckedName(link.mention, KINDS[link.label], link.name, link.node_id, IN_EVIDENCE)
            else:
                checked[key] = CheckedName(link.mention, KINDS[link.label], link.name, link.node_id, NOT_IN_EVIDENCE,
                                           f"{link.mention}: not in the evidence it was given (from the model's own "
                                           "memory, or invented).")
        names = list(checked.values())
        for change in sorted(variant_keys(answer)):  # HGVS changes, compared as written in the evidence
            if change in evidence.changes:
                names.append(CheckedName(change, "variant", change, None, IN_EVIDENCE))
            else:
                names.append(CheckedName(change, "variant", change, None, NOT_IN_EVIDENCE,
                                         f"{change}: a variant not in the evidence it was given."))
        return AnswerCheck(names, evidence=evidence)

    def same_disease(self, choice) -> frozenset[int]:
        """The nodes that are the LLM's chosen disease: its twins, group and members."""
        nodes = {n for n in (choice.node_id, choice.group_node) if n is not None} if choice else set()
        return frozenset(other for family in self._family(nodes).values() for other in family)

    # ---- the graph's side ---------------------------------------------------------------------------
    def _family(self, diseases: set[int]) -> dict[int, set[int]]:
        """Each disease with its ORPHA/OMIM twins and, one member_of step away, its group (a member) or its
        members (a group)."""
        family = {d: {d, *self.twins.get(d, ())} for d in diseases}
        if not diseases:
            return family
        rows = self.store.query(RELATIVES, {"diseases": sorted(family)}, timeout_ms=TIMEOUT_MS)
        for row in rows:
            family[row["disease"]].add(row["other"])
        return family

    def _contradictions(self, sentences: list[tuple[str, list[Link]]], family: dict[int, set[int]]) -> dict:
        """(label, node) → (why, the disease), for the genes and findings the answer says of a disease
        against the graph."""
        pairs = [pair for sentence, links in sentences for pair in _said_together(sentence, links)]
        gene_pairs = [(g, d) for g, d, clause in pairs if g.label == schema.GENE and d.label == schema.DISEASE
                      and _CAUSE_WORDS.search(clause)]
        finding_pairs = [(f, d) for f, d, _ in pairs if f.label == schema.PHENOTYPE and d.label == schema.DISEASE]
        found = {}
        if gene_pairs:
            linked = self._gene_links({g.node_id for g, _ in gene_pairs})
            for gene, disease in gene_pairs:
                diseases = linked.get(gene.node_id, {})
                if diseases and not (family.get(disease.node_id, {disease.node_id}) & set(diseases)):
                    names = sorted(set(diseases.values()))
                    others = "; ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
                    found[(gene.label, gene.node_id)] = (
                        f"{gene.mention} as a cause of {disease.name}: contradicted: the graph links {gene.name} "
                        f"to {others}, not to {disease.name}.", disease.node_id)
        if finding_pairs:
            params = {"diseases": sorted({d.node_id for _, d in finding_pairs}),
                      "findings": sorted({f.node_id for f, _ in finding_pairs})}
            excluded = {(row["disease"], row["finding"]): row["hpo_id"]
                        for row in self.store.query(EXCLUDED, params, timeout_ms=TIMEOUT_MS)}
            for finding, disease in finding_pairs:
                if (disease.node_id, finding.node_id) in excluded:
                    hpo_id = excluded[(disease.node_id, finding.node_id)]
                    found[(finding.label, finding.node_id)] = (
                        f"{finding.mention} in {disease.name}: contradicted: HPO annotates {disease.name} as "
                        f"lacking {finding.name} (a NOT annotation, {hpo_id}).", disease.node_id)
        return found

    def _gene_links(self, genes: set[int]) -> dict[int, dict[int, str]]:
        """gene → {disease: name} the graph links it to, directly or through a variant of it."""
        linked: dict[int, dict[int, str]] = {}
        for query in (GENE_LINKS, VARIANT_GENE_LINKS):
            for row in self.store.query(query, {"genes": sorted(genes)}, timeout_ms=TIMEOUT_MS):
                linked.setdefault(row["gene"], {})[row["disease"]] = row["name"]
        return linked


def _read_as_written(link: Link) -> bool:
    """A name the answer really gives: linked as written (not a typo or meaning match); a gene only when
    written as its symbol is ("mal", a word cut off at the reply's end, is not the gene MAL); no name that
    begins or ends with a letter alone, which in an answer is an option's ("Cochran syndrome C. Cohen
    syndrome" names no "Syndrome C")."""
    if link.node_id is None or link.label not in KINDS or link.method not in READ_AS_WRITTEN:
        return False
    if _LETTER_EDGE.search(link.mention):
        return False
    return link.label != schema.GENE or link.mention == link.name


def _said_together(sentence: str, mentions: list[Link]) -> Iterable[tuple[Link, Link, str]]:
    """(mention, disease mention, clause) for each pair of names in one clause that has no negation."""
    for clause in _CLAUSES.split(sentence):
        if not clause.strip() or _NEGATION.search(clause):
            continue
        folded = f" {normalise(clause)} "
        inside = [lk for lk in mentions if f" {normalise(lk.mention)} " in folded]
        for disease in (lk for lk in inside if lk.label == schema.DISEASE):
            for other in inside:
                if other.label != schema.DISEASE:
                    yield other, disease, clause


def marked_answer(answer: str, check: AnswerCheck) -> str:
    """The answer with each marked name's first mention followed by its mark, and the check's lines."""
    marked = answer
    places = []
    for name in check.marked():
        start = marked.lower().find(name.mention.lower())
        if start >= 0:
            places.append((start + len(name.mention), name.status))
    for end, status in sorted(set(places), reverse=True):
        marked = f"{marked[:end]} [{status}]{marked[end:]}"
    lines = check.lines()
    if not lines:
        return marked
    return marked.rstrip() + "\n\nChecked against the graph:\n" + "\n".join(f"- {line}" for line in lines)


ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}
SHOWN_CHARS = 80


def place_of(choice, ranked: Sequence) -> int | None:
    """Where the LLM's choice is in the graph's ranking (0 first), by option letter or disease node."""
    for index, candidate in enumerate(ranked):
        if candidate is choice or (choice.option and candidate.option == choice.option) or \
                (choice.node_id is not None and candidate.node_id == choice.node_id):
            return index
    return None


def standing_line(choice, ranked: Sequence) -> str | None:
    """Where the LLM's choice stands in the graph's differential, when it is not the graph's first."""
    if choice is None or not ranked:
        return None
    first = ranked[0]
    place = place_of(choice, ranked)
    if place == 0:
        return None
    head = f"{choice.option + '. ' if choice.option else ''}{_shown(choice.name)}"
    if place is None:
        return (f"The LLM chose {head}, which is not in the graph's differential; the graph ranks {first.name} "
                f"first ({first.score:.2f}).")
    ordinal = ORDINALS.get(place + 1, f"{place + 1}th")
    return (f"The LLM chose {head}, which the graph's differential ranks {ordinal} of {len(ranked)} "
            f"({ranked[place].score:.2f}; first: {first.name}, {first.score:.2f}).")


def _shown(name: str) -> str:
    """A reply's own first line taken as its choice, as short as it can be said: "Cohen-Steinman syndrome
    (graph score 4.57): 3 of 4 findings …" → "Cohen-Steinman syndrome"."""
    short = re.split(r"\s*\(graph score|:\s|\s-\[", name, maxsplit=1)[0].strip()
    return short if len(short) <= SHOWN_CHARS else short[:SHOWN_CHARS].rstrip() + " …"


def checked_choice(choice, ranked: Sequence, check: AnswerCheck, evidence: Evidence,
                   same: frozenset[int] = frozenset()):
    """(the answer of record, why it is the graph's first choice rather than the LLM's, or None).
    The LLM's choice stays unless it is unreadable, names no disease of the evidence (outside the graph's
    ranking and nowhere in what the model was given, as written), or is contradicted (a gene or finding
    said of it, or of `same`: its twins, group and members, against the graph)."""
    first = ranked[0] if ranked else None
    if first is None:
        return choice, None
    if choice is None:
        return first, (f"The LLM's reply chose no disease: the graph's first choice, {first.name}, is the answer "
                       "of record.")
    place = place_of(choice, ranked)
    if place == 0:
        return choice, None
    status = None
    if any(n.status == CONTRADICTED and n.about is not None and n.about in {choice.node_id, *same}
           for n in check.names):
        status = CONTRADICTED
    elif place is None and choice.node_id not in evidence.nodes and not evidence.writes(choice.name):
        status = "names no disease of the evidence"
    if status is None:
        return choice, None
    said = "is contradicted" if status == CONTRADICTED else status
    return first, f"The LLM's choice {said}: the graph's first choice, {first.name}, is the answer of record."
