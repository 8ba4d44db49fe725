"""Development and test cases for the differential, built from public data in the graph (no scoring).

    lopo       leave-one-paper-out: every FPKG patient (`Sample`) with a gene, a facial phenotype and
               one known disease; its paper (article and variant pmids) is excluded at query time
    simulated  patients simulated from HPO annotations, as Phenomizer and LIRICAL were evaluated:
               k facial terms of a disease, some replaced by a parent (imprecision), 1-2 random
               facial terms added (noise); with its gene, without, and with four options

Every case falls in `dev` or `test` by a fixed hash of its disease (`split_of`), so a disease
and its patients are never on both sides, whichever set they come from. Tune on dev only.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter, defaultdict
from dataclasses import dataclass

import numpy as np

from diagnosis.ontology import PhenotypeOntology
from diagnosis.profiles import DiseaseProfiles
from diagnosis.ranker import DiagnosisCase
from fpkg.names import fold_name
from graphstore.store import GraphStore

TIMEOUT_MS = 60_000
LETTERS = "ABCD"
IMPRECISION = 0.3  # the chance a sampled term is replaced by one of its parents
MIN_TERMS = 3  # HPO facial annotations a disease needs to be simulated
SPLITS = ("dev", "test")
DISTRACTOR_POOL = 30  # distractors come from the diseases sharing the most terms with the case

# FPKG's own patients (the published patients of phenopacket-store beside them are a set of their own)
SAMPLES = ("MATCH (s:Sample) WHERE s.source = 'FPKG' OPTIONAL MATCH (s)-[:From]->(a:Article) "
           "RETURN s.nid AS sample, a.pmid AS pmid")
SAMPLE_VARIANTS = ("MATCH (s:Sample)-[:with_Var]->(v:Variation) WHERE s.source = 'FPKG' "
                   "OPTIONAL MATCH (v)-[:Have]->(g:Genotype) "
                   "OPTIONAL MATCH (v)-[:Cause]->(d:Disease) "
                   "RETURN s.nid AS sample, v.nid AS variation, v.pmid AS pmid, v.details AS details, "
                   "g.geneName AS gene, d.nid AS disease")
SAMPLE_PHENOTYPES = ("MATCH (p:FacePhenotype)-[:with_FP]->(s:Sample) WHERE s.source = 'FPKG' "
                     "RETURN s.nid AS sample, p.nid AS phenotype, p.phenotypeName AS name")
DISEASES = "MATCH (d:Disease) RETURN d.nid AS id, d.dname AS name, d.disease_id AS did"
# HPO's gene-disease links only: what the plain baseline knows
GENE_DISEASES = ("MATCH (g:Genotype)-[r:Cause]->(d:Disease) WHERE r.source CONTAINS 'HPO' "
                 "RETURN g.geneName AS gene, d.nid AS disease")


@dataclass(frozen=True)
class DevCase:
    set_name: str  # lopo | simulated
    condition: str  # gene_variant_phenotypes | gene_phenotypes | phenotypes_only | few_phenotypes | four_options
    case_id: str  # stable: the sample's node id, or the disease key and case number
    phenotypes: tuple[str, ...]  # facial findings' names, as a clinician would type them
    terms: tuple[int, ...]  # the present findings' ontology terms (for the baseline, which does no linking)
    gene: str | None
    variant: str | None
    options: dict[str, str] | None  # letter → disease name
    exclude_pmids: frozenset[int]
    truth_node: int
    truth_disease_id: str | None
    truth_name: str
    split: str  # dev | test
    other_findings: tuple[str, ...] = ()  # present findings beside the face
    excluded: tuple[str, ...] = ()  # findings the patient was examined for and lacks
    whole: bool = False  # findings beside the face were given: the baseline matches whole profiles too
    age_years: float | None = None  # the patient's age and sex, where the set gives them
    sex: str | None = None  # female or male

    def diagnosis_case(self):
        """The case as the ranker takes it."""
        return DiagnosisCase(phenotypes=self.phenotypes, gene=self.gene, variant=self.variant, options=self.options,
                             other_findings=self.other_findings, excluded=self.excluded, age_years=self.age_years,
                             sex=self.sex)

    @property
    def truth_option(self) -> str | None:
        return next((letter for letter, name in (self.options or {}).items() if name == self.truth_name), None)


def disease_key(disease_id: str | None, name: str) -> str:
    """What a disease is known by across sets: its OMIM/ORPHA id, else its folded name."""
    return disease_id or fold_name(name)


def split_of(key: str) -> str:
    """dev when the first byte of sha256(key) is even, else test: fixed, ~half each, and the same
    on every machine and run (unlike Python's hash()). `key` is `disease_key(...)`."""
    return "dev" if hashlib.sha256(key.encode("utf-8")).digest()[0] % 2 == 0 else "test"


def diseases(store: GraphStore) -> dict[int, tuple[str | None, str]]:
    """Every disease node → (disease_id, name)."""
    return {row["id"]: (row["did"], row["name"] or "") for row in store.query(DISEASES, timeout_ms=TIMEOUT_MS)}


def gene_diseases(store: GraphStore) -> dict[int, list[str]]:
    """Disease node → the genes HPO links to it (`Cause`), sorted."""
    found: dict[int, set[str]] = defaultdict(set)
    for row in store.query(GENE_DISEASES, timeout_ms=TIMEOUT_MS):
        if (row["gene"] or "").strip():
            found[row["disease"]].add(row["gene"].strip())
    return {disease: sorted(genes) for disease, genes in found.items()}


# ---- leave-one-paper-out ----------------------------------------------------------------------

def lopo_cases(store: GraphStore, ontology: PhenotypeOntology, stats: Counter | None = None) -> list[DevCase]:
    """One case per usable FPKG patient, in sample order. `stats` (when given) counts the samples
    and why the others were left out: no gene (chromosomal variants have none), no facial
    phenotype, no disease, or variants causing different diseases (no single truth); and the
    cases whose gene HPO does not link to their disease."""
    stats = stats if stats is not None else Counter()
    names = diseases(store)
    article = {row["sample"]: row["pmid"] for row in store.query(SAMPLES, timeout_ms=TIMEOUT_MS)}
    variants: dict[int, list[dict]] = defaultdict(list)
    for row in store.query(SAMPLE_VARIANTS, timeout_ms=TIMEOUT_MS):
        variants[row["sample"]].append(row)
    phenotypes: dict[int, dict[int, str]] = defaultdict(dict)
    for row in store.query(SAMPLE_PHENOTYPES, timeout_ms=TIMEOUT_MS):
        phenotypes[row["sample"]][row["phenotype"]] = row["name"] or ""
    cases = []
    stats["samples"] = len(article)
    for sample in sorted(article):
        rows = sorted(variants.get(sample, ()), key=lambda r: r["variation"])
        with_gene = [r for r in rows if (r["gene"] or "").strip()]
        truths = {r["disease"] for r in rows if r["disease"] is not None}
        reason = ("no_gene" if not with_gene else "no_phenotype" if not phenotypes.get(sample)
                  else "no_disease" if not truths else "several_diseases" if len(truths) > 1 else None)
        if reason:
            stats[reason] += 1
            continue
        truth = truths.pop()
        # the variant (and its gene) published as causing the disease; the sample's first one
        causing = next((r for r in with_gene if r["disease"] == truth), with_gene[0])
        terms = sorted(phenotypes[sample].items(), key=lambda item: (item[1].lower(), item[0]))
        pmids = frozenset(p for p in [article[sample], *(r["pmid"] for r in rows)] if p is not None)
        disease_id, name = names[truth]
        cases.append(DevCase("lopo", "gene_variant_phenotypes", f"sample:{sample}", tuple(n for _, n in terms),
                             _terms(ontology, [t for t, _ in terms]), causing["gene"].strip(),
                             causing["details"] or None, None,
                             pmids, truth, disease_id, name, split_of(disease_key(disease_id, name))))
    stats["cases"] = len(cases)
    linked = gene_diseases(store)  # a new gene for a known disease: only the held-out paper links them
    stats["gene_not_linked_by_hpo"] = sum(case.gene not in linked.get(case.truth_node, ()) for case in cases)
    return cases


# ---- simulated from HPO annotations -------------------------------------------------------------

def simulated_cases(store: GraphStore, ontology: PhenotypeOntology, profiles: DiseaseProfiles, seed: int = 0,
                    per_disease: int = 1, k: int = 5, stats: Counter | None = None) -> list[DevCase]:
    """For every disease with at least MIN_TERMS facial HPO annotations, `per_disease` simulated
    patients, each in four conditions: phenotypes_only, gene_phenotypes (only where HPO links a
    gene to the disease: without one it would repeat phenotypes_only), four_options (with the
    gene when there is one) and few_phenotypes (one to three of its terms, no gene, no noise: how
    people often ask). Each disease draws from its own seeded generators, so a case does not
    change when other diseases come or go."""
    stats = stats if stats is not None else Counter()
    names = diseases(store)
    genes = gene_diseases(store)
    sharing = _Sharing(profiles, names)
    parents = _facial_parents(ontology)
    noise_pool = [node for node in sorted(ontology.node_term) if parents.get(node)]  # FPKG-only ones have none
    cases = []
    for disease in sorted(profiles.by_disease):
        terms = sorted({a.phenotype for a in profiles.by_disease[disease] if "HPO" in a.source})
        if len(terms) < MIN_TERMS or disease not in names:
            continue
        disease_id, name = names[disease]
        key = disease_key(disease_id, name)
        stats["diseases"] += 1
        stats["diseases_without_gene"] += disease not in genes
        for number in range(per_disease):
            rng = random.Random(f"{seed}:{key}:{number}")
            case_terms = _simulate_terms(rng, terms, parents, noise_pool, k)
            gene = rng.choice(genes[disease]) if disease in genes else None
            options = _options(rng, disease, case_terms, names, sharing)
            common = dict(phenotypes=tuple(profiles.phenotype_names.get(t, "") for t in case_terms),
                          terms=_terms(ontology, case_terms), variant=None, exclude_pmids=frozenset(),
                          truth_node=disease, truth_disease_id=disease_id, truth_name=name,
                          split=split_of(key), case_id=f"{key}:{number}", set_name="simulated")
            cases.append(DevCase(condition="phenotypes_only", gene=None, options=None, **common))
            if gene:
                cases.append(DevCase(condition="gene_phenotypes", gene=gene, options=None, **common))
            cases.append(DevCase(condition="four_options", gene=gene, options=options, **common))
            few = _few_terms(random.Random(f"{seed}:{key}:{number}:few"), terms, parents)
            cases.append(DevCase(condition="few_phenotypes", gene=None, options=None,
                                 **{**common, "phenotypes": tuple(profiles.phenotype_names.get(t, "") for t in few),
                                    "terms": _terms(ontology, few)}))
    stats["cases"] = len(cases)
    return cases


def _facial_parents(ontology: PhenotypeOntology) -> dict[int, list[int]]:
    """A facial phenotype node -> its parents' nodes (facial ones: the simulation stays in the face)."""
    found = {}
    for node, term in ontology.node_term.items():
        found[node] = sorted(ontology.term_node[p] for p in ontology.parents[term]
                             if ontology.facial[p] and p in ontology.term_node)
    return found


def _terms(ontology: PhenotypeOntology, nodes: list[int]) -> tuple[int, ...]:
    return tuple(ontology.node_term[node] for node in nodes if node in ontology.node_term)


def _simulate_terms(rng: random.Random, terms: list[int], parents_of: dict[int, list[int]], noise_pool: list[int],
                    k: int) -> list[int]:
    """min(k, n) of the disease's terms, each made vaguer (a parent) with IMPRECISION's chance,
    then one or two random facial terms the disease is not annotated with."""
    picked: list[int] = []
    for term in rng.sample(terms, min(k, len(terms))):
        parents = parents_of.get(term, [])
        if parents and rng.random() < IMPRECISION:
            term = rng.choice(parents)
        if term not in picked:  # two siblings may share the parent they were replaced by
            picked.append(term)
    wanted, noise = rng.randint(1, 2), []
    while len(noise) < wanted:
        term = rng.choice(noise_pool)
        if term not in terms and term not in picked and term not in noise:
            noise.append(term)
    return picked + noise


def _few_terms(rng: random.Random, terms: list[int], parents_of: dict[int, list[int]]) -> list[int]:
    """One to three of the disease's terms, each made vaguer with IMPRECISION's chance, no noise."""
    picked: list[int] = []
    for term in rng.sample(terms, rng.randint(1, 3)):
        parents = parents_of.get(term, [])
        term = rng.choice(parents) if parents and rng.random() < IMPRECISION else term
        if term not in picked:
            picked.append(term)
    return picked


class _Sharing:
    """Diseases ranked by how many of a case's terms they are annotated with (as
    `DiseaseProfiles.diseases_sharing`, ties by node id), counted with numpy: 5,600 cases at once."""

    def __init__(self, profiles: DiseaseProfiles, names: dict[int, tuple[str | None, str]]):
        self.nodes = sorted(profiles.by_disease)
        position = {disease: i for i, disease in enumerate(self.nodes)}
        self.by_term = {term: np.array(sorted(position[d] for d in found), dtype=np.int64)
                        for term, found in profiles.by_phenotype.items()}
        self.folded = {disease: fold_name(names[disease][1]) if disease in names else "" for disease in self.nodes}

    def top(self, terms: list[int], limit: int) -> list[int]:
        arrays = [self.by_term[t] for t in set(terms) if t in self.by_term]
        if not arrays:
            return []
        hits = np.bincount(np.concatenate(arrays), minlength=len(self.nodes))
        shared = np.flatnonzero(hits)  # ascending positions, i.e. node ids: a stable sort keeps ties by id
        return [self.nodes[i] for i in shared[np.argsort(-hits[shared], kind="stable")][:limit]]


def _options(rng: random.Random, truth: int, terms: list[int], names: dict[int, tuple[str | None, str]],
             sharing: _Sharing) -> dict[str, str]:
    """The true disease and three plausible distractors (among the DISTRACTOR_POOL diseases sharing
    the most terms with the case, names distinct), shuffled and lettered A-D."""
    seen = {fold_name(names[truth][1])}
    pool: list[int] = []

    def add(disease: int) -> None:
        folded = sharing.folded.get(disease) or (fold_name(names[disease][1]) if disease in names else "")
        if folded and folded not in seen:
            seen.add(folded)
            pool.append(disease)

    for disease in sharing.top(terms, DISTRACTOR_POOL * 2):
        if len(pool) < DISTRACTOR_POOL:
            add(disease)
    while len(pool) < 3:  # a case whose terms few diseases share: any diseases make up the rest
        add(rng.choice(sharing.nodes))
    chosen = [truth, *rng.sample(pool, 3)]
    rng.shuffle(chosen)
    return {letter: names[disease][1] for letter, disease in zip(LETTERS, chosen, strict=True)}
