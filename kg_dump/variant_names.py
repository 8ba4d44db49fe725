"""FPKG's variant names made fit to be shown, at build time: one written form per variant, names that
are no variant set aside.

FPKG's `Variation.details` is what curators typed from each paper: HGVS with stray spaces
("c. 128 _ 129delCA", "c.1026C > G"), classic names ("IVS1-2A>G"), chromosomal changes in words
("a 2.6 Mb deletion in 6q24.3–25.1", "46,del(18)(p11.1-pter)"), and a few that name no variant at all
("CHD7 mutations account for ~60% of cases of CHARGE syndrome", "NA", "See article for more details").

- `written_form` writes each HGVS change as HGVS does (no space inside a change); the rest of the text
  (the protein change, "in exon 10") is kept. Protein notations are not rewritten: "p.Arg123Cys" and
  "p.R123C" are compared through `fpkg.variant_keys`, never made one text.
- `kind_of` tells a variant (HGVS-like notation, an rsID, a classic or bare nucleotide name) and a
  chromosomal or exon-level change described in words (kept as written) from a name that is no
  variant (a placeholder, a sentence), which `kg_dump.variant_cleaning` sets aside.

No PyPI parser fits: `hgvs` (biocommons) needs PostgreSQL's client and SeqRepo, and `mavehgvs` reads only
strict MAVE-HGVS, which almost none of these texts are; the shapes below are the ones the dump holds.
"""

from __future__ import annotations

import re

from fpkg.display import clean, hgvs, plain
from fpkg.variant_keys import variant_keys

VARIANT = "variant"  # an HGVS-like, classic or bare nucleotide name
STRUCTURAL = "structural"  # a chromosomal, copy-number or exon-level change written in words
PLACEHOLDER = "placeholder"  # "NA", "See article for more details": no variant named
SENTENCE = "sentence"  # free text naming no variant ("… account for ~60% of cases …")
NOT_VARIANTS = (PLACEHOLDER, SENTENCE)

_PLACEHOLDERS = re.compile(r"^(?:n/?a|none|unknown|not (?:available|reported|given)|-+|\?|see (?:the )?"
                           r"(?:article|paper|text|table|reference)\b.*)$", re.IGNORECASE)
# a claim about variants, not one: "… account for ~60% of cases", "found in 12 patients"
_CLAIM = re.compile(r"%|\baccount(?:s|ed)? for\b|\bof (?:all )?cases\b", re.IGNORECASE)

# HGVS-like notation: a reference prefix then a position or a residue ("c.1026C>G", "C. 371A > G",
# "p. (Thr43AsnfsTer9)", "g.40,529,942_40,562,524del", "c1859A>T" with its dot left out)
_HGVS_NOTATION = re.compile(r"(?<![A-Za-z])(?:[cgmnr]\s*\.\s*\(?\s*[-*?]?[\d?]|c\.\s*[ACGT]\d+[ACGT]\b|c\d+[ACGT]>|"
                            r"p\s*\.\s*[(\[]?\s*[A-Z*])",
                            re.IGNORECASE)
_RSID = re.compile(r"\brs\d{3,}\b")
_CLASSIC = re.compile(r"\bIVS\s*\d+\s*[+-]\s*\d+|(?:\bdelta\s*|Δ)[A-Z]\d+\b", re.IGNORECASE)
# a nucleotide change without its "c.": "502C > G", "1722 C>A", "578_581 delCTGA", "T>G at position 530"
_BARE_CHANGE = re.compile(r"(?<![\w.])\d+(?:[+_-]\d+)?\s*(?:[ACGT]\s*>\s*[ACGT]|(?:del|dup|ins)[ACGT]*\b)|"
                          r"\b[ACGT]\s*>\s*[ACGT]\b")
# a chromosomal or exon-level change in words or ISCN: a band ("16p13.11", "Xq26.2"), a size ("2.6 Mb",
# "218 Kb"), a karyotype ("46,XY"), ISCN ("del(18)", "trp16p12.1", "arr 8q21.11") or the change's name
_STRUCTURAL = re.compile(
    r"(?<![A-Za-z\d])(?:[1-9]|1\d|2[0-2]|X|Y)[pq]\d|\d\s*(?:[km]b|bp|mega ?bases?)\b|\b4[5-7],\s*X|"
    r"\b(?:del|dup|inv|trp|ins|t)\s*\(|\b(?:del|dup|trp)\s*\d|\barr\b|\bchr(?:\d+|X|Y)\s*:|"
    r"deletion|duplicat|triplication|insertion|inversion|translocation|isochromosome|copy number|"
    r"\b(?:loss|gain|disruption)\b|homozygous region",
    re.IGNORECASE)

# inside one HGVS change (a prefix up to the next ';', ',', '(' or '['): the spaces curators typed
_CHANGE = re.compile(r"(?<![A-Za-z.])([cgmnr])\s*\.\s*((?=[-*?\d])[^;,(\[]*)")
_POSITION_SPACE = re.compile(r"(?<=\d)\s+(?=[ACGT]>|(?:del|dup|ins|inv)(?:[ACGT]+\b|\b|ins))")
_EDIT_SPACE = re.compile(r"(?<=del|dup|ins)\s+(?=[ACGT]+\b)")
# a nucleotide change that opens the text without its "c." ("502C > G", "578_581 delCTGA"): spaces closed, no
# prefix added (the paper's numbering is not known)
_BARE_START = re.compile(r"^\d+(?:\s*[+_-]\s*\d+)?\s*(?:[ACGT]\s*>\s*[ACGT]|(?:del|dup|ins)\s*[ACGT]*)\b")
_PROTEIN = re.compile(r"(?<![A-Za-z])p\.([^;,\[]*)")
# "p.Gln87 *", "p.Asn461 fs", "p.Glu77Glufs * 66", "p.Pro509 Thrfs*11"
_PROTEIN_SPACE = re.compile(r"(?<=[A-Za-z\d])\s+(?=\*|fs\b|fs\*|fsX|X\d|Ter\d)|(?<=\*)\s+(?=\d)|"
                            r"(?<=\d)\s+(?=[A-Z][a-z]{2}(?:fs|\*|X\b|Ter))")
_DASHES = re.compile("[\u2010-\u2013\u2212]")  # "c.735‐1G>T": a hyphen or minus sign other than '-'


def written_form(details: object) -> str:
    """`details` with each HGVS change written as HGVS does: 'c.1026C > G (C342W) in exon 10' ->
    'c.1026C>G (C342W) in exon 10', 'C. 371A > G' -> 'c.371A>G', 'c.7100 delC' -> 'c.7100delC',
    'c.1137_1146del TAGTATGTCT' -> 'c.1137_1146delTAGTATGTCT', 'p. Gln87 *' -> 'p.Gln87*', '502C > G' -> '502C>G'."""
    text = re.sub(r"(?<![A-Za-z])C\.(?=\s*\d)", "c.", plain(clean(details)))  # "C. 371A > G": a capital prefix
    text = re.sub(r"(?<![A-Za-z.])c(?=\d+[ACGT]\s*>)", "c.", text)  # "c1859A>T": its dot left out
    text = hgvs(text)
    text = _BARE_START.sub(lambda m: re.sub(r"\s+", "", m.group(0)), text)
    text = _CHANGE.sub(_tidy_change, text)
    return _PROTEIN.sub(lambda m: "p." + _PROTEIN_SPACE.sub("", m.group(1)), text)


def _tidy_change(match: re.Match) -> str:
    change = _POSITION_SPACE.sub("", _DASHES.sub("-", match.group(2)))
    change = _EDIT_SPACE.sub("", change)
    return f"{match.group(1)}.{change}"


def kind_of(details: object) -> str:
    """VARIANT, STRUCTURAL, PLACEHOLDER or SENTENCE (see the module's doc)."""
    text = clean(details)
    if not text or _PLACEHOLDERS.match(text):
        return PLACEHOLDER
    if (_HGVS_NOTATION.search(text) or _RSID.search(text) or _CLASSIC.search(text) or _BARE_CHANGE.search(text)
            or variant_keys(text)):
        return VARIANT
    if _STRUCTURAL.search(text) and not _CLAIM.search(text):
        return STRUCTURAL
    return SENTENCE


def identity(details: object) -> tuple[str, frozenset[str]]:
    """What one variant is, for comparing two names within one gene and paper: its coding changes
    (`fpkg.variant_keys`: 'c.1026C>G' however spaced) when it names any, else its written form folded;
    and its protein changes, which must not disagree (`same_variant`)."""
    form = written_form(details)
    keys = variant_keys(form)
    coding = sorted(key for key in keys if key.startswith("c."))
    protein = frozenset(key for key in keys if key.startswith("p."))
    return (" ".join(coding) if coding else form.casefold()), protein


def same_variant(one: object, other: object) -> bool:
    """Whether two names write one variant: the same coding changes (or the same text), and no protein
    change of one that the other contradicts."""
    (key, protein), (other_key, other_protein) = identity(one), identity(other)
    return key == other_key and (not protein or not other_protein or protein == other_protein)
