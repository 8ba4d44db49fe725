"""Published patients as knowledge: every patient in the graph (FPKG's and phenopacket-store's), with its
findings, diagnoses, genes, variants and paper, read once at start; a case's similarity to each of them
(`diagnosis.term_rows`, as diseases are matched) and each disease's nearest patients.

FPKG's patients carry their facial findings as `with_FP` edges; the store's carry every finding's HPO
id in `present` (and `excluded`). A patient of a held-out paper is never compared: it is masked out.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from diagnosis.ontology import PhenotypeOntology
from diagnosis.term_rows import TermRows, usable_terms
from graphstore.schema import LIST_SEPARATOR
from graphstore.store import GraphStore

LOAD_TIMEOUT_MS = 120_000
SHARED_SHOWN = 5
SAMPLES = ("MATCH (s:Sample) OPTIONAL MATCH (s)-[:From]->(a:Article) "
           "RETURN s.nid AS sample, s.sid AS sid, s.source AS source, s.present AS present, "
           "s.gender AS sex, s.age_years AS age, coalesce(a.pmid, s.pmid) AS pmid")
DIAGNOSES = "MATCH (s:Sample)-[:Diagnosed]->(d:Disease) RETURN s.nid AS sample, d.nid AS disease"
VARIANTS = ("MATCH (s:Sample)-[:with_Var]->(v:Variation) OPTIONAL MATCH (v)-[:Have]->(g:Genotype) "
            "OPTIONAL MATCH (v)-[:Cause]->(d:Disease) "
            "RETURN s.nid AS sample, v.details AS variant, g.nid AS gene, g.geneName AS gene_name, d.nid AS disease")
FACIAL_FINDINGS = "MATCH (p:FacePhenotype)-[:with_FP]->(s:Sample) RETURN s.nid AS sample, p.nid AS phenotype"


@dataclass(frozen=True)
class Patient:
    node: int  # the Sample node
    sid: str
    source: str  # FPKG or phenopacket-store
    pmid: int | None
    diseases: tuple[int, ...]
    genes: tuple[str, ...]  # symbols
    variants: tuple[str, ...]
    findings: int  # how many present findings it has


@dataclass(frozen=True)
class NearestPatient:
    patient: Patient
    similarity: float
    shared: tuple[str, ...]  # the findings it shares with the case, by name

    def text(self) -> str:
        """'PMID_1_2 (similarity 0.82; shares Ptosis, Hypertelorism; KMT2D c.1A>G; PMID 123)'."""
        parts = [f"similarity {self.similarity:.2f}"]
        if self.shared:
            more = f" and {len(self.shared) - SHARED_SHOWN} more" if len(self.shared) > SHARED_SHOWN else ""
            parts.append("shares " + ", ".join(self.shared[:SHARED_SHOWN]) + more)
        carried = " ".join(filter(None, [", ".join(self.patient.genes), "; ".join(self.patient.variants[:2])]))
        if carried:
            parts.append(carried)
        if self.patient.pmid:
            parts.append(f"PMID {self.patient.pmid}")
        return f"{self.patient.sid} ({'; '.join(parts)})"


@dataclass(frozen=True)
class PatientScores:
    """One case against every published patient: similarity (-1 for a held-out paper's patient)."""

    similarity: np.ndarray
    exact: np.ndarray

    def nearest(self, rows: np.ndarray, k: int) -> np.ndarray:
        """The `k` most similar of `rows` (held-out ones left out), best first."""
        rows = rows[self.similarity[rows] >= 0]
        return rows[np.argsort(-self.similarity[rows], kind="stable")[:k]]


class PublishedPatients:
    def __init__(self, ontology: PhenotypeOntology, patients: list[Patient], facial: list[set[int]],
                 whole: list[set[int]]):
        self.ontology, self.patients = ontology, patients
        self.rows = {False: TermRows(ontology, facial), True: TermRows(ontology, whole)}
        self.pmids = np.array([p.pmid or -1 for p in patients], dtype=np.int64)
        by_disease: dict[int, list[int]] = defaultdict(list)
        for row, patient in enumerate(patients):
            for disease in patient.diseases:
                by_disease[disease].append(row)
        self.of_disease = {d: np.array(rows, dtype=np.int64) for d, rows in by_disease.items()}

    @classmethod
    def from_store(cls, store: GraphStore, ontology: PhenotypeOntology) -> PublishedPatients:
        samples = store.query(SAMPLES, timeout_ms=LOAD_TIMEOUT_MS)
        diseases: dict[int, set[int]] = defaultdict(set)
        for row in store.query(DIAGNOSES, timeout_ms=LOAD_TIMEOUT_MS):
            diseases[row["sample"]].add(row["disease"])
        through_variants: dict[int, set[int]] = defaultdict(set)  # FPKG's patients: diagnosed through a variant
        genes: dict[int, dict[str, None]] = defaultdict(dict)
        variants: dict[int, dict[str, None]] = defaultdict(dict)
        for row in store.query(VARIANTS, timeout_ms=LOAD_TIMEOUT_MS):
            if row["disease"] is not None:
                through_variants[row["sample"]].add(row["disease"])
            if row["gene_name"]:
                genes[row["sample"]][row["gene_name"]] = None
            if row["variant"]:
                variants[row["sample"]][row["variant"]] = None
        facial_of: dict[int, set[int]] = defaultdict(set)
        for row in store.query(FACIAL_FINDINGS, timeout_ms=LOAD_TIMEOUT_MS):
            if (term := ontology.node_term.get(row["phenotype"])) is not None:
                facial_of[row["sample"]].add(term)
        patients, facial, whole = [], [], []
        for row in sorted(samples, key=lambda r: r["sample"]):
            node = row["sample"]
            found = diseases.get(node) or through_variants.get(node)
            if not found:
                continue  # a patient with no disease says nothing of one
            terms = {t for hpo_id in str(row["present"] or "").split(LIST_SEPARATOR)
                     if (t := ontology.index_of_hpo.get(hpo_id)) is not None} | facial_of.get(node, set())
            terms = set(usable_terms(ontology, list(terms)))
            if not terms:
                continue
            patients.append(Patient(node, row["sid"] or str(node), row["source"] or "", row["pmid"],
                                    tuple(sorted(found)), tuple(genes.get(node, ())), tuple(variants.get(node, ())),
                                    len(terms)))
            whole.append(terms)
            facial.append({t for t in terms if ontology.facial[t]})
        return cls(ontology, patients, facial, whole)

    def __len__(self) -> int:
        return len(self.patients)

    def terms(self, row: int) -> set[int]:
        """A patient's present findings (ontology terms), every one, facial or not."""
        matrix = self.rows[True].matrix
        return set(matrix.indices[matrix.indptr[row]:matrix.indptr[row + 1]].tolist())

    def rows_of_papers(self, pmids: frozenset[int]) -> set[int]:
        """The patients these papers published (a held-out paper's: never compared, never counted)."""
        return set(np.flatnonzero(np.isin(self.pmids, sorted(pmids))).tolist()) if pmids else set()

    def count(self, disease: int, exclude_pmids: frozenset[int] = frozenset()) -> int:
        """How many published patients the disease has, a held-out paper's left out."""
        rows = self.of_disease.get(disease)
        if rows is None:
            return 0
        if not exclude_pmids:
            return len(rows)
        return int(np.count_nonzero(~np.isin(self.pmids[rows], sorted(exclude_pmids))))

    def scores(self, terms: list[int], *, whole: bool, patient_side: float,
               exclude_pmids: frozenset[int] = frozenset()) -> PatientScores:
        """The case's similarity to every patient (their facial findings only, for a face-only case)."""
        terms = usable_terms(self.ontology, terms)
        if not terms or not len(self):
            zeros = np.zeros(len(self), dtype=np.float32)
            return PatientScores(zeros, zeros.astype(np.int64))
        raw = self.ontology.resnik_rows(terms)
        similarity, exact = self.rows[whole].similarity(terms, raw, patient_side)
        similarity = np.where(self.rows[whole].sizes > 0, similarity, 0.0).astype(np.float32)
        if exclude_pmids:
            similarity[np.isin(self.pmids, sorted(exclude_pmids))] = -1.0
        return PatientScores(similarity, exact)



@dataclass(frozen=True)
class CasePatients:
    """The published patients seen from one case."""

    published: PublishedPatients
    scores: PatientScores
    terms: frozenset[int]  # the case's present findings

    def votes(self, k: int, power: float) -> dict[int, tuple[float, int]]:
        """The `k` patients most like the case, each voting for its diseases with its similarity to the
        `power` (the closest count most): disease -> (its share of the votes, how many of the k have it)."""
        similarity = self.scores.similarity
        best = [row for row in np.argsort(-similarity, kind="stable")[:k].tolist() if similarity[row] > 0]
        votes: dict[int, list] = defaultdict(lambda: [0.0, 0])
        for row in best:
            for disease in self.published.patients[row].diseases:
                votes[disease][0] += float(similarity[row]) ** power
                votes[disease][1] += 1
        total = sum(vote for vote, _ in votes.values())
        return {d: (vote / total, n) for d, (vote, n) in votes.items()} if total > 0 else {}

    def nearest(self, disease: int, k: int) -> list[NearestPatient]:
        """The disease's `k` patients most like the case, with the findings they share."""
        rows = self.published.of_disease.get(disease)
        if rows is None:
            return []
        whole, names = self.published.rows[True].matrix, self.published.ontology.names
        found = []
        for row in self.scores.nearest(rows, k).tolist():
            shared = self.terms.intersection(whole.indices[whole.indptr[row]:whole.indptr[row + 1]].tolist())
            found.append(NearestPatient(self.published.patients[row], float(self.scores.similarity[row]),
                                        tuple(sorted(names[t] for t in shared if names[t]))))
        return found
