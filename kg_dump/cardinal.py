"""Which of a disease's findings matter most, computed once for Ask's lists and comparisons and for the
differential: a *cardinal* finding is frequent in the disease (HPO's very frequent, 80-99 %, or obligate)
and rare elsewhere (few annotated diseases show it or a term below it: its information content).

A disease's findings are read in the order a clinician reads them: by annotation frequency (HPO's
bands), then by specificity, the long tail last. A frequency counted in published patients (HPO's
n/m) counts only from `MIN_PATIENTS` patients up: "2 of 3 patients" (one family, often) is said as such
and read as a frequency not given, never as a cardinal finding nor one that tells two diseases apart.
Frequencies are those of `kg_dump.hpo_profiles` (NaN: not given, as in most OMIM annotations). "Facial"
here means what is seen on the face, eyes and ears: HPO's head-or-neck, eye and ear terms less the
functional ones (hearing, vision, the middle and inner ear, refraction), which a clinician lists with the
other findings.

Interface (`annotations`: HPO term number -> frequency, as `DiseaseAnnotations.terms[node]` and
`diagnosis.profiles.DiseaseProfiles.hpo_terms[node]` hold them):
- `is_cardinal(frequency, ic)`, `cardinal_weight(frequency, ic)`: for one finding of one disease;
- `disease_findings(hpo, annotations)`: every finding as a `Finding`, in reading order;
- `cardinal_features(hpo, annotations)`: the cardinal ones, in that order.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Set
from dataclasses import dataclass, field

import numpy as np

from kg_dump.hpo_profiles import HpoProfiles

CARDINAL_MIN_FREQUENCY = 0.8  # HPO's "very frequent" (80-99 %) and "obligate"
# e^-2: fewer than about one annotated disease in seven shows the term or one below it (Hypertelorism
# 2.4, Elfin facies 7.6; Short stature 1.9 and Intellectual disability are too common to tell much)
CARDINAL_MIN_IC = 2.0
FREQUENT = 0.3  # HPO's "frequent" (30-79 %) and above
RARE = 0.05  # below HPO's "occasional" (5-29 %): very rare or excluded
UNKNOWN_FREQUENCY = 0.5  # weight of an annotation without a frequency: as often as not
MIN_PATIENTS = 10  # a frequency counted in fewer published patients is said, not read as the disease's
# (lowest share, name) of HPO's frequency bands; an annotation's band is the first it reaches
BANDS = ((1.0, "obligate"), (0.8, "very frequent"), (0.3, "frequent"), (0.05, "occasional"), (0.01, "very rare"),
         (0.0, "excluded"))
# the representative values kg_dump.hpo_layer gives HPO's frequency terms, said as the band's range
BAND_RANGES = {1.0: "100 %", 0.9: "80-99 %", 0.55: "30-79 %", 0.17: "5-29 %", 0.025: "1-4 %", 0.0: "0 %"}
# functional terms under the face, eye and ear roots: findings, but none a clinician sees on the face
FUNCTIONAL_ROOTS = ("HP:0031704",  # Abnormal ear physiology (hearing, otitis)
                    "HP:0000504",  # Abnormality of vision (visual loss)
                    "HP:0000539",  # Abnormality of refraction (myopia, hypermetropia)
                    "HP:0000359",  # Abnormality of the inner ear
                    "HP:0000370")  # Abnormality of the middle ear


def known(frequency: float | None) -> float | None:
    """The frequency, None when it is not given (None or NaN)."""
    return None if frequency is None or math.isnan(frequency) else float(frequency)


def frequency_band(frequency: float | None) -> str:
    frequency = known(frequency)
    if frequency is None:
        return "frequency not given"
    return next(name for lowest, name in BANDS if frequency >= lowest)


def frequency_text(frequency: float | None) -> str:
    """'80-99 %' for HPO's very frequent, '70 %' for 7 of 10 patients, 'frequency not given'."""
    frequency = known(frequency)
    if frequency is None:
        return "frequency not given"
    return BAND_RANGES.get(round(frequency, 3), f"{round(100 * frequency)} %")


def is_cardinal(frequency: float | None, ic: float) -> bool:
    """Frequent in the disease (very frequent or obligate, given) and rare elsewhere (ic >= CARDINAL_MIN_IC)."""
    frequency = known(frequency)
    return frequency is not None and frequency >= CARDINAL_MIN_FREQUENCY and ic >= CARDINAL_MIN_IC


def cardinal_weight(frequency: float | None, ic: float) -> float:
    """How much one finding says of the disease: its frequency (UNKNOWN_FREQUENCY when not given) times its
    information content."""
    frequency = known(frequency)
    return (UNKNOWN_FREQUENCY if frequency is None else frequency) * max(float(ic), 0.0)


def reading_rank(frequency: float | None) -> int:
    """0: very frequent or obligate; 1: frequent; 2: not given; 3: occasional; 4: very rare or excluded."""
    frequency = known(frequency)
    if frequency is None:
        return 2
    return 0 if frequency >= CARDINAL_MIN_FREQUENCY else 1 if frequency >= FREQUENT else 3 if frequency >= RARE else 4


@dataclass(frozen=True)
class Finding:
    term: int  # the term's number in HpoProfiles
    hpo_id: str
    name: str
    frequency: float | None  # the share of patients; None when not given
    ic: float
    facial: bool  # seen on the face, eyes or ears (functional terms aside)
    patients: int = 0  # the published patients a counted frequency comes from (0: a stated band or percentage)

    @property
    def counted(self) -> float | None:
        """The frequency as the disease's: None when not given or counted in fewer than MIN_PATIENTS patients."""
        return None if 0 < self.patients < MIN_PATIENTS else known(self.frequency)

    @property
    def cardinal(self) -> bool:
        return is_cardinal(self.counted, self.ic)

    @property
    def band(self) -> str:
        return frequency_band(self.counted)

    @property
    def text(self) -> str:
        """'80-99 %', '49 % of 69 patients', '2 of 3 patients', 'frequency not given'."""
        if self.patients and known(self.frequency) is not None:
            counted = round(self.frequency * self.patients)
            if self.patients < MIN_PATIENTS:
                return f"{counted} of {self.patients} patients"
            return f"{round(100 * self.frequency)} % of {self.patients} patients"
        return frequency_text(self.frequency)

    def order_key(self) -> tuple:
        return reading_rank(self.counted), -self.ic, self.name


def disease_findings(hpo: HpoProfiles, annotations: Mapping[int, float],
                     patients: Mapping[int, int] | None = None) -> list[Finding]:
    """Every finding of one disease, in reading order: by frequency band, then the most specific first.
    `patients`: term -> the published patients its frequency was counted in (none: stated frequencies)."""
    functional = _functional(hpo)
    patients = patients or {}
    found = [Finding(term, hpo.terms[term], hpo.names[term], known(frequency), float(hpo.ic[term]),
                     bool(hpo.facial[term]) and not functional(term), patients.get(term, 0))
             for term, frequency in annotations.items() if known(frequency) != 0]
    return sorted(found, key=Finding.order_key)


def cardinal_features(hpo: HpoProfiles, annotations: Mapping[int, float]) -> list[Finding]:
    """The disease's cardinal findings, in reading order."""
    return [finding for finding in disease_findings(hpo, annotations) if finding.cardinal]


def ancestors(hpo: HpoProfiles, term: int) -> set[int]:
    """The term's ancestors within HPO's phenotypic abnormality, itself excluded."""
    found, todo = set(), list(hpo.parents[term])
    while todo:
        parent = todo.pop()
        if parent not in found:
            found.add(parent)
            todo.extend(hpo.parents[parent])
    return found


def _functional(hpo: HpoProfiles):
    roots = {hpo.index[root] for root in FUNCTIONAL_ROOTS if root in hpo.index}
    return lambda term: term in roots or bool(roots & ancestors(hpo, term))


@dataclass
class DiseaseAnnotations:
    """HPO's whole annotation of each graph disease node (facial or not): node -> {term number: frequency
    (NaN: not given)}, and node -> the terms HPO says it lacks (NOT annotations). Built by the service
    layer from the differential's copy (`diagnosis.profiles.DiseaseProfiles`), shared, never copied."""

    hpo: HpoProfiles
    terms: Mapping[int, Mapping[int, float]]
    excluded: Mapping[int, Set[int]] = field(default_factory=dict)

    def findings(self, node: int) -> list[Finding]:
        return disease_findings(self.hpo, self.terms.get(node, {}))

    def findings_of(self, disease_ids: list[str], node: int | None = None) -> list[Finding]:
        """The findings HPO annotates to these OMIM and ORPHA entries (one disease's, or a disease's and its
        group's of one), each with the frequency a reader is told (`HpoProfiles.stated_frequency`): a stated
        band or percentage first, else the count from the most patients. Without stated frequencies (an older
        profile), the node's own annotation."""
        if self.hpo.stated_frequency is None:
            return self.findings(node) if node is not None else []
        frequencies: dict[int, float] = {}
        patients: dict[int, int] = {}
        for disease in disease_ids:
            number = self.hpo.disease_index.get(disease)
            if number is None:
                continue
            rows = _rows_of(self.hpo, number)
            for term, frequency, counted in zip(self.hpo.annotated_term[rows].tolist(),
                                                self.hpo.stated_frequency[rows].tolist(),
                                                self.hpo.stated_patients[rows].tolist(), strict=True):
                if _better(frequency, counted, frequencies.get(term), patients.get(term, 0)):
                    frequencies[term], patients[term] = frequency, counted
        return disease_findings(self.hpo, frequencies, patients)

    def inheritance(self, disease_ids: list[str]) -> list[str]:
        """HPO's modes of inheritance of a disease's OMIM and ORPHA entries, each once."""
        return list(dict.fromkeys(mode for disease in disease_ids for mode in self.hpo.inheritance.get(disease, ())))


def _rows_of(hpo: HpoProfiles, number: int) -> slice:
    """The annotation rows of one disease (they are sorted by disease number)."""
    start, end = np.searchsorted(hpo.annotated_disease, [number, number + 1])
    return slice(int(start), int(end))


def _better(frequency: float, counted: int, than: float | None, than_counted: int) -> bool:
    """Whether one entry's stated frequency is better told than another's: any over none, a stated band or
    percentage over a count, a count from more patients over one from fewer, then the higher."""
    if than is None or math.isnan(than):
        return True
    if math.isnan(frequency):
        return False
    if (counted == 0) != (than_counted == 0):
        return counted == 0
    if counted != than_counted:
        return counted > than_counted
    return frequency > than
