"""A plain baseline beside the ranker: gene filter + Resnik similarity over HPO's annotations.

What phenotype-driven tools do in their simplest form (Phenomizer's score, without its p-values):

  candidates  OMIM diseases with HPO annotations (facial ones for a face-only case, any for a case
              with findings beside the face); when the case's gene is linked to any of them (HPO's
              gene–disease `Cause`), only those (the gene filter)
  score       Resnik best-match average, both directions: 0.5 · mean over the patient's terms of
              the best IC(MICA) with a disease term + 0.5 · mean over the disease's terms of the
              best IC(MICA) with a patient term. Ties by disease id.

It reads the same in-memory ontology and profiles as the ranker, but only HPO's annotations and gene
links: a held-out paper (`retrieval.hold_out.HoldOut`) changes for it, under the whole-paper rule, the
diseases HPO's lines citing that paper alone annotate (their lines left out; a disease with none left is
no candidate, its HPO gene links gone), and nothing under the patients' rule. It ignores excluded findings.
It does no entity linking: a case gives it ontology terms and a gene symbol, and option names are matched
by their folded name.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bench.devsets import TIMEOUT_MS, diseases
from diagnosis.ontology import PhenotypeOntology
from diagnosis.profiles import DiseaseProfiles
from fpkg.names import fold_name
from graphstore.schema import CAUSE
from graphstore.store import GraphStore
from retrieval.hold_out import NOTHING_HELD_OUT, HoldOut

TOP_N = 10
# HPO's gene-disease links only: what the baseline knows
GENE_LINKS = ("MATCH (g:Genotype)-[r:Cause]->(d:Disease) WHERE r.source CONTAINS 'HPO' "
              "RETURN g.geneName AS gene, g.nid AS node, d.nid AS disease")


@dataclass(frozen=True)
class Scored:
    node_id: int | None  # None: an option the baseline does not know
    disease_id: str | None
    name: str
    score: float
    option: str | None = None


@dataclass(frozen=True)
class _Scope:
    """The candidates of one scope (facial or whole profiles) with their annotations in flat arrays:
    reduceat over `starts` gives per-disease figures."""

    nodes: list[int]
    columns: np.ndarray
    starts: np.ndarray
    lengths: np.ndarray

    @classmethod
    def of(cls, terms: dict[int, list[int]], names: dict[int, tuple[str | None, str]]) -> _Scope:
        # sorted by disease id, so "ties by id" is a stable sort on the score alone
        nodes = sorted((d for d in terms if terms[d]), key=lambda d: (names[d][0], d))
        lengths = np.array([len(terms[d]) for d in nodes])
        return cls(nodes, np.concatenate([np.array(terms[d], dtype=np.int64) for d in nodes]),
                   np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths.astype(np.float64))


class PlainBaseline:
    def __init__(self, ontology: PhenotypeOntology, profiles: DiseaseProfiles,
                 names: dict[int, tuple[str | None, str]], gene_links: list[dict]):
        """`gene_links`: HPO's gene-disease links as rows {gene (symbol), node (the gene's), disease}."""
        self.ontology, self.profiles = ontology, profiles
        self.omim = {d for d in names if (names[d][0] or "").startswith("OMIM:")}
        facial = {d: self._facial(annotations) for d, annotations in profiles.by_disease.items() if d in self.omim}
        whole = {d: sorted(terms) for d, terms in profiles.hpo_terms.items() if d in self.omim}
        self.scopes = {False: _Scope.of(facial, names), True: _Scope.of(whole, names)}
        self.names = {d: names[d] for scope in self.scopes.values() for d in scope.nodes}
        self.position = {whole: {d: i for i, d in enumerate(scope.nodes)} for whole, scope in self.scopes.items()}
        self.by_gene: dict[str, dict[int, int]] = {}  # a gene symbol -> its diseases -> the gene's node
        for row in gene_links:
            if row["disease"] in self.names and (row["gene"] or "").strip():
                self.by_gene.setdefault(row["gene"].strip().upper(), {})[row["disease"]] = row["node"]
        ordered = sorted(self.names, key=lambda d: (self.names[d][0], d))
        self.by_name = {fold_name(self.names[d][1]): d for d in reversed(ordered)}  # first id wins

    @classmethod
    def from_store(cls, store: GraphStore, ontology: PhenotypeOntology, profiles: DiseaseProfiles) -> PlainBaseline:
        return cls(ontology, profiles, diseases(store), store.query(GENE_LINKS, timeout_ms=TIMEOUT_MS))

    def __len__(self) -> int:
        return len(self.names)

    def _facial(self, annotations) -> list[int]:
        """HPO's facial annotations of a disease, as ontology terms."""
        node_term = self.ontology.node_term
        return sorted({node_term[a.phenotype] for a in annotations if "HPO" in a.source and a.phenotype in node_term})

    def similarities(self, terms: list[int], whole: bool = False, hold_out: HoldOut = NOTHING_HELD_OUT) -> np.ndarray:
        """The symmetric Resnik best-match average of the patient's terms with every candidate of the scope;
        -inf for a disease the held-out paper's own lines alone annotated (no candidate)."""
        scope = self.scopes[whole]
        rows = [self.ontology.resnik_row(t) for t in dict.fromkeys(terms) if 0 <= t < len(self.ontology)]
        if not rows:
            return np.zeros(len(scope.nodes))
        patient = np.stack(rows)
        found = _similarities(patient, scope)
        position = self.position[whole]
        touched = [d for d in sorted(hold_out.held_lines.terms) if d in position]
        if touched:  # the few diseases a held-out paper's own lines annotated, again without them
            kept = {d: self._facial(self.profiles.annotations(d, hold_out)) if not whole else
                    sorted(self.profiles.terms(d, hold_out)) for d in touched}
            left = {d: terms for d, terms in kept.items() if terms}
            at = [position[d] for d in touched]
            found[at] = -np.inf
            if left:
                again = _Scope.of(left, {d: self.names[d] for d in left})
                found[[position[d] for d in again.nodes]] = _similarities(patient, again)
        return found

    def gene_filter(self, gene: str | None, hold_out: HoldOut = NOTHING_HELD_OUT) -> set[int]:
        """The candidates HPO links to the gene (less the links no line is left for); empty when it links none
        (no filter then)."""
        linked = self.by_gene.get(gene.strip().upper(), {}) if gene else {}
        lines = hold_out.held_lines
        return {disease for disease, node in linked.items() if not lines.removes(CAUSE, node, disease)}

    def rank(self, terms: list[int], gene: str | None = None, top: int = TOP_N, whole: bool = False,
             hold_out: HoldOut = NOTHING_HELD_OUT) -> list[Scored]:
        # rounded so float noise does not break id ties
        scores = np.round(self.similarities(terms, whole, hold_out), 9)
        position, nodes = self.position[whole], self.scopes[whole].nodes
        allowed = [position[d] for d in self.gene_filter(gene, hold_out) if d in position]
        indices = np.array(sorted(allowed)) if allowed else np.arange(len(nodes))
        indices = indices[np.isfinite(scores[indices])]
        order = indices[np.argsort(-scores[indices], kind="stable")][:top]
        return [self._scored(nodes[i], float(scores[i])) for i in order]

    def rank_options(self, terms: list[int], gene: str | None, options: dict[str, str],
                     whole: bool = False, hold_out: HoldOut = NOTHING_HELD_OUT) -> list[Scored]:
        """Options the gene is linked to first, then the other known ones, each by similarity; an
        option the baseline does not know (or knows only from a held-out paper's own lines) comes last, unless
        the gene filter excludes every known option: then it is the answer by elimination (a disease HPO does
        not know by that name)."""
        scores, position = self.similarities(terms, whole, hold_out), self.position[whole]
        allowed = self.gene_filter(gene, hold_out)
        known = {letter: self.by_name.get(fold_name(name)) for letter, name in options.items()}
        known = {letter: None if node in position and not np.isfinite(scores[position[node]]) else node
                 for letter, node in known.items()}
        linked = any(node in allowed for node in known.values())
        eliminated = bool(allowed) and not linked

        def tier(letter: str) -> int:
            node = known[letter]
            if node is None:
                return 0 if eliminated else 2
            return 0 if node in allowed else 1

        ranked = []
        for letter, name in options.items():
            node = known[letter]
            score = float(scores[position[node]]) if node in position else 0.0
            disease_id = self.names[node][0] if node is not None else None
            ranked.append(((tier(letter), -round(score, 9), disease_id or "~", letter),  # ties by id
                           Scored(node, disease_id, name, score, letter)))
        return [scored for _, scored in sorted(ranked, key=lambda entry: entry[0])]

    def _scored(self, node: int, score: float) -> Scored:
        disease_id, name = self.names[node]
        return Scored(node, disease_id, name, score)


def _similarities(patient: np.ndarray, scope: _Scope) -> np.ndarray:
    """`patient`: the patient's terms' Resnik rows against every term; each of the scope's candidates' score."""
    pairs = patient[:, scope.columns]  # patient term × every annotation of every candidate
    patient_side = np.maximum.reduceat(pairs, scope.starts, axis=1).mean(axis=0, dtype=np.float64)
    disease_side = np.add.reduceat(pairs.max(axis=0), scope.starts, dtype=np.float64) / scope.lengths
    return 0.5 * patient_side + 0.5 * disease_side
