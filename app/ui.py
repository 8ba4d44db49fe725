"""The Gradio app: a Diagnosis tab (a case form), an Ask tab (a free question), an Explore tab (a
gene's or disease's Sankey, app/explore_tab.py), a Curate tab (curators add facts, app/curate_tab.py),
a History tab (app/history_tab.py), an Admin tab (app/account_tab.py), an About tab.

`build_demo(pipeline, access)` returns the Blocks; the handlers are module-level functions with the
pipeline and the access policy bound (app/gradio_bind.py), so the named API endpoints `/diagnose`
and `/ask` take exactly the form's fields. Each first checks, on the server, that the request may
(app/access.py). Errors the user must fix come back as `gr.Error` with the validation message; a
failing graph store or LLM as a short message too, never a stack trace. Answers wait in lanes
(app/lanes.py: grounded and LLM answers apart, "Busy" past the LLM lane's places); a grounded answer
is sent once, whole, and its evidence picture is drawn once per distinct evidence
(app/evidence_cache.py): docs/scaling.md.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import gradio as gr

from app import about, account_tab, curate_tab, explore_tab, history_tab, ui_examples
from app.access import Access, allow
from app.ask_list import full_list as ask_list_csv
from app.case_files import export_differential, fill_form, form_case, read_upload
from app.evidence_cache import PictureCache
from app.form_fields import DiseaseNames, findings_box, option_box, sex_box, suggest
from app.gradio_bind import bind
from app.lanes import WORKERS, Lane, Lanes, ordinal
from app.ui_examples import FORM_LETTERS
from app.ui_format import (
    EMPTY_RANKED,
    TRIPLE_HEADERS,
    TRIPLE_TYPES,
    TRIPLE_WIDTHS,
    answer_markdown,
    cypher_markdown,
    evidence_image,
    notices_markdown,
    ranked_table,
    ranked_widths,
    timings,
    triple_rows,
)
from diagnosis.confidence import label as confidence_label
from fpkg.config import access_settings
from fpkg.errors import Busy, InputError, LLMError, NotReady, StoreError
from kg_dump.translations import LANGUAGES
from retrieval.retriever import MODES
from service.pipeline import Pipeline, PipelineResult
from service.validation import MAX_DESCRIPTION_CHARS

# Other queued events (Explore, Curate) at once; /diagnose and /ask run in lanes (app/lanes.py).
CONCURRENCY = 2
MAX_QUEUE = 32
# Gradio's per-session state kept in memory, the oldest session's going first: each holds a copy of
# the page's configuration (~0.5 MB here, ~12 ms of CPU to make: docs/scaling.md). A page whose
# session went has it made again at its next request; this app keeps no gr.State on the server.
SESSIONS = 200
STREAM_EVERY_S = 0.25  # a growing LLM answer is sent at most this often; a grounded one, once, whole
WAIT_STEP_S = 1.0  # a waiting answer's place in its lane is said again this often
SHARED_LANES = Lanes()  # for handlers called without the app's own (tests, scripts)
MODE_LABELS = {"cypher": "Cypher (graph queries)", "vector": "Vector (embeddings)",
               "none": "None (LLM alone, the paper's baseline)"}
# what the page says it reads (service/languages.py: the HPO's translations)
LANGUAGES_READ = "in English, " + ", ".join(LANGUAGES.values()).replace(", Chinese", " or Chinese")
MODE_CHOICES = [(MODE_LABELS.get(mode, mode), mode) for mode in MODES]
def diagnose(pipeline: Pipeline, age: str | float | None = None, sex: str | None = None, ethnicity: str | None = None,
             gene: str | None = None, variant: str | None = None, phenotypes: list[str] | str | None = None,
             selective: bool = False, option_a: str | None = None, option_b: str | None = None,
             option_c: str | None = None, option_d: str | None = None, mode: str = "cypher",
             backend: str | None = None, temperature: float = 0.0, description: str | None = None,
             phenopacket: str | None = None, request: gr.Request = None, access: Access | None = None,
             lanes: Lanes | None = None, pictures: PictureCache | None = None) -> Iterator[tuple]:
    """Diagnose a case: the form's fields, with a free-text description and a GA4GH phenopacket (JSON) beside
    them (app/case_files.py); through the API every input may be left out. Yields (answer, notices, ranked,
    triples, cypher, evidence picture, timings, confidence)."""
    allow(access, request, "diagnose")
    values = (age, sex, ethnicity, gene, variant, phenotypes, selective, option_a, option_b, option_c, option_d,
              mode, backend, temperature, description, phenopacket)
    composed = form_case(pipeline, age, sex, ethnicity, gene, variant, phenotypes, selective, option_a, option_b,
                         option_c, option_d, description, phenopacket)
    outputs = None
    lane = (lanes or SHARED_LANES).for_backend(backend or pipeline.settings.llm_backend)
    for outputs in _in_lane(lane, lambda: _run(backend, lambda: _noticed(pipeline.diagnose_stream(
            composed.case, mode=mode, backend=backend, temperature=float(temperature or 0.0)), composed.notices),
            True, pictures), 8):
        yield outputs
    history_tab.record_on_server(access, request, "diagnose", values, outputs[0] if outputs else "")


def _noticed(results: Iterator[PipelineResult], notices: list[str]) -> Iterator[PipelineResult]:
    """The results, with what was chosen between the form's inputs said first."""
    for result in results:
        result.notices[:0] = [n for n in notices if n not in result.notices]
        yield result


def ask(pipeline: Pipeline, question: str, mode: str, backend: str, temperature: float, request: gr.Request = None,
        access: Access | None = None, lanes: Lanes | None = None,
        pictures: PictureCache | None = None) -> Iterator[tuple]:
    """Answer a free question. Yields (answer, notices, triples, cypher, evidence picture, timings)."""
    allow(access, request, "ask")
    outputs = None
    lane = (lanes or SHARED_LANES).for_backend(backend or pipeline.settings.llm_backend)
    for outputs in _in_lane(lane, lambda: _run(backend, lambda: pipeline.ask_stream(
            question, mode=mode, backend=backend, temperature=float(temperature or 0.0)), False, pictures), 6):
        yield outputs
    history_tab.record_on_server(access, request, "ask", (question, mode, backend, temperature),
                                 outputs[0] if outputs else "")


def _in_lane(lane: Lane, answer: Callable[[], Iterator[tuple]], outputs: int) -> Iterator[tuple]:
    """The answer once it has a place in its lane; until then, its place in the queue (the answer
    field says it; the other outputs are left as they are)."""
    try:
        ticket = lane.admit()
    except Busy as e:
        hint = "" if lane.waiting is None else " The grounded backend answers without this wait."
        raise gr.Error(f"Busy: {e}.{hint}", title="Busy", print_exception=False) from e
    try:
        while position := ticket.wait(WAIT_STEP_S):
            yield (f"_Busy: you are {ordinal(position)} in the queue ({lane.name} answers); yours starts as soon as "
                   "one ahead of it is done._", *[gr.skip()] * (outputs - 1))
        yield from answer()
    finally:
        ticket.release()


def _run(backend: str, start: Callable[[], Iterator[PipelineResult]], with_ranked: bool,
         pictures: PictureCache | None = None) -> Iterator[tuple]:
    """The panel's outputs: a growing (LLM) answer at most every STREAM_EVERY_S, then the whole
    answer with its tables and picture; a grounded answer, written in milliseconds, is sent once."""
    try:
        tables, picture, extra = None, None, {}
        sent = time.monotonic()
        for result in start():
            if not result.done and time.monotonic() - sent < STREAM_EVERY_S:
                continue
            sent = time.monotonic()
            if tables is None or result.done:  # retrieval is done before the first piece of the answer
                tables = _tables(result, with_ranked)
            if result.done:  # drawn once, at the end (and once per distinct evidence: app/evidence_cache.py)
                began = time.perf_counter()
                picture = evidence_image(result, pictures)
                extra = {"evidence_picture": (time.perf_counter() - began) * 1000}
            confidence = (confidence_label(result.confidence, result.confidence_shape, result.findings_linked),) \
                if with_ranked else ()
            yield (answer_markdown(result.answer), notices_markdown(result), *tables, picture, timings(result, extra),
                   *confidence)
    except InputError as e:
        raise gr.Error(str(e), title="Please fix the input", print_exception=False) from e
    except NotReady as e:
        raise gr.Error(f"Not ready yet: {e}.", title="Index loading", print_exception=False) from e
    except StoreError as e:
        raise gr.Error(f"The knowledge graph could not answer ({e}). Please try again in a moment.",
                       title="Graph store error") from e
    except LLMError as e:
        raise gr.Error(f"The {backend} LLM backend failed ({e}). Try the grounded backend.",
                       title="LLM error") from e


def _tables(result: PipelineResult, with_ranked: bool) -> tuple:
    """(the ranked table,) the triples and the Cypher; the ranked table's columns are this answer's
    (`fit_ranked_columns` sets their widths)."""
    if not with_ranked:
        return triple_rows(result), cypher_markdown(result)
    return ranked_table(result), triple_rows(result), cypher_markdown(result)


def fit_ranked_columns(table) -> dict:
    """The ranked table's column widths for the columns this answer has (the API returns the plain table)."""
    columns = list(table.columns) if table is not None and len(table.columns) else EMPTY_RANKED
    return gr.update(column_widths=ranked_widths(columns))


def toggle_options(selective: bool) -> dict:
    return gr.update(visible=bool(selective))


def _evidence_panel(prefix: str, with_ranked: bool) -> list[gr.components.Component]:
    """The same outputs under both tabs: answer, notices, (ranking,) triples, Cypher, picture, timings,
    (confidence: shown under the answer, returned last so that the API's first outputs stay put)."""
    answer = gr.Markdown("_The answer appears here._", label="Answer", elem_id=f"{prefix}-answer",
                         container=True, show_label=True, line_breaks=True)
    confidence = [gr.Markdown("", label="Confidence", elem_id=f"{prefix}-confidence")] if with_ranked else []
    notices = gr.Markdown("", label="Notices", elem_id=f"{prefix}-notices")
    components = [answer, notices]
    if with_ranked:  # rendered below the form and the answer, across the page (build_demo)
        components.append(gr.Dataframe(headers=EMPTY_RANKED, label="Ranked differential (score and its parts)",
                                       interactive=False, wrap=False,
                                       column_widths=ranked_widths(EMPTY_RANKED),
                                       elem_id=f"{prefix}-ranked", max_height=560, render=False))
    triples = gr.Dataframe(headers=TRIPLE_HEADERS, datatype=TRIPLE_TYPES, label="Retrieved triples",
                           interactive=False, wrap=True, column_widths=TRIPLE_WIDTHS,
                           elem_id=f"{prefix}-triples", max_height=360)
    with gr.Accordion("Cypher that ran (with the checker's corrections)", open=False):
        cypher = gr.Markdown("", label="Cypher", elem_id=f"{prefix}-cypher")
    picture = gr.Image(label="Evidence subgraph", type="filepath", format="png", interactive=False,
                       elem_id=f"{prefix}-evidence")
    times = gr.JSON(label="Timings (ms)", elem_id=f"{prefix}-timings")
    return [*components, triples, cypher, picture, times, *confidence]


def _settings_row(prefix: str, backends: list[str], default_backend: str) -> tuple:
    mode = gr.Radio(MODE_CHOICES, value="cypher", label="Retrieval mode", elem_id=f"{prefix}-mode")
    with gr.Accordion("Advanced", open=False):
        backend = gr.Dropdown(backends, value=default_backend, label="LLM backend",
                              info="grounded writes the answer from the graph evidence alone (no LLM)",
                              elem_id=f"{prefix}-backend")
        temperature = gr.Slider(0.0, 1.5, value=0.0, step=0.1, label="Temperature",
                                elem_id=f"{prefix}-temperature")
    return mode, backend, temperature


# Every evidence picture served is copied into Gradio's temporary folder: without a sweep, a
# long-running Space fills its disk (~50 KB a distinct picture). Hourly, files over an hour old go.
TEMP_FILES_SWEEP = (3600, 3600)  # (every N seconds, files older than M seconds)


def build_demo(pipeline: Pipeline, access: Access | None = None) -> gr.Blocks:
    """The app; `access` (who may do what, where history goes) defaults to the settings' one."""
    access = access or Access(access_settings(pipeline.settings))
    lanes, pictures = Lanes(), PictureCache()
    backends = list(pipeline.backends)
    default_backend = pipeline.settings.llm_backend
    with gr.Blocks(title="FPKG-RAG: facial phenotypes and rare genetic diseases",
                   delete_cache=TEMP_FILES_SWEEP) as demo:
        with gr.Row():
            gr.Markdown("# FPKG-RAG\nDifferential diagnosis of rare genetic diseases from facial phenotypes, a "
                        "gene and a variant, answered from the Facial Phenotype Knowledge Graph (+ HPO) with the "
                        "evidence shown. **For research and education only; not a medical device.**")
            with gr.Column(scale=0, min_width=260):
                account = gr.HTML("", elem_id="account-status")
                if access.hf_oauth:
                    gr.LoginButton()
        stored = history_tab.browser_store(access)
        with gr.Tabs() as tabs:
            with gr.Tab("Diagnosis", id="diagnose", elem_id="tab-diagnosis"):
                with gr.Row():  # then the ranked table, across the page
                    with gr.Column(scale=2):
                        with gr.Row():
                            age = gr.Textbox(label="Age (years)", placeholder="e.g. 5 or 18 months",
                                             elem_id="diag-age")
                            sex = sex_box(value=None, label="Sex", elem_id="diag-sex")
                            ethnicity = gr.Textbox(label="Ethnicity", elem_id="diag-ethnicity")
                        with gr.Row():
                            gene = gr.Textbox(label="Gene", placeholder="e.g. CHD7", elem_id="diag-gene")
                            variant = gr.Textbox(label="Variant (HGVS)", placeholder="e.g. c.2443-2A>G",
                                                 elem_id="diag-variant")
                        phenotypes = findings_box(ui_examples.phenotype_choices(pipeline.linker), value=[],
                                                  label="Facial phenotypes",
                                                  info="type to search names and synonyms (the HPO's labels "
                                                       "in its languages are read too); free text is allowed, "
                                                       "several findings separated by commas or semicolons",
                                                  elem_id="diag-phenotypes")
                        description = gr.Textbox(
                            label="Description (free text)", lines=3, elem_id="diag-description",
                            placeholder="e.g. A 4-year-old boy with a de novo PTPN11 c.922A>G variant, hypertelorism, "
                                        "ptosis, low-set ears and pulmonary valve stenosis; no intellectual disability",
                            info="read by the recogniser: age, sex, gene, variant, findings present and absent (HPO "
                                 f"ids too), {LANGUAGES_READ}; the fields above win where they disagree; up to "
                                 f"{MAX_DESCRIPTION_CHARS:,} characters")
                        with gr.Accordion("A GA4GH phenopacket (JSON)", open=False, elem_id="diag-phenopacket-box"):
                            packet_file = gr.File(label="Upload a phenopacket", file_types=[".json"], type="filepath",
                                                  elem_id="diag-phenopacket-file")
                            phenopacket = gr.Textbox(label="or paste one", lines=4, elem_id="diag-phenopacket",
                                                     info="its findings, gene, variant, age and sex fill the form "
                                                          "for you to check; a field you fill wins")
                            packet_fill = gr.Button("Read it into the form", size="sm",
                                                    elem_id="diag-phenopacket-fill")
                            packet_read = gr.Markdown("", elem_id="diag-phenopacket-read")
                        selective = gr.Checkbox(label="Selective question (four answer options)", value=False,
                                                elem_id="diag-selective")
                        with gr.Group(visible=False) as options_group, gr.Row():
                            option_fields = [option_box(label=f"Option {letter}", elem_id=f"diag-option-{letter}")
                                             for letter in FORM_LETTERS]
                        mode, backend, temperature = _settings_row("diag", backends, default_backend)
                        submit = gr.Button("Diagnose", variant="primary", elem_id="diag-submit")
                        form = [age, sex, ethnicity, gene, variant, phenotypes, selective, *option_fields]
                        examples = ui_examples.publication_examples(pipeline)
                        if examples:
                            gr.Examples(examples, inputs=form, label="Cases from the Publication set",
                                        example_labels=[ui_examples.example_label(row) for row in examples])
                    with gr.Column(scale=3):
                        diagnosis_outputs = _evidence_panel("diag", with_ranked=True)
                        with gr.Row():
                            result_files = [
                                gr.File(label="The differential (TSV, PhEval's columns first)", interactive=False,
                                        elem_id="diag-tsv"),
                                gr.File(label="The phenopacket with the differential (GA4GH interpretations)",
                                        interactive=False, elem_id="diag-interpretation")]
                diagnosis_outputs[2].render()
            with gr.Tab("Ask", id="ask", elem_id="tab-ask"), gr.Row():
                with gr.Column(scale=2):
                    question = gr.Textbox(label="Question", lines=3, elem_id="ask-question",
                                          placeholder="e.g. What facial phenotypes are associated with "
                                                      "Crouzon syndrome?",
                                          info=f"{LANGUAGES_READ}; answered in English")
                    ask_mode, ask_backend, ask_temperature = _settings_row("ask", backends, default_backend)
                    ask_submit = gr.Button("Ask", variant="primary", elem_id="ask-submit")
                    gr.Examples([[q] for q in ui_examples.QUESTIONS], inputs=[question], label="Questions")
                with gr.Column(scale=3):
                    ask_outputs = _evidence_panel("ask", with_ranked=False)
                    ask_list = gr.File(label="The full list, ranked (CSV)", interactive=False,
                                       elem_id="ask-list")
            with gr.Tab("Explore", id="explore", elem_id="tab-explore"):
                explore_tab.build_tab(pipeline, access)
            with gr.Tab("Curate", id="curate", elem_id="tab-curate"):
                curate_view = curate_tab.build_tab(pipeline, access)
            inputs = {"diagnose": [*form, mode, backend, temperature, description, phenopacket],
                      "ask": [question, ask_mode, ask_backend, ask_temperature]}
            with gr.Tab("History", id="history", elem_id="tab-history"):
                history_view = history_tab.build_tab(access, inputs, tabs, stored)
            with gr.Tab("Admin", id="admin", elem_id="tab-admin"):
                account_tab.build_tab(access)
            with gr.Tab("About", id="about", elem_id="tab-about"):
                gr.Markdown(about.about_markdown(pipeline, access), elem_id="about-text")
        selective.change(toggle_options, selective, options_group, api_visibility="private", queue=False)
        private = {"api_visibility": "private", "queue": False}
        disease_names = DiseaseNames(ui_examples.names_and_synonyms(pipeline.linker, "Disease"))
        for box in option_fields:  # suggestions as the user types, asked of the server
            box.key_up(bind(suggest, disease_names), None, box, api_visibility="private", queue=False,
                       show_progress="hidden")
        filled = [age, sex, gene, variant, phenotypes, packet_read]
        packet_file.upload(bind(read_upload, access), packet_file, phenopacket, **private).success(
            bind(fill_form, pipeline, access), phenopacket, filled, **private)
        packet_fill.click(bind(fill_form, pipeline, access), phenopacket, filled, **private)
        for kind, button, outputs, handler in (("diagnose", submit, diagnosis_outputs, diagnose),
                                               ("ask", ask_submit, ask_outputs, ask)):
            answered = button.click(bind(handler, pipeline, access=access, lanes=lanes, pictures=pictures),
                                    inputs[kind], outputs, api_name=kind, concurrency_id="pipeline",
                                    concurrency_limit=WORKERS)
            answered.success(history_tab.remembering(access, kind), [*inputs[kind], outputs[0], stored],
                             [stored, *history_view], **private)
            if kind == "diagnose":  # the ranked table's columns are the answer's: each as wide as its header
                answered.success(fit_ranked_columns, outputs[2], outputs[2], **private)
                answered.success(bind(export_differential, pipeline, access), [*form, description, phenopacket],
                                 result_files, api_visibility="private", concurrency_id="pipeline")
            if kind == "ask":  # the whole ranked list as a file, after the answer
                answered.success(bind(ask_list_csv, pipeline, access=access), [question, ask_mode], ask_list,
                                 api_visibility="private", concurrency_id="pipeline")
        demo.load(bind(account_tab.account_line, access), None, account, **private)
        demo.load(bind(history_tab.show, access), [stored], history_view, **private)
        demo.load(bind(curate_tab.batch_view, pipeline, access), None, list(curate_view), **private)
    demo.queue(default_concurrency_limit=CONCURRENCY, max_size=MAX_QUEUE)
    demo.state_session_capacity = SESSIONS  # read when the app is mounted (app/server.py)
    return demo
