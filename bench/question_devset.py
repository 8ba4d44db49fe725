"""python -m bench question-devset: knowledge questions worded the way people write, from the HPO release.

    python -m bench question-devset [--out FILE] [--per-task N] [--seed S] [--split dev|test|all]
                                    [--set standard|fuzzy|orphanet|kinds]

(The command is bench/question_sets.py; the sets and their tasks are here and in bench/question_kinds.py.)

Writes a CSV (task, question, reference, split) that `python -m bench domain --questions FILE`
reads. The references come from the HPO release's facial layer (kg_dump/hpo_layer.py), not from
the graph's query templates, so they do not share the retrieval code's mistakes; a disease's
phenotypes leave out those HPO annotates with frequency 0 (excluded: absent). List references
are the items joined by " ; "; yes/no references are "Yes" or "Not recorded"; counts a number.

    phenotypes_of_disease  phenotypes_of_gene  diseases_of_gene  synonyms_of_phenotype
    genes_of_phenotype     the items asked for (at most 40: longer lists are not useful questions)
    yes_no                 a phenotype in a disease, a gene causing a disease, a gene with a phenotype:
                           half linked in HPO ("Yes"), half not ("Not recorded": nor through an
                           ancestor of a linked phenotype, nor annotated as absent)
    intersection           the diseases two genes share (1-5), or two phenotypes share (1-10)
    count                  how many genes a disease has (half of them one, half several)
    compound               a disease's genes and its facial phenotypes, in one list

`--set fuzzy` asks instead about a facial feature described, not named: the first sentence of its
HPO definition when it says none of the feature's names (described_genes, described_diseases:
the items; described_name: the feature's name). Vector retrieval is meant to do better there.
`--set kinds` asks kinds of question beyond one relation, in wordings of their own (bench/question_kinds.py):
a disease's modes of inheritance, yes/no about a gene and a group or one of its members, diseases with both of
two findings, what two diseases share, and what tells two diseases apart.
`--set orphanet` asks about diseases by the name only Orphanet gives them (an OMIM entry's Orphanet twin,
one node in the graph): genes_of_orphanet_name (its genes), diseases_of_gene_orphanet_named (a gene's
diseases, some named so in the reference).

Each task has several phrasings, none in the paper's style, each keeping a cue word (feature,
gene, syndrome, other name, how many). About a quarter of the questions are all lower case (gene
symbols too), about one in eight has a one-letter typo in a disease or phenotype name of 7+
letters (never in a gene symbol), and long disease names come as HPO writes them.

A question falls in dev or test by a fixed hash of its main entity (the disease, the gene or the
first of a pair; bench/devsets.py's `split_of`), so dev and test never ask first about the same
one. Tune on dev only. The dev rows of `--split all` are those of `--split dev`.
"""

from __future__ import annotations

import csv
import functools
import itertools
import math
import random
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from bench.devsets import SPLITS, split_of
from fpkg.errors import BenchError
from fpkg.names import fold_name, normalise
from identity.mondo import Mondo
from identity.series import correct_series_links

COLUMNS = ("task", "question", "reference", "split")
ITEM_SEPARATOR = " ; "
YES, NOT_RECORDED = "Yes", "Not recorded"
MAX_ITEMS = 40  # longer reference lists make questions nobody asks
MAX_GENES_PAIRED = 10  # gene pairs come from diseases with at most this many genes
SHARED_BY_GENES = (1, 5)
SHARED_BY_PHENOTYPES = (1, 10)
COMMON_PHENOTYPE_DISEASES = 20  # "Not recorded" phenotypes are ones many diseases have: plausible guesses
LOWER_SHARE = 1 / 4
# of the questions naming a disease or phenotype that can take a typo (about 3 in 4 questions;
# the rest name only genes): about 1 in 8 of all questions
TYPO_SHARE = 1 / 6
TYPO_MIN_LETTERS = 7
MAX_DESCRIPTION = 160  # characters of a definition's first sentence: longer is no question

# {disease}, {gene}, {phenotype} (and {gene2}, {phenotype2}) are filled in; none is the paper's
# "What facial phenotypes are associated with X?", each keeps a cue word the system can use.
PHRASINGS: dict[str, tuple[str, ...]] = {
    "phenotypes_of_disease": (
        "which face features would you expect in {disease}?",
        "{disease} - facial signs?",
        "What does a patient with {disease} look like? Facial features please",
        "List the dysmorphic facial features of {disease}.",
        "my child was diagnosed with {disease}, what facial features are typical?",
        "Can you tell me the face phenotypes seen with {disease}",
        "facial phenotype of {disease}?"),
    "phenotypes_of_gene": (
        "what facial features do people with a {gene} variant have?",
        "{gene} mutation - face phenotypes?",
        "Which facial signs are linked to the {gene} gene?",
        "How do patients with {gene} variants look? facial phenotype list",
        "list facial phenotypes for gene {gene}",
        "Facial dysmorphisms reported with {gene}? (features)",
        "which face features go with pathogenic {gene} variants"),
    "diseases_of_gene": (
        "what diseases does {gene} cause?",
        "{gene} - which syndromes?",
        "Which conditions are linked to mutations in {gene}?",
        "disorders caused by the {gene} gene",
        "if someone has a {gene} variant, which disease could they have?",
        "List the genetic disorders associated with {gene}.",
        "{gene} gene: associated diseases?"),
    "synonyms_of_phenotype": (
        "what's another name for {phenotype}?",
        "{phenotype} - synonyms?",
        "Is {phenotype} also called something else? list the other names",
        "other names used for {phenotype}?",
        "give me the synonyms of {phenotype}",
        "What is {phenotype} also called?",
        "alternative terms (synonyms) for the feature {phenotype}"),
    "genes_of_phenotype": (
        "which genes cause {phenotype}?",
        "{phenotype} - genes?",
        "is there a gene for {phenotype}?",
        "Genes behind {phenotype}?",
        "What genes are linked to the facial feature {phenotype}?",
        "List the genes where variants lead to {phenotype}.",
        "which gene mutations give {phenotype}"),
    "phenotype_in_disease": (
        "Is {phenotype} seen in {disease}?",
        "do people with {disease} have {phenotype} as a feature?",
        "{phenotype} in {disease} - is that a known feature?",
        "Can {disease} present with {phenotype} (facial sign)?",
        "is {phenotype} a facial feature of {disease}",
        "Is {phenotype} part of the facial phenotype of {disease}?"),
    "gene_causes_disease": (
        "Does {gene} cause {disease}?",
        "is {disease} linked to the {gene} gene?",
        "Can a {gene} mutation cause {disease}?",
        "is {gene} a gene for {disease}",
        "Is {disease} caused by variants in {gene}?",
        "{gene} and {disease}: is the gene associated with the disease?"),
    "gene_has_phenotype": (
        "Is {gene} linked to {phenotype}?",
        "can {gene} variants cause the facial feature {phenotype}?",
        "Is {phenotype} a phenotype of the {gene} gene?",
        "does a {gene} gene mutation give {phenotype}?",
        "{gene} gene and {phenotype}: any link?",
        "Is {phenotype} seen with {gene} variants? (facial sign)"),
    "shared_by_genes": (
        "Which diseases are linked to both {gene} and {gene2}?",
        "{gene} and {gene2} - any disease in common?",
        "which conditions are shared by the genes {gene} and {gene2}",
        "diseases associated with {gene} and also with {gene2}?",
        "Is there a disorder that both {gene} and {gene2} cause? list them",
        "Name the diseases that {gene} and {gene2} have in common."),
    "shared_by_phenotypes": (
        "Which diseases have both {phenotype} and {phenotype2}?",
        "{phenotype} + {phenotype2}: which syndromes show both features?",
        "patient has {phenotype} and {phenotype2}, which conditions have both signs?",
        "diseases with {phenotype} as well as {phenotype2}?",
        "what disorders list both {phenotype} and {phenotype2} as phenotypes",
        "Name the syndromes featuring {phenotype} together with {phenotype2}."),
    "genes_of_disease": (
        "which genes cause {disease}?",
        "{disease} - genes?",
        "What gene is mutated in {disease}?",
        "genes associated with {disease}",
        "Which genes are linked to {disease}? list them",
        "the genetic cause of {disease}: which genes?"),
    "count": (
        "How many genes are associated with {disease}?",
        "how many genes cause {disease}",
        "{disease}: how many genes?",
        "How many different genes can cause {disease}?",
        "in how many genes can variants lead to {disease}?",
        "how many genes are known for {disease}?",
        "{disease}, how many associated genes are there?"),
    "compound": (
        "Which genes are associated with {disease} and what facial phenotypes does it have?",
        "{disease}: genes and facial features?",
        "what gene causes {disease}, and how does the face look?",
        "Tell me the genes behind {disease} and its facial signs.",
        "genes + face phenotypes for {disease}",
        "For {disease}, list the associated genes and the dysmorphic features.",
        "which gene is responsible for {disease} and which facial features does it cause?"),
    # the fuzzy set: a facial feature described in HPO's own definition words, never by its name
    "described_genes": (
        "which genes are linked to {description}?",
        "genes behind this finding: {description}",
        "a child has {description} - which gene could be involved?",
        "What genes cause {description}?",
        "is there a known gene for {description}",
        "{description}: genes?"),
    "described_diseases": (
        "which diseases show {description}?",
        "syndromes with {description}?",
        "my patient has {description}; which conditions have that?",
        "What disorders present with {description}?",
        "list the diseases featuring {description}",
        "{description} - which syndromes?"),
    "described_name": (
        "what is the name of the facial feature {description}?",
        "what do you call {description}?",
        "term for {description}?",
        "Which phenotype is {description}?",
        "the HPO name for {description}?",
        "{description}: what is this sign called?"),
}
T = TypeVar("T")
GENE_SLOTS = ("gene", "gene2")  # never misspelled: a symbol with a typo is another symbol


@dataclass(frozen=True)
class Asked:
    question: str
    names: dict[str, str]  # slot → the name asked about, as HPO spells it
    lower: bool  # written all lower case
    misspelled: str  # the name the question has a typo in, as HPO spells it ("": none)


@dataclass(frozen=True)
class Row:
    """One question of the set; only task, question, reference and split go in the CSV."""

    task: str
    question: str
    reference: str
    split: str
    main_entity: str  # the id its split comes from
    asked: Asked

    def csv_row(self) -> dict[str, str]:
        return {"task": self.task, "question": self.question, "reference": self.reference, "split": self.split}


Draft = tuple[str, Asked, str]  # the main entity's id, the question, its reference


class Facts:
    """The HPO layer's links indexed both ways, and which diseases can be asked about by name."""

    def __init__(self, layer, mondo: Mondo | None = None, inheritance: dict[str, tuple[str, ...]] | None = None):
        self.mondo = mondo or Mondo()
        self.inheritance = inheritance or {}  # disease id -> HPO's modes of inheritance (the kinds set)
        self.disease_names = layer.diseases
        self.phenotype_names = {p["hpo_id"]: p["name"] for p in layer.phenotypes}
        # a synonym that is the name itself or its plural ("Narrow palpebral fissures") is no other name
        self.synonyms = {p["hpo_id"]: [s for s in p["synonyms"] if normalise(s) != normalise(p["name"])]
                         for p in layer.phenotypes}
        self.parents = {p["hpo_id"]: p["parents"] for p in layer.phenotypes}
        self.gene_ids = layer.genes
        # frequency 0 ("Excluded", 0/n patients): HPO records the phenotype as absent
        self.phenotypes_of_disease, self.diseases_of_phenotype = _both_ways(
            (d, p) for d, p, frequency in layer.disease_phenotypes if frequency != 0)
        self.absent_from_disease, _ = _both_ways((d, p) for d, p, frequency in layer.disease_phenotypes
                                                 if frequency == 0)
        self.phenotypes_of_gene, self.genes_of_phenotype = _both_ways(layer.gene_phenotypes)
        self.diseases_of_gene, self.genes_of_disease = _both_ways(layer.gene_diseases)
        corrected = correct_series_links(set(layer.gene_diseases), mondo)[0] if mondo else layer.gene_diseases
        corrected_diseases, corrected_genes = _both_ways(corrected)
        self.corrected_genes, self.corrected_diseases = defaultdict(set, corrected_genes), corrected_diseases
        self.ancestors = _ancestors_in(self.parents)
        folded = Counter(fold_name(name) for name in layer.diseases.values())
        # a name two diseases share would make the reference a guess; OMIM's old ALL-CAPS names read badly
        self.askable_diseases = sorted(d for d in self.phenotypes_of_disease
                                       if folded[fold_name(self.disease_names[d])] == 1
                                       and not self.disease_names[d].isupper())
        self.askable_with_genes = [d for d in self.askable_diseases if d in self.genes_of_disease]
        self.common_phenotypes = sorted(p for p, ds in self.diseases_of_phenotype.items()
                                        if len(ds) >= COMMON_PHENOTYPE_DISEASES)
        self.descriptions = {p["hpo_id"]: described for p in layer.phenotypes
                             if (described := description(p["definition"], [p["name"], *p["synonyms"]]))}
        self.orphanet_twins = _orphanet_twins(layer, mondo, folded) if mondo else {}

    def genes_of_twins(self, omim: str) -> set[str]:
        """The genes of an OMIM entry and its Orphanet twin (one node in the graph), as the build corrects
        them (series artefacts moved: `identity.series`)."""
        return self.corrected_genes[omim] | self.corrected_genes[self.orphanet_twins[omim]]

    def implied(self, hpo_ids: Iterable[str]) -> set[str]:
        """Terms a set of annotations implies (the true-path rule): no "Not recorded" may be one."""
        return set().union(*(self.ancestors(p) for p in hpo_ids))

    def gene_key(self, symbol: str) -> str:
        return f"NCBIGene:{self.gene_ids[symbol]}"


def _orphanet_twins(layer, mondo: Mondo, folded: Counter) -> dict[str, str]:
    """OMIM entry -> its Orphanet twin (the same MONDO disease), where Orphanet's name is its own: folded, it
    is neither OMIM's name nor any other disease's."""
    orphanet_of = {mondo.of(d): d for d in layer.diseases if d.startswith("ORPHA:") and mondo.of(d)}
    twins = {}
    for omim, name in layer.diseases.items():
        orpha = orphanet_of.get(mondo.of(omim)) if omim.startswith("OMIM:") else None
        if orpha and fold_name(layer.diseases[orpha]) != fold_name(name) \
                and folded[fold_name(layer.diseases[orpha])] == 1 and not layer.diseases[orpha].isupper():
            twins[omim] = orpha
    return twins


def _ancestors_in(parents: dict[str, list[str]]) -> Callable[[str], frozenset[str]]:
    """A term → itself and every term above it (memoised)."""
    @functools.cache
    def ancestors(hpo_id: str) -> frozenset[str]:
        return frozenset({hpo_id}).union(*(ancestors(p) for p in parents.get(hpo_id, ())))
    return ancestors


def _both_ways(pairs: Iterable[tuple[str, str]]) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    forward, backward = defaultdict(set), defaultdict(set)
    for a, b in pairs:
        forward[a].add(b)
        backward[b].add(a)
    return dict(forward), dict(backward)


# ---- wording ---------------------------------------------------------------------------

def in_running_text(phenotype: str) -> str:
    """A phenotype name as written mid-sentence: 'Long philtrum' -> 'long philtrum' (not 'EEG
    abnormality' nor 'Pierre-Robin sequence')."""
    first_word = phenotype.split(maxsplit=1)[0]
    return phenotype[:1].lower() + phenotype[1:] if first_word[1:].islower() else phenotype


def description(definition: str, names: list[str]) -> str | None:
    """A definition's first sentence as words to ask with ("an abnormally increased distance between
    the eyes"); None when it is long or says one of the feature's own names: then it is no description."""
    first = re.split(r"(?<=[a-z)])\.\s", definition.strip(), maxsplit=1)[0].rstrip(". ")
    if not first or len(first) > MAX_DESCRIPTION or any(normalise(n) in normalise(first) for n in names):
        return None
    word = first.split(maxsplit=1)[0]
    return first[:1].lower() + first[1:] if word[1:].islower() or len(word) == 1 else first


def misspellable(name: str) -> bool:
    return sum(c.isalpha() for c in name) >= TYPO_MIN_LETTERS and re.search(r"[A-Za-z]{4}", name) is not None


def misspell(name: str, rng: random.Random) -> str:
    """One letter swapped with the next, dropped or doubled, inside a word of 4+ letters and never
    its first letter (people rarely get that wrong)."""
    word = rng.choice(list(re.finditer(r"[A-Za-z]{4,}", name)))
    i = rng.randrange(word.start() + 1, word.end() - 1)
    kind = rng.choice(("swap", "drop", "double"))
    if kind == "swap" and name[i] != name[i + 1]:
        return name[:i] + name[i + 1] + name[i] + name[i + 2:]
    if kind == "drop":
        return name[:i] + name[i + 1:]
    return name[:i] + name[i] + name[i:]


def ask(rng: random.Random, phrasing: str, phrasings: dict[str, tuple[str, ...]] | None = None,
        **names: str) -> Asked:
    """A phrasing of `phrasing`'s kind (in `phrasings`, default PHRASINGS) filled with `names`; perhaps with a
    typo in a disease or phenotype name, perhaps all lower case."""
    template = rng.choice((phrasings or PHRASINGS)[phrasing])
    lower, typo = rng.random() < LOWER_SHARE, rng.random() < TYPO_SHARE
    written = {slot: in_running_text(name) if slot.startswith("phenotype") else name for slot, name in names.items()}
    typo_slots = [slot for slot in sorted(names) if slot not in GENE_SLOTS and misspellable(names[slot])]
    misspelled = ""
    if typo and typo_slots:
        slot = rng.choice(typo_slots)
        misspelled, written[slot] = names[slot], misspell(written[slot], rng)
    question = template.format(**written)
    return Asked(question.lower() if lower else question, names, lower, misspelled)


# ---- question streams: each yields drafts in a seeded order until its entities run out ---

def listed(items: Iterable[str]) -> str:
    """A list reference: in alphabetical order, joined by ' ; ', each name once however it is
    spelled (OMIM's 'RETINOBLASTOMA' is Orphanet's 'Retinoblastoma': the latter is kept)."""
    kept: dict[str, str] = {}
    for item in sorted(set(items), key=lambda name: (name.casefold(), name.isupper(), name)):
        kept.setdefault(fold_name(item), item)
    return ITEM_SEPARATOR.join(kept.values())


def shuffled(items: Iterable[T], rng: random.Random) -> list[T]:
    ordered = sorted(items)
    rng.shuffle(ordered)
    return ordered


def phenotypes_of_disease(facts: Facts, rng: random.Random) -> Iterator[Draft]:
    for disease in shuffled(facts.askable_diseases, rng):
        phenotypes = facts.phenotypes_of_disease[disease]
        if len(phenotypes) <= MAX_ITEMS:
            yield (disease, ask(rng, "phenotypes_of_disease", disease=facts.disease_names[disease]),
                   listed(facts.phenotype_names[p] for p in phenotypes))


def phenotypes_of_gene(facts: Facts, rng: random.Random) -> Iterator[Draft]:
    for gene in shuffled(facts.phenotypes_of_gene, rng):
        phenotypes = facts.phenotypes_of_gene[gene]
        if len(phenotypes) <= MAX_ITEMS:
            yield (facts.gene_key(gene), ask(rng, "phenotypes_of_gene", gene=gene),
                   listed(facts.phenotype_names[p] for p in phenotypes))


def diseases_of_gene(facts: Facts, rng: random.Random) -> Iterator[Draft]:
    for gene in shuffled(facts.diseases_of_gene, rng):
        diseases = facts.diseases_of_gene[gene]
        if len(diseases) <= MAX_ITEMS:
            yield (facts.gene_key(gene), ask(rng, "diseases_of_gene", gene=gene),
                   listed(facts.disease_names[d] for d in diseases))


def synonyms_of_phenotype(facts: Facts, rng: random.Random) -> Iterator[Draft]:
    for phenotype in shuffled((p for p, synonyms in facts.synonyms.items() if synonyms), rng):
        synonyms = facts.synonyms[phenotype]
        if len(synonyms) <= MAX_ITEMS:
            yield (phenotype, ask(rng, "synonyms_of_phenotype", phenotype=facts.phenotype_names[phenotype]),
                   listed(synonyms))


def genes_of_phenotype(facts: Facts, rng: random.Random) -> Iterator[Draft]:
    for phenotype in shuffled(facts.genes_of_phenotype, rng):
        genes = facts.genes_of_phenotype[phenotype]
        if len(genes) <= MAX_ITEMS:
            yield (phenotype, ask(rng, "genes_of_phenotype", phenotype=facts.phenotype_names[phenotype]),
                   listed(genes))


def described(facts: Facts, rng: random.Random, task: str, answers: dict[str, set[str]],
              names: dict[str, str]) -> Iterator[Draft]:
    for phenotype in shuffled((p for p in answers if p in facts.descriptions), rng):
        found = answers[phenotype]
        if len(found) <= MAX_ITEMS:
            yield (phenotype, ask(rng, task, description=facts.descriptions[phenotype]),
                   listed(names[item] if names else item for item in found))


def described_genes(facts: Facts, rng: random.Random) -> Iterator[Draft]:
    yield from described(facts, rng, "described_genes", facts.genes_of_phenotype, {})


def described_diseases(facts: Facts, rng: random.Random) -> Iterator[Draft]:
    yield from described(facts, rng, "described_diseases", facts.diseases_of_phenotype, facts.disease_names)


def described_name(facts: Facts, rng: random.Random) -> Iterator[Draft]:
    yield from described(facts, rng, "described_name", {p: {p} for p in facts.descriptions}, facts.phenotype_names)


def unlinked(rng: random.Random, pool: list[str], excluded: set[str]) -> str | None:
    """A random member of `pool` outside `excluded`."""
    allowed = [item for item in pool if item not in excluded]
    return rng.choice(allowed) if allowed else None


def phenotype_in_disease(facts: Facts, rng: random.Random, linked: bool) -> Iterator[Draft]:
    for disease in shuffled(facts.askable_diseases, rng):
        annotated = facts.phenotypes_of_disease[disease]
        absent = facts.absent_from_disease.get(disease, set())  # "No" rather than "Not recorded": not asked
        phenotype = rng.choice(sorted(annotated)) if linked else \
            unlinked(rng, facts.common_phenotypes, facts.implied(annotated) | absent)
        if phenotype:
            yield (disease, ask(rng, "phenotype_in_disease", disease=facts.disease_names[disease],
                                phenotype=facts.phenotype_names[phenotype]), YES if linked else NOT_RECORDED)


def gene_causes_disease(facts: Facts, rng: random.Random, linked: bool) -> Iterator[Draft]:
    genes = sorted(facts.diseases_of_gene)
    for disease in shuffled(facts.askable_with_genes, rng):
        linked_genes = facts.genes_of_disease[disease]
        gene = rng.choice(sorted(linked_genes)) if linked else unlinked(rng, genes, linked_genes)
        if gene:
            yield (disease, ask(rng, "gene_causes_disease", disease=facts.disease_names[disease], gene=gene),
                   YES if linked else NOT_RECORDED)


def gene_has_phenotype(facts: Facts, rng: random.Random, linked: bool) -> Iterator[Draft]:
    for gene in shuffled(facts.phenotypes_of_gene, rng):
        annotated = facts.phenotypes_of_gene[gene]
        phenotype = rng.choice(sorted(annotated)) if linked else \
            unlinked(rng, facts.common_phenotypes, facts.implied(annotated))
        if phenotype:
            yield (facts.gene_key(gene), ask(rng, "gene_has_phenotype", gene=gene,
                                             phenotype=facts.phenotype_names[phenotype]),
                   YES if linked else NOT_RECORDED)


def shared_by_genes(facts: Facts, rng: random.Random) -> Iterator[Draft]:
    pairs = {pair for genes in facts.genes_of_disease.values() if len(genes) <= MAX_GENES_PAIRED
             for pair in itertools.combinations(sorted(genes), 2)}
    for pair in shuffled(pairs, rng):
        first, second = pair if rng.random() < 0.5 else pair[::-1]
        shared = facts.diseases_of_gene[first] & facts.diseases_of_gene[second]
        if SHARED_BY_GENES[0] <= len(shared) <= SHARED_BY_GENES[1]:
            yield (facts.gene_key(first), ask(rng, "shared_by_genes", gene=first, gene2=second),
                   listed(facts.disease_names[d] for d in shared))


def shared_by_phenotypes(facts: Facts, rng: random.Random) -> Iterator[Draft]:
    low, high = SHARED_BY_PHENOTYPES
    for first in shuffled(facts.diseases_of_phenotype, rng):
        diseases = facts.diseases_of_phenotype[first]
        together = Counter(p for d in diseases for p in facts.phenotypes_of_disease[d])
        # a term and its ancestor share every disease of the term: not a question anyone asks
        related = facts.ancestors(first)
        partners = sorted(p for p, n in together.items()
                          if low <= n <= high and p not in related and first not in facts.ancestors(p))
        if partners:
            second = rng.choice(partners)
            yield (first, ask(rng, "shared_by_phenotypes", phenotype=facts.phenotype_names[first],
                              phenotype2=facts.phenotype_names[second]),
                   listed(facts.disease_names[d] for d in diseases & facts.diseases_of_phenotype[second]))


def gene_count(facts: Facts, rng: random.Random, several: bool) -> Iterator[Draft]:
    """Diseases with one gene, or with several: most have one, and "1" must not be a safe guess. The count is
    of the links as MONDO corrects a series' artefacts (HPO's file gives a series' first entry the other
    members' genes: Megalencephalic leukoencephalopathy with subcortical cysts 1 has MLC1, not HEPACAM too)."""
    diseases = [d for d in facts.askable_with_genes if facts.corrected_genes[d]
                and (len(facts.corrected_genes[d]) > 1) == several]
    for disease in shuffled(diseases, rng):
        name, count = facts.disease_names[disease], str(len(facts.corrected_genes[disease]))
        # "Noonan syndrome 1" has 1 gene: an answer repeating the name would score whatever it counts
        if not re.search(rf"(?<!\w){count}(?!\w)", name):
            yield disease, ask(rng, "count", disease=name), count


def genes_of_orphanet_name(facts: Facts, rng: random.Random) -> Iterator[Draft]:
    """A disease asked about by the name only Orphanet gives it; its genes as the graph holds them."""
    for omim in shuffled(facts.orphanet_twins, rng):
        genes = facts.genes_of_twins(omim)
        if genes and len(genes) <= MAX_ITEMS:
            name = facts.disease_names[facts.orphanet_twins[omim]]
            yield omim, ask(rng, "genes_of_disease", disease=name), listed(genes)


def diseases_of_gene_orphanet_named(facts: Facts, rng: random.Random) -> Iterator[Draft]:
    """A gene's diseases where the reference names a disease by its Orphanet-only name."""
    orphanet_named = set(facts.orphanet_twins.values())
    for gene in shuffled(facts.corrected_diseases, rng):
        diseases = facts.corrected_diseases[gene]
        if diseases & orphanet_named and len(diseases) <= MAX_ITEMS:
            yield (facts.gene_key(gene), ask(rng, "diseases_of_gene", gene=gene),
                   listed(facts.disease_names[d] for d in diseases))


def genes_and_phenotypes(facts: Facts, rng: random.Random) -> Iterator[Draft]:
    for disease in shuffled(facts.askable_with_genes, rng):
        genes, phenotypes = facts.genes_of_disease[disease], facts.phenotypes_of_disease[disease]
        if len(genes) <= MAX_ITEMS and len(phenotypes) <= MAX_ITEMS:
            reference = ITEM_SEPARATOR.join((listed(genes), listed(facts.phenotype_names[p] for p in phenotypes)))
            yield disease, ask(rng, "compound", disease=facts.disease_names[disease]), reference


Stream = Callable[[Facts, random.Random], Iterator[Draft]]
# Each task's questions alternate between its streams: yes/no as linked, not linked, per kind;
# count as one gene, several.
TASKS: dict[str, tuple[Stream, ...]] = {
    "phenotypes_of_disease": (phenotypes_of_disease,),
    "phenotypes_of_gene": (phenotypes_of_gene,),
    "diseases_of_gene": (diseases_of_gene,),
    "synonyms_of_phenotype": (synonyms_of_phenotype,),
    "genes_of_phenotype": (genes_of_phenotype,),
    "yes_no": tuple(functools.partial(kind, linked=linked)
                    for kind in (phenotype_in_disease, gene_causes_disease, gene_has_phenotype)
                    for linked in (True, False)),
    "intersection": (shared_by_genes, shared_by_phenotypes),
    "count": (functools.partial(gene_count, several=False), functools.partial(gene_count, several=True)),
    "compound": (genes_and_phenotypes,),
}
# Fuzzy: what a user asks when the name escapes them (`--set fuzzy`).
FUZZY_TASKS: dict[str, tuple[Stream, ...]] = {
    "described_genes": (described_genes,),
    "described_diseases": (described_diseases,),
    "described_name": (described_name,),
}
# Orphanet's names: a disease merged with its OMIM entry, asked about and answered by the name only Orphanet gives
ORPHANET_TASKS: dict[str, tuple[Stream, ...]] = {
    "genes_of_orphanet_name": (genes_of_orphanet_name,),
    "diseases_of_gene_orphanet_named": (diseases_of_gene_orphanet_named,),
}
SETS = {"standard": TASKS, "fuzzy": FUZZY_TASKS, "orphanet": ORPHANET_TASKS}  # and kinds: bench/question_kinds.py


# ---- the set ---------------------------------------------------------------------------

def first_per_split(drafts: Iterable[Draft], n: int) -> dict[str, list[Draft]]:
    """The first `n` drafts of each split: both are filled whichever is asked for, so a stream
    draws the same entities and wordings for dev alone as for dev and test."""
    taken: dict[str, list[Draft]] = {split: [] for split in SPLITS}
    for draft in drafts:
        bucket = taken[split_of(draft[0])]
        if len(bucket) < n:
            bucket.append(draft)
        if all(len(b) >= n for b in taken.values()):
            break
    return taken


def task_rows(task: str, streams: tuple[Stream, ...], facts: Facts, per_task: int, seed: int) -> list[Row]:
    share = math.ceil(per_task / len(streams))
    # a Random per stream: one task's draws do not move another's
    taken = [first_per_split(stream(facts, random.Random(f"{seed}/{task}/{i}")), share)
             for i, stream in enumerate(streams)]
    rows = []
    for split in SPLITS:
        alternating = itertools.chain.from_iterable(itertools.zip_longest(*(t[split] for t in taken)))
        drafts = [draft for draft in alternating if draft is not None][:per_task]
        rows += [Row(task, asked.question, reference, split, key, asked) for key, asked, reference in drafts]
    return rows


def generate(layer, *, per_task: int = 40, seed: int = 0, split: str = "dev", tasks: str = "standard",
             mondo: Mondo | None = None, profiles=None, task_sets: dict | None = None) -> list[Row]:
    """`per_task` questions per task of the set `tasks` in `split` (in each split for "all"), task by task.
    The orphanet and kinds sets need MONDO (which entries are one disease, groups and members); the kinds set
    HPO's modes of inheritance too (`profiles`: kg_dump.hpo_profiles.HpoProfiles)."""
    if per_task < 1:
        raise BenchError(f"--per-task must be at least 1, not {per_task}")
    if tasks in ("orphanet", "kinds") and not mondo:
        raise BenchError(f"the {tasks} set needs the MONDO tables (python -m kg_dump fetch mondo)")
    facts = Facts(layer, mondo, profiles.inheritance if profiles is not None else None)
    chosen = (task_sets or SETS)[tasks]
    rows = [row for task, streams in chosen.items() for row in task_rows(task, streams, facts, per_task, seed)]
    return [row for row in rows if split in ("all", row.split)]


def write_csv(rows: list[Row], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(row.csv_row() for row in rows)


def describe(rows: list[Row]) -> dict[str, Any]:
    counts: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(SPLITS, 0))
    for row in rows:
        counts[row.task][row.split] += 1
    n = len(rows) or 1
    return {"questions": len(rows), "per_task": dict(counts),
            "lower_share": round(sum(r.asked.lower for r in rows) / n, 3),
            "typo_share": round(sum(bool(r.asked.misspelled) for r in rows) / n, 3)}
