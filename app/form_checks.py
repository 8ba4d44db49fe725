"""The page's checks before a request runs (Gradio's event `validator`): what the user must fix is said at the
field at fault, in the words the service layer uses, and nothing else on the page changes.

Each check runs the same validation as the handler (service/validation.py, service/case_input.py), cheaply:
the form's fields, the description's length and the phenopacket's schema, without reading the description.
An InputError names its field (`InputError.field`); the message goes there. What only the whole request can
tell (a description that gives nothing to diagnose from, a busy lane, a failing graph) is said by the
handler in the form's message (app/answer_stream.py `on_the_page`). The API's endpoints have no validator:
their error contract is the handler's `gr.Error` (docs/app.md).
"""

from __future__ import annotations

import gradio as gr

from app.case_files import fields_case
from app.gradio_bind import SERVER_PATH
from fpkg.errors import InputError
from service.case_input import check_description, read_phenopacket
from service.pipeline import Pipeline
from service.validation import (
    validate_backend,
    validate_case,
    validate_mode,
    validate_question,
    validate_temperature,
)

# each validator's inputs, as InputError.field names them, in the order of the event's inputs
DIAGNOSIS_FIELDS = ("age", "sex", "ethnicity", "gene", "variant", "phenotypes", "selective", "options", "option B",
                    "option C", "option D", "mode", "backend", "temperature", "description", "phenopacket")
QUESTION_FIELDS = ("question", "mode", "backend", "temperature")


def said_at(fields: tuple[str, ...], error: InputError | None) -> list[dict]:
    """One gr.validate per input: the error's message at its field, every other one valid. An error that names
    no field of the form passes here; the handler says it in the form's message."""
    at = error.field if error is not None and error.field in fields else None
    message = SERVER_PATH.sub(lambda m: m.group(1) or "…", str(error)) if at else ""
    return [gr.validate(field != at, message if field == at else "") for field in fields]


def diagnosis_checks(pipeline: Pipeline, age, sex, ethnicity, gene, variant, phenotypes, selective, option_a,
                     option_b, option_c, option_d, mode, backend, temperature, description=None,
                     phenopacket=None) -> list[dict]:
    """The Diagnosis form's fields, as the handler will check them (a message about the options at option A)."""
    try:
        validate_mode(mode)
        validate_backend(backend or pipeline.settings.llm_backend, pipeline.backends)
        validate_temperature(temperature or 0.0)
        case = fields_case(pipeline, age, sex, ethnicity, gene, variant, phenotypes, selective, option_a, option_b,
                           option_c, option_d)
        more = bool(check_description(description))
        if str(phenopacket or "").strip():
            read_phenopacket(phenopacket)
            more = True
        validate_case(case, complete=not more)
    except InputError as e:
        return said_at(DIAGNOSIS_FIELDS, e)
    return said_at(DIAGNOSIS_FIELDS, None)


def question_checks(pipeline: Pipeline, question, mode, backend, temperature) -> list[dict]:
    try:
        validate_question(question)
        validate_mode(mode)
        validate_backend(backend or pipeline.settings.llm_backend, pipeline.backends)
        validate_temperature(temperature or 0.0)
    except InputError as e:
        return said_at(QUESTION_FIELDS, e)
    return said_at(QUESTION_FIELDS, None)


def packet_checks(phenopacket) -> dict:
    """A pasted or uploaded phenopacket, before it is read into the form: what is wrong with it, at it. (One
    input's check is one gr.validate, not a list of one: Gradio 6 would take a list of one as valid.)"""
    try:
        if str(phenopacket or "").strip():
            read_phenopacket(phenopacket)
    except InputError as e:
        return said_at(("phenopacket",), e)[0]
    return said_at(("phenopacket",), None)[0]
