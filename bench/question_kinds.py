"""`python -m bench question-devset --set kinds`: kinds of question beyond one relation, each in wordings of its
own (none is a template of the standard set), with references from the HPO release and MONDO, not from the
graph's answers:

    inheritance      a disease's modes of inheritance (HPO's, as a clinician says them: "autosomal dominant")
    yes_no_group     a gene and a group it causes only through a member ("Yes"), or a group's member and a
                     gene that causes another member of the group, not this one ("Not recorded"; a "No" that
                     names the member's own genes is right too)
    both             the diseases HPO annotates with both of two facial findings ("with", "along with", ...)
    in_common        the facial findings HPO annotates to both of two diseases (1-12 shared)
    comparison       what tells two diseases apart: the answer names both diseases' genes and modes of
                     inheritance (diseases with 1-8 genes each that share facial findings)

Split, lower case and typos as in the standard set (bench/question_devset.py).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

from bench.question_devset import (
    MAX_GENES_PAIRED,
    NOT_RECORDED,
    SHARED_BY_PHENOTYPES,
    YES,
    Draft,
    Facts,
    ask,
    listed,
    shuffled,
)

SHARED_BY_DISEASES = (1, 12)
MODE_WORDS = re.compile(r"dominant|recessive|x-linked|y-linked|mitochondrial|sporadic|somatic", re.IGNORECASE)
COMPARED_MIN_SHARED = 3  # two diseases compared share at least this many facial findings: look-alikes
KIND_PHRASINGS: dict[str, tuple[str, ...]] = {
    "inheritance": (
        "How is {disease} inherited?",
        "{disease}: what is the mode of inheritance?",
        "what's the inheritance pattern of {disease}",
        "Is {disease} dominant or recessive?",
        "parents of a child with {disease} ask about the recurrence risk - how is it passed on?",
        "genetic transmission of {disease}?",
        "mode of inheritance for {disease} please"),
    "yes_no_group": (
        "Is {gene} associated with {disease}?",
        "Can {gene} variants cause {disease}?",
        "{gene} and {disease} - is there a link?",
        "Is {disease} ever caused by {gene}?",
        "does {gene} count among the genes of {disease}?",
        "is {gene} a known cause of {disease}"),
    "both": (
        "Which syndromes present {phenotype} with {phenotype2}?",
        "{phenotype} together with {phenotype2} - which diseases?",
        "a child has {phenotype} and {phenotype2}: which syndromes have both?",
        "diseases showing {phenotype} along with {phenotype2}",
        "What conditions combine {phenotype} and {phenotype2}?",
        "syndromes with {phenotype} plus {phenotype2}"),
    "in_common": (
        "Which facial features do {disease} and {disease2} have in common?",
        "{disease} and {disease2}: shared facial findings?",
        "What face signs are seen in both {disease} and {disease2}?",
        "facial phenotypes common to {disease} and {disease2}",
        "Do {disease} and {disease2} share facial features? which ones",
        "overlap in facial features between {disease} and {disease2}?"),
    "comparison": (
        "What distinguishes {disease} from {disease2}?",
        "{disease} vs {disease2}: how do they differ?",
        "How can I tell {disease} and {disease2} apart?",
        "compare {disease} with {disease2}",
        "differences between {disease} and {disease2}?",
        "{disease} or {disease2} - what tells them apart?"),
}


def mode_text(mode: str) -> str:
    """HPO's mode as a clinician says it: 'Autosomal dominant inheritance' -> 'autosomal dominant'."""
    text = mode.removesuffix(" inheritance")
    return text if text[:2] in ("X-", "Y-") else text[:1].lower() + text[1:]


def inheritance(facts: Facts, rng: random.Random) -> Iterator[Draft]:
    """A disease whose name says no mode ("Cutis laxa, autosomal recessive, type IB" would answer itself)."""
    for disease in shuffled((d for d in facts.askable_diseases if facts.inheritance.get(d)
                             and not MODE_WORDS.search(facts.disease_names[d])), rng):
        yield (disease, ask(rng, "inheritance", KIND_PHRASINGS, disease=facts.disease_names[disease]),
               listed(mode_text(mode) for mode in facts.inheritance[disease]))


def _groups(facts: Facts) -> dict[str, list[str]]:
    """Askable groups (OMIM or ORPHA entries MONDO files rare subclasses under) -> their askable members."""
    mondo, askable = facts.mondo, set(facts.askable_diseases)
    found = {}
    for disease in sorted(askable):
        group = mondo.of(disease)
        if group and mondo.is_group(group):
            members = [m for child in sorted(mondo.children[group]) for m in mondo.ids_of.get(child, ())
                       if m in facts.disease_names and m != disease]
            if len(members) >= 2:
                found[disease] = members
    return found


def group_through_member(facts: Facts, rng: random.Random) -> Iterator[Draft]:
    """A group and a gene that causes one of its members but that HPO does not link to the group itself."""
    groups = _groups(facts)
    for group in shuffled(groups, rng):
        own = facts.corrected_genes[group] | facts.genes_of_disease.get(group, set())
        genes = sorted({g for m in groups[group] for g in facts.corrected_genes[m]} - own)
        if genes:
            gene = rng.choice(genes)
            yield group, ask(rng, "yes_no_group", KIND_PHRASINGS, gene=gene, disease=facts.disease_names[group]), YES


def member_not_sibling(facts: Facts, rng: random.Random) -> Iterator[Draft]:
    """A group's member and a gene that causes another member, not this one (nor the group's ancestors)."""
    groups = _groups(facts)
    for group in shuffled(groups, rng):
        members = [m for m in groups[group] if m in set(facts.askable_diseases) and facts.corrected_genes[m]]
        if len(members) < 2:
            continue
        member = rng.choice(members)
        genes = sorted({g for m in members if m != member for g in facts.corrected_genes[m]}
                       - facts.corrected_genes[member] - facts.genes_of_disease.get(member, set()))
        if genes:
            yield (member, ask(rng, "yes_no_group", KIND_PHRASINGS, gene=rng.choice(genes),
                               disease=facts.disease_names[member]), NOT_RECORDED)


def both(facts: Facts, rng: random.Random) -> Iterator[Draft]:
    """Two findings a few diseases share (as the standard set's intersections, in other words)."""
    low, high = SHARED_BY_PHENOTYPES
    for first in shuffled(facts.diseases_of_phenotype, rng):
        diseases = facts.diseases_of_phenotype[first]
        together: dict[str, int] = {}
        for disease in diseases:
            for phenotype in facts.phenotypes_of_disease[disease]:
                together[phenotype] = together.get(phenotype, 0) + 1
        related = facts.ancestors(first)
        partners = sorted(p for p, n in together.items()
                          if low <= n <= high and p not in related and first not in facts.ancestors(p))
        if partners:
            second = rng.choice(partners)
            yield (first, ask(rng, "both", KIND_PHRASINGS, phenotype=facts.phenotype_names[first],
                              phenotype2=facts.phenotype_names[second]),
                   listed(facts.disease_names[d] for d in diseases & facts.diseases_of_phenotype[second]))


def _partners(facts: Facts, disease: str, low: int, high: int) -> list[str]:
    """Askable diseases sharing between `low` and `high` facial findings with `disease`."""
    mine = facts.phenotypes_of_disease[disease]
    counts: dict[str, int] = {}
    for phenotype in mine:
        for other in facts.diseases_of_phenotype.get(phenotype, ()):
            counts[other] = counts.get(other, 0) + 1
    askable = set(facts.askable_diseases)
    return sorted(d for d, n in counts.items() if low <= n <= high and d != disease and d in askable)


def in_common(facts: Facts, rng: random.Random) -> Iterator[Draft]:
    for disease in shuffled(facts.askable_diseases, rng):
        partners = _partners(facts, disease, *SHARED_BY_DISEASES)
        if partners:
            other = rng.choice(partners)
            shared = facts.phenotypes_of_disease[disease] & facts.phenotypes_of_disease[other]
            yield (disease, ask(rng, "in_common", KIND_PHRASINGS, disease=facts.disease_names[disease],
                                disease2=facts.disease_names[other]),
                   listed(facts.phenotype_names[p] for p in shared))


def comparison(facts: Facts, rng: random.Random) -> Iterator[Draft]:
    def genes(d: str) -> set[str]:
        return facts.corrected_genes[d]

    for disease in shuffled((d for d in facts.askable_with_genes if 0 < len(genes(d)) <= MAX_GENES_PAIRED // 2
                             and facts.inheritance.get(d)), rng):
        partners = [d for d in _partners(facts, disease, COMPARED_MIN_SHARED, 10 ** 6)
                    if 0 < len(genes(d)) <= MAX_GENES_PAIRED // 2 and facts.inheritance.get(d)]
        if partners:
            other = rng.choice(partners)
            items = [*genes(disease), *genes(other),
                     *(mode_text(m) for d in (disease, other) for m in facts.inheritance[d])]
            yield (disease, ask(rng, "comparison", KIND_PHRASINGS, disease=facts.disease_names[disease],
                                disease2=facts.disease_names[other]), listed(items))


KIND_TASKS = {
    "inheritance": (inheritance,),
    "yes_no_group": (group_through_member, member_not_sibling),
    "both": (both,),
    "in_common": (in_common,),
    "comparison": (comparison,),
}
