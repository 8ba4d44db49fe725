"""Names as people write them, folded so that spellings of one name compare equal."""

from __future__ import annotations

import functools
import re
import unicodedata

_NON_WORD = re.compile(r"[^0-9a-z]+")
# an abbreviation after a disease name, as FPKG and OMIM write it: "... 3 (CFC3)", "... 36; MRD36"
_ABBREVIATION = re.compile(r"\s*(?:[(（][^()（）]*[)）]|;[^;]*)\s*$")


@functools.lru_cache(maxsize=65536)  # a question's words and runs are folded again and again
def fold_name(name: str) -> str:
    """Accents, case, punctuation and spacing folded: 'Noonan Syndrome-1' -> 'noonan syndrome 1',
    'Cantú' -> 'cantu'. For matching one name across sources and replies."""
    unaccented = name if name.isascii() else "".join(  # ASCII has no accent to take off
        c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))
    return " ".join(_NON_WORD.sub(" ", unaccented.lower()).split())


def without_abbreviation(name: str) -> str:
    """A disease name without the abbreviation or other name after it: 'Kabuki syndrome 1 (KS1)' ->
    'Kabuki syndrome 1'."""
    return _ABBREVIATION.sub("", name)


def abbreviation(name: str) -> str:
    """What a name gives in brackets (or after ';') at its end, or ''."""
    found = _ABBREVIATION.search(name)
    return found.group().strip(" ;()（）") if found else ""


def fold_plural(word: str) -> str:
    if len(word) > 3 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


@functools.lru_cache(maxsize=65536)
def normalise(text: str) -> str:
    """`fold_name` with plurals folded too, for looking names up in a vocabulary:
    'Low-set EARS' -> 'low set ear'."""
    return " ".join(fold_plural(word) for word in fold_name(text).split())


def short_variant(details: str) -> str:
    """A variant's HGVS name without what follows it: 'c.3159C > G ,p.Cys1053Trp, in exon 26' →
    'c.3159C > G' (FPKG's `details` run on with the protein change and the exon; 'c.674G>A p.(Arg225Gln)'
    -> 'c.674G>A')."""
    short = re.split(r"[;,]| \(| in exon|\s+\[?p\.", details or "")[0]
    return " ".join(short.split()) or "unnamed variant"  # papers' odd spaces (U+2005) made plain


# A Roman numeral as a whole word (i, iv, xiv, xxi ...): a subtype, never a typo of another one
_ROMAN = re.compile(r"^(?=[ivxlcdm]+$)m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$")


def name_markers(words: list[str]) -> list[str]:
    """The words that tell one numbered or lettered disease from another: numbers and codes with a digit
    ("22", "1dd"), Roman numerals ("xiv") and single letters ("group j")."""
    return [w for w in words if len(w) == 1 or _ROMAN.match(w) or any(c.isdigit() for c in w)]


def keeps_identity(mention: str, name: str, known_words: set[str]) -> bool:
    """Whether reading `mention` as `name` is only a typo, not another disease: the two have the same
    numbers, Roman numerals and subtype letters, as many words, and no word of the mention that is a
    known word (of two or more names) became another known word ("with ataxia" is not "with alopecia";
    "Kabukki" may be "Kabuki"), filler words ("syndrome", "type") aside when the counts differ."""
    # a letter lost to a wrong encoding ("B?rjeson") is a typo's gap, not a subtype letter
    said, meant = normalise(mention.replace("?", "").replace("\ufffd", "")).split(), normalise(name).split()
    if len(said) != len(meant):  # filler words aside: "... progeria" is "... progeria syndrome"
        said, meant = [w for w in said if w not in _FILLER], [w for w in meant if w not in _FILLER]
    if len(said) != len(meant) or name_markers(said) != name_markers(meant):
        return False
    return not any(a != b and a in known_words and b in known_words for a, b in zip(said, meant, strict=True))


_FILLER = frozenset({"type", "the", "of", "syndrome", "disease"})  # "Mucolipidosis type IV" is "Mucolipidosis IV"
