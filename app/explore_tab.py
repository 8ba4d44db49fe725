"""The Explore tab and `/explore` endpoint: a gene or a disease in, its Sankey, table and HTML out.

The figure is Plotly's: its toolbar exports a PNG in the browser; the HTML export is written here. As on the
other tabs, the API's event raises what the user must fix as `gr.Error`; the page's checks the fields first and
says what is wrong at the field (app/form_checks.py), anything else in its message.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import gradio as gr

from app.access import Access, allow
from app.answer_stream import on_the_page
from app.exports import export_folder
from app.form_checks import said_at
from app.gradio_bind import bind
from app.panels import form_message
from explore.flows import SOURCES, find_root, flows_for
from explore.sankey import TABLE_HEADERS, sankey_figure, table_rows, write_html
from fpkg.errors import InputError, StoreError
from service.pipeline import Pipeline
from service.validation import MAX_FIELD_CHARS, clean_text

MAX_MIN_COUNT = 1000
EXAMPLES = ["KDM6A", "CHD7", "Kabuki syndrome 2", "Treacher Collins syndrome 1"]
FIELDS = ("name", "sources", "minimum count")  # the page's check says a problem at its field (InputError.field)
TABLE_WIDTHS = ["24%", "12%", "24%", "12%", "10%", "18%"]  # every column in view at 1,400 px
# HTML exports (~4 MB each: plotly.js inside) are kept an hour, then swept when the next is written.
EXPORT_MAX_AGE_S = 3600


def explore(pipeline: Pipeline, name: str, sources: list[str] | None, min_count: float | None,
            request: gr.Request = None, access: Access | None = None) -> tuple:
    """(message, figure, table rows, HTML file, the Cypher that ran) for the gene or disease `name`."""
    allow(access, request, "explore")
    try:
        text, chosen, minimum = checked(name, sources, min_count)
        root = _root(pipeline, text)
        flows = flows_for(pipeline.store, root, chosen, minimum)
    except InputError as e:
        raise gr.Error(str(e), title="Please fix the input", print_exception=False) from e
    except StoreError as e:
        raise gr.Error(f"The knowledge graph could not answer ({e}). Please try again in a moment.",
                       title="Graph store error") from e
    kind = "gene" if root.label == "Genotype" else "disease"
    matched = "" if root.method == "exact" else f" (matched from {text!r})"
    if not flows.counts:
        tried = " or ".join(dict.fromkeys((*chosen, "HPO")))  # FPKG alone falls back on HPO (flows_for)
        message = f"**{root.name}** ({kind}){matched}: {tried} has nothing to draw for it."
        return message, None, [], None, _cypher(flows.queries, root.node_id)
    figure = sankey_figure(flows)
    origins = sorted({origin for _, _, origin, _ in flows.links()})
    lines = [f"**{root.name}** ({kind}){matched}: {len(flows.nodes())} nodes, {len(flows.counts)} links from "
             f"{' and '.join(origins)}. FPKG and phenopacket-store count patients; HPO counts annotations. "
             "Hover for counts; the toolbar's camera saves a PNG.", *(f"- {notice}" for notice in flows.notices)]
    return "\n".join(lines), figure, table_rows(flows), _export(figure, root.name), _cypher(flows.queries, root.node_id)


def _cypher(queries: list[str], node_id: int) -> str:
    return "\n\n".join(f"```cypher\n{query}\n```\n`$id = {node_id}`" for query in queries)


def checked(name: object, sources: object, min_count: object) -> tuple[str, tuple[str, ...], int]:
    """(the name, the sources, the minimum count), or InputError naming the field at fault."""
    text = clean_text(name)
    if not text:
        raise InputError("Type a gene symbol or a disease name to explore.", "name")
    if len(text) > MAX_FIELD_CHARS:
        raise InputError(f"The name is {len(text):,} characters long; the limit is {MAX_FIELD_CHARS}.", "name")
    chosen = tuple(source for source in SOURCES if source in (sources or ()))
    unknown = [str(source) for source in (sources or ()) if source not in SOURCES]
    if unknown or not chosen:
        raise InputError(f"Choose one or more sources among {', '.join(SOURCES)}"
                         + (f" (not {', '.join(unknown)})." if unknown else "."), "sources")
    try:
        minimum = int(min_count if min_count is not None else 1)
    except (TypeError, ValueError):
        raise InputError(f"The minimum count {min_count!r} is not a whole number.", "minimum count") from None
    if not 1 <= minimum <= MAX_MIN_COUNT:
        raise InputError(f"A minimum count of {minimum} is out of range; give one from 1 to {MAX_MIN_COUNT}.",
                         "minimum count")
    return text, chosen, minimum


def _root(pipeline: Pipeline, text: str):
    root = find_root(pipeline.linker, text)
    if root is None:
        raise InputError(f"No gene or disease named {text!r} is in the graph; try a gene symbol "
                         "(e.g. KDM6A) or a disease name (e.g. Kabuki syndrome 2).", "name")
    return root


def explore_checks(pipeline: Pipeline, name, sources, min_count) -> list[dict]:
    """The page's check of the fields (and that the graph holds the name), before the request runs."""
    try:
        _root(pipeline, checked(name, sources, min_count)[0])
    except InputError as e:
        return said_at(FIELDS, e)
    return said_at(FIELDS, None)


def explore_on_page(pipeline: Pipeline, name: str, sources: list[str] | None, min_count: float | None,
                    request: gr.Request = None, access: Access | None = None) -> Iterator[tuple]:
    """`explore`'s outputs and the page's message: what failed said there, the panels left as they were."""
    def explored() -> Iterator[tuple]:
        yield (*explore(pipeline, name, sources, min_count, request, access), "")

    yield from on_the_page(explored(), 5)


def _export(figure, name: str) -> str:
    body = figure.to_json()
    stem = "".join(c if c.isalnum() else "-" for c in name)[:60]
    folder = export_folder("fpkg-rag-explore", EXPORT_MAX_AGE_S)
    path = folder / f"{stem}-{hashlib.sha1(body.encode()).hexdigest()[:10]}.html"
    return str(write_html(figure, path))


def build_tab(pipeline: Pipeline, access: Access) -> None:
    """The tab's components and its `/explore` endpoint, inside the app's Blocks."""
    with gr.Row():
        with gr.Column(scale=1):
            name = gr.Textbox(label="Gene or disease", placeholder="e.g. KDM6A or Kabuki syndrome 2",
                              elem_id="explore-name")
            sources = gr.CheckboxGroup(list(SOURCES), value=["FPKG"], label="Sources",
                                       info="FPKG: its published patients (HPO's annotations are shown when FPKG "
                                            "has none); phenopacket-store: GA4GH phenopacket-store's published "
                                            "patients; HPO: annotations; curated: facts merged by curators",
                                       elem_id="explore-sources")
            min_count = gr.Number(value=1, minimum=1, maximum=MAX_MIN_COUNT, precision=0, label="Minimum count",
                                  elem_id="explore-min-count")
            submit = gr.Button("Explore", variant="primary", elem_id="explore-submit")
            failed = form_message("explore-form-message")
            gr.Examples([[example] for example in EXAMPLES], inputs=[name], label="Examples")
        with gr.Column(scale=3):
            message = gr.Markdown("", elem_id="explore-message")
            plot = gr.Plot(label="Flows (in the order the figure's title gives)", elem_id="explore-plot")
            html = gr.File(label="Interactive HTML", elem_id="explore-html")
    table = gr.Dataframe(headers=TABLE_HEADERS, label="The same links as a table", interactive=False, wrap=True,
                         column_widths=TABLE_WIDTHS, elem_id="explore-table", max_height=400)
    with gr.Accordion("Cypher that ran", open=False):
        cypher = gr.Markdown("", elem_id="explore-cypher")
    fields, outputs = [name, sources, min_count], [message, plot, table, html, cypher]
    gr.Button(visible=False, elem_id="explore-api").click(bind(explore, pipeline, access=access), fields, outputs,
                                                          api_name="explore", concurrency_id="pipeline")
    submit.click(bind(explore_on_page, pipeline, access=access), fields, [*outputs, failed],
                 validator=bind(explore_checks, pipeline), api_visibility="private", concurrency_id="pipeline")
