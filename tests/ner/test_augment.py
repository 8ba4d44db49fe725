"""Synthetic free-text training sentences: drawn from the training split, tagged as
inference splits words."""

from __future__ import annotations

from ner.augment import augment, inventory
from ner.corpus import Sentence
from ner.labels import LABELS
from ner.text import split_words


def toy_corpus() -> list[Sentence]:
    rows = [
        ("There is a 5.0 years old male Chinese patient with a mutation in KMT2D , namely , c.2908C > T ; "
         "( p.Arg970Ter ) and with facial phenotypes of Arched eyebrow , Long palpebral fissure",
         "O O O B-AGE O O B-GENDER B-RACE O O O O O B-GENE O O O B-MUTATION I-MUTATION I-MUTATION I-MUTATION "
         "I-MUTATION I-MUTATION I-MUTATION O O O O O B-FACIAL_PHENOTYPE I-FACIAL_PHENOTYPE O "
         "B-FACIAL_PHENOTYPE I-FACIAL_PHENOTYPE I-FACIAL_PHENOTYPE"),
        ("Describe the Kabuki syndrome , what gene associate with it ?", "O O B-DISEASE I-DISEASE O O O O O O O"),
        ("male female", "B-GENE B-RACE"),  # label noise the inventory must leave out
    ]
    return [Sentence(tuple(t.split()), tuple(g.split())) for t, g in rows]


def test_inventory_skips_label_noise():
    inv = inventory(toy_corpus())
    assert inv.genes == ["KMT2D"] and inv.races == ["Chinese"]
    assert inv.mutations == ["c.2908C > T ; ( p.Arg970Ter )"]
    assert inv.diseases == ["Kabuki syndrome"]


def test_synthetic_sentences_are_consistent():
    corpus = toy_corpus()
    sentences = augment(corpus, 60, seed=1)
    assert len(sentences) == 60 and augment(corpus, 60, seed=1) == sentences
    assert augment(corpus, 0) == []
    kinds = set()
    for s in sentences:
        assert set(s.tags) <= set(LABELS)
        assert list(s.tokens) == [w.text for w in split_words(s.text)]
        for kind, start, end in s.entities():
            kinds.add(kind)
            piece = s.text[start:end].rstrip(".")
            if kind == "GENE":
                assert piece.upper() == "KMT2D"
            if kind == "FACIAL_PHENOTYPE":
                assert piece.lower()[:1] in ("a", "l")  # a typo may swap letters further on
    assert kinds == {"AGE", "GENDER", "RACE", "GENE", "MUTATION", "FACIAL_PHENOTYPE", "DISEASE"}
