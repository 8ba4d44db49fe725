"""The Gradio app: a Diagnosis tab (a case form, the answer in a glance: app/diagnosis_tab.py), an Ask tab (a
free question: app/ask_tab.py), an Explore tab (a gene's or disease's Sankey, app/explore_tab.py), a Curate tab
(curators add facts, app/curate_tab.py), a History tab (app/history_tab.py), an Admin tab (app/account_tab.py),
an About tab. A tab a visitor cannot use (Curate, Admin) is shown only to the roles that may use it.

`build_demo(pipeline, access)` returns the Blocks; the handlers are module-level functions with the
pipeline and the access policy bound (app/gradio_bind.py). Each answer has two events over the same form:
the API's (`/diagnose`, `/ask`: exactly the form's fields in, the outputs docs/app.md lists out, what the user
must fix raised as `gr.Error` with the validation message) and the page's (private: its own panels, the
fields checked first and what is wrong said at the field at fault (app/form_checks.py), anything else that
failed said once in the form's message, no panel marked as failed: app/answer_stream.py). Each first checks,
on the server, that the request may (app/access.py). Answers wait in lanes (app/lanes.py): docs/scaling.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import gradio as gr

from app import about, account_tab, ask_tab, curate_tab, diagnosis_tab, explore_tab, history_tab
from app.access import Access, allow
from app.answer_stream import SHARED_LANES, in_lane, on_the_page, once_and_at_the_end, shown_results
from app.answer_view import differential_markdown, summary_markdown
from app.ask_list import answered_list
from app.case_files import export_answered, form_case
from app.evidence_cache import PictureCache
from app.form_checks import diagnosis_checks, question_checks
from app.gradio_bind import bind
from app.lanes import WORKERS, Lanes
from app.panels import MODE_LABELS
from app.ui_format import answer_markdown, cypher_markdown, notices_markdown, ranked_table, triple_rows
from diagnosis.confidence import label as confidence_label
from fpkg.config import access_settings
from retrieval.retriever import MODES
from service.pipeline import Pipeline, PipelineResult

# Other queued events (Explore, Curate) at once; /diagnose and /ask run in lanes (app/lanes.py).
CONCURRENCY = 2
MAX_QUEUE = 32
# Gradio's per-session state kept in memory, the oldest session's going first: each holds a copy of
# the page's configuration (~0.5 MB here, ~12 ms of CPU to make: docs/scaling.md). A page whose
# session went has it made again at its next request; this app keeps no gr.State on the server.
SESSIONS = 200
MODE_CHOICES = [(MODE_LABELS.get(mode, mode), mode) for mode in MODES]  # every mode the API takes
# Every evidence picture served is copied into Gradio's temporary folder: without a sweep, a
# long-running Space fills its disk (~50 KB a distinct picture). Hourly, files over an hour old go.
TEMP_FILES_SWEEP = (3600, 3600)  # (every N seconds, files older than M seconds)
HEADER = ("# FPKG-RAG\nDifferential diagnosis of rare genetic diseases from facial phenotypes, a gene and a "
          "variant, answered from the Facial Phenotype Knowledge Graph (+ HPO) with the evidence shown. **For "
          "research and education only; not a medical device.**")


@dataclass(frozen=True)
class View:
    """Where an answer goes: the API's outputs, or the page's panels (its message last)."""

    tables: Callable[[PipelineResult], tuple]  # made for the first result and for the whole answer
    outputs: Callable[[PipelineResult, str | None, dict, tuple], tuple]  # (result, picture, timings, tables)
    count: int
    on_page: bool

    def waiting(self, words: str) -> tuple:
        """The answer's place in its lane: in the API's answer, or in the page's message."""
        skips = (gr.skip(),) * (self.count - 1)
        return (*skips, words) if self.on_page else (words, *skips)

    def shown(self, outputs: Iterator[tuple]) -> Iterator[tuple]:
        return on_the_page(outputs, self.count - 1) if self.on_page else outputs


def _confidence(result: PipelineResult) -> str:
    return confidence_label(result.confidence, result.confidence_shape, result.findings_linked)


API_DIAGNOSIS = View(lambda r: (ranked_table(r), triple_rows(r), cypher_markdown(r)),
                     lambda r, picture, times, tables: (answer_markdown(r.answer), notices_markdown(r), *tables,
                                                        picture, times, _confidence(r)), 8, False)
PAGE_DIAGNOSIS = View(lambda r: (summary_markdown(r), differential_markdown(r), triple_rows(r), cypher_markdown(r)),
                      lambda r, picture, times, tables: (*tables[:2], notices_markdown(r), answer_markdown(r.answer),
                                                         *tables[2:], picture, times, ""), 9, True)
API_ASK = View(lambda r: (triple_rows(r), cypher_markdown(r)),
               lambda r, picture, times, tables: (answer_markdown(r.answer), notices_markdown(r), *tables, picture,
                                                  times), 6, False)
PAGE_ASK = View(API_ASK.tables, lambda r, picture, times, tables: (*API_ASK.outputs(r, picture, times, tables), ""),
                7, True)


def diagnose(pipeline: Pipeline, age: str | float | None = None, sex: str | None = None, ethnicity: str | None = None,
             gene: str | None = None, variant: str | None = None, phenotypes: list[str] | str | None = None,
             selective: bool = False, option_a: str | None = None, option_b: str | None = None,
             option_c: str | None = None, option_d: str | None = None, mode: str = "cypher",
             backend: str | None = None, temperature: float = 0.0, description: str | None = None,
             phenopacket: str | None = None, request: gr.Request = None, access: Access | None = None,
             lanes: Lanes | None = None, pictures: PictureCache | None = None,
             view: View = API_DIAGNOSIS) -> Iterator[tuple]:
    """Diagnose a case: the form's fields, with a free-text description and a GA4GH phenopacket (JSON) beside
    them (app/case_files.py); through the API every input may be left out. Yields the API's outputs (answer,
    notices, ranked, triples, cypher, evidence picture, timings, confidence), or the page's (PAGE_DIAGNOSIS:
    summary, differential, notices, answer, triples, cypher, picture, timings, message)."""
    def answered() -> Iterator[tuple]:
        allow(access, request, "diagnose")
        values = (age, sex, ethnicity, gene, variant, phenotypes, selective, option_a, option_b, option_c, option_d,
                  mode, backend, temperature, description, phenopacket)
        composed = form_case(pipeline, age, sex, ethnicity, gene, variant, phenotypes, selective, option_a,
                             option_b, option_c, option_d, description, phenopacket)
        yield from _answer(view, "diagnose", values, pipeline, backend, request, access, lanes, pictures,
                           lambda: _noticed(pipeline.diagnose_stream(composed.case, mode=mode, backend=backend,
                                                                     temperature=float(temperature or 0.0)),
                                            composed.notices))

    yield from view.shown(answered())


def ask(pipeline: Pipeline, question: str, mode: str, backend: str, temperature: float, request: gr.Request = None,
        access: Access | None = None, lanes: Lanes | None = None, pictures: PictureCache | None = None,
        view: View = API_ASK) -> Iterator[tuple]:
    """Answer a free question. Yields (answer, notices, triples, cypher, evidence picture, timings), and on the
    page (PAGE_ASK) its message last."""
    def answered() -> Iterator[tuple]:
        allow(access, request, "ask")
        yield from _answer(view, "ask", (question, mode, backend, temperature), pipeline, backend, request, access,
                           lanes, pictures, lambda: pipeline.ask_stream(question, mode=mode, backend=backend,
                                                                        temperature=float(temperature or 0.0)))

    yield from view.shown(answered())


def _answer(view: View, kind: str, values: tuple, pipeline: Pipeline, backend: str | None, request,
            access: Access | None, lanes: Lanes | None, pictures: PictureCache | None,
            start: Callable[[], Iterator[PipelineResult]]) -> Iterator[tuple]:
    """The answer in its lane, as `view` shows it; then the entry in the server's history (where it is kept)."""
    lane = (lanes or SHARED_LANES).for_backend(backend or pipeline.settings.llm_backend)
    last: list[PipelineResult] = []

    def outputs() -> Iterator[tuple]:
        for (result, picture, times), tables in once_and_at_the_end(shown_results(backend, start, pictures),
                                                                     view.tables):
            last[:] = [result]
            yield view.outputs(result, picture, times, tables)

    yield from in_lane(lane, outputs, view.waiting)
    history_tab.record_on_server(access, request, kind, values, answer_markdown(last[0].answer) if last else "")


def _noticed(results: Iterator[PipelineResult], notices: list[str]) -> Iterator[PipelineResult]:
    """The results, with what was chosen between the form's inputs said first."""
    for result in results:
        result.notices[:0] = [n for n in notices if n not in result.notices]
        yield result


def build_demo(pipeline: Pipeline, access: Access | None = None) -> gr.Blocks:
    """The app; `access` (who may do what, where history goes) defaults to the settings' one."""
    access = access or Access(access_settings(pipeline.settings))
    lanes, pictures = Lanes(), PictureCache()
    backends = list(pipeline.backends)
    default_backend = pipeline.settings.llm_backend
    with gr.Blocks(title="FPKG-RAG: facial phenotypes and rare genetic diseases",
                   delete_cache=TEMP_FILES_SWEEP) as demo:
        with gr.Row(elem_id="page-header", equal_height=False):
            gr.Markdown(HEADER, elem_id="page-title", min_width=300)
            with gr.Column(scale=0, min_width=200):
                account = gr.HTML("", elem_id="account-status")
                if access.hf_oauth:
                    gr.LoginButton()
        stored = history_tab.browser_store(access)
        with gr.Tabs() as tabs:
            with gr.Tab("Diagnosis", id="diagnose", elem_id="tab-diagnosis"):
                diagnosis = diagnosis_tab.build_tab(pipeline, access, backends, default_backend)
            with gr.Tab("Ask", id="ask", elem_id="tab-ask"):
                asking = ask_tab.build_tab(backends, default_backend)
            with gr.Tab("Explore", id="explore", elem_id="tab-explore"):
                explore_tab.build_tab(pipeline, access)
            with gr.Tab("Curate", id="curate", elem_id="tab-curate", visible=False) as curate:
                curate_view = curate_tab.build_tab(pipeline, access)
            inputs = {"diagnose": diagnosis.inputs, "ask": asking.inputs}
            with gr.Tab("History", id="history", elem_id="tab-history"):
                history_view = history_tab.build_tab(access, inputs, tabs, stored)
            with gr.Tab("Admin", id="admin", elem_id="tab-admin", visible=False) as admin:
                account_tab.build_tab(access)
            with gr.Tab("About", id="about", elem_id="tab-about"):
                gr.Markdown(about.about_markdown(pipeline, access), elem_id="about-text")
        private = {"api_visibility": "private", "queue": False}
        after = {"api_visibility": "private", "concurrency_id": "pipeline"}
        answers = {"access": access, "lanes": lanes, "pictures": pictures}
        for kind, tab, handler, api, page, checks in (
                ("diagnose", diagnosis, diagnose, diagnosis.api_outputs, diagnosis.page_outputs, diagnosis_checks),
                ("ask", asking, ask, asking.outputs, [*asking.outputs, asking.message], question_checks)):
            answered = _answer_events(kind, tab.submit, lambda view, h=handler: bind(h, pipeline, **answers, view=view),
                                      inputs[kind], api, page, bind(checks, pipeline))
            answered.success(history_tab.remembering(access, kind), [tab.message, *inputs[kind], tab.answer, stored],
                             [stored, *history_view], **private)
            if kind == "diagnose":  # the differential as files, after the answer
                answered.success(bind(export_answered, pipeline, access),
                                 [tab.message, *tab.form, tab.description, tab.phenopacket], tab.files, **after)
            else:  # the whole ranked list as a file, after the answer
                answered.success(bind(answered_list, pipeline, access=access), [tab.message, tab.question, tab.mode],
                                 tab.full_list, **after)
        demo.load(bind(account_tab.account_line, access), None, account, **private)
        demo.load(bind(account_tab.tabs_for, access), None, [curate, admin], **private)
        demo.load(bind(history_tab.show, access), [stored], history_view, **private)
        demo.load(bind(curate_tab.batch_view, pipeline, access), None, list(curate_view), **private)
    demo.queue(default_concurrency_limit=CONCURRENCY, max_size=MAX_QUEUE)
    demo.state_session_capacity = SESSIONS  # read when the app is mounted (app/server.py)
    return demo


def _answer_events(kind: str, button: gr.Button, handler: Callable[[View], Callable], inputs: list,
                   api_outputs: list, page_outputs: list, checks: Callable):
    """The API's event (named `kind`, on a button the page never shows) and the page's (private, its fields
    checked first); returns the page's, for what follows an answer. `handler(view)` is the bound handler."""
    common = {"concurrency_id": "pipeline", "concurrency_limit": WORKERS}
    api_view, page_view = (API_DIAGNOSIS, PAGE_DIAGNOSIS) if kind == "diagnose" else (API_ASK, PAGE_ASK)
    gr.Button(visible=False, elem_id=f"{kind}-api").click(handler(api_view), inputs, api_outputs, api_name=kind,
                                                          **common)
    return button.click(handler(page_view), inputs, page_outputs, validator=checks, api_visibility="private",
                        scroll_to_output=True, **common)
