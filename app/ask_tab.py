"""The Ask tab's layout: the question and its settings across the top, the answer below at the page's full
width (its Markdown tables and numbered lists: app/page_style.py), then how the names were read, the whole
ranked list as a file, and the evidence."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from app import ui_examples
from app.diagnosis_tab import LANGUAGES_READ
from app.panels import char_counter, evidence_panels, form_message, settings_row
from service.validation import MAX_QUESTION_CHARS


@dataclass
class AskTab:
    inputs: list  # question, mode, backend, temperature
    outputs: list  # /ask's and the page's: answer, notices, triples, Cypher, picture, timings
    answer: gr.Markdown
    message: gr.Markdown
    submit: gr.Button
    question: gr.Textbox
    mode: gr.Radio
    full_list: gr.File


def build_tab(backends: list[str], default_backend: str) -> AskTab:
    with gr.Row(equal_height=False):
        with gr.Column(scale=3, min_width=300):
            question = gr.Textbox(label="Question", lines=3, elem_id="ask-question",
                                  placeholder="e.g. What facial phenotypes are associated with Crouzon syndrome?",
                                  info=f"{LANGUAGES_READ}; answered in English")
            char_counter(question, MAX_QUESTION_CHARS, "ask-question-count")
        with gr.Column(scale=2, min_width=260):
            mode, backend, temperature = settings_row("ask", backends, default_backend)
            submit = gr.Button("Ask", variant="primary", elem_id="ask-submit")
            message = form_message("ask-message")
    gr.Examples([[q] for q in ui_examples.QUESTIONS], inputs=[question], label="Questions")
    answer = gr.Markdown("_The answer appears here._", elem_id="ask-answer", container=True, line_breaks=True)
    with gr.Accordion("How the names were read", open=True):
        notices = gr.Markdown("", elem_id="ask-notices")
    full_list = gr.File(label="The full list, ranked (CSV)", interactive=False, elem_id="ask-list")
    evidence = evidence_panels("ask")
    return AskTab([question, mode, backend, temperature], [answer, notices, *evidence.outputs()], answer, message,
                  submit, question, mode, full_list)
