"""Synthetic clinical prose: vocabulary filtering, span conventions, the words kept outside."""

from __future__ import annotations

import re

from ner.labels import LABELS
from ner.prose import STYLES, ProseVocabulary, hpo_vocabulary, prose, vocabulary_from
from ner.text import split_words


def term(hpo_id: str, name: str, parents=(), synonyms=()) -> dict:
    return {"hpo_id": hpo_id, "name": name, "parents": list(parents), "synonyms": list(synonyms)}


TERMS = [
    term("HP:0000152", "Abnormality of head or neck"),
    term("HP:0000234", "Abnormality of the head", ["HP:0000152"]),
    term("HP:0000271", "Abnormality of the face", ["HP:0000234"]),
    term("HP:0000316", "Hypertelorism", ["HP:0000271"], ["Wide-set eyes", "Increased distance between eye sockets"]),
    term("HP:0000464", "Abnormality of the neck", ["HP:0000152"]),
    term("HP:0000465", "Webbed neck", ["HP:0000464"], ["Pterygium colli"]),
    term("HP:0000478", "Abnormality of the eye"),
    term("HP:0000518", "Cataract", ["HP:0000478"]),
    term("HP:0000639", "Nystagmus", ["HP:0000478"]),
    term("HP:0000999", "Long face with very many words in it", ["HP:0000271"]),
]
USES = {"HP:0000518": 12, "HP:0000639": 2}


def test_vocabulary_keeps_what_clinicians_write():
    vocabulary = vocabulary_from(TERMS, USES, ["Kabuki syndrome 1", "Cleft palate, isolated", "Noonan syndrome 3"],
                                 ["KMT2D", "CHD7", "C1orf106x", "-"])
    assert set(vocabulary.dysmorphic) == {"Hypertelorism", "Wide-set eyes", "Increased distance between eye sockets"}
    # other facial terms only when several diseases use them; generic, neck and long names never
    assert vocabulary.other_phenotypes == ("Cataract",)
    assert vocabulary.diseases == ("Kabuki syndrome", "Noonan syndrome")
    assert vocabulary.genes == ("CHD7", "KMT2D")


SMALL = ProseVocabulary(("Hypertelorism", "Arched eyebrow", "Low-set ears"), ("Cataract",),
                        ("Kabuki syndrome", "CHARGE syndrome"), ("KMT2D", "CHD7"))
ZYGOSITY_OR_CLASS = re.compile(r"\b(?:het|heterozygous|homozygous|hemizygous|de novo|pathogenic|VUS|class)\b", re.I)
ARTICLE = re.compile(r"^(?:a|an|the|his|her)\s", re.I)
PROSE_WORDS = {"Heterozygous", "Pathogenic", "Consistent", "Exome", "Ward", "Dr", "Mol", "Genet", "het", "MDT"}


def test_descriptions_follow_the_span_conventions():
    sentences = prose(400, SMALL, seed=3)
    assert prose(400, SMALL, seed=3) == sentences and prose(0, SMALL) == []
    styles = {s.source.split(":")[1] for s in sentences}
    assert styles == {style.__name__.lstrip("_") for style in STYLES}
    outside = set()
    for sentence in sentences:
        assert set(sentence.tags) <= set(LABELS), sentence.source  # no I-AGE: the label set has none
        assert list(sentence.tokens) == [w.text for w in split_words(sentence.text)]
        text = sentence.raw_text()
        for kind, start, end in sentence.entities():
            span = text[start:end]
            assert not ARTICLE.match(span), (sentence.source, span)
            if kind == "MUTATION":
                assert not ZYGOSITY_OR_CLASS.search(span), (sentence.source, span)
            if kind == "GENE":
                assert span.upper() in SMALL.genes
        outside |= {token for token, tag in zip(sentence.tokens, sentence.tags, strict=True) if tag == "O"}
    # the words that fooled the corpus-trained model are seen, outside any entity
    assert outside >= PROSE_WORDS, PROSE_WORDS - outside


def test_hpo_vocabulary_is_facial_and_prose_sized():
    vocabulary = hpo_vocabulary()
    assert len(vocabulary.dysmorphic) > 2000 and len(vocabulary.genes) > 2000
    assert "Hypertelorism" in vocabulary.dysmorphic
    assert "Webbed neck" not in vocabulary.dysmorphic + vocabulary.other_phenotypes
    assert not any(name.startswith("Abnormality") for name in vocabulary.dysmorphic)
