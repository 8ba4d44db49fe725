"""Findings said of the patient, as absent, of a relative or hedged, and genes tested negative: NegEx/ConText cues
(negspacy) within the clause a clinician means."""

from __future__ import annotations

import pytest

from ner.context import ABSENT, FAMILY_HISTORY, FINDING, GENE, HEDGED, PRESENT, Target, context_reader


def read(text: str, *mentions: str) -> list[str]:
    targets = []
    for mention in mentions:
        start = text.lower().index(mention.lower())
        targets.append(Target(start, start + len(mention), GENE if mention.isupper() else FINDING))
    return context_reader().polarities(text, targets)


@pytest.mark.parametrize("text, mention", [
    ("She has hypertelorism but no cleft palate.", "cleft palate"),
    ("Without ptosis or epicanthus.", "epicanthus"),  # a list under one cue
    ("Exam: ptosis was not seen; ears normal.", "ptosis"),
    ("Negative for coloboma on fundoscopy", "coloboma"),
    ("neither microtia nor preauricular pits", "preauricular pits"),
    ("Cleft lip absent.", "Cleft lip"),
    ("She does not have ptosis.", "ptosis"),  # "have" is part of the cue, not the end of its scope
    ("Hearing loss was excluded.", "Hearing loss"),
])
def test_written_as_absent(text, mention):
    assert read(text, mention) == [ABSENT]


@pytest.mark.parametrize("text, mention", [
    ("No family history; she has ptosis and a cleft palate.", "ptosis"),  # the clause ended
    ("There was no delay, but hypertelorism was noted.", "hypertelorism"),
    ("A boy without seizures, with downslanting palpebral fissures.", "downslanting palpebral fissures"),
    ("A boy with ptosis inherited from his father.", "ptosis"),  # the patient's, though inherited
])
def test_present(text, mention):
    assert read(text, mention) == [PRESENT]


def test_a_cue_ends_at_the_comma_of_a_list_not_closed_by_or():
    text = ("A 6-year-old girl with severe intellectual disability and no speech, episodes of hyperventilation, "
            "deep-set eyes and constipation.")
    # "no speech" is a finding the patient has (Absent speech): its cue is part of its name
    assert read(text, "no speech", "hyperventilation", "deep-set eyes", "constipation") == [PRESENT] * 4
    assert read("Ptosis; no seizures, deep-set eyes and constipation.", "seizures", "deep-set eyes",
                "constipation") == [ABSENT, PRESENT, PRESENT]
    assert read("No hypertrophic cardiomyopathy, lentigines or hearing loss.", "hypertrophic cardiomyopathy",
                "lentigines", "hearing loss") == [ABSENT] * 3
    assert read("no hypotonia and a short neck", "hypotonia", "short neck") == [ABSENT, PRESENT]


def test_an_unread_absent_phrase_does_not_negate_the_findings_after_its_comma():
    text = "notching of the lower eyelids with absent medial eyelashes, flat cheekbones, micrognathia"
    assert read(text, "flat cheekbones", "micrognathia") == [PRESENT, PRESENT]


def test_family_history_and_hedges():
    assert read("Her mother has ptosis and his father had a cleft palate.", "ptosis", "cleft palate") == \
        [FAMILY_HISTORY, FAMILY_HISTORY]
    assert read("A boy with ptosis. His brother also has blue sclerae.", "ptosis", "blue sclerae") == \
        [PRESENT, FAMILY_HISTORY]
    assert read("Possible hearing loss; cleft palate was not seen.", "hearing loss", "cleft palate") == \
        [HEDGED, ABSENT]
    assert read("a ?submucous cleft palate and probable developmental delay", "submucous cleft palate",
                "developmental delay") == [HEDGED, HEDGED]
    assert read("Agenesis of the corpus callosum was suspected on ultrasound.", "Agenesis of the corpus callosum") \
        == [HEDGED]


@pytest.mark.parametrize("text, gene, polarity", [
    ("She was NIPBL-negative on panel testing.", "NIPBL", ABSENT),
    ("He tested negative for PTPN11; a SOS1 variant was found.", "PTPN11", ABSENT),
    ("He tested negative for PTPN11; a SOS1 variant was found.", "SOS1", PRESENT),
    ("A de novo KMT2D variant; both parents tested negative.", "KMT2D", PRESENT),
    ("FBN1 sequencing was negative.", "FBN1", ABSENT),
    ("An NF1 variant was not found on sequencing.", "NF1", ABSENT),
])
def test_a_gene_tested_negative_is_read_so(text, gene, polarity):
    assert read(text, gene) == [polarity]
