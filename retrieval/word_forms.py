"""Word forms, so that the ways one finding is written meet: 'droopy eyelids', 'drooping eyelid' and 'droopy
eyelid'; 'iris colobomas' and 'Iris coloboma'; 'halluces', 'radii', 'sclerae'; 'dilated aortic root' and 'Aortic
root dilatation'.

Each word is reduced to one form: its lemma by lemminflect (a well-kept English lemmatiser), the Latin and Greek
plurals of the HPO's nouns, and one form for the words a derivation joins (dilated / dilatation / dilation;
hypoplastic / hypoplasia; fusion / fused). A name's *bag* is its words so reduced, less function words, in sorted
order: names written in another order ('dilated aortic root', 'aortic root dilatation') share it. Everyday words for
parts ('big toe' for hallux, 'breastbone' for sternum) are written as the part.

lemminflect is used only to build the table of forms, once per HPO release (kept in the cache); reading a text is a
look-up in that table.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from fpkg.names import fold_name, fold_plural

STOP_WORDS = frozenset({"of", "the", "a", "an", "and", "in", "on", "with", "to", "for", "at", "by", "from", "or", "is",
                        "are", "was", "were", "his", "her", "their", "its", "both", "which", "that",
                        # the articles and prepositions of the other languages, left between words put into English
                        "de", "del", "della", "delle", "dei", "degli", "di", "do", "da", "das", "dos", "des", "du",
                        "la", "le", "les", "el", "los", "las", "il", "lo", "gli", "un", "une", "una", "uno", "um",
                        "uma", "der", "die", "den", "dem", "ein", "eine", "einer", "et", "y", "und", "con", "avec",
                        "com", "mit", "en", "em", "au", "aux", "al", "ao", "nel", "nella", "im", "am"})
# One form for the words a derivation joins (after lemmatising): the form the HPO's names use most
DERIVED = {
    "dilatation": "dilate", "dilation": "dilate", "dilatated": "dilate", "dilated": "dilate", "enlargement": "enlarge",
    "fusion": "fuse", "fused": "fuse", "absence": "absent", "missing": "absent", "lacking": "absent",
    "deviation": "deviate", "deviated": "deviate", "dislocation": "dislocate", "dislocated": "dislocate",
    "shortening": "short", "shortened": "short", "shorten": "short", "thickening": "thick", "thickened": "thick",
    "thicken": "thick", "widening": "wide", "widened": "wide", "widen": "wide", "narrowing": "narrow",
    "narrowed": "narrow", "flattening": "flat", "flattened": "flat", "flatten": "flat", "bowing": "bow", "bowed": "bow",
    "droopy": "droop", "drooping": "droop", "curvature": "curve", "curved": "curve", "protrusion": "protrude",
    "protruding": "protrude", "prominence": "prominent", "elongation": "long", "elongated": "long",
    "hypoplastic": "hypoplasia", "aplastic": "aplasia", "dysplastic": "dysplasia", "hyperplastic": "hyperplasia",
    "atrophic": "atrophy", "hypertrophic": "hypertrophy", "dystrophic": "dystrophy", "stenotic": "stenosis",
    "sclerotic": "sclerosis", "ectopic": "ectopia", "duplicated": "duplication", "calcified": "calcification",
    "underdeveloped": "hypoplasia", "underdevelopment": "hypoplasia", "slender": "thin", "spaced": "set",
    "malformed": "abnormal", "malformation": "abnormal", "anomaly": "abnormal", "anomalous": "abnormal",
    "abnormality": "abnormal", "increased": "increase", "decreased": "decrease", "reduced": "decrease",
    "reduce": "decrease", "elevated": "increase", "raised": "increase", "low": "decrease", "high": "increase",
    "recurrent": "recurrent", "repeated": "recurrent", "developmental": "development", "retardation": "delay",
    "retarded": "delay", "conduction": "conductive", "deficiency": "disability", "valvular": "valve",
    "hypermobile": "hypermobility", "hyperextensible": "hyperextensibility", "lax": "laxity",
    # the adjective of a part as the part ("pits in the palms" are palmar pits)
    "palmar": "palm", "plantar": "sole", "digital": "digit", "renal": "kidney", "cardiac": "heart", "oral": "mouth",
    "dental": "tooth", "labial": "lip", "lingual": "tongue", "ocular": "eye", "palpebral": "eyelid",
    "cutaneous": "skin", "hepatic": "liver", "pulmonary": "lung", "thoracic": "thorax", "cranial": "cranium",
    "vertebral": "vertebra", "spinal": "spine", "gastric": "stomach", "cerebral": "brain", "auricular": "ear",
}
# Everyday words for the parts the HPO names in Latin or Greek (read as the part)
EVERYDAY_PARTS = {("big", "toe"): "hallux", ("great", "toe"): "hallux", ("breast", "bone"): "sternum",
                  ("breastbone",): "sternum", ("cheek", "bone"): "zygomatic", ("cheekbone",): "zygomatic",
                  ("white", "eye"): "sclera", ("collar", "bone"): "clavicle", ("collarbone",): "clavicle",
                  ("roof", "mouth"): "palate", ("shin", "bone"): "tibia", ("thigh", "bone"): "femur",
                  ("kneecap",): "patella", ("nostril",): "naris", ("skull",): "cranium", ("ear", "lobe"): "earlobe",
                  ("eye", "lid"): "eyelid", ("eye", "brow"): "eyebrow", ("eye", "lash"): "eyelash"}
# Words that place or grade a finding, which a clinician leaves out when the finding has one place only
PLACING_WORDS = frozenset({"upper", "lower", "bilateral", "unilateral", "congenital", "generalized", "generalised",
                           "persistent", "recurrent", "progressive", "primary", "permanent"})
_LATIN_PLURALS = (("oma", ("omas", "omata")), ("us", ("i",)), ("a", ("ae",)), ("ix", ("ices",)), ("ex", ("ices",)),
                  ("x", ("ces", "ges")), ("is", ("es", "ides")), ("um", ("a",)), ("on", ("a",)))
_WORD = re.compile(r"[a-z0-9]+")


def _latin_singular(word: str, vocabulary: set[str]) -> str | None:
    """The vocabulary's singular of a Latin or Greek plural ('halluces' -> 'hallux', 'radii' -> 'radius')."""
    for ending, plurals in _LATIN_PLURALS:
        for plural in plurals:
            singular = word[:-len(plural)] + ending
            if word.endswith(plural) and singular in vocabulary:
                return singular
    return None


class WordForms:
    """Each written form of the vocabulary's words -> its one form."""

    def __init__(self, forms: dict[str, str]):
        self.forms = forms

    @classmethod
    def build(cls, names: Iterable[str]) -> WordForms:
        """The forms of every word of `names` (HPO's names and synonyms): lemmatised, inflected, Latin plurals."""
        from lemminflect import getAllInflections, getAllLemmas

        words = sorted({word for name in names for word in _WORD.findall(fold_name(name))})
        forms: dict[str, str] = {}
        lemmas = {}
        vocabulary = set(words)
        for word in words:  # the vocabulary's own words first: an inflection never overrides one
            found = getAllLemmas(word)
            lemma = next((found[pos][0] for pos in ("NOUN", "ADJ", "VERB", "ADV") if pos in found), None)
            lemmas[word] = lemma or _latin_singular(word, vocabulary) or word
            forms[word] = DERIVED.get(word) or DERIVED.get(lemmas[word]) or lemmas[word]
        for word in words:  # then the other forms of their lemmas, and the Latin and Greek plurals of their nouns
            lemma, one = lemmas[word], forms[word]
            forms.setdefault(lemma, one)
            for inflections in getAllInflections(lemma).values():
                for written in inflections:
                    forms.setdefault(written, DERIVED.get(written, one))
            for ending, plurals in _LATIN_PLURALS:
                if word.endswith(ending) and len(word) > len(ending) + 2:
                    for plural in plurals:
                        forms.setdefault(word[:-len(ending)] + plural, one)
        return cls(forms)

    def one(self, word: str) -> str:
        """A folded word's one form (a word the vocabulary lacks: its English plural folded)."""
        found = self.forms.get(word)
        if found is not None:
            return found
        folded = fold_plural(word)
        return self.forms.get(folded, DERIVED.get(folded, folded))

    def words(self, text: str) -> list[str]:
        """The text's words in their one form, everyday names of parts as the part, function words left out."""
        words = [self.one(word) for word in _WORD.findall(fold_name(text)) if word not in STOP_WORDS]
        out, i = [], 0
        while i < len(words):
            for size in (2, 1):
                part = EVERYDAY_PARTS.get(tuple(words[i:i + size]))
                if part:
                    out.append(part)
                    i += size
                    break
            else:
                out.append(words[i])
                i += 1
        return out

    def bag(self, text: str) -> str:
        """The text's words in their one form, each once, sorted: one key for one finding however its words are
        ordered."""
        return " ".join(sorted(set(self.words(text))))


def bags_of(names: Iterable[tuple[str, int]], forms: WordForms,
            ancestors: Callable[[int], set[int]] = lambda term: set()) -> dict[str, int]:
    """Each name's bag -> its term, for the bags only one term has (`names`: (name, term) pairs); and the bag of
    a name less one word that only places or grades it ("Drooping upper eyelid": droop eyelid), where no name has
    that bag: its term, or of several the one above all the others (Ptosis, not Bilateral ptosis)."""
    found: dict[str, set[int]] = {}
    fewer: dict[str, set[int]] = {}
    for name, term in names:
        words = list(dict.fromkeys(forms.words(name)))
        if words:
            found.setdefault(" ".join(sorted(words)), set()).add(term)
        for i, word in enumerate(words):
            if word in PLACING_WORDS and len(words) > 2:
                fewer.setdefault(" ".join(sorted(words[:i] + words[i + 1:])), set()).add(term)
    bags = {key: next(iter(terms)) for key, terms in found.items() if len(terms) == 1}
    for key, terms in fewer.items():
        above = [t for t in terms if all(t == other or t in ancestors(other) for other in terms)]
        if key not in found and len(above) == 1:
            bags[key] = above[0]
    return bags
