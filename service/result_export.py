"""The differential as files other tools read.

- A TSV: PhEval's standardised disease result columns first (disease_name, disease_identifier, score), then
  the rank, each kind of evidence's part, each present finding's share of the profile part (how much of
  what it says the disease's annotations and published patients explain), and the knowledge it came from.
- A GA4GH Phenopacket v2 carrying the differential as its interpretations, one per ranked disease (status
  in progress, the rank and score in its summary): the phenopacket the user gave, or one made from the form
  (subject, findings present and excluded by HPO id, the gene). It parses back through the `phenopackets`
  package. Both name the sources' releases.
"""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime

import numpy as np

from diagnosis.ranker import PART_NAMES, DiagnosisCase, RankedDisease

PHEVAL_COLUMNS = ("disease_name", "disease_identifier", "score")
PRODUCER = "FPKG-RAG"
FINDING_TYPES = ("FACIAL_PHENOTYPE", "FINDING")
ABSENT = "ABSENT_FINDING"


def differential_tsv(ranked: list[RankedDisease], shares: dict[int, list[float]], findings: list[str],
                     knowledge: str) -> str:
    """`shares`: each ranked disease node's share of its profile part per finding, in `findings`' order."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter="\t", lineterminator="\n")
    writer.writerow([*PHEVAL_COLUMNS, "rank", *PART_NAMES, *(f"finding: {name}" for name in findings), "knowledge"])
    for rank, disease in enumerate(ranked, start=1):
        per_finding = shares.get(disease.node_id) or [0.0] * len(findings)
        writer.writerow([disease.name, disease.disease_id or "", round(disease.score, 4), rank,
                         *(round(disease.parts.get(kind, 0.0), 4) for kind in PART_NAMES),
                         *(round(share, 4) for share in per_finding), knowledge])
    return out.getvalue()


def interpretation_phenopacket(ranked: list[RankedDisease], case: DiagnosisCase, findings: list[tuple[str, str, bool]],
                               knowledge: str, hpo_version: str, given: str | None = None) -> str:
    """The phenopacket (`given`, JSON, else one made from `case` and its `findings` as read: (HPO id, label,
    excluded)) with the differential added as its interpretations, as JSON."""
    from google.protobuf import json_format
    from phenopackets import (
        Diagnosis,
        ExternalReference,
        GeneDescriptor,
        GenomicInterpretation,
        Interpretation,
        OntologyClass,
        Phenopacket,
        Update,
    )

    now = datetime.now(UTC).replace(microsecond=0)
    if given:
        packet = json_format.Parse(given, Phenopacket())
        update = Update(updated_by=PRODUCER, comment="the differential added as interpretations")
        update.timestamp.FromDatetime(now)
        packet.meta_data.updates.append(update)
    else:
        packet = _from_case(case, findings, hpo_version, now)
    packet.meta_data.external_references.append(ExternalReference(id=PRODUCER, description=f"knowledge: {knowledge}"))
    subject = packet.subject.id or packet.id
    for rank, disease in enumerate(ranked, start=1):
        diagnosis = Diagnosis(disease=OntologyClass(id=disease.disease_id or "", label=disease.name))
        if case.gene and "gene" in disease.parts:
            diagnosis.genomic_interpretations.append(GenomicInterpretation(
                subject_or_biosample_id=subject, interpretation_status=GenomicInterpretation.CANDIDATE,
                gene=GeneDescriptor(value_id=case.gene, symbol=case.gene)))
        packet.interpretations.append(Interpretation(
            id=f"{PRODUCER.lower()}-{rank}", progress_status=Interpretation.IN_PROGRESS, diagnosis=diagnosis,
            summary=f"{PRODUCER} differential, rank {rank}, score {disease.score:.4g}: "
                    + "; ".join(disease.evidence)[:2000]))
    return json_format.MessageToJson(packet, indent=1)


def _from_case(case: DiagnosisCase, findings: list[tuple[str, str, bool]], hpo_version: str, now: datetime):
    from phenopackets import Individual, MetaData, OntologyClass, Phenopacket, PhenotypicFeature, Resource, Sex

    packet = Phenopacket(id=f"{PRODUCER.lower()}-case", subject=Individual(id="patient"))
    if case.sex in ("female", "male"):
        packet.subject.sex = Sex.Value(case.sex.upper())
    if case.age_years is not None:
        packet.subject.time_at_last_encounter.age.iso8601duration = _duration(case.age_years)
    for hpo_id, label, excluded in findings:
        packet.phenotypic_features.append(PhenotypicFeature(type=OntologyClass(id=hpo_id, label=label),
                                                            excluded=excluded))
    packet.meta_data.CopyFrom(MetaData(created_by=PRODUCER, phenopacket_schema_version="2.0", resources=[
        Resource(id="hp", name="human phenotype ontology", url="http://purl.obolibrary.org/obo/hp.owl",
                 version=hpo_version, namespace_prefix="HP", iri_prefix="http://purl.obolibrary.org/obo/HP_")]))
    packet.meta_data.created.FromDatetime(now)
    return packet


def _duration(years: float) -> str:
    whole = int(years)
    months = round((years - whole) * 12)
    return f"P{whole}Y{months}M" if months else f"P{whole}Y"


def differential_files(pipeline, case: DiagnosisCase, given: str | None = None) -> tuple[str, str]:
    """(the TSV, the phenopacket JSON) of `case`'s differential, ranked as the answer ranks it."""
    from service.validation import validate_case

    case = validate_case(case)
    diagnosis = pipeline.rank(case)
    ontology = pipeline.ontology
    terms = [(link, term) for link in diagnosis.links if link.type in (*FINDING_TYPES, ABSENT)
             and (term := pipeline.ranker.term_of(link)) is not None]
    read = [(ontology.hpo_ids[term], ontology.names[term] or link.name or link.mention, link.type == ABSENT)
            for link, term in terms if ontology.hpo_ids[term]]  # (FPKG's own terms have no HPO id)
    terms = [(link, term) for link, term in terms if link.type != ABSENT]
    names = [ontology.names[term] or link.name or link.mention for link, term in terms]
    shares = {r.node_id: finding_shares(pipeline.ranker.profile_matcher, [t for _, t in terms], r)
              for r in diagnosis.ranked if r.node_id is not None}
    hpo_version = pipeline.build_report.hpo_release.rsplit("/", 1)[-1] if pipeline.build_report else ""
    return (differential_tsv(diagnosis.ranked, shares, names, pipeline.knowledge),
            interpretation_phenopacket(diagnosis.ranked, case, read, pipeline.knowledge, hpo_version, given))


def finding_shares(profiles, terms: list[int], disease: RankedDisease) -> list[float]:
    """Each finding's share of the disease's profile part: the information of its best match in the
    disease's annotations and published patients, of all the findings' (a group shown first: its first
    member's)."""
    disease = disease.ranked_members[0] if disease.ranked_members else disease
    part = disease.parts.get("profile", 0.0)
    row = int(np.searchsorted(profiles.diseases, disease.node_id)) if disease.node_id is not None else -1
    if not terms or not part or row < 0 or row >= len(profiles.diseases) or profiles.diseases[row] != disease.node_id:
        return [0.0] * len(terms)
    best = np.array([profiles.rows.best_matches(term)[row] for term in terms], dtype=np.float64)
    return (part * best / best.sum()).tolist() if best.sum() > 0 else [0.0] * len(terms)
