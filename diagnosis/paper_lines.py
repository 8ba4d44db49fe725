"""HPO's lines citing a held-out paper alone, read onto the graph's disease nodes: what the whole-paper
hold-out rule (`retrieval.hold_out`) leaves of each disease those lines annotate.

`kg_dump.hpo_lines` keeps each disease's lines with their PMIDs, by OMIM or ORPHA id; here they become
what the ranker reads, by disease node (a node may hold an OMIM and an ORPHA entry: an annotation stays
while a line of either is left): the disease's terms with their frequencies, its NOT annotations, modes
of inheritance and onset, and the graph's relationships of source HPO that no line is left for — the
disease's facial `Exhibit`s and NOT annotations, its HPO gene links (`Cause`: genes_to_phenotype.txt
repeats each line as a gene row, so a disease with no line left has none) and the gene -> facial
phenotype `Affect`s that no other disease of the gene still holds. The graph itself is never changed:
the ranker and the retrieval modes filter what they read (`retrieval.hold_out.HoldOut.keeps`).

A case touches only the few diseases whose lines cite its paper; each set of papers is worked out once.
"""

from __future__ import annotations

import math
from collections import OrderedDict, defaultdict
from collections.abc import Mapping

import numpy as np

from graphstore.schema import AFFECT, CAUSE, EXHIBIT
from kg_dump.hpo_lines import KeptLines, stronger
from kg_dump.hpo_profiles import HpoProfiles
from retrieval.hold_out import NO_LINES, HeldOutLines

EXCLUDES = "Excludes"  # a NOT annotation as the conflicts name it (diagnosis/conflicts.py)
CACHED = 512  # sets of held-out papers remembered (a patient's six benchmark conditions share one)


class PaperLines:
    def __init__(self, hpo: HpoProfiles, ids_of: Mapping[int, list[str]], terms_of: Mapping[int, Mapping[int, float]],
                 phenotype_of: Mapping[int, int], gene_links: list[tuple[int, int]]):
        """`ids_of`: a disease node -> its OMIM and ORPHA ids; `terms_of`: a node -> its whole HPO annotation
        (term number -> frequency); `phenotype_of`: a term number -> the graph's facial phenotype node;
        `gene_links`: HPO's (gene node, disease node) links."""
        self.hpo, self.ids_of, self.terms_of, self.phenotype_of = hpo, ids_of, terms_of, phenotype_of
        self.node_of = {disease: node for node, ids in ids_of.items() for disease in ids}
        self.genes_of: dict[int, set[int]] = defaultdict(set)
        self.diseases_of: dict[int, set[int]] = defaultdict(set)
        for gene, disease in gene_links:
            self.genes_of[disease].add(gene)
            self.diseases_of[gene].add(disease)
        self._cache: OrderedDict[frozenset[int], HeldOutLines] = OrderedDict()

    def held_out(self, pmids: frozenset[int]) -> HeldOutLines:
        if pmids in self._cache:
            self._cache.move_to_end(pmids)
            return self._cache[pmids]
        found = self._held_out(pmids)
        self._cache[pmids] = found
        if len(self._cache) > CACHED:
            self._cache.popitem(last=False)
        return found

    def _held_out(self, pmids: frozenset[int]) -> HeldOutLines:
        touched = sorted({self.node_of[d] for d in self.hpo.lines.citing(pmids) if d in self.node_of})
        if not touched:
            return NO_LINES
        left = {node: self._left(node, pmids) for node in touched}
        terms = {node: found[0] for node, found in left.items()}
        removed: dict[str, set[tuple[int, int]]] = defaultdict(set)
        for node, (kept, excluded, _, _, any_left) in left.items():
            gone = [t for t in self.terms_of.get(node, {}) if t not in kept and t in self.phenotype_of]
            removed[EXHIBIT].update((node, self.phenotype_of[t]) for t in gone)
            removed[EXCLUDES].update((node, self.phenotype_of[t]) for t in self._excluded(node) - excluded
                                     if t in self.phenotype_of)
            for gene in self.genes_of.get(node, ()):
                if not any_left:
                    removed[CAUSE].add((gene, node))
                # the gene -> phenotype fact goes when no other disease of the gene holds the phenotype
                others = [terms.get(other, self.terms_of.get(other, {})) for other in self.diseases_of[gene]
                          if other != node]
                removed[AFFECT].update((gene, self.phenotype_of[t]) for t in gone
                                       if not any(t in held for held in others))
        return HeldOutLines(terms, {node: found[1] for node, found in left.items()},
                            {node: found[2] for node, found in left.items()},
                            {node: found[3] for node, found in left.items()},
                            {relation: frozenset(pairs) for relation, pairs in removed.items()})

    def _left(self, node: int, pmids: frozenset[int]) -> tuple[dict[int, float], frozenset[int], frozenset[str],
                                                               frozenset[str], bool]:
        """(terms, NOT annotations, modes, onsets, whether a gene row is left) of a node, over its ids."""
        index = self.hpo.index
        terms: dict[int, float] = {}
        excluded, modes, onsets, any_left = set(), set(), set(), False
        for disease in self.ids_of[node]:
            kept = self.hpo.lines.kept(disease, pmids) if disease in self.hpo.lines.number else self._whole(disease)
            for hpo_id, frequency in kept.present.items():
                if hpo_id in index:
                    terms[index[hpo_id]] = stronger(terms.get(index[hpo_id]), frequency)
            excluded.update(index[t] for t in kept.excluded if t in index)
            modes.update(kept.inheritance)
            onsets.update(kept.onset)
            any_left = any_left or kept.any_left
        # seen in 0 of n patients: no feature of the disease (as diagnosis.profiles reads the whole annotation)
        terms = {t: f for t, f in terms.items() if math.isnan(f) or f != 0}
        return terms, frozenset(excluded), frozenset(modes), frozenset(onsets), any_left

    def _whole(self, disease: str) -> KeptLines:
        """An entry none of whose lines cites a paper alone: all of it."""
        hpo = self.hpo
        number = hpo.disease_index.get(disease)
        present: dict[str, float] = {}
        excluded: set[str] = set()
        if number is not None:
            start, end = np.searchsorted(hpo.annotated_disease, [number, number + 1])
            for term, frequency in zip(hpo.annotated_term[start:end].tolist(), hpo.frequency[start:end].tolist(),
                                       strict=True):
                present[hpo.terms[term]] = frequency
            start, end = np.searchsorted(hpo.excluded_disease, [number, number + 1])
            excluded = {hpo.terms[term] for term in hpo.excluded_term[start:end].tolist()}
        return KeptLines(present, frozenset(excluded), frozenset(hpo.inheritance.get(disease, ())),
                         frozenset(hpo.onset.get(disease, ())), True)

    def _excluded(self, node: int) -> set[int]:
        index = self.hpo.index
        return {index[t] for disease in self.ids_of[node] for t in self._whole_excluded(disease) if t in index}

    def _whole_excluded(self, disease: str) -> frozenset[str]:
        if disease in self.hpo.lines.number:
            return self.hpo.lines.kept(disease, frozenset()).excluded
        return self._whole(disease).excluded
