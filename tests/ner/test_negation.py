"""Findings written as absent: cues before and after, lists under one cue, and where a scope ends."""

from __future__ import annotations

import pytest

from fpkg.errors import InputError
from ner.negation import is_negated, negated_mentions


def negated(text: str, mention: str) -> bool:
    start = text.lower().index(mention.lower())
    return is_negated(text, start, start + len(mention))


@pytest.mark.parametrize("text, mention", [
    ("She has hypertelorism but no cleft palate.", "cleft palate"),
    ("Without ptosis or epicanthus.", "epicanthus"),  # a list under one cue
    ("Exam: ptosis was not seen; ears normal.", "ptosis"),
    ("Negative for coloboma on fundoscopy", "coloboma"),
    ("neither microtia nor preauricular pits", "preauricular pits"),
    ("Cleft lip absent.", "Cleft lip"),
])
def test_written_as_absent(text, mention):
    assert negated(text, mention)


@pytest.mark.parametrize("text, mention", [
    ("No family history; she has ptosis and a cleft palate.", "ptosis"),  # the clause ended
    ("There was no delay, but hypertelorism was noted.", "hypertelorism"),
    ("Absent eyebrow and sparse eyelashes.", "Absent eyebrow"),  # an HPO name that starts with a cue
    ("A boy without seizures, with downslanting palpebral fissures.", "downslanting palpebral fissures"),
])
def test_present(text, mention):
    assert not negated(text, mention)


def test_only_the_negated_mentions_are_returned():
    text = "Hypertelorism and ptosis; no cleft palate."
    assert negated_mentions(text, ["Hypertelorism", "ptosis", "cleft palate", "not in the text"]) == {"cleft palate"}


def test_a_free_text_case_keeps_absent_findings_apart(pipeline):
    result = pipeline.diagnose_question(
        "A 4 year old boy with a CHD7 variant, chorioretinal coloboma and posteriorly rotated ears; "
        "no cleft palate and without ptosis.")
    case = result.case
    assert {p.lower() for p in case.excluded} == {"cleft palate", "ptosis"}
    assert not {p.lower() for p in case.phenotypes} & {"cleft palate", "ptosis"}
    assert "chorioretinal coloboma" in {p.lower() for p in case.phenotypes}
    absent = [notice for notice in result.notices if "Written as absent" in notice]
    assert absent and "ptosis" in absent[0].lower(), result.notices
    assert result.ranked[0].name == "CHARGE syndrome"


def test_no_before_a_form_entry_makes_it_an_absent_finding(pipeline):
    from diagnosis.ranker import DiagnosisCase

    result = pipeline.diagnose(DiagnosisCase(phenotypes=("Chorioretinal coloboma", "no Ptosis"), gene="CHD7"))
    assert result.case.excluded == ("Ptosis",) and result.case.phenotypes == ("Chorioretinal coloboma",)
    with pytest.raises(InputError, match="absent"):
        pipeline.diagnose(DiagnosisCase(phenotypes=("no ptosis",)))
