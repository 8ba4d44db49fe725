"""Synthetic free-text training sentences built from the training split's own entities.

The corpus is a few templates, so a model trained on it alone labels by position ('the word
after "Describe the" is a disease') and fails on the way clinicians write. These sentences
put the same entity strings (taken from the training split only, never dev or test) into
note-like layouts: abbreviations ('5yo F'), field lists ('Sex: M; Gene: ...'), phenotype
lists without a lead-in, lower-case symbols and phenotypes, compact HGVS, plural and
misspelt phenotype words. Text is split into words exactly as at inference time.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ner.corpus import Sentence
from ner.labels import tag_spans
from ner.text import split_words

Piece = tuple[str, str | None]  # text, entity type (None: outside any entity)

_SEXES = [("male", "boy", "M"), ("female", "girl", "F")]
_COUNT_NOUNS = ("eyebrow", "eyelash", "ear", "eye", "fissure", "nostril", "incisor", "lip", "cheek", "tooth")
_SYMBOL = re.compile(r"[A-Za-z0-9-]+")
_RACE = re.compile(r"[A-Z][a-z]+(?: [A-Z][a-z]+)?")


@dataclass(frozen=True)
class Inventory:
    """Entity strings of each type, as the training split writes them."""

    races: list[str]
    genes: list[str]
    mutations: list[str]
    phenotypes: list[str]
    diseases: list[str]


def inventory(sentences: Sequence[Sentence]) -> Inventory:
    found: dict[str, set[str]] = {kind: set() for kind in ("RACE", "GENE", "MUTATION", "FACIAL_PHENOTYPE", "DISEASE")}
    for sentence in sentences:
        for kind, a, b in tag_spans(sentence.tags):
            if kind in found:
                found[kind].add(" ".join(sentence.tokens[a:b]).rstrip(" ."))
    # leave out the label noise ('male' tagged GENE or RACE, disease names tagged GENE)
    races = sorted(r for r in found["RACE"] if _RACE.fullmatch(r) and r.lower() not in ("male", "female"))
    genes = sorted(g for g in found["GENE"] if _SYMBOL.fullmatch(g) and any(c.isdigit() or c.isupper() for c in g)
                   and g.lower() not in ("male", "female"))
    return Inventory(races, genes, sorted(found["MUTATION"]), sorted(found["FACIAL_PHENOTYPE"]),
                     sorted(found["DISEASE"]))


def augment(sentences: Sequence[Sentence], count: int, seed: int = 0) -> list[Sentence]:
    """``count`` synthetic sentences from the entities of ``sentences`` (the training split)."""
    if count <= 0:
        return []
    inv = inventory(sentences)
    rng = random.Random(seed)
    return [to_sentence(rng.choice(_LAYOUTS)(_Draw(inv, rng)), f"augmented:{i + 1}") for i in range(count)]


class _Draw:
    """Random entity mentions in the variants free text uses."""

    def __init__(self, inv: Inventory, rng: random.Random) -> None:
        self.inv, self.rng = inv, rng
        self.sex = rng.choice(_SEXES)

    def age_glued(self) -> Piece:
        n = self.rng.randint(1, 17)
        form = self.rng.choice(["{}yo", "{}y", "{}-year-old", "{}yr", "{}-month-old", "{}mo"])
        return form.format(n), "AGE"

    def age_number(self) -> Piece:
        return str(self.rng.choice([self.rng.randint(1, 40), round(self.rng.uniform(0.5, 18), 1)])), "AGE"

    def sex_word(self) -> Piece:
        word = self.rng.choice(self.sex[:2])
        return (word.capitalize() if self.rng.random() < 0.2 else word), "GENDER"

    def sex_letter(self) -> Piece:
        return self.sex[2], "GENDER"

    def race(self) -> Piece:
        return self.rng.choice(self.inv.races), "RACE"

    def gene(self) -> Piece:
        gene = self.rng.choice(self.inv.genes)
        return (gene.lower() if self.rng.random() < 0.3 else gene), "GENE"

    def mutation(self) -> Piece:
        text = self.rng.choice(self.inv.mutations)
        if self.rng.random() < 0.7:  # 'c.2908C > T ; ( p.Arg970Ter )' -> 'c.2908C>T; (p.Arg970Ter)'
            text = re.sub(r"\s*>\s*", ">", text)
            text = re.sub(r"\(\s+", "(", re.sub(r"\s+\)", ")", re.sub(r"\s+([;,])", r"\1", text)))
        return text, "MUTATION"

    def phenotype(self) -> Piece:
        text = self.rng.choice(self.inv.phenotypes)
        if self.rng.random() < 0.75:
            text = text[0].lower() + text[1:]
        words = text.split(" ")
        if words[-1].lower() in _COUNT_NOUNS and self.rng.random() < 0.5:
            words[-1] = "teeth" if words[-1].lower() == "tooth" else words[-1] + "s"
        if self.rng.random() < 0.08:
            words = typo(words, self.rng)
        return " ".join(words), "FACIAL_PHENOTYPE"

    def phenotypes(self, low: int = 2, high: int = 5) -> list[Piece]:
        items = [self.phenotype() for _ in range(self.rng.randint(low, high))]
        pieces: list[Piece] = []
        for i, item in enumerate(items):
            if i:
                pieces.append((" and " if i == len(items) - 1 and self.rng.random() < 0.4 else ", ", None))
            pieces.append(item)
        return pieces

    def disease(self) -> Piece:
        return self.rng.choice(self.inv.diseases), "DISEASE"



def _abbreviated(d: _Draw) -> list[Piece]:
    return [d.age_glued(), (" ", None), d.sex_letter(), (", ", None), d.mutation(), (" in ", None), d.gene(),
            (", ", None), *d.phenotypes()]


def _descriptive(d: _Draw) -> list[Piece]:
    return [d.age_glued(), (" ", None), d.race(), (" ", None), d.sex_word(), (" with ", None), d.gene(), (" ", None),
            d.mutation(), (", ", None), *d.phenotypes(), (". ", None), d.disease(), ("?", None)]


def _fields(d: _Draw) -> list[Piece]:
    return [("Age: ", None), d.age_number(), ("; Sex: ", None), d.sex_letter(), ("; Gene: ", None), d.gene(),
            ("; Variant: ", None), d.mutation(), ("; Findings: ", None), *d.phenotypes()]


def _sentence_first(d: _Draw) -> list[Piece]:
    return [d.sex_word(), (", ", None), d.age_number(), (" years old, ", None), d.race(), (". ", None),
            *d.phenotypes(), (". ", None), d.gene(), (" ", None), d.mutation(), (". Suspected ", None), d.disease(),
            (".", None)]


def _bracketed(d: _Draw) -> list[Piece]:
    return [("Patient (", None), d.sex_letter(), (", ", None), d.age_number(), (" yrs) w/ ", None), d.gene(),
            (" ", None), d.mutation(), (". ", None), *d.phenotypes()]


def _list_only(d: _Draw) -> list[Piece]:
    return [*d.phenotypes(3, 6), (" - ", None), d.gene(), (" ", None), d.mutation()]


def _proband(d: _Draw) -> list[Piece]:
    return [("Proband is a ", None), d.age_number(), (" yo ", None), d.sex_word(), (" of ", None), d.race(),
            (" descent with ", None), *d.phenotypes(), ("; ", None), d.mutation(), (" in ", None), d.gene(),
            (". r/o ", None), d.disease()]


def _question(d: _Draw) -> list[Piece]:
    return [("What disease fits a ", None), d.age_number(), (" years old ", None), d.sex_word(), (" with ", None),
            d.gene(), (" ", None), d.mutation(), (", ", None), *d.phenotypes(), ("?", None)]


def _short_question(d: _Draw) -> list[Piece]:
    return d.rng.choice([
        [("Which genes are linked to ", None), d.phenotype(), ("?", None)],
        [("What are the facial features of ", None), d.disease(), ("?", None)],
        [("Is ", None), d.gene(), (" associated with ", None), d.phenotype(), ("?", None)],
    ])


_LAYOUTS: list[Callable[[_Draw], list[Piece]]] = [
    _abbreviated, _descriptive, _fields, _sentence_first, _bracketed, _list_only, _proband, _question,
    _short_question,
]


def typo(words: list[str], rng: random.Random) -> list[str]:
    """Two neighbouring letters swapped inside one long word, never the first letter."""
    long = [i for i, w in enumerate(words) if len(w) >= 6]
    if long:
        i = rng.choice(long)
        j = rng.randint(1, len(words[i]) - 3)
        w = words[i]
        words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2:]
    return words


def to_sentence(pieces: list[Piece], source: str) -> Sentence:
    """Join the pieces, split the text as inference does and tag the words by offset."""
    text, entities = "", []
    for piece, kind in pieces:
        if kind:
            entities.append((kind, len(text), len(text) + len(piece)))
        text += piece
    words = split_words(text)
    tags = []
    for word in words:
        tag = "O"
        for kind, start, end in entities:
            if start <= word.start < end:  # '5.' at the end of 'in exon 5.' is one word
                tag = ("B-" if word.start == start else "I-") + kind
                break
        tags.append(tag)
    return Sentence(tuple(w.text for w in words), tuple(tags), text, source, tuple((w.start, w.end) for w in words))
