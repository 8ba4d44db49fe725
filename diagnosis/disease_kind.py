"""What a gene's disease is, where no link type is recorded (HPO's files record none): a disease that is not a
syndrome a child is seen for — a cancer, an autoimmune disease, a susceptibility or somatic entry, a disease of
adult onset only, or, for a patient with facial findings, one annotated with hardly any facial feature — and
how much of a case it explains.

The gene link of such a disease counts for the share of the case it explains (`evidence.gene_link`): TCF4 is
linked to primary sclerosing cholangitis and to Fuchs corneal dystrophy, HRAS to bladder cancer, MECP2 to lupus,
and none of them explains a syndromic child's findings.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from diagnosis.ontology import PhenotypeOntology

_NAMED = (("a cancer", r"cancer|carcinoma|tumou?rs?|neoplasms?|leuka?emia|lymphoma|melanoma|sarcoma|adenoma"),
          ("a skin lesion", r"n[a]?evus|nevi"), ("an autoimmune disease", r"lupus|autoimmune"),
          ("a susceptibility", r"susceptibility|predisposition|risk"), ("somatic", r"somatic"))
_NAMED_RE = [(kind, re.compile(rf"\b(?:{words})\b", re.I)) for kind, words in _NAMED]
# HPO's onset classes that begin in adulthood (adult, young adult, middle age, late)
ADULT_ONSETS = frozenset({"HP:0003581", "HP:0011462", "HP:0003596", "HP:0003584"})
EXPLAINS_LITTLE = 1 / 3  # of the patient's present findings, at most
BETTER_EXPLAINED = 1 / 2  # of them, at least, explained by another of the gene's diseases
MIN_FINDINGS = 3  # a case this described before what a disease explains of it says anything
# a disease this well annotated (a held-out paper's lines aside) before its annotations say what it is
MIN_ANNOTATED = 10
FEW_FACIAL = 0.1  # of a disease's annotations facial, under this: not a disease of the face
MIN_IC = 2.0  # an annotation this general ("Abnormality of the eye") explains nothing in particular


def kind_of(name: str, onsets: Iterable[str], annotated: Mapping[int, float], ontology: PhenotypeOntology,
            facial_case: bool = True) -> str | None:
    """The words for what the disease is when it is not a syndrome a child is seen for, else None
    (`facial_case`: the patient has facial findings, against which a disease hardly of the face is judged)."""
    for kind, pattern in _NAMED_RE:
        if pattern.search(name):
            return kind
    onsets = set(onsets)
    if onsets and onsets <= ADULT_ONSETS:
        return "of adult onset"
    facial = sum(1 for t in annotated if t < len(ontology) and ontology.facial[t])
    if facial_case and len(annotated) >= MIN_ANNOTATED and facial < FEW_FACIAL * len(annotated):
        return "a disease with hardly any facial feature annotated"
    return None


def explained(present: list[int], annotated: Mapping[int, float], ontology: PhenotypeOntology) -> int:
    """How many of the present findings the disease's annotations name, or name more generally (not
    uninformatively)."""
    named = {t for t in annotated if t < len(ontology) and ontology.ic[t] >= MIN_IC}
    return sum(1 for t in present if named.intersection(ontology.ancestors(t).tolist()))
