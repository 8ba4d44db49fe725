"""Cardinal findings and the reading order of a disease's findings (kg_dump/cardinal.py), on the HPO release
the graph is built from."""

from __future__ import annotations

import math

import numpy as np
import pytest

from kg_dump.cardinal import (
    DiseaseAnnotations,
    Finding,
    cardinal_features,
    cardinal_weight,
    disease_findings,
    frequency_band,
    frequency_text,
    is_cardinal,
    reading_rank,
)
from kg_dump.hpo_profiles import load_hpo_profiles


@pytest.fixture(scope="module")
def hpo(test_settings):
    return load_hpo_profiles(test_settings.hpo_dir, test_settings.cache_dir)


def annotation_of(hpo, disease_id: str) -> dict[int, float]:
    rows = hpo.annotated_disease == hpo.disease_index[disease_id]
    return dict(zip(hpo.annotated_term[rows].tolist(), hpo.frequency[rows].tolist(), strict=True))


@pytest.mark.parametrize(("frequency", "ic", "cardinal"), [
    (0.9, 7.6, True), (1.0, 2.0, True),  # very frequent or obligate, and rare elsewhere
    (0.9, 1.9, False),  # as common as short stature: says little
    (0.55, 7.6, False), (math.nan, 7.6, False), (None, 7.6, False),  # frequent only, or not given
])
def test_cardinal_is_frequent_here_and_rare_elsewhere(frequency, ic, cardinal):
    assert is_cardinal(frequency, ic) is cardinal


def test_frequencies_are_said_as_hpo_bands():
    assert [frequency_text(f) for f in (1.0, 0.9, 0.55, 0.17, 0.025, 0.7, math.nan)] == \
        ["100 %", "80-99 %", "30-79 %", "5-29 %", "1-4 %", "70 %", "frequency not given"]
    assert [frequency_band(f) for f in (1.0, 0.9, 0.55, 0.17, 0.025, 0.0, None)] == \
        ["obligate", "very frequent", "frequent", "occasional", "very rare", "excluded", "frequency not given"]
    assert cardinal_weight(None, 4.0) == 2.0 and cardinal_weight(0.9, 4.0) == pytest.approx(3.6)


def test_williams_findings_are_read_by_frequency_then_specificity(hpo):
    findings = disease_findings(hpo, annotation_of(hpo, "ORPHA:904"))  # Williams syndrome, with frequencies
    ranks = [reading_rank(f.frequency) for f in findings]
    assert ranks == sorted(ranks) and ranks[0] == 0
    for rank in set(ranks):  # within a band, the most specific first
        ics = [f.ic for f in findings if reading_rank(f.frequency) == rank]
        assert ics == sorted(ics, reverse=True)
    cardinal = [f.name for f in cardinal_features(hpo, annotation_of(hpo, "ORPHA:904"))]
    assert "Elfin facies" in cardinal and "Short stature" not in cardinal
    assert all(f.frequency is None or f.frequency > 0 for f in findings)


def test_facial_means_seen_on_the_face_not_hearing_or_refraction(hpo):
    by_name = {f.name: f for f in disease_findings(hpo, annotation_of(hpo, "ORPHA:904"))}
    assert by_name["Elfin facies"].facial and by_name["Periorbital edema"].facial
    assert not by_name["High hypermetropia"].facial  # HPO files it under the eye; no one sees it on the face
    assert not by_name["Hypercalcemia"].facial
    hearing = [f for f in disease_findings(hpo, annotation_of(hpo, "OMIM:163950")) if "hearing" in f.name.lower()]
    assert hearing and not any(f.facial for f in hearing)  # Noonan syndrome 1's sensorineural hearing impairment


def test_a_disease_says_its_modes_of_inheritance(hpo):
    assert "Autosomal dominant inheritance" in hpo.inheritance["OMIM:163950"]
    assert "X-linked dominant inheritance" in hpo.inheritance["OMIM:300867"]  # Kabuki syndrome 2, KDM6A
    assert np.isnan(hpo.frequency).any()  # OMIM's annotations mostly carry no frequency: said as not given


def test_a_frequency_counted_in_a_few_patients_is_said_and_not_read_as_the_diseases(hpo):
    rows = hpo.annotated_disease == hpo.disease_index["OMIM:214800"]  # CHARGE syndrome, OMIM's entry
    stated = {hpo.terms[t]: (f, n) for t, f, n in zip(hpo.annotated_term[rows].tolist(),
                                                     hpo.stated_frequency[rows].tolist(),
                                                     hpo.stated_patients[rows].tolist(), strict=True)}
    assert stated["HP:0011480"][1] == 3 and stated["HP:0011480"][0] == pytest.approx(2 / 3)  # one paper's 2 of 3
    assert stated["HP:0000453"] == (pytest.approx(34 / 69), 69)  # choanal atresia: 34 of 69 patients
    orphanet = hpo.annotated_disease == hpo.disease_index["ORPHA:138"]
    assert not hpo.stated_patients[orphanet].any()  # Orphanet states bands
    few = Finding(0, "HP:0011480", "Unilateral microphthalmos", 2 / 3, 7.4, True, patients=3)
    assert few.counted is None and few.text == "2 of 3 patients" and not few.cardinal
    assert few.band == "frequency not given"
    many = Finding(0, "HP:0000453", "Choanal atresia", 34 / 69, 4.9, True, patients=69)
    assert many.counted == pytest.approx(34 / 69) and many.text == "49 % of 69 patients"


def test_an_entrys_stated_band_is_told_before_another_entrys_small_count(hpo):
    annotations = DiseaseAnnotations(hpo, {})
    findings = {f.hpo_id: f for f in annotations.findings_of(["OMIM:214800", "ORPHA:138"])}
    assert findings["HP:0000453"].patients == 0 and findings["HP:0000453"].counted == pytest.approx(0.55)  # a band
    assert findings["HP:0011480"].patients == 3  # no band stated: the count, said with its patients
    first = [f.hpo_id for f in annotations.findings_of(["OMIM:214800"])][:3]
    assert "HP:0011480" not in first  # a count from 3 patients does not lead the list
