"""A case from all the form gives: its structured fields, a free-text description, a GA4GH phenopacket.

The description goes through the reader (`service.reader`), the phenopacket through the GA4GH
schema (`kg_dump.phenopacket_reader`). The structured fields win where they disagree: a gene, a variant,
an age or a sex the fields give is kept, and a finding they give present stays present. The description's
findings join the fields' (a clinician may type some in each); the phenopacket fills what the fields leave
empty (the page copies an uploaded phenopacket into the fields for the user to check, so only a field left
empty takes it again). Every choice between them is said in a notice, and so is every part of the
description that was not read.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from diagnosis.ontology import PhenotypeOntology
from diagnosis.ranker import DiagnosisCase
from fpkg.errors import InputError, PhenopacketError
from fpkg.names import normalise
from kg_dump.phenopacket_reader import PublishedPatient, parse_phenopacket
from service.validation import MAX_DESCRIPTION_CHARS, MAX_PHENOPACKET_BYTES, clean_text


@dataclass(frozen=True)
class Composed:
    case: DiagnosisCase
    notices: list[str]  # what was chosen between the inputs, and what was not read
    packet: PublishedPatient | None = None  # the phenopacket read, for the Interpretation export


def read_phenopacket(text: object) -> PublishedPatient:
    """The phenopacket in `text` (JSON), or InputError saying what is wrong with it."""
    raw = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text or "")
    size = len(raw.encode("utf-8"))
    if size > MAX_PHENOPACKET_BYTES:
        raise InputError(f"The phenopacket is {size:,} bytes; the limit is {MAX_PHENOPACKET_BYTES:,} "
                         "(one patient's phenopacket is a few kB).", "phenopacket")
    try:
        packet = parse_phenopacket(raw, "The phenopacket", diagnosed=False)
    except PhenopacketError as e:
        raise InputError(f"{e}. Give one GA4GH Phenopacket v2 as JSON.", "phenopacket") from None
    if not packet.present:
        raise InputError("The phenopacket lists no present finding (only excluded ones): there is nothing to "
                         "diagnose from.", "phenopacket")
    return packet


def packet_case(packet: PublishedPatient, ontology: PhenotypeOntology) -> DiagnosisCase:
    """The phenopacket's patient as a case: its findings by the HPO release's label of their id (a newer
    label may not be this release's: "Mild intellectual disability" is "Intellectual disability, mild"
    here), else the file's label, facial ones apart from the others; its excluded findings absent, its
    first gene and variant, age and sex."""
    def name(finding) -> str:
        term = ontology.index_of_hpo.get(finding.hpo_id)
        return (ontology.names[term] if term is not None else "") or finding.label or finding.hpo_id

    def is_facial(hpo_id: str) -> bool:
        term = ontology.index_of_hpo.get(hpo_id)
        return bool(term is not None and ontology.facial[term])

    variant = next((v for v in packet.variants if v.gene), packet.variants[0] if packet.variants else None)
    return DiagnosisCase(phenotypes=tuple(name(f) for f in packet.present if is_facial(f.hpo_id)),
                         other_findings=tuple(name(f) for f in packet.present if not is_facial(f.hpo_id)),
                         excluded=tuple(name(f) for f in packet.excluded),
                         gene=variant.gene if variant else None, variant=variant.hgvs if variant else None,
                         age_years=packet.age_years, sex=packet.sex,
                         terms=tuple((name(f), f.hpo_id) for f in (*packet.present, *packet.excluded)))


def check_description(text: object) -> str:
    description = clean_text(text)
    if len(description) > MAX_DESCRIPTION_CHARS:
        raise InputError(f"The description is {len(description):,} characters long; the limit is "
                         f"{MAX_DESCRIPTION_CHARS:,}. Shorten it: nothing was read.", "description")
    return description


def combine(form: DiagnosisCase, described: DiagnosisCase | None = None,
            packet: DiagnosisCase | None = None) -> tuple[DiagnosisCase, list[str]]:
    """The form's case with the description's and the phenopacket's (see the module's docstring)."""
    case, notices = form, []
    if described is not None:
        case, said = _with(case, described, "the description", fill_findings=False)
        notices += said
    if packet is not None:
        case, said = _with(case, packet, "the phenopacket", fill_findings=True)
        notices += said
    return case, notices


_SCALARS = (("gene", "gene"), ("variant", "variant"), ("age_years", "age"), ("sex", "sex"),
            ("ethnicity", "ethnicity"))


def _with(case: DiagnosisCase, other: DiagnosisCase, source: str, *,
          fill_findings: bool) -> tuple[DiagnosisCase, list[str]]:
    changes, notices = {}, []
    for key, words in _SCALARS:
        mine, theirs = getattr(case, key), getattr(other, key)
        if theirs in (None, ""):
            continue
        if mine in (None, ""):
            changes[key] = theirs
        elif _differs(mine, theirs):
            notices.append(f"The form's {words} {_shown(mine)} was used; {source} gives {_shown(theirs)}.")
    given = [*case.phenotypes, *case.other_findings, *case.excluded]
    if fill_findings and given:
        left = len(other.phenotypes) + len(other.other_findings) + len(other.excluded)
        if left:
            notices.append(f"The form's findings were used; {source}'s {left} were not (clear the findings "
                           f"to use {source}'s).")
    else:
        present = {normalise(f) for f in (*case.phenotypes, *case.other_findings)}
        absent = {normalise(f) for f in case.excluded}
        overruled = [f for f in other.excluded if normalise(f) in present]
        overruled += [f for f in (*other.phenotypes, *other.other_findings) if normalise(f) in absent]
        if overruled:
            notices.append(f"The form's reading was kept where {source} says otherwise: "
                           f"{', '.join(overruled)}.")
        known = present | absent
        changes["phenotypes"] = _joined(case.phenotypes, other.phenotypes, known)
        changes["other_findings"] = _joined(case.other_findings, other.other_findings, known)
        changes["excluded"] = _joined(case.excluded, other.excluded, known)
    changes["terms"] = tuple({**dict(other.terms), **dict(case.terms)}.items())  # each finding's HPO id, once
    return replace(case, **changes), notices


def _joined(mine: tuple[str, ...], theirs: tuple[str, ...], known: set[str]) -> tuple[str, ...]:
    return (*mine, *(f for f in dict.fromkeys(theirs) if normalise(f) not in known))


def _differs(mine: object, theirs: object) -> bool:
    if isinstance(mine, float) or isinstance(theirs, float):
        return abs(float(mine) - float(theirs)) > 0.05
    return normalise(str(mine)) != normalise(str(theirs))


def _shown(value: object) -> str:
    return f"{value:g} years" if isinstance(value, float) else repr(value)


def compose(pipeline, form: DiagnosisCase, description: object = None, phenopacket: object = None) -> Composed:
    """The case from the form's fields, its description and its phenopacket (JSON text), each checked;
    InputError saying what is wrong with one that cannot be read."""
    described, notices = None, []
    text = check_description(description)
    if text:
        reading = pipeline.read(text)
        described, notices = reading.case(), reading.notices()
    packet = read_phenopacket(phenopacket) if str(phenopacket or "").strip() else None
    from_packet = packet_case(packet, pipeline.ontology) if packet else None
    case, said = combine(form, described, from_packet)
    return Composed(case, said + notices, packet)

