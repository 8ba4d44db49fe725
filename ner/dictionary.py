"""Entity recognition by dictionary, beside the model: HPO's names judge and complete its spans.

The dictionary holds HPO's facial phenotype labels and synonyms, its disease names and the gene
symbols (the graph's vocabulary). It finds phenotype names in text by longest match at word
boundaries (case, hyphens and a plural 's' do not matter), and it judges the model's spans: a
model trained on template text tags whatever sits where entities sit ('Temple Street' as a
finding, 'Sian' as a disease, 'gnomAD' as a gene), so each model span must look like its type.

Rules, applied to the model's spans in `ner.predict` before the HGVS/age/sex/gene rules:
1. FACIAL_PHENOTYPE: every content word must be a phenotype word, or one slip of the keyboard
   from one ('hypertelorsim'); else the span is dropped ('hypercalcaemia', 'fetal fingertip
   pads'). Qualifiers after it are cut ('choanal atresia on the left'); a span of two findings
   joined by 'with' ('small ears with prominent crus'), or holding two or more dictionary names
   joined by 'and' or commas, none as long as the span, is replaced by them.
2. DISEASE: a span that is exactly a phenotype name and has no disease word ('syndrome',
   'disorder', ...) becomes a phenotype ('coloboma'); otherwise it is kept when it has a disease
   word or is made of disease-name words only (one word: the eponym of a short syndrome name,
   'Noonan'), else dropped ('Sian', 'Bloods AM', 'recurrent').
3. GENE (when a gene list is given): a symbol of the list is kept; a disease word ('noonan',
   'kabuki') becomes a disease; anything else is dropped ('gnomAD', 'PICU', 'PM2').
4. MUTATION: the span must read as a variant (HGVS marks, del/dup/ins, an exon, a chromosome
   band, a repeat), with a number or a repeat; else dropped ('father', 'K 3.9', 'deletion').
5. AGE: a bare number needs an age word around it ('aged', 'age:', a unit after it, 'M'/'F'
   after it in a ward list); anything else must read as an age ('18 months', '5yo'); else
   dropped ('54.5' cm, '14:00', '15q11-q13').
6. RACE: every word must be an ethnicity word ('White British'; not 'Birmingham', 'Ahmed');
   two ethnicity spans side by side are one ('White' + 'British').
7. A dictionary phenotype name that overlaps no model span of any type is added (a finding the
   model missed, 'ptosis' at the start of a line).
HPO synonyms that name a disease ('Crouzon syndrome' for craniofacial dysostosis) are not
phenotype names: in text they are the disease.
"""

from __future__ import annotations

import difflib
import re
from collections import defaultdict
from collections.abc import Iterable

from ner.rules import ETHNICITIES, VARIANT_LIKE
from ner.spans import Span

_TOKEN = re.compile(r"[A-Za-z0-9]+")
MAX_NAME_WORDS = 6
MIN_SINGLE_WORD = 6  # one-word names shorter than this are too often something else ('Face')
TYPO_CUTOFF = 0.85
MIN_TYPO_WORD = 6
# Anatomy without a finding: an HPO synonym sometimes, never a phenotype on its own in prose.
_PLAIN_PARTS = frozenset({"face", "facies", "eye", "ear", "nose", "mouth", "lip", "head", "skull", "teeth", "tooth",
                          "hair", "chin", "forehead", "cheek", "palate", "tongue", "jaw", "eyelid", "eyebrow",
                          "nostril", "philtrum", "scalp", "cranium", "orbit", "iris", "cornea", "lens", "retina"})
_FUNCTION_WORDS = frozenset({"a", "an", "the", "of", "and", "or", "with", "without", "in", "on", "to", "at", "by",
                             "for", "from", "is", "are", "both", "left", "right", "bilateral", "mild", "severe",
                             "moderate", "marked", "slight", "slightly", "very", "prominent", "small", "large"})
_JOINERS = frozenset({"with", "and", ",", ";", "&", "plus"})
VARIANT_SIZE = re.compile(r"\d|repeat|expansion", re.IGNORECASE)
AGE_FORM = re.compile(r"(?:\d{1,3}(?:\.\d{1,2})?|[a-z]+(?:-[a-z]+)?)\s?-?\s?(?:years?|yrs?|yr|y|yo|y/o|y\.o\.|"
                      r"months?|mos?|mo|weeks?|wks?|wk|days?|/12|/52)(?:-old)?", re.IGNORECASE)
RACE_WORDS = frozenset(w.casefold() for name in ETHNICITIES for w in _TOKEN.findall(name)) | {
    "white", "black", "mixed", "english", "jewish", "hispanic", "latino", "latina", "caucasian", "european", "han",
    "roma",
    "indigenous", "aboriginal", "traveller", "descent", "origin", "background", "heritage"}
BARE_NUMBER = re.compile(r"\d{1,3}(?:\.\d{1,2})?|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                         r"(?:thir|four|fif|six|seven|eigh|nine)teen|(?:twen|thir|for|fif|six|seven|eigh|nine)ty"
                         r"(?:-[a-z]+)?)", re.IGNORECASE)
AGE_BEFORE = re.compile(r"\b(?:aged?|age:?|is|am|was|turned|now)\s*$", re.IGNORECASE)
AGE_AFTER = re.compile(r"\s?(?:-?\s?(?:years?|yrs?|yr|y|yo|y/o|y\.o|months?|mos?|mo|weeks?|wks?|wk|days?|d)\b"
                       r"|,?\s?(?:[MF]|male|female|boy|girl|man|woman|child|infant)\b)", re.IGNORECASE)
DISEASE_WORDS = re.compile(r"\b(?:syndrome|disease|disorder|sequence|deficiency|dystrophy|anomaly|association)\b",
                           re.IGNORECASE)


def _key(word: str) -> str:
    word = word.lower()
    plural = len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "is", "us", "ys"))
    return word[:-1] if plural else word


class WordVocabulary:
    """The words of a list of names, for judging whether a span is made of them."""

    def __init__(self, names: Iterable[str]) -> None:
        self._words = {_key(w) for name in names for w in _TOKEN.findall(name)}
        self._by_initial: dict[str, list[str]] = defaultdict(list)
        for word in self._words:
            if len(word) >= MIN_TYPO_WORD - 1:
                self._by_initial[word[0]].append(word)

    def knows_all_words(self, text: str) -> bool:
        """Every content word is a vocabulary word, or one slip from one; no content word: False."""
        content = [_key(w) for w in _content_words(text)]
        return bool(content) and all(self._knows(word) for word in content)

    def _knows(self, word: str) -> bool:
        if len(word) < 2:  # 'S', 'c': a letter is no evidence of a name
            return False
        if word in self._words:
            return True
        if len(word) < MIN_TYPO_WORD:
            return False
        return bool(difflib.get_close_matches(word, self._by_initial.get(word[0], ()), n=1, cutoff=TYPO_CUTOFF))


class EntityDictionary:
    def __init__(self, names: Iterable[str], disease_names: Iterable[str] = (),
                 gene_symbols: Iterable[str] = ()) -> None:
        names = list(names)
        self.words = WordVocabulary(names)
        disease_names = list(disease_names)
        self.disease_words = WordVocabulary(disease_names) if disease_names else None
        # a disease named by one word is named by its eponym ('Noonan', 'sotos')
        self.eponyms = WordVocabulary(_TOKEN.findall(n)[0] for n in disease_names
                                      if DISEASE_WORDS.search(n) and len(_TOKEN.findall(n)) <= 3)
        self.genes = {symbol.casefold() for symbol in gene_symbols}
        self._names: dict[tuple[str, ...], str] = {}
        one_word_names = []
        for name in names:
            key = tuple(_key(w) for w in _TOKEN.findall(name))
            if not key or len(key) > MAX_NAME_WORDS:
                continue
            if len(key) == 1 and (len(name.strip()) < MIN_SINGLE_WORD or key[0] in _PLAIN_PARTS) \
                    or DISEASE_WORDS.search(name):
                continue
            self._names.setdefault(key, name)
            if len(key) == 1:
                one_word_names.append(name)
        self.one_word_names = WordVocabulary(one_word_names)

    def matches(self, text: str) -> list[Span]:
        """Vocabulary names in `text`, longest first, without overlaps."""
        tokens = list(_TOKEN.finditer(text))
        keys = [_key(t.group()) for t in tokens]
        found, i = [], 0
        while i < len(tokens):
            for size in range(min(MAX_NAME_WORDS, len(tokens) - i), 0, -1):
                if tuple(keys[i:i + size]) in self._names and _adjacent(text, tokens[i:i + size]):
                    start, end = tokens[i].start(), tokens[i + size - 1].end()
                    found.append(Span("FACIAL_PHENOTYPE", text[start:end], start, end, 1.0, "dictionary"))
                    i += size
                    break
            else:
                i += 1
        return found

    def merge(self, model_spans: list[Span], text: str) -> list[Span]:
        """The model's spans judged by the rules above, with the phenotype names it missed."""
        names = self.matches(text)
        kept = [judged for span in model_spans for judged in self._judge(span, names, text)]
        kept += [n for n in names if not any(n.overlaps(m) for m in model_spans)]
        return _joined_head_words(sorted(kept, key=lambda s: (s.start, s.end)), text)

    def _judge(self, span: Span, names: list[Span], text: str) -> list[Span]:
        if span.type == "FACIAL_PHENOTYPE":
            span = _without_qualifier(span, text)
            halves = _split_at_with(span, text)
            if len(halves) == 2 and all(self.words.knows_all_words(h.text) for h in halves):
                return halves  # 'small ears with prominent crus': two findings
            inside = [n for n in names if span.contains(n)]
            if len(inside) >= 2 and all(n.end - n.start < span.end - span.start for n in inside) \
                    and _only_joiners_between(text, inside):
                return inside
            # one word must be a finding's name ('ptosis'), not a word of one ('face', 'short')
            words = self.one_word_names if len(_TOKEN.findall(span.text)) == 1 else self.words
            return [span] if words.knows_all_words(span.text) else []
        if span.type == "DISEASE":
            if any((n.start, n.end) == (span.start, span.end) for n in names) and not DISEASE_WORDS.search(span.text):
                return [_retyped(span, "FACIAL_PHENOTYPE")]
            span = self._trimmed_disease(span, text)
            return [span] if self._disease_like(span.text) else []
        if span.type == "GENE" and self.genes and span.text.casefold() not in self.genes:
            return [_retyped(span, "DISEASE")] if self.disease_words and self._disease_like(span.text) else []
        if span.type == "MUTATION":
            return [span] if VARIANT_LIKE.search(span.text) and VARIANT_SIZE.search(span.text) else []
        if span.type == "AGE":
            if BARE_NUMBER.fullmatch(span.text):
                return [span] if _age_cue(text, span) else []
            return [span] if AGE_FORM.fullmatch(span.text) else []
        if span.type == "RACE":
            return [span] if all(w.casefold() in RACE_WORDS for w in _TOKEN.findall(span.text)) else []
        return [span]

    def _trimmed_disease(self, span: Span, text: str) -> Span:
        """Without the words the model ran on with: unknown words before the name ('hit Bohring-Opitz
        syndrome'), and after its last 'syndrome'/'disorder'... when they are unknown ('in Ama')."""
        tokens = [(m.start() + span.start, m.end() + span.start, m.group()) for m in _TOKEN.finditer(span.text)]
        if self.disease_words is None or not tokens:
            return span
        # lower-case words only: an unknown capitalised one is more likely an eponym ('Patau')
        while len(tokens) > 1 and tokens[0][2].islower() and not self.disease_words.knows_all_words(tokens[0][2]):
            tokens.pop(0)
        end = span.end  # a closing bracket after the last word stays ('( VRJS )')
        heads = [i for i, (_, _, word) in enumerate(tokens) if DISEASE_WORDS.fullmatch(word)]
        if heads and heads[-1] < len(tokens) - 1:
            # what follows the name's last 'syndrome': kept when it is its number, type or
            # bracketed abbreviation ('3 ( CFC3 )', ', type IA'), cut when it is other words
            after = _BRACKETED.sub(" ", text[tokens[heads[-1]][1]:span.end])
            if _content_words(after) and not self.disease_words.knows_all_words(after):
                end = tokens[heads[-1]][1]
        start = tokens[0][0]
        return Span(span.type, text[start:end], start, end, span.score, span.source)

    def _disease_like(self, text: str) -> bool:
        if self.disease_words is None or DISEASE_WORDS.search(text):
            return True
        words = self.eponyms if len(_TOKEN.findall(text)) == 1 else self.disease_words
        return words.knows_all_words(text)


# Where a finding's own words end and the writer's qualifiers begin ('on the left', 'of both irides').
_QUALIFIER = re.compile(r"\s(?:on the|on both|in the|in both|of both|by the|at the|at birth|since)\b.*$", re.IGNORECASE)


def _without_qualifier(span: Span, text: str) -> Span:
    found = _QUALIFIER.search(span.text)
    if not found or found.start() == 0:
        return span
    end = span.start + found.start()
    return Span(span.type, text[span.start:end], span.start, end, span.score, span.source)


def _split_at_with(span: Span, text: str) -> list[Span]:
    found = re.search(r"\swith\s", span.text)
    if not found:
        return [span]
    cut, resume = span.start + found.start(), span.start + found.end()
    return [Span(span.type, text[span.start:cut], span.start, cut, span.score, "dictionary"),
            Span(span.type, text[resume:span.end], resume, span.end, span.score, "dictionary")]


def _joined_head_words(spans: list[Span], text: str) -> list[Span]:
    """A DISEASE span that is only 'syndrome' (or 'disease', ...) joins the span just before it,
    which the model cut off as another thing ('22q11.2 deletion' + 'syndrome'); alone, it goes.
    Two RACE spans side by side are one ('White' + 'British')."""
    joined: list[Span] = []
    for span in spans:
        gap = text[joined[-1].end:span.start] if joined else None
        if span.type == "RACE" and joined and joined[-1].type == "RACE" and re.fullmatch(r"\s+", gap):
            joined.append(_spanning(joined.pop(), span, text))
        elif span.type == "DISEASE" and DISEASE_WORDS.fullmatch(span.text.strip()):
            if joined and re.fullmatch(r"[\s-]*", gap):
                joined.append(_spanning(joined.pop(), span, text))
        else:
            joined.append(span)
    return joined


def _spanning(first: Span, last: Span, text: str) -> Span:
    """One span from the start of `first` to the end of `last`, of `last`'s type."""
    return Span(last.type, text[first.start:last.end], first.start, last.end, last.score, "dictionary")


_BRACKETED = re.compile(r"[(（\[][^)）\]]*[)）\]]")


def _content_words(text: str) -> list[str]:
    return [w for w in _TOKEN.findall(text) if w.lower() not in _FUNCTION_WORDS and not w.isdigit()]


def _retyped(span: Span, kind: str) -> Span:
    return Span(kind, span.text, span.start, span.end, span.score, "dictionary")


def _age_cue(text: str, span: Span) -> bool:
    return bool(AGE_BEFORE.search(text[max(0, span.start - 12):span.start])
                or AGE_AFTER.match(text[span.end:span.end + 14]))


def _adjacent(text: str, tokens: list[re.Match]) -> bool:
    """The tokens are one name: only spaces or hyphens between them ('low-set ears', not 'low. Set')."""
    return all(re.fullmatch(r" *-? *", text[a.end():b.start()]) for a, b in zip(tokens, tokens[1:], strict=False))


def _only_joiners_between(text: str, names: list[Span]) -> bool:
    for left, right in zip(names, names[1:], strict=False):
        gap = [w.lower() for w in re.findall(r"\w+|[,;&]", text[left.end:right.start])]
        if any(w not in _JOINERS for w in gap):
            return False
    return True
