"""A plain baseline beside the ranker: gene filter + Resnik similarity over HPO's annotations.

What phenotype-driven tools do in their simplest form (Phenomizer's score, without its p-values):

  candidates  OMIM diseases with facial HPO annotations; when the case's gene is linked to any of
              them (HPO's gene–disease `Cause`), only those (the gene filter)
  score       Resnik best-match average, both directions: 0.5 · mean over the patient's terms of
              the best IC(MICA) with a disease term + 0.5 · mean over the disease's terms of the
              best IC(MICA) with a patient term. Ties by disease id.

It reads the same in-memory ontology and profiles as the ranker, but only HPO-sourced annotations,
so a held-out paper (excluded pmids) changes nothing for it. It does no entity linking: a case
gives it phenotype nodes and a gene symbol, and option names are matched by their folded name.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bench.devsets import diseases, gene_diseases
from diagnosis.ontology import PhenotypeOntology
from diagnosis.profiles import DiseaseProfiles
from fpkg.names import fold_name
from graphstore.store import GraphStore

TOP_N = 10


@dataclass(frozen=True)
class Scored:
    node_id: int | None  # None: an option the baseline does not know
    disease_id: str | None
    name: str
    score: float
    option: str | None = None


class PlainBaseline:
    def __init__(self, ontology: PhenotypeOntology, profiles: DiseaseProfiles,
                 names: dict[int, tuple[str | None, str]], genes: dict[int, list[str]]):
        self.ontology = ontology
        # candidates sorted by disease id, so "ties by id" is a stable sort on the score alone
        terms = {d: sorted({ontology.index[a.phenotype] for a in annotations
                            if "HPO" in a.source and a.phenotype in ontology.index})
                 for d, annotations in profiles.by_disease.items()
                 if d in names and (names[d][0] or "").startswith("OMIM:")}
        self.nodes = sorted((d for d in terms if terms[d]), key=lambda d: (names[d][0], d))
        self.names = {d: names[d] for d in self.nodes}
        self.position = {d: i for i, d in enumerate(self.nodes)}
        # every candidate's terms in one flat array; reduceat over `starts` gives per-disease figures
        self.columns = np.concatenate([np.array(terms[d], dtype=np.int64) for d in self.nodes])
        lengths = np.array([len(terms[d]) for d in self.nodes])
        self.starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        self.lengths = lengths.astype(np.float64)
        self.by_gene: dict[str, set[int]] = {}
        for disease, symbols in genes.items():
            if disease in self.position:
                for symbol in symbols:
                    self.by_gene.setdefault(symbol.upper(), set()).add(disease)
        self.by_name = {fold_name(self.names[d][1]): d for d in reversed(self.nodes)}  # first id wins

    @classmethod
    def from_store(cls, store: GraphStore, ontology: PhenotypeOntology, profiles: DiseaseProfiles) -> PlainBaseline:
        return cls(ontology, profiles, diseases(store), gene_diseases(store))

    def __len__(self) -> int:
        return len(self.nodes)

    def similarities(self, terms: list[int]) -> np.ndarray:
        """The symmetric Resnik best-match average of the patient's terms with every candidate."""
        rows = [self._resnik_row(self.ontology.index[t]) for t in dict.fromkeys(terms) if t in self.ontology.index]
        if not rows:
            return np.zeros(len(self.nodes))
        pairs = np.stack(rows)[:, self.columns]  # patient term × every annotation of every candidate
        patient_side = np.maximum.reduceat(pairs, self.starts, axis=1).mean(axis=0, dtype=np.float64)
        disease_side = np.add.reduceat(pairs.max(axis=0), self.starts, dtype=np.float64) / self.lengths
        return 0.5 * patient_side + 0.5 * disease_side

    def _resnik_row(self, i: int) -> np.ndarray:
        """IC of the most informative common ancestor of term i with every term (is_below[a, t]:
        a is t or above it), the unnormalised form of the ontology's own similarity row."""
        below = self.ontology.is_below
        ancestors = np.flatnonzero(below[:, i])
        return (below[ancestors] * self.ontology.ic[ancestors, None]).max(axis=0)

    def gene_filter(self, gene: str | None) -> set[int]:
        """The candidates HPO links to the gene; empty when it links none (no filter then)."""
        return self.by_gene.get(gene.strip().upper(), set()) if gene else set()

    def rank(self, terms: list[int], gene: str | None = None, top: int = TOP_N) -> list[Scored]:
        scores = np.round(self.similarities(terms), 9)  # rounded so float noise does not break id ties
        allowed = self.gene_filter(gene)
        indices = (np.array(sorted(self.position[d] for d in allowed)) if allowed
                   else np.arange(len(self.nodes)))
        order = indices[np.argsort(-scores[indices], kind="stable")][:top]
        return [self._scored(self.nodes[i], float(scores[i])) for i in order]

    def rank_options(self, terms: list[int], gene: str | None, options: dict[str, str]) -> list[Scored]:
        """Options the gene is linked to first, then the other known ones, each by similarity; an
        option the baseline does not know comes last, unless the gene filter excludes every known
        option: then it is the answer by elimination (a disease HPO does not know by that name)."""
        scores = self.similarities(terms)
        allowed = self.gene_filter(gene)
        known = {letter: self.by_name.get(fold_name(name)) for letter, name in options.items()}
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
            score = float(scores[self.position[node]]) if node is not None else 0.0
            disease_id = self.names[node][0] if node is not None else None
            ranked.append(((tier(letter), -round(score, 9), disease_id or "~", letter),  # ties by id
                           Scored(node, disease_id, name, score, letter)))
        return [scored for _, scored in sorted(ranked, key=lambda entry: entry[0])]

    def _scored(self, node: int, score: float) -> Scored:
        disease_id, name = self.names[node]
        return Scored(node, disease_id, name, score)
