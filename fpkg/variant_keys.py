"""Canonical keys of the HGVS changes written in a variant's text, so that one variant written two
ways is found as one: "c.758C>G; p.Pro253Arg in exon 7", "p.(P253R)" and "c.758 C > G" share keys.

Kept: substitutions (coding and protein, three-letter or one-letter amino acids, stop as *),
coding deletions, duplications and insertions by their position (the bases written after them are
often left out), and protein frameshifts by their first changed residue. A one-letter protein change
counts only after "p.": bare, "C677T" is as often an old nucleotide name. Keys say nothing without
the gene: callers compare them within one gene."""

from __future__ import annotations

import re

AMINO_ACIDS = {"Ala": "A", "Arg": "R", "Asn": "N", "Asp": "D", "Cys": "C", "Gln": "Q", "Glu": "E", "Gly": "G",
               "His": "H", "Ile": "I", "Leu": "L", "Lys": "K", "Met": "M", "Phe": "F", "Pro": "P", "Ser": "S",
               "Thr": "T", "Trp": "W", "Tyr": "Y", "Val": "V", "Sec": "U", "Ter": "*"}
_THREE = "|".join(AMINO_ACIDS)
_ONE = "[ACDEFGHIKLMNPQRSTVWYU]"
_POSITION = r"[-*]?\d+(?:[+-]\d+)?"
_CODING_SUBSTITUTION = re.compile(rf"\bc\.\s?({_POSITION})\s?([ACGT])\s?>\s?([ACGT])", re.IGNORECASE)
_CODING_EDIT = re.compile(rf"\bc\.\s?({_POSITION}(?:_{_POSITION})?)\s?(del|dup|ins)", re.IGNORECASE)
# the residue, its position, then the new residue or a frameshift
_PROTEIN_THREE = re.compile(rf"(?<![A-Za-z])(?:p\.\s?\(?\s?)?({_THREE})(\d+)((?:{_THREE})?fs|{_THREE}|\*|X)",
                            re.IGNORECASE)
_PROTEIN_ONE = re.compile(rf"\bp\.\s?\(?\s?({_ONE})(\d+)((?:{_ONE})?fs|{_ONE}|\*|X)(?![a-z])")


def variant_keys(text: str | None) -> frozenset[str]:
    """The canonical changes in `text`: "c.758C>G", "c.495+2dup", "p.P253R", "p.Q2092*", "p.R123fs"."""
    if not text:
        return frozenset()
    keys = {f"c.{position}{ref.upper()}>{alt.upper()}" for position, ref, alt in _CODING_SUBSTITUTION.findall(text)}
    keys |= {f"c.{position}{edit.lower()}" for position, edit in _CODING_EDIT.findall(text)}
    for pattern in (_PROTEIN_THREE, _PROTEIN_ONE):
        keys |= {f"p.{_residue(ref)}{position}{_residue(alt)}" for ref, position, alt in pattern.findall(text)}
    return frozenset(keys)


def _residue(written: str) -> str:
    if written.lower() in ("x", "*"):
        return "*"
    if written.lower().endswith("fs"):  # a frameshift: its first new residue is often left out
        return "fs"
    return AMINO_ACIDS.get(written.capitalize(), written.upper())
