"""Names as people write them, folded so that spellings of one name compare equal."""

from __future__ import annotations

import re
import unicodedata

_NON_WORD = re.compile(r"[^0-9a-z]+")
# an abbreviation after a disease name, as FPKG and OMIM write it: "... 3 (CFC3)", "... 36; MRD36"
_ABBREVIATION = re.compile(r"\s*(?:[(（][^()（）]*[)）]|;[^;]*)\s*$")


def fold_name(name: str) -> str:
    """Accents, case, punctuation and spacing folded: 'Noonan Syndrome-1' -> 'noonan syndrome 1',
    'Cantú' -> 'cantu'. For matching one name across sources and replies."""
    unaccented = "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))
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


def normalise(text: str) -> str:
    """`fold_name` with plurals folded too, for looking names up in a vocabulary:
    'Low-set EARS' -> 'low set ear'."""
    return " ".join(fold_plural(word) for word in fold_name(text).split())


def short_variant(details: str) -> str:
    """A variant's HGVS name without what follows it: 'c.3159C > G ,p.Cys1053Trp, in exon 26' →
    'c.3159C > G' (FPKG's `details` run on with the protein change and the exon)."""
    short = re.split(r"[;,]| \(| in exon", details or "")[0]
    return " ".join(short.split()) or "unnamed variant"  # papers' odd spaces (U+2005) made plain
