"""A plain baseline beside the ranker: gene filter + Resnik similarity over HPO's annotations.

What phenotype-driven tools do in their simplest form (Phenomizer's score, without its p-values):

  candidates  OMIM diseases with HPO annotations (facial ones for a face-only case, any for a case
              with findings beside the face); when the case's gene is linked to any of them (HPO's
              gene–disease `Cause`), only those (the gene filter)
  score       Resnik best-match average, both directions: 0.5 · mean over the patient's terms of
              the best IC(MICA) with a disease term + 0.5 · mean over the disease's terms of the
              best IC(MICA) with a patient term. Ties by disease id.

It reads the same in-memory ontology and profiles as the ranker, but only HPO's annotations,
so a held-out paper (excluded pmids) changes nothing for it; it ignores excluded findings. It does
no entity linking: a case gives it ontology terms and a gene symbol, and option names are matched by
their folded name.
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
                 names: dict[int, tuple[str | None, str]], genes: dict[int, list[str]]):
        self.ontology = ontology
        omim = {d for d in names if (names[d][0] or "").startswith("OMIM:")}
        facial = {d: sorted({ontology.node_term[a.phenotype] for a in annotations
                             if "HPO" in a.source and a.phenotype in ontology.node_term})
                  for d, annotations in profiles.by_disease.items() if d in omim}
        whole = {d: sorted(terms) for d, terms in profiles.hpo_terms.items() if d in omim}
        self.scopes = {False: _Scope.of(facial, names), True: _Scope.of(whole, names)}
        self.names = {d: names[d] for scope in self.scopes.values() for d in scope.nodes}
        self.position = {whole: {d: i for i, d in enumerate(scope.nodes)} for whole, scope in self.scopes.items()}
        self.by_gene: dict[str, set[int]] = {}
        for disease, symbols in genes.items():
            if disease in self.names:
                for symbol in symbols:
                    self.by_gene.setdefault(symbol.upper(), set()).add(disease)
        ordered = sorted(self.names, key=lambda d: (self.names[d][0], d))
        self.by_name = {fold_name(self.names[d][1]): d for d in reversed(ordered)}  # first id wins

    @classmethod
    def from_store(cls, store: GraphStore, ontology: PhenotypeOntology, profiles: DiseaseProfiles) -> PlainBaseline:
        return cls(ontology, profiles, diseases(store), gene_diseases(store))

    def __len__(self) -> int:
        return len(self.names)

    def similarities(self, terms: list[int], whole: bool = False) -> np.ndarray:
        """The symmetric Resnik best-match average of the patient's terms with every candidate of the scope."""
        scope = self.scopes[whole]
        rows = [self.ontology.resnik_row(t) for t in dict.fromkeys(terms) if 0 <= t < len(self.ontology)]
        if not rows:
            return np.zeros(len(scope.nodes))
        pairs = np.stack(rows)[:, scope.columns]  # patient term × every annotation of every candidate
        patient_side = np.maximum.reduceat(pairs, scope.starts, axis=1).mean(axis=0, dtype=np.float64)
        disease_side = np.add.reduceat(pairs.max(axis=0), scope.starts, dtype=np.float64) / scope.lengths
        return 0.5 * patient_side + 0.5 * disease_side

    def gene_filter(self, gene: str | None) -> set[int]:
        """The candidates HPO links to the gene; empty when it links none (no filter then)."""
        return self.by_gene.get(gene.strip().upper(), set()) if gene else set()

    def rank(self, terms: list[int], gene: str | None = None, top: int = TOP_N, whole: bool = False) -> list[Scored]:
        scores = np.round(self.similarities(terms, whole), 9)  # rounded so float noise does not break id ties
        position, nodes = self.position[whole], self.scopes[whole].nodes
        allowed = [position[d] for d in self.gene_filter(gene) if d in position]
        indices = np.array(sorted(allowed)) if allowed else np.arange(len(nodes))
        order = indices[np.argsort(-scores[indices], kind="stable")][:top]
        return [self._scored(nodes[i], float(scores[i])) for i in order]

    def rank_options(self, terms: list[int], gene: str | None, options: dict[str, str],
                     whole: bool = False) -> list[Scored]:
        """Options the gene is linked to first, then the other known ones, each by similarity; an
        option the baseline does not know comes last, unless the gene filter excludes every known
        option: then it is the answer by elimination (a disease HPO does not know by that name)."""
        scores, position = self.similarities(terms, whole), self.position[whole]
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
            score = float(scores[position[node]]) if node in position else 0.0
            disease_id = self.names[node][0] if node is not None else None
            ranked.append(((tier(letter), -round(score, 9), disease_id or "~", letter),  # ties by id
                           Scored(node, disease_id, name, score, letter)))
        return [scored for _, scored in sorted(ranked, key=lambda entry: entry[0])]

    def _scored(self, node: int, score: float) -> Scored:
        disease_id, name = self.names[node]
        return Scored(node, disease_id, name, score)
