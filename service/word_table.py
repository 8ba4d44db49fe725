"""Word for word: each word of a language's HPO labels -> the English word it most often stands for, learnt from the
HPO's own translations (each translated label beside its English label). A word is known by its stem in its
language (Snowball's stemmers: "allongé", "allongée", "allongés" are one word), so a clinician's inflection of a
label's word is read too.

A clinician writes "sténose valvulaire pulmonaire", "visage allongé", "retraso del desarrollo": no official label, but
each word is one the translations use. Put word for word into English ("stenosis valvular pulmonary", "face
elongated"), the English reader's word forms, in any order (retrieval/word_forms.py), read Pulmonic stenosis and Long
face. A word and its English word are paired by how often they occur in the same label pair (Dice's coefficient) and
how alike they are written (cognates: "aortique", "aortic"); a pair seen once must be a cognate. For the languages
written with spaces between words (Chinese and Japanese are read by their labels only).
"""

from __future__ import annotations

import functools
import re
from collections import Counter

import snowballstemmer
from rapidfuzz import fuzz

from kg_dump.translations import CJK, Translations, strip_accents, word_key

MIN_DICE = 0.3  # how often the two must stand in the same label pair, at least
MIN_COGNATE = 0.75  # how alike a pair seen once must be written
MIN_CHARS = 4  # shorter words are articles and prepositions
MUTUAL = 0.8  # a word's English word scores at least this share of that English word's best pairing
BOTH = 0.8  # a word stands for two English words when the second scores this share of the first
_WORD = re.compile(r"[^\W\d_]+")


STEMMERS = {"fr": "french", "es": "spanish", "pt": "portuguese", "de": "german", "it": "italian"}


@functools.lru_cache(maxsize=8)  # one stemmer a language
def _stemmer(language: str):
    return snowballstemmer.stemmer(STEMMERS[language])


def stem(word: str, language: str) -> str:
    """A word's stem in its language (accents and case folded first)."""
    folded = strip_accents(word.lower())
    return _stemmer(language).stemWord(folded) if language in STEMMERS else folded


def word_table(translations: Translations, names: dict[str, str]) -> dict[str, dict[str, str]]:
    """language -> {a word's stem: English word} (`names`: HP id -> English label)."""
    tables = {}
    for language, pairs in translations.labels.items():
        if language in CJK:
            continue
        together, foreign, english, written = Counter(), Counter(), Counter(), {}
        for hp_id, label in pairs:
            if hp_id not in names:
                continue
            words = {word_key(w): w.lower() for w in _WORD.findall(names[hp_id])}
            written.update(words)
            theirs = {stem(w, language) for w in _WORD.findall(label)}
            foreign.update(theirs)
            english.update(words.keys())
            together.update((f, e) for f in theirs for e in words)
        scores: dict[str, list[tuple[float, str]]] = {}
        strongest: Counter = Counter()  # each English word's best score with any word of the language
        for (f, e), seen in together.items():
            dice = 2 * seen / (foreign[f] + english[e])
            cognate = fuzz.ratio(f, e) / 100
            if len(f) >= MIN_CHARS and ((seen >= 2 and dice >= MIN_DICE) or cognate >= MIN_COGNATE):
                score = dice + cognate / 2
                strongest[e] = max(strongest[e], score)
                scores.setdefault(f, []).append((score, e))
        table = {}
        for f, found in scores.items():
            found.sort(reverse=True)
            best, e = found[0]
            # a pair both sides would choose: "maos" (hands) is not "finger", whose word is "dedo"
            if best < MUTUAL * strongest[e]:
                continue
            # one word for two ("hipoacusia": hearing impairment): the second as strong, as often together, and
            # another word, not a form of the first ("valvular", "subvalvular")
            second = [w for score, w in found[1:2] if score >= BOTH * best and together[f, w] >= together[f, e] / 2
                      and fuzz.ratio(w, e) < 60]
            table[f] = " ".join(written[w] for w in [e, *second])
        tables[language] = table
    return tables
