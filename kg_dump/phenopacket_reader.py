"""GA4GH phenopackets: one published patient each, read with the GA4GH schema itself.

A file is parsed by protobuf's `json_format.Parse` into the `phenopackets` package's Phenopacket v2
class, which is the schema check (an unknown field, a wrong type or an invalid enum value fails),
then reduced to what the graph and the differential use: sex, age, findings present and excluded
(with onset), the diagnosis (an OMIM, ORPHA or MONDO id), the genomic interpretations (gene, HGVS,
zygosity) and the paper's PMID. A patient with no gene or no HGVS (a chromosomal deletion, a
structural variant) is kept with what it has; a file that is no usable phenopacket raises
`PhenopacketError` saying why.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from fpkg.errors import PhenopacketError

DISEASE_PREFIXES = ("OMIM:", "ORPHA:", "MONDO:")
# HPO's onset classes (timeAtLastEncounter or onset given as a class): a representative age in years
ONSET_CLASS_YEARS = {
    "HP:0030674": 0.0,  # antenatal
    "HP:0011460": 0.0, "HP:0011461": 0.0,  # embryonal, fetal
    "HP:0003577": 0.0,  # congenital
    "HP:0003623": 0.02,  # neonatal
    "HP:0003593": 0.5,  # infantile
    "HP:0011463": 3.0,  # childhood
    "HP:0410280": 5.0,  # pediatric
    "HP:0003621": 10.0,  # juvenile
    "HP:0003581": 30.0,  # adult
    "HP:0011462": 25.0,  # young adult
    "HP:0003596": 50.0,  # middle age
    "HP:0003584": 70.0,  # late
}
_DURATION = re.compile(r"^P(?:(\d+(?:\.\d+)?)Y)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?$")
_SEXES = {"FEMALE": "female", "MALE": "male"}
_HGVS_ORDER = ("hgvs.c", "hgvs", "hgvs.p", "hgvs.g")  # the change a clinician reads first


@dataclass(frozen=True)
class Finding:
    hpo_id: str
    label: str
    onset_years: float | None = None


@dataclass(frozen=True)
class PublishedVariant:
    gene: str | None  # the HGNC symbol (None: a deletion of many genes, say)
    hgvs: str | None  # the c. change where given (transcript included), else p. or g.
    protein: str | None = None  # the p. change, where given beside the c. one
    zygosity: str | None = None  # heterozygous, homozygous, hemizygous, ...
    description: str | None = None  # what the file says of a variant without HGVS (a structural one)


@dataclass(frozen=True)
class PublishedPatient:
    id: str  # the phenopacket's id, e.g. PMID_15266616_100
    pmid: int | None
    title: str  # the paper's title as the file gives it
    disease_id: str  # OMIM:nnnnnn (or ORPHA:/MONDO:); "" for a patient not yet diagnosed
    disease_label: str
    present: tuple[Finding, ...]
    excluded: tuple[Finding, ...]
    variants: tuple[PublishedVariant, ...]
    sex: str | None = None  # female | male | None (unknown or other)
    age_years: float | None = None  # at the last encounter
    onset_years: float | None = None  # of the disease, where the file gives it
    cohort: str = ""  # the store's folder (one cohort per gene or disease)

    @property
    def genes(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(v.gene for v in self.variants if v.gene))


def parse_phenopacket(data: str | bytes, name: str = "the file", cohort: str = "", *,
                      diagnosed: bool = True) -> PublishedPatient:
    """One patient from a Phenopacket v2 JSON text; `PhenopacketError` (saying why) when it is not one.
    `diagnosed`: a patient without a disease id is no published case (a patient to diagnose has none)."""
    from google.protobuf import json_format
    from phenopackets import Phenopacket

    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        document = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise PhenopacketError(f"{name} is not JSON: {e}") from None
    if not isinstance(document, dict):
        raise PhenopacketError(f"{name} is not a phenopacket: JSON {type(document).__name__}, not an object")
    try:
        packet = json_format.ParseDict(document, Phenopacket())
    except json_format.ParseError as e:
        raise PhenopacketError(f"{name} is not a GA4GH Phenopacket v2: {e}") from None
    return _patient(packet, name, cohort, diagnosed)


def _patient(packet, name: str, cohort: str, diagnosed: bool) -> PublishedPatient:
    disease_id, disease_label = _diagnosis(packet)
    if disease_id is None and diagnosed:
        raise PhenopacketError(f"{name} has no diagnosis with an OMIM, ORPHA or MONDO disease id")
    present, excluded = [], []
    for feature in packet.phenotypic_features:
        if not feature.type.id.startswith("HP:"):
            continue
        finding = Finding(feature.type.id, feature.type.label, _years(feature.onset))
        (excluded if feature.excluded else present).append(finding)
    if not present and not excluded:
        raise PhenopacketError(f"{name} lists no HPO finding, present or excluded")
    pmid, title = _paper(packet)
    onset = next((_years(d.onset) for d in packet.diseases if d.term.id == disease_id and d.HasField("onset")), None)
    return PublishedPatient(
        id=packet.id or name, pmid=pmid, title=title, disease_id=disease_id or "", disease_label=disease_label,
        present=tuple(present), excluded=tuple(excluded), variants=_variants(packet),
        sex=_SEXES.get(_sex_name(packet.subject.sex)), age_years=_years(packet.subject.time_at_last_encounter),
        onset_years=onset, cohort=cohort)


def _diagnosis(packet) -> tuple[str | None, str]:
    """The solved interpretation's disease, else any interpretation's, else the diseases list's first."""
    interpretations = sorted(packet.interpretations, key=lambda i: i.progress_status != i.SOLVED)
    for interpretation in interpretations:
        term = interpretation.diagnosis.disease
        if term.id.startswith(DISEASE_PREFIXES):
            return term.id, term.label
    for disease in packet.diseases:
        if disease.term.id.startswith(DISEASE_PREFIXES) and not disease.excluded:
            return disease.term.id, disease.term.label
    return None, ""


def _variants(packet) -> tuple[PublishedVariant, ...]:
    found = []
    for interpretation in packet.interpretations:
        for genomic in interpretation.diagnosis.genomic_interpretations:
            if genomic.HasField("gene"):
                found.append(PublishedVariant(genomic.gene.symbol or None, None))
                continue
            descriptor = genomic.variant_interpretation.variation_descriptor
            expressions = {e.syntax: e.value for e in descriptor.expressions}
            hgvs = next((expressions[s] for s in _HGVS_ORDER if s in expressions), None)
            protein = expressions.get("hgvs.p") if hgvs != expressions.get("hgvs.p") else None
            description = descriptor.label or descriptor.description or descriptor.id or None
            found.append(PublishedVariant(descriptor.gene_context.symbol or None, hgvs, protein,
                                          descriptor.allelic_state.label or None,
                                          None if hgvs else description))
    return tuple(found)


def _paper(packet) -> tuple[int | None, str]:
    for reference in packet.meta_data.external_references:
        if reference.id.upper().startswith("PMID:") and reference.id[5:].strip().isdigit():
            return int(reference.id[5:]), reference.description
    return None, ""


def _sex_name(value: int) -> str:
    from phenopackets import Sex

    return Sex.Name(value)


def _years(element) -> float | None:
    """A TimeElement as years: an ISO 8601 duration, a gestational age (before birth: 0), an onset class."""
    kind = element.WhichOneof("element")
    if kind == "age":
        return duration_years(element.age.iso8601duration)
    if kind == "gestational_age":
        return 0.0
    if kind == "ontology_class":
        return ONSET_CLASS_YEARS.get(element.ontology_class.id)
    if kind == "age_range":
        start, end = duration_years(element.age_range.start.iso8601duration), \
            duration_years(element.age_range.end.iso8601duration)
        return (start + end) / 2 if start is not None and end is not None else start if end is None else end
    return None


def duration_years(text: str) -> float | None:
    """'P6Y' -> 6, 'P10Y6M' -> 10.5, 'P14D' -> 0.038; None when it is no duration."""
    found = _DURATION.match((text or "").strip().upper())
    if not found or not any(found.groups()):
        return None
    years, months, weeks, days = (float(part) if part else 0.0 for part in found.groups())
    return round(years + months / 12 + weeks / 52.18 + days / 365.25, 4)
