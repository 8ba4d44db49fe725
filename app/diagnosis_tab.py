"""The Diagnosis tab's layout: the case form on the left; on the right, the answer in a glance.

The answer reads top down: the summary (the most likely disease or group with its id, the confidence in words
and as a figure, the facts it rests on) with the "not a medical device" line beside it; the ranked differential
right under it, a row per disease that opens to all its evidence (app/answer_view.py); how the case was read;
the answer in full (the API's text, with the published patients like this one); the files; the triples, the
Cypher, the evidence picture and the timings. On a phone the two columns stack: form, then answer.

The API's `/diagnose` returns what it always has (docs/app.md): its ranked table and confidence are outputs
of their own that the page does not show (the summary and the differential say the same).
"""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from app import ui_examples
from app.access import Access
from app.answer_view import PLACEHOLDER
from app.case_files import fill_form, read_upload
from app.form_checks import packet_checks
from app.form_fields import DiseaseNames, findings_box, option_box, sex_box, suggest
from app.gradio_bind import bind
from app.panels import char_counter, evidence_panels, form_message, settings_row
from app.ui_examples import FORM_LETTERS
from app.ui_format import EMPTY_RANKED
from kg_dump.translations import LANGUAGES
from service.pipeline import Pipeline
from service.validation import MAX_DESCRIPTION_CHARS

# what the page says it reads (service/languages.py: the HPO's translations)
LANGUAGES_READ = "in English, " + ", ".join(LANGUAGES.values()).replace(", Chinese", " or Chinese")
DISCLAIMER = ("**Not a medical device.** For research and education only: the ranking is what the knowledge "
              "graph holds, not a clinical assessment.")


@dataclass
class DiagnosisTab:
    form: list  # the fields an example fills: age, sex, ethnicity, gene, variant, findings, selective, options
    inputs: list  # the handler's: the form, mode, backend, temperature, description, phenopacket
    page_outputs: list  # summary, differential, notices, answer, triples, Cypher, picture, timings, message
    api_outputs: list  # /diagnose's: answer, notices, ranked, triples, Cypher, picture, timings, confidence
    answer: gr.Markdown
    message: gr.Markdown
    submit: gr.Button
    files: list  # the differential as TSV, and as a phenopacket's interpretations
    description: gr.Textbox
    phenopacket: gr.Textbox


def build_tab(pipeline: Pipeline, access: Access, backends: list[str], default_backend: str) -> DiagnosisTab:
    with gr.Row():
        with gr.Column(scale=2, min_width=300):
            form, options_group, selective, description, phenopacket, packet = _case_form(pipeline)
            mode, backend, temperature = settings_row("diag", backends, default_backend)
            submit = gr.Button("Diagnose", variant="primary", elem_id="diag-submit")
            message = form_message("diag-message")
            examples = ui_examples.publication_examples(pipeline)
            if examples:
                gr.Examples(examples, inputs=form, label="Cases from the Publication set",
                            example_labels=[ui_examples.example_label(row) for row in examples])
        with gr.Column(scale=3, min_width=300):
            with gr.Row(equal_height=False):  # side by side, stacked on a phone
                with gr.Column(scale=4, min_width=260):
                    summary = gr.Markdown(PLACEHOLDER, elem_id="diag-summary", container=True)
                with gr.Column(scale=1, min_width=160):
                    gr.Markdown(DISCLAIMER, elem_id="diag-disclaimer")
            differential = gr.Markdown("", elem_id="diag-differential")
            with gr.Accordion("How the case was read", open=True):
                notices = gr.Markdown("", elem_id="diag-notices")
            with gr.Accordion("The answer in full (with the published patients like this one)", open=True):
                answer = gr.Markdown("", elem_id="diag-answer", line_breaks=True)
            with gr.Row():
                files = [gr.File(label="The differential (TSV, PhEval's columns first)", interactive=False,
                                 elem_id="diag-tsv", min_width=200),
                         gr.File(label="The phenopacket with the differential (GA4GH interpretations)",
                                 interactive=False, elem_id="diag-interpretation", min_width=200)]
            evidence = evidence_panels("diag")
            # the API's own outputs, not shown: the summary and the differential above say the same
            ranked = gr.Dataframe(headers=EMPTY_RANKED, interactive=False, visible=False, elem_id="diag-ranked")
            confidence = gr.Markdown("", visible=False, elem_id="diag-confidence")
    _wire_form(pipeline, access, form, options_group, selective, phenopacket, packet)
    return DiagnosisTab(form, [*form, mode, backend, temperature, description, phenopacket],
                        [summary, differential, notices, answer, *evidence.outputs(), message],
                        [answer, notices, ranked, *evidence.outputs(), confidence],
                        answer, message, submit, files, description, phenopacket)


def _case_form(pipeline: Pipeline) -> tuple:
    with gr.Row():
        age = gr.Textbox(label="Age (years)", placeholder="e.g. 5 or 18 months", elem_id="diag-age", min_width=120)
        sex = sex_box(value=None, label="Sex", elem_id="diag-sex", min_width=120)
        ethnicity = gr.Textbox(label="Ethnicity", elem_id="diag-ethnicity", min_width=120)
    with gr.Row():
        gene = gr.Textbox(label="Gene", placeholder="e.g. CHD7", elem_id="diag-gene", min_width=120)
        variant = gr.Textbox(label="Variant (HGVS)", placeholder="e.g. c.2443-2A>G", elem_id="diag-variant",
                             min_width=120)
    phenotypes = findings_box(ui_examples.phenotype_choices(pipeline.linker), value=[], label="Facial phenotypes",
                              info="type to search names and synonyms (the HPO's labels in its languages are read "
                                   "too); free text is allowed, several findings separated by commas or semicolons",
                              elem_id="diag-phenotypes")
    description = gr.Textbox(
        label="Description (free text)", lines=3, elem_id="diag-description",
        placeholder="e.g. A 4-year-old boy with a de novo PTPN11 c.922A>G variant, hypertelorism, ptosis, low-set "
                    "ears and pulmonary valve stenosis; no intellectual disability",
        info="read by the recogniser: age, sex, gene, variant, findings present and absent (HPO ids too), "
             f"{LANGUAGES_READ}; the fields above win where they disagree; up to {MAX_DESCRIPTION_CHARS:,} "
             "characters")
    char_counter(description, MAX_DESCRIPTION_CHARS, "diag-description-count")
    with gr.Accordion("A GA4GH phenopacket (JSON)", open=False, elem_id="diag-phenopacket-box"):
        packet_file = gr.File(label="Upload a phenopacket", file_types=[".json"], type="filepath",
                              elem_id="diag-phenopacket-file")
        phenopacket = gr.Textbox(label="or paste one", lines=4, elem_id="diag-phenopacket",
                                 info="its findings, gene, variant, age and sex fill the form for you to check; a "
                                      "field you fill wins")
        packet_fill = gr.Button("Read it into the form", size="sm", elem_id="diag-phenopacket-fill")
        packet_read = gr.Markdown("", elem_id="diag-phenopacket-read")
    selective = gr.Checkbox(label="Selective question (four answer options)", value=False, elem_id="diag-selective")
    with gr.Group(visible=False) as options_group, gr.Row():
        option_fields = [option_box(label=f"Option {letter}", elem_id=f"diag-option-{letter}", min_width=140)
                         for letter in FORM_LETTERS]
    form = [age, sex, ethnicity, gene, variant, phenotypes, selective, *option_fields]
    return form, options_group, selective, description, phenopacket, (packet_file, packet_fill, packet_read)


def _wire_form(pipeline: Pipeline, access: Access, form: list, options_group, selective, phenopacket,
               packet: tuple) -> None:
    """The form's own events: the options shown for a selective question, disease names suggested in them as
    the user types (asked of the server), a phenopacket read into the fields."""
    private = {"api_visibility": "private", "queue": False}
    selective.change(lambda on: gr.update(visible=bool(on)), selective, options_group, **private)
    disease_names = DiseaseNames(ui_examples.names_and_synonyms(pipeline.linker, "Disease"))
    for box in form[7:]:
        box.key_up(bind(suggest, disease_names), None, box, show_progress="hidden", **private)
    packet_file, packet_fill, packet_read = packet
    age, sex, _, gene, variant, phenotypes = form[:6]
    filled = [age, sex, gene, variant, phenotypes, packet_read]
    checked = {"validator": packet_checks, "api_visibility": "private"}  # a validator runs on queued events only
    packet_file.upload(bind(read_upload, access), packet_file, phenopacket, **private).success(
        bind(fill_form, pipeline, access), phenopacket, filled, **checked)
    packet_fill.click(bind(fill_form, pipeline, access), phenopacket, filled, **checked)
