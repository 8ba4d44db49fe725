"""Entity linking on the real graph: exact names, synonyms, typos, and what links to nothing."""

from __future__ import annotations

import csv
import re

import pytest

from fpkg.names import normalise
from retrieval.linking import Alias, EntityLinker
from retrieval.vocabulary import split_names

PHENOTYPES_OF = re.compile(r"with facial phenotypes of (.*?)\. What disease", re.S)


def publication_phenotypes(data_dir, linker) -> list[str]:
    with open(data_dir / "datasets" / "Publication_patient_question.csv", encoding="utf-8") as f:
        questions = [row["Patient_question"] for row in csv.DictReader(f)]
    vocabulary = linker.vocabulary("FacePhenotype")
    names = {name for q in questions for name in split_names(PHENOTYPES_OF.search(q).group(1), vocabulary)}
    return sorted(names)


def typo(name: str) -> str:
    """Swap two letters in the middle of the longest word: a deterministic typing slip."""
    words = name.split()
    i = max(range(len(words)), key=lambda k: len(words[k]))
    word = words[i]
    if len(word) >= 5:
        middle = len(word) // 2
        words[i] = word[:middle - 1] + word[middle] + word[middle - 1] + word[middle + 1:]
    return " ".join(words)


def synonyms_by_name(linker) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for alias in linker.indexes["FacePhenotype"].aliases:
        if alias.is_synonym and normalise(alias.text) != normalise(alias.name):
            found.setdefault(alias.name, []).append(alias.text)
    return found


def test_every_publication_phenotype_links_to_its_node(pipeline, data_dir):
    linker = pipeline.linker
    names = publication_phenotypes(data_dir, linker)
    assert len(names) > 150
    wrong = [(n, linker.link(n, "FACIAL_PHENOTYPE").name) for n in names
             if normalise(linker.link(n, "FACIAL_PHENOTYPE").name or "") != normalise(n)]
    assert wrong == []


def test_typos_case_and_synonyms_link_top1(pipeline, data_dir):
    linker = pipeline.linker
    names = publication_phenotypes(data_dir, linker)
    synonyms = synonyms_by_name(linker)
    variants = []
    for name in names:
        variants.append((name.upper(), name))
        variants.append((typo(name).lower(), name))
        for synonym in synonyms.get(name, [])[:1]:
            variants.append((synonym, name))
    correct = sum(normalise(linker.link(text, "FACIAL_PHENOTYPE").name or "") == normalise(name)
                  for text, name in variants)
    share = correct / len(variants)
    print(f"perturbed phenotype linking top-1: {correct}/{len(variants)} = {share:.3f}")
    assert share >= 0.90


@pytest.mark.parametrize("mention, expected", [
    ("hypertelorism", "Hypertelorism"),
    ("Widely spaced eyes", "Hypertelorism"),
    ("Low-set ears", "Low-set ears"),
    ("low set ear", "Low-set ears"),
    ("hypertelorsim", "Hypertelorism"),
])
def test_phenotype_examples(pipeline, mention, expected):
    assert pipeline.linker.link(mention, "FACIAL_PHENOTYPE").name == expected


def test_genes_and_variants(pipeline):
    assert pipeline.linker.link("chd7", "GENE").name == "CHD7"
    variant = pipeline.linker.link("c.2443-2A>G", "MUTATION", gene="CHD7")
    assert variant.node_id is not None and "2443-2A" in variant.name.replace(" ", "")


@pytest.mark.parametrize("written", ["p.S252W", "p.(Ser252Trp)", "c.755 C > G"])
def test_a_variant_written_another_way_links_to_the_published_one_of_its_gene(pipeline, written):
    published = pipeline.linker.link("c.755C>G", "MUTATION", gene="FGFR2")
    assert published.node_id is not None and "Ser252Trp" in published.name
    found = pipeline.linker.candidates(written, "MUTATION", k=20, gene="FGFR2")
    assert published.node_id in {link.node_id for link in found}
    # the same change in another gene is another variant; another change at that residue too
    assert pipeline.linker.candidates(written, "MUTATION", k=20, gene="FGFR3") == []
    assert published.node_id not in {link.node_id for link in
                                     pipeline.linker.candidates("p.S252L", "MUTATION", k=20, gene="FGFR2")}


@pytest.mark.parametrize("mention, entity_type", [
    ("qwertyuiop asdfgh", "FACIAL_PHENOTYPE"), ("", "GENE"), ("NOTAGENE123", "GENE"),
    ("'; MATCH (n) DETACH DELETE n //", "DISEASE"), ("x", "MUTATION"), ("Cleft palate", "UNKNOWN_TYPE"),
])
def test_nonsense_links_to_nothing(pipeline, mention, entity_type):
    link = pipeline.linker.link(mention, entity_type)
    assert link.node_id is None and link.method == "none"


def test_a_typo_is_matched_among_names_with_its_initials_however_many_others_are_closer():
    # six names one character from the mention but with other initials: a keyboard slip keeps
    # each word's first letter, so none of them may crowd out the name it was typed for
    decoys = ["kabu kk syndrome", "kab ukk syndrome", "ka bukk syndrome", "k abukk syndrome",
              "kabukk s yndrome", "kabukk synd rome"]
    aliases = [Alias(i, "Disease", name, name, False) for i, name in enumerate(["Kabuki syndrome", *decoys])]
    link = EntityLinker(aliases).typo_match("kabukk syndrome", "DISEASE")
    assert link is not None and link.name == "Kabuki syndrome" and link.method == "typo"
