"""Questions and descriptions in the languages the HPO speaks, read into the graph's English.

The graph, the recogniser and the question reader work in English; a text in French, Spanish, Portuguese,
German, Italian, Japanese or Chinese is rewritten into English before them: its language told from its
common words (or its script), each HPO term named by its official translation replaced by the term's English
label (longest first; accents, case and plurals folded; Chinese and Japanese matched without spaces), a
disease named the way the language names eponyms ("syndrome de Noonan", "Noonan综合征") written as "Noonan
syndrome", and the question words, sex and age written in English. What was read, and as what, is returned
for the answer to say; a text in English is left as it is.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from fpkg.names import fold_name
from fpkg.pickles import read_pickle, write_pickle
from kg_dump.hpo_profiles import HpoProfiles
from kg_dump.translations import CJK, LANGUAGES, Translations, cjk_key, label_key, strip_accents, word_key
from service.language_cues import cue_words, in_english
from service.word_table import stem, word_table

FORMAT = 6  # of the cached translator
MAX_LABEL_WORDS = 10
MIN_SINGLE_WORD = 5  # a one-word label shorter than this is too often a common word
_LETTERS = re.compile(r"[^\W\d_]+|\d+")
_KANA = re.compile(r"[\u3040-\u30ff]")
_HAN = re.compile(r"[\u4e00-\u9fff]")
# Common words of each language (accents stripped): how a text's language is told
COMMON = {
    "en": "the an of and is are with which what how many does do in to for has have",
    "fr": "le la les des du de et est sont avec quel quels quelle quelles une un au aux dans pour ou "
          "quelle combien maladie maladies presente ans garcon fille causent associes associe responsables",
    "es": "el los las del de y es son con que cuales cual una un al en para por enfermedad enfermedades "
          "cuantos sindrome anos nino nina presenta causan asociados asociado estan rasgos",
    "pt": "o os as do da dos das de e com quais qual uma um ao em para por doenca doencas quantos sindrome "
          "anos menino menina apresenta causam associados associado estao sinais",
    "de": "der die das den dem des und ist sind mit welche welcher ein eine einer bei fur zu wie viele "
          "krankheit krankheiten syndrom jahre junge madchen verursachen assoziiert zeigen beim",
    "it": "il lo gli le della delle dei di e con quali quale una un al nel per sono malattia malattie "
          "quanti sindrome anni bambino bambina che geni causano associati presentano",
}
_COMMON_WORDS = {language: set(words.split()) for language, words in COMMON.items()}

# an eponym: a word, then capitalised words or a number ("Cornelia de Lange": its "de" is not taken)
_NAME = r"([A-Za-z][\w'-]*(?:[ -]+(?:[A-Z][\w'-]*|\d+\b))*)"
_CJK_NAME = r"([A-Za-z][A-Za-z0-9'-]*(?:[ -]+[A-Za-z0-9][A-Za-z0-9'-]*)*)\s*"  # Latin letters only
# language -> (pattern on the accent-stripped text, English), in order; eponyms first
PHRASES: dict[str, list[tuple[str, str]]] = {
    "fr": [(r"(?i:\b(?:le |la )?syndrome d[e'] ?)" + _NAME, r"\1 syndrome"),
           (r"(?i:\b(?:la )?maladie d[e'] ?)" + _NAME, r"\1 disease"),
           (r"\bquel(?:le)?s?\s+genes?\b", "which genes"), (r"\bquel(?:le)?s?\s+maladies?\b", "which diseases"),
           (r"\bquel(?:le)?s?\s+syndromes?\b", "which syndromes"),
           (r"\b(?:signes?|traits?|caracteristiques?|particularites?|anomalies?)\s+(?:faciaux|faciales?|du visage)\b",
            "facial features"),
           (r"\bcombien\s+de\s+genes?\b", "how many genes"), (r"\bdifference\s+entre\b", "difference between"),
           (r"\bautres?\s+noms?\b", "other names"), (r"\b(?:causent|provoquent|entrainent)\b", "cause"),
           (r"\best-(?:il|elle)\s+associee?s?\s+(?:a|au|aux)\b", "is linked to"),
           (r"\bassociee?s?\s+(?:a|au|aux)\b", "associated with"), (r"\bmaladies?\b", "diseases"),
           (r"\bgarcon\b", "boy"), (r"\bfille\b", "girl"), (r"\b(\d+)\s*ans\b", r"\1 years old"),
           (r"\bet\b", "and"), (r"\bavec\b", "with")],
    "es": [(r"(?i:\b(?:el )?sindrome de )" + _NAME, r"\1 syndrome"),
           (r"(?i:\b(?:la )?enfermedad de )" + _NAME, r"\1 disease"),
           (r"\b(?:que|cuales)\s+genes?\b", "which genes"), (r"\b(?:que|cuales)\s+enfermedades\b", "which diseases"),
           (r"\b(?:que|cuales)\s+sindromes\b", "which syndromes"),
           (r"\b(?:rasgos|caracteristicas|signos|hallazgos)\s+faciales\b", "facial features"),
           (r"\bcuantos\s+genes\b", "how many genes"), (r"\bdiferencia\s+entre\b", "difference between"),
           (r"\botros\s+nombres\b", "other names"), (r"\b(?:causan|provocan)\b", "cause"),
           (r"\besta\s+asociad[oa]\s+(?:a|al|con)\b", "is linked to"),
           (r"\basociad[oa]s?\s+(?:a|al|con)\b", "associated with"), (r"\benfermedad(?:es)?\b", "diseases"),
           (r"\bnino\b", "boy"), (r"\bnina\b", "girl"), (r"\b(\d+)\s*anos\b", r"\1 years old"),
           (r"\by\b", "and"), (r"\bcon\b", "with")],
    "pt": [(r"(?i:\b(?:a )?sindrome de )" + _NAME, r"\1 syndrome"),
           (r"(?i:\b(?:a )?doenca de )" + _NAME, r"\1 disease"),
           (r"\b(?:quais|que)\s+genes\b", "which genes"), (r"\b(?:quais|que)\s+doencas\b", "which diseases"),
           (r"\b(?:quais|que)\s+sindromes\b", "which syndromes"),
           (r"\b(?:caracteristicas|sinais|tracos|achados)\s+faciais\b", "facial features"),
           (r"\bquantos\s+genes\b", "how many genes"), (r"\bdiferenca\s+entre\b", "difference between"),
           (r"\boutros\s+nomes\b", "other names"), (r"\b(?:causam|provocam)\b", "cause"),
           (r"\besta\s+associad[oa]\s+(?:a|ao|com)\b", "is linked to"),
           (r"\bassociad[oa]s?\s+(?:a|ao|com)\b", "associated with"), (r"\bdoencas?\b", "diseases"),
           (r"\bmenino\b", "boy"), (r"\bmenina\b", "girl"), (r"\b(\d+)\s*anos\b", r"\1 years old"),
           (r"\be\b", "and"), (r"\bcom\b", "with")],
    "de": [(_NAME + r"(?i:-Syndrom)\b", r"\1 syndrome"), (r"(?i:\b(?:Morbus|Krankheit)\s+)" + _NAME, r"\1 disease"),
           (r"\bwelche\s+Gene\b", "which genes"), (r"\bwelche\s+(?:Krankheiten|Erkrankungen)\b", "which diseases"),
           (r"\bwelche\s+Syndrome\b", "which syndromes"),
           (r"\b(?:Gesichtsmerkmale|Gesichtszuge|faziale\s+Merkmale|Gesichtsauffalligkeiten)\b", "facial features"),
           (r"\bwie\s+viele\s+Gene\b", "how many genes"), (r"\bUnterschied\s+zwischen\b", "difference between"),
           (r"\bandere\s+Namen\b", "other names"), (r"\b(?:verursachen|verursacht)\b", "cause"),
           (r"\b(?:assoziiert|verbunden)\s+mit\b", "associated with"),
           (r"\b(?:Krankheit|Erkrankung)(?:en)?\b", "diseases"),
           (r"\bSyndrom\b", "syndrome"), (r"\bJunge\b", "boy"), (r"\bMadchen\b", "girl"),
           (r"\b(\d+)\s*Jahre?n?\b", r"\1 years old"), (r"\bund\b", "and"), (r"\bmit\b", "with")],
    "it": [(r"(?i:\b(?:la )?sindrome di )" + _NAME, r"\1 syndrome"),
           (r"(?i:\b(?:la )?malattia di )" + _NAME, r"\1 disease"),
           (r"\bquali\s+geni\b", "which genes"), (r"\bquali\s+malattie\b", "which diseases"),
           (r"\bquali\s+sindromi\b", "which syndromes"),
           (r"\b(?:caratteristiche|tratti|segni)\s+facciali\b", "facial features"),
           (r"\bquanti\s+geni\b", "how many genes"), (r"\bdifferenza\s+tra\b", "difference between"),
           (r"\baltri\s+nomi\b", "other names"), (r"\b(?:causano|provocano)\b", "cause"),
           (r"\be\s+associat[oa]\s+(?:a|al|con)\b", "is linked to"),
           (r"\bassociat[oiae]\s+(?:a|al|con)\b", "associated with"), (r"\bmalattie?\b", "diseases"),
           (r"\bgeni\b", "genes"), (r"\b(?:bambino|ragazzo)\b", "boy"), (r"\b(?:bambina|ragazza)\b", "girl"),
           (r"\b(\d+)\s*anni\b", r"\1 years old"), (r"\be\b", "and"), (r"\bcon\b", "with")],
    "ja": [(_CJK_NAME + r"症候群", r" \1 syndrome "), (_CJK_NAME + r"病", r" \1 disease "),
           (r"(?:どの|何の|どんな)遺伝子", " which genes "), (r"(?:どの|どんな)(?:疾患|病気)", " which diseases "),
           (r"(?:いくつ|何個|何種類)の遺伝子", " how many genes "),
           (r"顔(?:貌|の特徴)|顔面(?:の)?特徴", " facial features "), (r"遺伝子", " gene "),
           (r"疾患|病気", " disease "), (r"症候群", " syndrome "), (r"違い", " difference "),
           (r"原因", " cause "), (r"関連", " associated "), (r"男児|男の子", " boy "), (r"女児|女の子", " girl "),
           (r"(\d+)\s*歳", r" \1 years old "), (r"変異", " variant ")],
    "zh": [(_CJK_NAME + r"综合[征症]", r" \1 syndrome "), (_CJK_NAME + r"病", r" \1 disease "),
           (r"(?:哪些|什么|哪个)基因", " which genes "), (r"(?:哪些|什么)(?:疾病|病)", " which diseases "),
           (r"(?:多少个?|几个)基因", " how many genes "),
           (r"面部特征|面容特征|面部表现|面部表型", " facial features "), (r"基因", " gene "),
           (r"疾病", " disease "), (r"综合[征症]", " syndrome "), (r"区别|差异|不同", " difference "),
           (r"导致|引起", " cause "), (r"相关", " associated "), (r"男孩|男童", " boy "), (r"女孩|女童", " girl "),
           (r"(\d+)\s*岁", r" \1 years old "), (r"突变|变异", " variant "), (r"和|与", " and ")],
}
# English words the cues and phrases write: never put "into English" again ("no" is no Spanish word here)
_ENGLISH_KEPT = frozenset(word.lower() for english in [*(e for phrases in PHRASES.values() for _, e in phrases),
                                                       *cue_words()] for word in re.findall(r"[A-Za-z]+", english))
EPONYMS = 2  # each language's first two patterns: case matters in the name they take
_KEEP, _KEPT = "\ue000", "\ue001"  # around a label put into English while the rest of the text is read
_LABEL = re.compile(f"{_KEEP}[^{_KEPT}]*{_KEPT}")
_COMPILED = {language: [(re.compile(pattern, 0 if i < EPONYMS or language in CJK else re.IGNORECASE), english)
                        for i, (pattern, english) in enumerate(phrases)] for language, phrases in PHRASES.items()}
_CJK_PUNCTUATION = str.maketrans({"、": ", ", "，": ", ", "。": ". ", "：": ": ", "；": "; ", "？": "? ", "（": " (",
                                  "）": ") ", "！": "! "})


@dataclass
class Reading:
    """A text as read: its English form, the language read ("en": left as it was) and each term named in
    it as (the words written, the English label, the HP id)."""

    text: str
    language: str = "en"
    terms: list[tuple[str, str, str]] = field(default_factory=list)
    # words put into English word for word: (start, end) in `text` -> the word as written
    written: dict[tuple[int, int], str] = field(default_factory=dict)

    def as_written(self, start: int, end: int) -> str:
        """text[start:end] with each word put into English word for word written as it was."""
        pieces, at = [], start
        for (s, e), word in sorted(self.written.items()):
            if start <= s and e <= end:
                pieces += [self.text[at:s], word]
                at = e
        return "".join([*pieces, self.text[at:end]])

    def said(self) -> str | None:
        """'Read as French: « Fente palatine » = Cleft palate.' — None for English."""
        if self.language == "en":
            return None
        named = "; ".join(f"« {written} » = {english}" for written, english, _ in dict.fromkeys(self.terms))
        return f"Read as {LANGUAGES[self.language]}" + (f": {named}." if named else ".")


class Translator:
    @classmethod
    def cached(cls, translations: Translations, hpo: HpoProfiles, cache_dir: Path | None) -> Translator:
        """A translator made once per translations and HPO release and kept in `cache_dir` (folding some
        130k labels takes seconds)."""
        path = cache_dir / "hpo" / f"translator-{FORMAT}-{translations.key}-{hpo.release}-{len(hpo.terms)}.pickle" \
            if cache_dir and translations.key and hpo.release else None
        made = read_pickle(path) if path else None
        if not isinstance(made, cls):
            made = cls(translations, hpo)
            if path:
                write_pickle(path, made)
        made.hpo = hpo  # shared, not a copy
        return made

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "hpo"}  # the profiles are kept on their own

    def __init__(self, translations: Translations, hpo: HpoProfiles):
        index = {hp_id: term for term, hp_id in enumerate(hpo.terms)}
        self.hpo = hpo
        self.latin: dict[str, dict[str, tuple[str, int]]] = {}  # language -> label key -> (HP id, term)
        self.cjk: dict[str, dict[str, tuple[str, int]]] = {}
        self.newer: dict[str, int] = {}  # language -> translated terms this HPO release lacks
        self.labels: dict[str, list[tuple[str, str]]] = {}  # language -> (HP id, label) of this release's terms
        cue_words = {w for words in _COMMON_WORDS.values() for w in words}
        for language, pairs in translations.labels.items():
            keys: dict[str, tuple[str, int]] = {}
            for hp_id, label in pairs:
                if hp_id not in index:
                    self.newer[language] = self.newer.get(language, 0) + 1
                    continue
                self.labels.setdefault(language, []).append((hp_id, label))
                key = label_key(label, language)
                if language not in CJK and " " not in key and (len(key) < MIN_SINGLE_WORD or key in cue_words):
                    continue
                if language in CJK and len(key) < 2:
                    continue
                keys.setdefault(key, (hp_id, index[hp_id]))
            (self.cjk if language in CJK else self.latin)[language] = keys
        # each word of a language's labels -> the English word it stands for (service/word_table.py)
        self.words = word_table(translations, {hp_id: hpo.names[term] for hp_id, term in index.items()})
        # English's own names and synonyms, folded: a text naming a term so is no sign of another language
        self.english_keys = {label_key(name, "en") for name in hpo.names} | {
            label_key(synonym, "en") for synonyms in hpo.synonyms for synonym in synonyms} if self.latin else set()
        self.longest_cjk = max((len(k) for keys in self.cjk.values() for k in keys), default=0)

    def languages(self) -> list[str]:
        return [code for code in LANGUAGES if self.latin.get(code) or self.cjk.get(code)]

    def finding_keys(self) -> dict[str, int]:
        """Every translated label's key -> its term: a finding typed in the form in any language."""
        found: dict[str, int] = {}
        for keys in [*self.latin.values(), *self.cjk.values()]:
            for key, (_, term) in keys.items():
                found.setdefault(key, term)
        return found

    def language_of(self, text: str) -> str:
        if _KANA.search(text):
            return "ja"
        if _HAN.search(text):
            counts = {language: self._cjk_matches(text, language) for language in CJK}
            return "ja" if counts["ja"] > counts["zh"] or "歳" in text else "zh"
        words = [fold_name(w) for w in _LETTERS.findall(strip_accents(text))]
        scores = {language: sum(w in common for w in words) for language, common in _COMMON_WORDS.items()}
        if scores["en"] >= 3 and not any(score for language, score in scores.items() if language != "en"):
            return "en"  # English through and through: its terms are not looked up in every language
        folded = [word_key(w) for w in _LETTERS.findall(text)]
        for language in self.latin:  # a term named the language's own way counts twice
            scores[language] = scores.get(language, 0) + 2 * self._foreign_terms(folded, language)
        best = max(scores, key=lambda language: (scores[language], language == "en"))
        # two common words at least: one "de" in "Cornelia de Lange syndrome" makes no French
        return best if scores[best] > max(scores["en"], 1) and best in self.languages() else "en"

    def read(self, text: str) -> Reading:
        language = self.language_of(text)
        if language == "en":
            return Reading(text)
        if language in CJK:
            return self._read_cjk(text, language)
        written = strip_accents(text)
        reading = Reading(written, language)
        for pattern, english in _COMPILED[language][:EPONYMS]:  # eponyms first: their words are no findings
            reading.text = _named(pattern, english, reading.text, reading.terms)
        reading.text = self._replace_terms(reading.text, language, reading.terms, original=text)
        reading.text = in_english(reading.text, language)  # its cues of negation, family and hedges
        for pattern, english in _COMPILED[language][EPONYMS:]:
            reading.text = pattern.sub(english, reading.text)
        self._word_for_word(reading, self.words.get(language, {}), language)
        return reading

    @staticmethod
    def _word_for_word(reading: Reading, table: dict[str, str], language: str) -> None:
        """The words no label or cue took, put into English word for word, each one's written form kept; the
        labels' English (between the markers) as it is."""
        pieces, at, length = [], 0, 0
        kept = [(m.start(), m.end()) for m in _LABEL.finditer(reading.text)]
        for match in _LETTERS.finditer(reading.text):
            inside = any(start <= match.start() < end for start, end in kept)
            english = None if inside or match.group().lower() in _ENGLISH_KEPT \
                else table.get(stem(match.group(), language))
            if english is None:
                continue
            before = reading.text[at:match.start()]
            pieces += [before, english]
            start = length + len(before)
            reading.written[(start, start + len(english))] = match.group()
            length, at = start + len(english), match.end()
        reading.text = "".join([*pieces, reading.text[at:]])
        # the markers go: every recorded span after one moves back by the markers before it
        marks = [m.start() for m in re.finditer(f"[{_KEEP}{_KEPT}]", reading.text)]
        reading.written = {(s - sum(m < s for m in marks), e - sum(m < e for m in marks)): w
                           for (s, e), w in reading.written.items()}
        reading.text = reading.text.replace(_KEEP, "").replace(_KEPT, "")

    def _latin_spans(self, folded: list[str], language: str) -> list[tuple[int, int, tuple[str, int]]]:
        """(first word, words, (HP id, term)) of each translated label among the folded words, longest first."""
        return _longest_first(folded, self.latin.get(language, {}), MAX_LABEL_WORDS, 1, " ".join)

    def _foreign_terms(self, folded: list[str], language: str) -> int:
        """How many of the folded words name a term in `language` otherwise than English does."""
        return sum(" ".join(folded[i:i + n]) not in self.english_keys
                   for i, n, _ in self._latin_spans(folded, language))

    def _replace_terms(self, text: str, language: str, terms: list, original: str) -> str:
        words = list(_LETTERS.finditer(text))
        pieces, at = [], 0
        for i, n, (hp_id, term) in self._latin_spans([word_key(w.group()) for w in words], language):
            start, end = words[i].start(), words[i + n - 1].end()
            english = self.hpo.names[term]
            terms.append((_same_span(original, text, start, end), english, hp_id))
            pieces += [text[at:start], f"{_KEEP}{english}{_KEPT}"]  # never put "into English" again
            at = end
        return "".join([*pieces, text[at:]])

    def _cjk_matches(self, text: str, language: str) -> int:
        return len(self._cjk_spans(cjk_key(text), language))

    def _cjk_spans(self, text: str, language: str) -> list[tuple[int, int, tuple[str, int]]]:
        """(first character, characters, (HP id, term)) of each translated label in the text, longest first."""
        return _longest_first(text, self.cjk.get(language, {}), self.longest_cjk, 2, str)

    def _read_cjk(self, text: str, language: str) -> Reading:
        normal = unicodedata.normalize("NFKC", text)
        reading = Reading("", language)
        pieces, at = [], 0
        for start, size, (hp_id, term) in self._cjk_spans(normal.lower(), language):
            end = start + size
            english = self.hpo.names[term]
            reading.terms.append((normal[start:end], english, hp_id))
            pieces += [normal[at:start], f" {english} "]
            at = end
        rewritten = in_english("".join([*pieces, normal[at:]]), language)  # its cues, before its other words
        for i, (pattern, english) in enumerate(_COMPILED[language]):
            rewritten = _named(pattern, english, rewritten, reading.terms) if i < EPONYMS else \
                pattern.sub(english, rewritten)
        rewritten = rewritten.translate(_CJK_PUNCTUATION)
        rewritten = re.sub(r"(?<=[A-Za-z0-9.])(?=[^\x00-\x7f])|(?<=[^\x00-\x7f])(?=[A-Za-z0-9])", " ", rewritten)
        reading.text = " ".join(rewritten.split())
        return reading


def _longest_first(units, keys: dict, longest: int, shortest: int, join) -> list[tuple[int, int, tuple]]:
    """(start, length, value) of each run of `units` (words, or characters of a text) whose `join` is a key,
    the longest at each place first, runs never overlapping."""
    spans, i = [], 0
    while i < len(units):
        for n in range(min(longest, len(units) - i), shortest - 1, -1):
            found = keys.get(join(units[i:i + n]))
            if found:
                spans.append((i, n, found))
                i += n
                break
        else:
            i += 1
    return spans


def _named(pattern: re.Pattern, english: str, text: str, terms: list) -> str:
    """`pattern` replaced by `english` in `text`, each name so read kept in `terms` ("syndrome de Noonan")."""
    def rewrite(match: re.Match) -> str:
        written = match.expand(english)
        terms.append((match.group(0).strip(), written.strip(), ""))
        return written
    return pattern.sub(rewrite, text)


def _same_span(original: str, stripped: str, start: int, end: int) -> str:
    """The words as written (accents kept) at a span of their accent-stripped form, when the two align."""
    return original[start:end] if len(original) == len(stripped) else stripped[start:end]
