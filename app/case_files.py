"""The Diagnosis form's files: a GA4GH phenopacket in (uploaded or pasted, read into the form for the user
to check before the answer), the differential out (a TSV with PhEval's columns first, and the phenopacket
with the differential as its interpretations).

A phenopacket is patient data: it is read, shown in the form and sent back with the request, never logged;
it is kept only where the user's history is kept. The exports are private files for the one who asked,
removed after a few minutes (app/exports.py).
"""

from __future__ import annotations

import gradio as gr

from app.access import Access, allow
from app.exports import uploaded_file
from app.form_fields import parse_form_sex, split_findings
from app.ui_examples import FORM_LETTERS
from diagnosis.ranker import DiagnosisCase
from fpkg.display import age_words
from fpkg.errors import InputError
from service.case_input import Composed, compose, packet_case, read_phenopacket
from service.result_export import differential_files
from service.validation import MAX_DESCRIPTION_CHARS, MAX_FINDINGS_CHARS, MAX_PHENOPACKET_BYTES, parse_age


def read_upload(access: Access, file, request: gr.Request = None) -> str:
    """An uploaded phenopacket file's text, for the paste box (which `fill_form` then reads)."""
    allow(access, request, "diagnose")
    try:
        path = uploaded_file(file, access.exports)
        if path.stat().st_size > MAX_PHENOPACKET_BYTES:
            raise InputError(f"The file is {path.stat().st_size:,} bytes; a phenopacket may be at most "
                             f"{MAX_PHENOPACKET_BYTES:,} (one patient's is a few kB).", "phenopacket")
        return path.read_text(encoding="utf-8", errors="replace")
    except InputError as e:
        raise gr.Error(str(e), title="Please fix the input", print_exception=False) from e


def fill_form(pipeline, access: Access, text: str, request: gr.Request = None) -> tuple:
    """The form's fields from a phenopacket: (age, sex, gene, variant, findings (absent ones as 'no X'),
    what was read, in words)."""
    allow(access, request, "diagnose")
    if not str(text or "").strip():
        return (gr.skip(),) * 6
    try:
        packet = read_phenopacket(text)
    except InputError as e:
        raise gr.Error(str(e), title="Please fix the input", print_exception=False) from e
    case = packet_case(packet, pipeline.ontology)
    ids = dict(case.terms)  # each finding with its own HPO id: read back as that term, never by its name alone
    findings = [*(f"{name} ({ids[name]})" for name in (*case.phenotypes, *case.other_findings)),
                *(f"no {name} ({ids[name]})" for name in case.excluded)]
    age = age_words(case.age_years) if case.age_years is not None else ""
    read = (f"Read from the phenopacket {packet.id}: {len(packet.present)} findings present, "
            f"{len(packet.excluded)} absent" + (f", gene {case.gene}" if case.gene else "")
            + (f", variant {case.variant}" if case.variant else "") + (f", {age} old" if age else "")
            + (f", {case.sex}" if case.sex else "") + ". Check the form, then Diagnose.")
    return age, case.sex or None, case.gene or "", case.variant or "", findings, read


def form_case(pipeline, age, sex, ethnicity, gene, variant, phenotypes, selective, option_a, option_b, option_c,
              option_d, description, phenopacket) -> Composed:
    """The case the form describes: its fields, with its description and phenopacket (service.case_input);
    gr.Error saying what to fix."""
    try:
        form = fields_case(pipeline, age, sex, ethnicity, gene, variant, phenotypes, selective, option_a, option_b,
                           option_c, option_d)
        return compose(pipeline, form, description, phenopacket)
    except InputError as e:
        raise gr.Error(str(e), title="Please fix the input", print_exception=False) from e


def fields_case(pipeline, age, sex, ethnicity, gene, variant, phenotypes, selective, option_a, option_b, option_c,
                option_d) -> DiagnosisCase:
    """The case the form's fields alone describe, not yet validated; InputError naming the field at fault."""
    options = None
    if selective:
        given = zip(FORM_LETTERS, (option_a, option_b, option_c, option_d), strict=True)
        options = {letter: text for letter, text in given if text and text.strip()}
    known = _Either(pipeline.linker.vocabulary("FacePhenotype"), pipeline.findings.exact)  # any HPO name whole
    findings = split_findings(checked_findings(phenotypes), known)
    return DiagnosisCase(phenotypes=tuple(findings), gene=gene, variant=variant, age_years=parse_age(age),
                         sex=parse_form_sex(sex), ethnicity=ethnicity, options=options)


def checked_findings(phenotypes):
    """The findings box's entries, refused whole when a paste is longer than the box takes."""
    entries = [phenotypes] if isinstance(phenotypes, str) else list(phenotypes or ())
    size = sum(len(str(entry or "")) for entry in entries)
    if size > MAX_FINDINGS_CHARS:
        raise InputError(f"The findings are {size:,} characters long; the limit is {MAX_FINDINGS_CHARS:,}. Paste "
                         f"a long text into the description box instead (up to {MAX_DESCRIPTION_CHARS:,} "
                         "characters): nothing was read.", "phenotypes")
    return entries


def export_differential(pipeline, access: Access, age, sex, ethnicity, gene, variant, phenotypes, selective,
                        option_a, option_b, option_c, option_d, description, phenopacket,
                        request: gr.Request = None) -> tuple[str, str]:
    """The differential of the case the form describes (the one just answered) as two private files:
    (TSV, phenopacket JSON with the differential as its interpretations)."""
    allow(access, request, "diagnose")
    composed = form_case(pipeline, age, sex, ethnicity, gene, variant, phenotypes, selective, option_a, option_b,
                         option_c, option_d, description, phenopacket)
    given = phenopacket if str(phenopacket or "").strip() else None
    tsv, packet = differential_files(pipeline, composed.case, given)
    identity = access.identity(request)
    owner = identity.name if identity else None
    return (str(access.exports.write(owner, "differential", ".tsv", tsv)),
            str(access.exports.write(owner, "interpretation", ".json", packet)))


def export_answered(pipeline, access: Access, failed, age, sex, ethnicity, gene, variant, phenotypes, selective,
                    option_a, option_b, option_c, option_d, description, phenopacket,
                    request: gr.Request = None) -> tuple:
    """After the page's answer: its differential's files (`export_differential`); the files left as they were
    when the request failed (`failed`: the page's message)."""
    if failed:
        return gr.skip(), gr.skip()
    return export_differential(pipeline, access, age, sex, ethnicity, gene, variant, phenotypes, selective, option_a,
                               option_b, option_c, option_d, description, phenopacket, request)


class _Either:
    """A name known to any of several vocabularies (views, not copied: a union would be made per request)."""

    def __init__(self, *vocabularies):
        self.vocabularies = vocabularies

    def __contains__(self, name: object) -> bool:
        return any(name in vocabulary for vocabulary in self.vocabularies)
