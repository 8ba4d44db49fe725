"""Who the patient is: its sex against the disease's modes of inheritance, its age against the disease's
onset, as HPO annotates them (phenotype.hpoa's inheritance and clinical-course rows). Soft: a log
likelihood ratio, zero when nothing speaks against the disease, negative when something does."""

from __future__ import annotations

import math

from diagnosis.evidence.base import CaseEvidence, EvidenceKind, Part

X_LINKED_RECESSIVE = "X-linked recessive inheritance"
Y_LINKED = "Y-linked inheritance"
# an affected girl with an X-linked recessive disease is rare (skewed X inactivation, Turner syndrome), a
# Y-linked one rarer still
FEMALE_RATIO = {X_LINKED_RECESSIVE: 0.15, Y_LINKED: 0.01}
# HPO's onset classes: the age (years) from which each begins
ONSET_FROM = {"HP:0030674": 0, "HP:0011460": 0, "HP:0011461": 0, "HP:0003577": 0, "HP:0003623": 0,
              "HP:0003593": 0.08, "HP:0011463": 1, "HP:0410280": 1, "HP:0003621": 5, "HP:0011462": 16,
              "HP:0003581": 16, "HP:0003596": 40, "HP:0003584": 60}
ONSET_NAMES = {"HP:0003621": "juvenile", "HP:0011462": "young adult", "HP:0003581": "adult",
               "HP:0003596": "middle age", "HP:0003584": "late"}
TOO_YOUNG_RATIO = 0.3  # younger than the disease's earliest onset: a first sign early is rare, not impossible
YOUNGER_BY = 2.0  # years under the onset (and under half of it) before the age speaks against it


class PatientFit(EvidenceKind):
    name = "patient"

    def part(self, disease: int, case: CaseEvidence) -> Part | None:
        profiles = case.knowledge.profiles
        ratio, lines = 1.0, []
        modes = profiles.modes(disease, case.hold_out)
        if case.sex == "female" and modes and all(mode in FEMALE_RATIO for mode in modes):
            ratio *= min(FEMALE_RATIO[mode] for mode in modes)
            lines.append(f"a girl or woman, and HPO gives it {' and '.join(sorted(modes)).lower()} only")
        onsets = [o for o in profiles.onsets(disease, case.hold_out) if o in ONSET_FROM]
        if case.age_years is not None and onsets:
            earliest = min(onsets, key=ONSET_FROM.get)
            begins = ONSET_FROM[earliest]
            if begins - case.age_years >= YOUNGER_BY and case.age_years < begins / 2:
                ratio *= TOO_YOUNG_RATIO
                lines.append(f"{case.age_years:g} years old, and HPO gives its onset as "
                             f"{ONSET_NAMES.get(earliest, 'later')} at the earliest (from {begins:g} years)")
        if ratio == 1.0:
            return None
        return Part(math.log(ratio), "; ".join(lines))
