"""Abbreviations clinicians write for findings, each read as its HPO term only where it is not a gene meant as one.

The list is of the abbreviations in common use in paediatric, cardiology and clinical genetics notes (as the
standard clinical abbreviation lists give them), each expanded to the HPO term (2025-01-16) its expansion names.
Written in capitals as a word of its own ("a VSD", "GDD;"). ASD is atrial septal defect unless the text speaks of
autism (then Autistic behavior); a symbol with a gene cue beside it ("a heterozygous AR variant") stays a gene.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from service.gene_words import has_gene_cue

ABBREVIATIONS: dict[str, str] = {
    "VSD": "HP:0001629", "ASD": "HP:0001631", "AVSD": "HP:0006695", "AVCD": "HP:0006695", "PDA": "HP:0001643",
    "PFO": "HP:0001655", "TOF": "HP:0001636", "HCM": "HP:0001639", "DCM": "HP:0001644", "CoA": "HP:0001680",
    "CHD": "HP:0001627",
    "ID": "HP:0001249", "GDD": "HP:0001263", "DD": "HP:0001263", "ADHD": "HP:0007018", "OCD": "HP:0000722",
    "CP": "HP:0100021", "IUGR": "HP:0001511", "FGR": "HP:0001511", "SGA": "HP:0001518", "LGA": "HP:0001520",
    "FTT": "HP:0001508", "SNHL": "HP:0000407", "CHL": "HP:0000405", "GERD": "HP:0002020", "GORD": "HP:0002020",
    "GER": "HP:0002020", "VUR": "HP:0000076", "DDH": "HP:0001385",
}
AUTISM = "HP:0000729"  # Autistic behavior: what "ASD" means where the text speaks of autism
_AUTISM_SAID = re.compile(r"\bautis", re.IGNORECASE)
_TOKEN = re.compile(r"(?<![\w-])(" + "|".join(sorted(map(re.escape, ABBREVIATIONS), key=len, reverse=True))
                    + r")s?(?![\w-])")


@dataclass(frozen=True)
class Abbreviation:
    start: int
    end: int
    hpo_id: str


def abbreviations(text: str) -> list[Abbreviation]:
    """The abbreviations of findings in `text`, as written (capitals), with their terms."""
    found = []
    for match in _TOKEN.finditer(text):
        short = match.group(1)
        if has_gene_cue(text, match.start(), match.end()):
            continue
        hpo_id = AUTISM if short == "ASD" and _AUTISM_SAID.search(text) else ABBREVIATIONS[short]
        found.append(Abbreviation(match.start(), match.end(), hpo_id))
    return found
