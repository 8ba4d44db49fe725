"""The differential diagnosis: candidate diseases ranked by what the graph says of the case.

score = Σ weight × part, one part per kind of evidence (`diagnosis/evidence/`: the gene link, the
patient's published variant, the annotation match, contradicting findings, the literature prior, an
OMIM entry of the gene, ...), weighted as `diagnosis/evidence/weights.json` says (fitted on
development cases). Candidates: the gene's diseases, its published cases' diseases, the options, and
those each kind brings (the best annotation matches among all diseases, ...). Ties break by the
phenotype match, then the number of exactly matched terms, then the disease id: never by name. Every
part is kept with its evidence, so the ranking explains itself. A held-out paper (`retrieval.hold_out`)
removes that paper's cases, variants and annotations (under the whole-paper rule, HPO's lines citing it
alone too) from the evidence, candidate selection included, without touching the graph.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field, replace

from diagnosis.confidence import ConfidenceModel, case_shape
from diagnosis.confidence import features as confidence_features
from diagnosis.conflicts import CHECKED_DISEASES, Conflict, against_exclusions, co_carried, variant_vs_gene
from diagnosis.evidence import KINDS, CaseEvidence, Knowledge, Part, load_weights, weight_set
from diagnosis.evidence.base import cardinal_terms
from diagnosis.groups import DiseaseGroups
from diagnosis.ontology import PhenotypeOntology
from diagnosis.phenotype_match import PATIENT_SIDE, PhenotypeMatcher
from diagnosis.profile_match import ProfileMatcher
from diagnosis.profiles import DiseaseProfiles
from diagnosis.published_patients import CasePatients, NearestPatient, PublishedPatients
from diagnosis.queries import MEMBERS_GENE, gather_evidence
from diagnosis.told_apart import told_apart
from diagnosis.twins import find_twins, merge_twins
from fpkg.names import fold_name, without_abbreviation
from graphstore.schema import DIAGNOSED, DISEASE, SAMPLE
from graphstore.store import GraphStore
from retrieval.findings import FINDING, FindingLinker, term_id
from retrieval.hold_out import NOTHING_HELD_OUT, HoldOut
from retrieval.linking import EntityLinker
from retrieval.options import link_option
from retrieval.result import CypherRun, Link, Triple

FINDING_TYPES = ("FACIAL_PHENOTYPE", FINDING)  # present findings, facial or not
ABSENT = "ABSENT_FINDING"  # a finding written as absent
# An option the graph does not hold, when the patient's gene supports none of the options (a gene the
# graph does not hold supports none it holds): by elimination it is the disease, newer than the graph's
# annotations; it weighs as the gene's support of an OMIM entry does (gene and specific), since the gene speaks
# against every other option.
ELIMINATION = "elimination"
PART_NAMES = (*(kind.name for kind in KINDS), ELIMINATION)  # every part a ranked disease may show
TOP_N = 10
PATIENTS_FOR, PATIENTS_SHOWN = 3, 3  # the nearest published patients of the first 3 diseases are shown


@dataclass(frozen=True)
class DiagnosisCase:
    phenotypes: tuple[str, ...] = ()
    gene: str | None = None
    variant: str | None = None
    age_years: float | None = None
    sex: str | None = None
    ethnicity: str | None = None
    options: dict[str, str] | None = None  # letter → disease name, for selective questions
    excluded: tuple[str, ...] = ()  # findings written as absent ("no cleft palate"): never used as present
    other_findings: tuple[str, ...] = ()  # present findings that are not facial (seizures, a heart defect)
    # a finding's own HPO id where the reader or a phenopacket knows it ((mention, HP id), ...): linked as that
    # term, not by its name ("Hypotonia" is HP:0001252, never the graph's facial phenotype nearest in name)
    terms: tuple[tuple[str, str], ...] = ()


@dataclass
class RankedDisease:
    name: str
    node_id: int | None
    disease_id: str | None
    score: float
    parts: dict[str, float] = field(default_factory=dict)
    evidence: list[str] = field(default_factory=list)
    option: str | None = None  # the option letter, in selective mode
    in_graph: bool = True
    exact: int = 0  # patient terms the disease is annotated with exactly (breaks ties)
    similarity: float = 0.0  # the annotation match, unweighted (diagnosis/phenotype_match.py)
    explained: float = 0.0  # the share of the findings its annotations and patients explain (profile_match.py)
    annotated: int = 0  # facial phenotypes the disease is annotated with
    other_ids: tuple[str, ...] = ()  # the same disease's other entries (an Orphanet twin)
    group: str | None = None  # the group this member was chosen from ("Loeys-Dietz syndrome (ORPHA:60030)")
    group_node: int | None = None
    members: int = 0  # a group left standing: how many diseases it holds (diagnosis/groups.py)
    ranked_members: tuple = ()  # a group shown first: its members, ranked (diagnosis/groups.py `collapse`)
    told_apart: tuple[str, ...] = ()  # what would tell those members apart (diagnosis/told_apart.py)

    @property
    def title(self) -> str:
        """The name as an answer shows it: a member with its group beside it, a group said to be one."""
        if self.group and fold_name(without_abbreviation(self.group)) != fold_name(self.name):
            return f"{self.name}, in the group {self.group}"  # (a group named as its member says nothing more)
        if self.members > 1:
            return f"{self.name} (a group of {self.members} diseases)"
        return self.name


@dataclass
class PreparedCase:
    """A case linked, with its candidates and each kind's part of each: a ranking less its weights."""

    case: DiagnosisCase
    links: list[Link]
    notices: list[str]
    option_links: dict[str, Link]
    evidence: CaseEvidence
    parts: dict[int, dict[str, Part]]  # candidate disease -> kind -> its part, unweighted
    phenotypes: list[int]  # the graph's phenotype nodes of the present findings
    timings: dict[str, float]  # perf_counter() when it started, was linked, was queried


@dataclass
class Diagnosis:
    ranked: list[RankedDisease]
    selective: bool
    links: list[Link] = field(default_factory=list)
    triples: list[Triple] = field(default_factory=list)
    cypher: list[CypherRun] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    options_not_in_graph: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    confidence: float | None = None  # that the top answer is right (diagnosis/confidence.py)
    shape: str = ""  # the input's shape its confidence is calibrated on (diagnosis/confidence.py SHAPES)
    conflicts: list[Conflict] = field(default_factory=list)  # facts that disagree (diagnosis/conflicts.py)
    information: float = 0.0  # the linked phenotypes' summed information content: how much they say
    gene_diseases: frozenset[int] = frozenset()  # what the knowledge links the gene to (a held-out paper's left out)
    gene_disorders: int = 0  # of those, the diseases it is linked to itself (not a group through a member)
    # the published patients most like the case, for the first ranked diseases (disease node -> patients)
    nearest_patients: dict[int, list[NearestPatient]] = field(default_factory=dict)

    @property
    def answer(self) -> RankedDisease | None:
        return self.ranked[0] if self.ranked else None


class DiagnosisRanker:
    def __init__(self, store: GraphStore, linker: EntityLinker, ontology: PhenotypeOntology,
                 profiles: DiseaseProfiles, findings: FindingLinker, *, startup_reads: GraphStore | None = None,
                 patients: PublishedPatients | None = None):
        """`findings`: links findings beside the face (any HPO term); `startup_reads`: where the
        start's own reads go (graphstore.startup_reads), else `store`; `patients`: the published
        patients (read from the graph when not given)."""
        self.store, self.linker, self.ontology, self.findings = store, linker, ontology, findings
        reads = startup_reads or store
        self.profiles = profiles
        self.matcher = PhenotypeMatcher(ontology, self.profiles)
        self.twin_of = find_twins(*_twin_inputs(reads, self.profiles))
        # every disease's name and id, so that a case asks the graph for its gene's evidence alone
        self.disease_info = {row["disease"]: {"name": row["name"], "disease_id": row["did"]}
                             for row in reads.query(_DISEASE_IDS, timeout_ms=60_000)}
        genes_of: dict[int, set[str]] = {}
        for row in reads.query(_GENE_NAMES, timeout_ms=60_000):
            genes_of.setdefault(row["disease"], set()).add(row["gene"])
        self.genes_of = {d: tuple(sorted(g)) for d, g in genes_of.items()}  # a disease's genes, by name
        self.groups = DiseaseGroups.from_store(reads)
        self.confidence_model = ConfidenceModel.load()
        self.weights = load_weights()  # a set for a case with its gene, one for findings alone
        self.patients = patients if patients is not None else PublishedPatients.from_store(reads, ontology)
        self.profile_matcher = ProfileMatcher(self.matcher, self.patients)
        self.knowledge = Knowledge(ontology, profiles, self.patients, _cardinal_findings(ontology, profiles))

    def rank(self, case: DiagnosisCase, hold_out: HoldOut = NOTHING_HELD_OUT) -> Diagnosis:
        return self.finish(self.prepare(case, hold_out))

    def finish(self, prepared: PreparedCase) -> Diagnosis:
        """The diagnosis of a prepared case (`prepare`): ranked under the fitted weights, with its patients,
        conflicts and confidence."""
        case, hold_out = prepared.case, prepared.evidence.hold_out
        ranked, missing = self.order(prepared)
        queried_at = prepared.timings["queried"]
        links, notices = prepared.links, prepared.notices
        if case.options:
            links += list(prepared.option_links.values())
        if not ranked:
            notices.append("The graph holds no disease for this gene or these phenotypes.")
        evidence = prepared.evidence.graph
        diagnosis = Diagnosis(ranked, bool(case.options), links, evidence.triples_for(ranked), evidence.runs,
                              notices, missing)
        self._add_nearest_patients(diagnosis, prepared)
        diagnosis.ranked = [replace(r, told_apart=told_apart(list(r.ranked_members), self.genes_of, self.profiles,
                                                             self.ontology.names, hold_out))
                            if r.ranked_members else r for r in diagnosis.ranked]
        if prepared.evidence.gene is not None:
            diagnosis.gene_diseases = frozenset(evidence.gene_sources)
            diagnosis.gene_disorders = sum(1 for sources in evidence.gene_sources.values() if sources != {MEMBERS_GENE})
        self._check_conflicts(diagnosis, evidence, prepared.phenotypes, hold_out)
        diagnosis.information = round(float(sum(self.ontology.ic[t] for t in prepared.evidence.present)), 4)
        values = confidence_features(diagnosis)
        diagnosis.shape = case_shape(diagnosis)
        if self.confidence_model is not None and values is not None:
            diagnosis.confidence = round(self.confidence_model.probability(values, diagnosis.shape), 4)
        _when_no_finding_linked(case, diagnosis)
        started, linked_at = prepared.timings["started"], prepared.timings["linked"]
        diagnosis.timings_ms = {"linking": _ms(started, linked_at), "queries": _ms(linked_at, queried_at),
                                "ranking": _ms(queried_at, time.perf_counter())}
        return diagnosis

    def with_lines(self, hold_out: HoldOut) -> HoldOut:
        """The hold-out with HPO's lines its papers alone are the sources of, under the whole-paper rule (read
        here when whoever made it did not)."""
        if hold_out.lines is not None or not hold_out.whole_paper or not hold_out:
            return hold_out
        return replace(hold_out, lines=self.profiles.held_out(hold_out.pmids))

    def prepare(self, case: DiagnosisCase, hold_out: HoldOut = NOTHING_HELD_OUT) -> PreparedCase:
        """The case linked, its candidates gathered and every kind's part of each: all but the weights."""
        started = time.perf_counter()
        hold_out = self.with_lines(hold_out)
        exclude_pmids = hold_out.pmids
        links, notices = self._link(case)
        gene = next((lk for lk in links if lk.type == "GENE" and lk.node_id is not None), None)
        variants = [lk.node_id for lk in links if lk.type == "MUTATION" and lk.node_id is not None]
        present = self._terms(lk for lk in links if lk.type in FINDING_TYPES)
        absent = self._terms(lk for lk in links if lk.type == ABSENT)
        phenotypes = sorted({lk.node_id for lk in links if lk.type in FINDING_TYPES and lk.node_id is not None})
        option_links = {letter: link_option(name, self.linker) for letter, name in (case.options or {}).items()}
        linked_at = time.perf_counter()
        whole = not all(self.ontology.facial[t] for t in present + absent)
        matched = replace(self.matcher.scores(present, hold_out, gene_known=gene is not None, whole=whole),
                          findings=len(present) + len(absent))
        found = CaseEvidence(self.knowledge, present, absent, gene, variants, hold_out, whole, matched,
                             self.matcher.contradictions(present, absent, hold_out), age_years=case.age_years,
                             sex=(case.sex or "").strip().lower() or None)
        if len(self.patients) and present:
            scores = self.patients.scores(present, whole=whole, patient_side=PATIENT_SIDE, exclude_pmids=exclude_pmids)
            found.patients = CasePatients(self.patients, scores, frozenset(present))
        if present:
            found.profile = self.profile_matcher.scores(present, hold_out)
        candidates = set().union(*(kind.candidates(found) for kind in KINDS))
        found.graph = gather_evidence(
            self.store, self.profiles, gene_id=gene.node_id if gene else None, variant_ids=variants,
            phenotype_ids=phenotypes, extra_diseases=[lk.node_id for lk in option_links.values() if lk.node_id],
            phenotype_candidates=sorted(candidates), hold_out=hold_out,
            groups_of=self.groups.groups_of, diseases=self.disease_info)
        found.graph.gene = (gene.node_id, gene.name) if gene else None
        if absent:
            notices.append(f"Written as absent, counted against the diseases that show them: "
                           f"{', '.join(lk.name for lk in links if lk.type == ABSENT and lk.name)}.")
        if gene is None and present:
            notices.append(f"No gene known to the graph: ranked by the findings across all "
                           f"{len(matched.diseases):,} annotated diseases.")
        parts = {d: {kind.name: part for kind in KINDS if (part := kind.part(d, found)) is not None}
                 for d in found.graph.diseases}
        return PreparedCase(case, links, notices, option_links, found, parts, phenotypes,
                            {"started": started, "linked": linked_at, "queried": time.perf_counter()})

    def order(self, prepared: PreparedCase, weights: dict[str, float] | None = None
              ) -> tuple[list[RankedDisease], list[str]]:
        """The ranking of a prepared case under `weights` (default: the fitted set for its shape): each candidate
        scored, twins merged, groups resolved; for a selective case, the options and those outside the graph."""
        weights = weights or self.weights[weight_set(prepared.evidence)]
        found, case = prepared.evidence, prepared.case
        scored = {d: self._score(d, prepared.parts[d], found, weights) for d in found.graph.diseases}
        if case.options:
            return self._rank_options(case.options, prepared.option_links, scored, found.gene, case.gene, weights)
        ordered = merge_twins(sorted(scored.values(), key=_order), self.twin_of)
        caused = set(found.graph.gene_sources) if found.gene is not None else set()
        shown = self.groups.collapse(self.groups.resolve(ordered, caused), caused)
        return sorted(shown, key=_order)[:TOP_N], []  # one order: a group stands at its own score

    def _add_nearest_patients(self, diagnosis: Diagnosis, prepared: PreparedCase) -> None:
        """The published patients most like the case, for the first diseases ranked, as triples too
        (patient -[Diagnosed]-> disease, with its paper's PMID)."""
        patients = prepared.evidence.patients
        if patients is None:
            return
        for ranked in diagnosis.ranked[:PATIENTS_FOR]:
            ranked = ranked.ranked_members[0] if ranked.ranked_members else ranked  # a group: its first member's
            found = patients.nearest(ranked.node_id, PATIENTS_SHOWN) if ranked.node_id is not None else []
            if not found:
                continue
            diagnosis.nearest_patients[ranked.node_id] = found
            diagnosis.triples += [Triple(near.patient.sid, DIAGNOSED, ranked.name, near.patient.node, ranked.node_id,
                                         SAMPLE, DISEASE, near.patient.source,
                                         (near.patient.pmid,) if near.patient.pmid else ()) for near in found]

    def _check_conflicts(self, diagnosis: Diagnosis, evidence, phenotypes: list[int], hold_out: HoldOut) -> None:
        variant = next((lk for lk in diagnosis.links if lk.type == "MUTATION" and lk.node_id is not None), None)
        found = variant_vs_gene(evidence, variant, self.twin_of)
        carried, runs = co_carried(self.store, evidence, variant, self.twin_of, hold_out.pmids)
        top = [r.node_id for r in diagnosis.ranked[:CHECKED_DISEASES] if r.node_id is not None]
        excluded, run = against_exclusions(self.store, top, phenotypes)
        diagnosis.cypher += [*runs, run]
        found += carried
        # a held-out paper's exhibit (or HPO's NOT annotation from that paper alone) is no evidence: no conflict
        found += [c for c in excluded if all(hold_out.keeps(t) for t in c.triples)]
        diagnosis.conflicts = found

    def _link(self, case: DiagnosisCase) -> tuple[list[Link], list[str]]:
        links: list[Link] = []
        notices: list[str] = []
        if case.gene:
            link = self.linker.link(case.gene, "GENE")
            links.append(link)
            if link.node_id is None:
                notices.append(f"The gene {case.gene!r} is not in the graph; ranking by phenotypes alone.")
        if case.variant:
            found = self.linker.candidates(case.variant, "MUTATION", k=20, gene=case.gene)
            links.extend(found or [Link(case.variant, "MUTATION", None, method="none")])
        known = dict(case.terms)
        for mention in case.phenotypes:
            # an HPO id is that term; a name, a facial phenotype of the graph first
            term = known.get(mention) or term_id(mention)
            link = self.findings.link(term, mention) if term else self.linker.link(mention, "FACIAL_PHENOTYPE")
            if link.node_id is None and not link.ids:  # another HPO finding typed among the facial ones
                link = self.findings.link(mention)
            links.append(link)
            if link.node_id is None and not link.ids:
                notices.append(f"The finding {mention!r} matches no HPO phenotype or facial phenotype in the graph.")
        for mention in case.other_findings:
            links.append(self._finding(mention, FINDING, notices, known.get(mention)))
        for mention in case.excluded:
            links.append(self._finding(mention, ABSENT, notices, known.get(mention)))
        return links, notices

    def _finding(self, mention: str, kind: str, notices: list[str], hpo_id: str | None = None) -> Link:
        """Any HPO term (by its id where known), else a facial phenotype only the graph names (FPKG's own)."""
        term = hpo_id or term_id(mention)
        link = self.findings.link(term, mention) if term else self.findings.link(mention)
        if not link.ids:
            link = self.linker.link(mention, "FACIAL_PHENOTYPE")
        if link.node_id is None and not link.ids:
            notices.append(f"The finding {mention!r} matches no HPO phenotype or facial phenotype in the graph.")
        return replace(link, type=kind)

    def _terms(self, links) -> list[int]:
        return list(dict.fromkeys(term for link in links if (term := self.term_of(link)) is not None))

    def term_of(self, link: Link) -> int | None:
        """The ontology's term for a linked finding: by its HPO id, else by its graph node."""
        if link.ids:
            return self.ontology.index_of_hpo.get(link.ids[0])
        return self.ontology.node_term.get(link.node_id) if link.node_id is not None else None

    @staticmethod
    def _score(disease: int, parts: dict[str, Part], case: CaseEvidence, weights: dict[str, float]) -> RankedDisease:
        """Each kind's part, weighted, with the words it rests on; the score is their sum."""
        weighted = {name: round(weights[name] * part.value, 4) for name, part in parts.items() if weights.get(name)}
        lines = [part.line for name, part in parts.items() if name in weighted]
        similarity, exact, annotated = case.matched.of(disease)
        info = case.graph.diseases[disease]
        explained = parts["profile"].value if "profile" in parts else 0.0
        return RankedDisease(info["name"], disease, info.get("disease_id"), round(sum(weighted.values()), 4),
                             weighted, lines, exact=exact, annotated=annotated, similarity=similarity,
                             explained=explained)

    def _rank_options(self, options: dict[str, str], option_links: dict[str, Link], scored: dict[int, RankedDisease],
                      gene: Link | None, given_gene: str | None,
                      weights: dict[str, float]) -> tuple[list[RankedDisease], list[str]]:
        """Every option on the diagnosis' own scale; one the graph does not hold scores what can be
        said of it: its gene (MONDO's, or named in it), or elimination when the patient's gene supports
        no other option (a gene the graph does not hold supports none of the options it holds). An
        option the graph holds but knows nothing of (no annotation, gene or published patient: all a
        held-out paper's) is judged by elimination too. Elimination weighs as the gene's support of an OMIM
        entry does; when the graph lacks the patient's gene the findings' weights, which have no gene, rank
        the options, so elimination there outweighs the best of them by the gene's weight."""
        known = {letter: scored[link.node_id] for letter, link in option_links.items()
                 if link.node_id is not None and link.node_id in scored}
        elimination = weights["gene"] + weights["specific"] if weights["gene"] else \
            max((found.score for found in known.values()), default=0.0) + self.weights["gene"]["gene"]
        unknown = {letter: self._outside_graph(name, option_links[letter], gene, weights["gene"])
                   for letter, name in options.items() if letter not in known}
        supported = any("gene" in found.parts for found in [*known.values(), *unknown.values()])
        ranked: list[RankedDisease] = []
        for letter, name in options.items():
            if letter in known:
                found = known[letter]
                parts, lines = dict(found.parts), [f"option links to {found.name} ({option_links[letter].method})",
                                                   *found.evidence]
                if given_gene and not supported and not parts:
                    parts[ELIMINATION] = elimination
                    lines.append(f"{gene.name if gene else given_gene} supports none of the other options, and the "
                                 "graph knows nothing of this one: by elimination")
                ranked.append(RankedDisease(name, found.node_id, found.disease_id, round(sum(parts.values()), 4),
                                            parts, lines, letter, exact=found.exact, annotated=found.annotated,
                                            similarity=found.similarity, explained=found.explained))
                continue
            outside = unknown[letter]
            if given_gene and not supported:
                outside.parts[ELIMINATION] = elimination
                outside.evidence.append(f"{gene.name if gene else given_gene} supports none of the other options: "
                                        "by elimination, a disease newer than the graph's annotations")
            ranked.append(replace(outside, score=round(sum(outside.parts.values()), 4), option=letter))
        ranked.sort(key=lambda r: (*_order(r)[:3], r.option or ""))
        return ranked, [f"{letter}. {options[letter]}" for letter in unknown]

    def _outside_graph(self, name: str, link: Link, gene: Link | None, gene_weight: float) -> RankedDisease:
        """An option the graph does not hold, with what MONDO or its name says of its gene."""
        named = f"known to MONDO as {link.name} ({', '.join(link.ids)}), " if link.ids else ""
        parts, lines = {}, [f"{named}not in the graph's annotations"]
        mondo_gene = self.linker.mondo.series_gene.get(link.ids[-1]) if link.ids else None
        if gene is not None and (mondo_gene or "").upper() == gene.name.upper():
            parts["gene"] = gene_weight
            lines.append(f"MONDO names {gene.name} as its gene")
        elif gene is not None and _names_gene(name, gene.name):
            parts["gene"] = gene_weight
            lines.append(f"its name names the patient's gene {gene.name}")
        return RankedDisease(name, None, None, 0.0, parts, lines, in_graph=False)


# the sources' own gene links (HPO, curated): a twin is told by them, not by published patients' papers
_GENE_LINKS = ("MATCH (g:Genotype)-[r:Cause]->(d:Disease) WHERE r.source <> 'phenopacket-store' "
               "RETURN d.nid AS disease, g.nid AS gene")
_GENE_NAMES = "MATCH (g:Genotype)-[:Cause]->(d:Disease) RETURN d.nid AS disease, g.geneName AS gene"
_DISEASE_IDS = ("MATCH (d:Disease) RETURN d.nid AS disease, d.disease_id AS did, d.dname AS name, "
                "d.mondo_id AS mondo, d.group_size AS group_size")


def _twin_inputs(store: GraphStore, profiles: DiseaseProfiles) -> tuple:
    """Each disease's HPO genes, ids, annotated phenotypes and names, for `find_twins` (read once at start)."""
    genes: dict[int, set[int]] = {}
    for row in store.query(_GENE_LINKS, timeout_ms=60_000):
        genes.setdefault(row["disease"], set()).add(row["gene"])
    rows = store.query(_DISEASE_IDS, timeout_ms=60_000)
    ids = {row["disease"]: row["did"] or "" for row in rows}
    names = {row["disease"]: row["name"] or "" for row in rows}
    # HPO's own annotations: FPKG's published cases would make a twin look unlike its Orphanet entry
    annotated = {disease: {a.phenotype for a in found if "HPO" in a.source}
                 for disease, found in profiles.by_disease.items()}
    mapped = {row["disease"] for row in rows if row["mondo"]}
    groups = {row["disease"] for row in rows if row["group_size"]}
    return {d: frozenset(g) for d, g in genes.items()}, ids, annotated, names, mapped, groups


def _cardinal_findings(ontology: PhenotypeOntology, profiles: DiseaseProfiles) -> dict[int, tuple[int, ...]]:
    """Each disease's cardinal findings (`kg_dump.cardinal`: very frequent in it, rare elsewhere)."""
    return {disease: found for disease, terms in profiles.hpo_terms.items()
            if (found := cardinal_terms(ontology, terms))}


def _names_gene(name: str, gene: str) -> bool:
    return gene.upper() in {word.upper() for word in re.findall(r"[A-Za-z0-9]+", name)}


def _order(ranked: RankedDisease) -> tuple:
    """Best score first; ties by phenotype match, exactly matched terms, then disease id: never by name."""
    return (-ranked.score, -ranked.parts.get("phenotype", 0.0), -ranked.exact, ranked.disease_id or "~",
            ranked.node_id or 0)


def _ms(start: float, end: float) -> float:
    return round((end - start) * 1000, 2)


UNLINKED_CEILING = 0.3  # the confidence of a case whose findings all failed to link: "low"


def _when_no_finding_linked(case: DiagnosisCase, diagnosis: Diagnosis) -> None:
    """Findings were given and none was recognised: say so before anything else, and the answer rests
    on the gene (or nothing) alone, so its confidence is low."""
    typed = [*case.phenotypes, *case.other_findings]
    linked = [lk for lk in diagnosis.links if lk.type in FINDING_TYPES and (lk.node_id is not None or lk.ids)]
    if not typed or linked:
        return
    diagnosis.notices.insert(0, f"None of the {len(typed)} findings given was recognised "
                                f"({', '.join(repr(t) for t in typed[:5])}{' …' if len(typed) > 5 else ''}): the "
                                "ranking rests on the gene alone, if any. Separate findings with commas, "
                                "semicolons or new lines.")
    if diagnosis.confidence is not None:
        diagnosis.confidence = min(diagnosis.confidence, UNLINKED_CEILING)
