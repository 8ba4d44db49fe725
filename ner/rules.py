"""Rule-based complements to the model: HGVS variants, ages, sexes, ethnicities and gene
symbols from a vocabulary (the graph's).

The corpus is template text, so the model has only seen '5.0 years old', 'male' and
'c.1529delG ( p.Gly510Alafs*12 )' written one way. These patterns cover the ways clinicians
write the same facts. They are written from HGVS and clinical usage, not from the test
file. Span conventions follow the corpus: an age in years is the number alone ('5' in
'5 years old'); other units are kept ('18 months'); glued forms are one span ('5yo').
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable

from ner.spans import Span

# --- HGVS and other variant descriptions -------------------------------------------------
_NT = r"[ACGTUNacgtun]"
_POS = r"(?:[-*]?\d+(?:\s?[+-]\s?\d+)?|\?)"
_RANGE = rf"(?:\(?{_POS}(?:_{_POS})?\)?)"
_NT_CHANGE = (
    rf"(?:{_NT}+\s?>\s?{_NT}+|delins{_NT}*\d*|del{_NT}*\d*(?:ins{_NT}+)?|dup{_NT}*\d*"
    rf"|ins(?:{_NT}+|\d+)|inv\d*|{_NT}*\[\d+\]|=)"
)
_TRANSCRIPT = r"(?:(?:NM|NR|NC|NG|XM|XR|ENST|LRG)_?\d+(?:\.\d+)?(?:\([A-Za-z0-9-]+\))?\s?:\s?)"
_NUCLEOTIDE = (
    rf"(?:{_TRANSCRIPT}?(?:[cgmnr]\.\s?{_RANGE}\s?{_NT_CHANGE}|c\.{_NT}\d+{_NT}(?![A-Za-z]))"
    rf"|IVS\d+\s?[+-]\s?\d+\s?{_NT}\s?>\s?{_NT})"
)
_AA3 = r"(?:Ala|Arg|Asn|Asp|Cys|Gln|Glu|Gly|His|Ile|Leu|Lys|Met|Phe|Pro|Ser|Thr|Trp|Tyr|Val|Ter|Sec|Xaa)"
_PROTEIN_BODY = r"[A-Za-z*]{1,3}\d+(?:_[A-Za-z]{1,3}\d+)?[A-Za-z0-9_*=?]*"
_PROTEIN = (
    rf"(?:{_TRANSCRIPT}?p\.\s?(?:\(\s?{_PROTEIN_BODY}\s?\)|{_PROTEIN_BODY}|\(\?\)|=)"
    rf"|(?<![A-Za-z.]){_AA3}\d+(?:{_AA3}|\*|fs[A-Za-z*\d]*)(?![A-Za-z]))"
)
_EXON_RANGE = r"exons?\s\d+(?:\s?(?:-|–|to)\s?\d+)?"
_STRUCTURAL = (
    rf"(?:(?:{_EXON_RANGE})\s(?:deletion|duplication|skipping)"
    rf"|(?:deletion|duplication)\s(?:of\s)?(?:{_EXON_RANGE})"
    r"|(?:\d{1,2}|X|Y)[pq]\d+(?:\.\d+)?(?:-[pq]?\d+(?:\.\d+)?)?\s(?:micro)?(?:deletion|duplication)"
    r"|(?:\d{1,2}|X|Y)[pq]\d+(?:\.\d+)?\s(?:LOM|GOM|hypomethylation|hypermethylation)"
    r"|upd\(\d{1,2}\)(?:mat|pat)"
    r"|[ACGT]{3}\s(?:repeat\s)?expansion"
    r"|(?:whole|entire)[- ]gene\s(?:deletion|duplication))"
    r"(?!\s+syndrome)"  # '22q11.2 deletion syndrome' is a disease
)
_VARIANT = re.compile(
    rf"(?<![A-Za-z0-9_])(?P<nuc>{_NUCLEOTIDE})|(?<![A-Za-z0-9_])(?P<prot>{_PROTEIN})"
    rf"|\b(?P<sv>{_STRUCTURAL})\b"
)
# What reads as (part of) a variant description, for spans the patterns above did not find.
VARIANT_LIKE = re.compile(r"\b[cgmnrp]\.|del|dup|ins|inv|>|fs|\*|\bexons?\b|\bintrons?\b|repeat|expansion|"
                          r"\d+[pq]\d|\bupd\b|\blom\b|\bgom\b|methylation|mosaic|trisomy|IVS|ter\b",
                          re.IGNORECASE)
# Between a nucleotide change and its protein consequence: 'c.1A>G (p.Met1?)', '; ( p.X )'.
_JOIN = re.compile(r"[\s;,:/]*(\(\s*)?$")

# --- ages and sexes ------------------------------------------------------------------------
_NUM = r"\d{1,3}(?:\.\d{1,2})?"
_OTHER_UNIT = r"(?:months?|mos?|weeks?|wks?|days?)"
_AGE_GLUED = re.compile(
    rf"(?<![\w.])({_NUM}-(?:years?|months?|weeks?|days?)-old|{_NUM}(?:yo|y/o|y\.o\.|yrs?|y|mo|mos|wks?))(?!\w)",
    re.IGNORECASE,
)
_AGE_YEARS_OLD = re.compile(
    rf"(?<![\w.])({_NUM})\s(?:(?:years?|yrs?|yr|y)\s?(?:old|/o)\b|y\.o\.|yo\b|y/o\b)", re.IGNORECASE
)
_AGE_OTHER = re.compile(rf"(?<![\w.])({_NUM}\s{_OTHER_UNIT})\b(?:\s?old\b)?", re.IGNORECASE)
_AGE_AGED = re.compile(
    rf"\bage(?:d)?\s?:?\s?(?:of\s)?({_NUM}(?:\s{_OTHER_UNIT}\b)?)(?![\w.])", re.IGNORECASE
)
# 'N years' alone is also a duration ('seizures at 4 years'); it counts as an age only
# next to a sex ('3 yrs, male', 'M, 7 yrs').
_AGE_YEARS_WEAK = re.compile(rf"(?<![\w.])({_NUM})\s(?:years?|yrs?|yr|y)\b", re.IGNORECASE)
_GENDER_WORD = re.compile(r"\b(male|female|boy|girl|man|woman)\b", re.IGNORECASE)
_GENDER_FIELD = re.compile(r"\b(?:sex|gender)\s?:\s?([MF])\b", re.IGNORECASE)
_GENDER_LETTER = re.compile(r"(?<![\w.'-])([MF])(?![\w'-]|\.\w)")
_ADJACENT = re.compile(r"[\s,;/()\-]{0,4}")

# --- ethnicities ---------------------------------------------------------------------------
ETHNICITIES = (
    "African American", "Ashkenazi Jewish", "Han Chinese", "Native American", "Puerto Rican",
    "Sri Lankan", "Pacific Islander", "South Asian", "East Asian", "Middle Eastern",
    "Afghan", "African", "Albanian", "Algerian", "Arab", "Argentinian", "Armenian", "Asian",
    "Australian", "Austrian", "Azerbaijani", "Bangladeshi", "Belgian", "Brazilian", "British",
    "Bulgarian", "Canadian", "Caucasian", "Chilean", "Chinese", "Colombian", "Croatian", "Cuban",
    "Cypriot", "Czech", "Danish", "Dutch", "Ecuadorian", "Egyptian", "Emirati", "Ethiopian",
    "European", "Filipino", "Finnish", "French", "Georgian", "German", "Ghanaian", "Greek",
    "Hispanic", "Hmong", "Hungarian", "Indian", "Indonesian", "Iranian", "Iraqi", "Irish",
    "Israeli", "Italian", "Japanese", "Jewish", "Jordanian", "Kazakh", "Kenyan", "Korean",
    "Kurdish", "Kuwaiti", "Latino", "Latina", "Lebanese", "Libyan", "Malay", "Malaysian",
    "Maori", "Mexican", "Mongolian", "Moroccan", "Nepali", "Nigerian", "Norwegian", "Omani",
    "Pakistani", "Palestinian", "Persian", "Peruvian", "Philippine", "Polish", "Portuguese",
    "Qatari", "Roma", "Romani", "Romanian", "Russian", "Saudi", "Scottish", "Serbian",
    "Slovak", "Somali", "Spanish", "Sudanese", "Swedish", "Swiss", "Syrian", "Taiwanese",
    "Thai", "Tunisian", "Turkish", "Ukrainian", "Uzbek", "Venezuelan", "Vietnamese", "Yemeni",
    # peoples and communities, as genetic clinics record them
    "Afro-Caribbean", "Akan", "Amish", "Ashkenazi", "Baloch", "Basque", "Bedouin", "Bengali", "Berber",
    "Caribbean", "Druze", "Eritrean", "Flemish", "Gujarati", "Hausa", "Hutterite", "Igbo", "Inuit", "Jamaican",
    "Mennonite", "Pashtun", "Punjabi", "Sami", "Sephardi", "Sindhi", "Tamil", "Tatar", "Tibetan", "Uyghur",
    "Welsh", "Xhosa", "Yoruba", "Zulu",
)
_ETHNICITY = re.compile(
    r"(?<![\w-])(" + "|".join(sorted(map(re.escape, ETHNICITIES), key=len, reverse=True)) + r")(?![\w-])"
)

# --- gene symbols --------------------------------------------------------------------------
_GENE_TOKEN = re.compile(r"(?<![\w.-])[A-Za-z0-9][A-Za-z0-9-]*[A-Za-z0-9](?![\w])|(?<![\w.-])[A-Za-z0-9](?![\w])")
# Lower-case matching is allowed for symbols that cannot be ordinary words: with a digit
# (kmt2d, nsd1) or of five letters or more (nipbl) unless they are English words.
_ENGLISH = frozenset({"clock", "impact", "spring", "prism", "flash", "ghost", "cables", "plant"})

# A symbol no vocabulary knows (a gene newer than the graph) is a gene where the sentence says so:
# "a mutation in MOCS3", "variants in the MOCS3 gene", "the MOCS3 gene"
_SAID_GENE = re.compile(r"(?:(?:mutation|variant|variation|change|alteration)s?\s+(?:in|of)\s+(?:the\s+)?"
                        r"(?P<after>[A-Z][A-Z0-9-]*[0-9A-Z])\b)|\b(?P<before>[A-Z][A-Z0-9-]*[0-9A-Z])\s+gene\b",
                        re.IGNORECASE)
_SYMBOL = re.compile(r"^(?=.*[A-Z])[A-Z0-9-]{2,12}$")  # upper-case letters and digits: a symbol, not a word

_PRIORITY = {"MUTATION": 0, "AGE": 1, "GENDER": 2, "GENE": 3, "RACE": 4}


class RuleTagger:
    """Finds rule spans in raw text; ``gene_vocabulary`` holds the gene symbols to match."""

    def __init__(self, gene_vocabulary: Iterable[str] = ()) -> None:
        self._exact: dict[str, str] = {}
        self._folded: dict[str, str] = {}
        for symbol in gene_vocabulary:
            symbol = symbol.strip()
            if not symbol or (len(symbol) < 3 and not any(c.isdigit() for c in symbol)):
                continue  # 'AR', 'MS': too often an abbreviation of something else
            self._exact[symbol] = symbol
            if any(c.isdigit() for c in symbol) or (len(symbol) >= 5 and symbol.lower() not in _ENGLISH):
                self._folded.setdefault(symbol.lower(), symbol)

    @property
    def gene_count(self) -> int:
        return len(self._exact)

    def predict(self, text: str) -> list[Span]:
        candidates = (
            self._variants(text) + self._ages_and_sexes(text) + self._ethnicities(text) + self._genes(text)
        )
        return _non_overlapping(candidates)

    def _variants(self, text: str) -> list[Span]:
        found: list[tuple[str, int, int]] = []  # (kind, start, end)
        for match in _VARIANT.finditer(text):
            kind = match.lastgroup
            start, end = match.span()
            if kind == "prot" and found and found[-1][0] == "nuc":
                gap = _JOIN.match(text[found[-1][2]:start]) if start - found[-1][2] <= 6 else None
                if gap:  # the protein consequence of the change just before it
                    if gap.group(1):  # it opened a bracket: take the closing one too
                        close = re.match(r"\s*\)", text[end:])
                        end += close.end() if close else 0
                    found[-1] = ("joined", found[-1][1], end)
                    continue
            found.append((kind, start, end))
        return [_span("MUTATION", text, start, end) for _, start, end in found]

    def _ages_and_sexes(self, text: str) -> list[Span]:
        ages = [m.span(1) for pattern in (_AGE_GLUED, _AGE_YEARS_OLD, _AGE_OTHER, _AGE_AGED)
                for m in pattern.finditer(text)]
        # the whole expression ('5 years old'), to test what lies next to it
        extents = [m.span() for pattern in (_AGE_GLUED, _AGE_YEARS_OLD, _AGE_OTHER, _AGE_AGED)
                   for m in pattern.finditer(text)]
        sexes = [m.span(1) for m in _GENDER_WORD.finditer(text)]
        sexes += [m.span(1) for m in _GENDER_FIELD.finditer(text)]
        weak_ages = [(m.span(1), m.span()) for m in _AGE_YEARS_WEAK.finditer(text)]
        letters = [m.span(1) for m in _GENDER_LETTER.finditer(text)]
        # A lone M/F is a sex next to an age; a bare 'N years' is an age next to a sex.
        any_age = _Neighbours(extents + [extent for _, extent in weak_ages])
        sexes += [letter for letter in letters if any_age.next_to(text, letter)]
        any_sex = _Neighbours(sexes)
        ages += [span for span, extent in weak_ages if any_sex.next_to(text, extent)]
        return [_span("AGE", text, *s) for s in ages] + [_span("GENDER", text, *s) for s in sexes]

    def _ethnicities(self, text: str) -> list[Span]:
        return [_span("RACE", text, *m.span(1)) for m in _ETHNICITY.finditer(text)]

    def _genes(self, text: str) -> list[Span]:
        spans = [_span("GENE", text, *match.span(group)) for match in _SAID_GENE.finditer(text)
                 for group in ("after", "before") if match.group(group) and _SYMBOL.match(match.group(group))]
        if not self._exact:
            return spans
        for match in _GENE_TOKEN.finditer(text):
            token, start = match.group(), match.start()
            # 'KMT2D-related': try the whole token, then shorter hyphen-separated prefixes.
            parts = token.split("-")
            for n in range(len(parts), 0, -1):
                candidate = "-".join(parts[:n])
                if self._lookup(candidate):
                    spans.append(_span("GENE", text, start, start + len(candidate)))
                    break
        return spans

    def _lookup(self, token: str) -> str | None:
        if token in self._exact:
            return self._exact[token]
        if token.islower() or token[:1].isupper():
            return self._folded.get(token.lower())
        return None


def _span(kind: str, text: str, start: int, end: int) -> Span:
    return Span(kind, text[start:end], start, end, 1.0, "rules")


class _Neighbours:
    """Character ranges indexed by where they start and end, to find the ones next to a
    given range (at most 4 spaces or punctuation marks apart) without a quadratic scan."""

    GAP = 4

    def __init__(self, ranges: list[tuple[int, int]]) -> None:
        self.starts = {start for start, _ in ranges}
        self.ends = {end for _, end in ranges}

    def next_to(self, text: str, target: tuple[int, int]) -> bool:
        start, end = target
        for gap in range(self.GAP + 1):
            if end + gap in self.starts and _ADJACENT.fullmatch(text[end:end + gap]):
                return True
            if start - gap in self.ends and _ADJACENT.fullmatch(text[start - gap:start]):
                return True
        return False


def _non_overlapping(spans: list[Span]) -> list[Span]:
    """Keep the most trusted, then longest, of overlapping rule spans."""
    kept: list[Span] = []  # disjoint, sorted by start
    starts: list[int] = []
    for span in sorted(set(spans), key=lambda s: (_PRIORITY[s.type], -(s.end - s.start), s.start)):
        i = bisect_left(starts, span.start)
        if (i > 0 and kept[i - 1].end > span.start) or (i < len(kept) and kept[i].start < span.end):
            continue
        kept.insert(i, span)
        starts.insert(i, span.start)
    return kept
