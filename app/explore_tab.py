"""The Explore tab and `/explore` endpoint: a gene or a disease in, its Sankey, table and HTML out.

The figure is Plotly's: its toolbar exports a PNG in the browser; the HTML export is written here.
"""

from __future__ import annotations

import hashlib

import gradio as gr

from app.access import Access, allow
from app.exports import export_folder
from app.gradio_bind import bind
from explore.flows import SOURCES, find_root, flows_for
from explore.sankey import TABLE_HEADERS, sankey_figure, table_rows, write_html
from fpkg.errors import InputError, StoreError
from service.pipeline import Pipeline
from service.validation import MAX_FIELD_CHARS, clean_text

MAX_MIN_COUNT = 1000
EXAMPLES = ["KDM6A", "CHD7", "Kabuki syndrome 2", "Treacher Collins syndrome 1"]
# HTML exports (~4 MB each: plotly.js inside) are kept an hour, then swept when the next is written.
EXPORT_MAX_AGE_S = 3600


def explore(pipeline: Pipeline, name: str, sources: list[str] | None, min_count: float | None,
            request: gr.Request = None, access: Access | None = None) -> tuple:
    """(message, figure, table rows, HTML file, the Cypher that ran) for the gene or disease `name`."""
    allow(access, request, "explore")
    try:
        text, chosen, minimum = _checked(name, sources, min_count)
        root = find_root(pipeline.linker, text)
        if root is None:
            raise InputError(f"No gene or disease named {text!r} is in the graph; try a gene symbol "
                             "(e.g. KDM6A) or a disease name (e.g. Kabuki syndrome 2).")
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


def _checked(name: object, sources: object, min_count: object) -> tuple[str, tuple[str, ...], int]:
    text = clean_text(name)
    if not text:
        raise InputError("Type a gene symbol or a disease name to explore.")
    if len(text) > MAX_FIELD_CHARS:
        raise InputError(f"The name is {len(text):,} characters long; the limit is {MAX_FIELD_CHARS}.")
    chosen = tuple(source for source in SOURCES if source in (sources or ()))
    unknown = [str(source) for source in (sources or ()) if source not in SOURCES]
    if unknown or not chosen:
        raise InputError(f"Choose one or more sources among {', '.join(SOURCES)}"
                         + (f" (not {', '.join(unknown)})." if unknown else "."))
    try:
        minimum = int(min_count if min_count is not None else 1)
    except (TypeError, ValueError):
        raise InputError(f"The minimum count {min_count!r} is not a whole number.") from None
    if not 1 <= minimum <= MAX_MIN_COUNT:
        raise InputError(f"A minimum count of {minimum} is out of range; give one from 1 to {MAX_MIN_COUNT}.")
    return text, chosen, minimum


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
            gr.Examples([[example] for example in EXAMPLES], inputs=[name], label="Examples")
        with gr.Column(scale=3):
            message = gr.Markdown("", elem_id="explore-message")
            plot = gr.Plot(label="Flows (in the order the figure's title gives)", elem_id="explore-plot")
            html = gr.File(label="Interactive HTML", elem_id="explore-html")
    table = gr.Dataframe(headers=TABLE_HEADERS, label="The same links as a table", interactive=False, wrap=True,
                         elem_id="explore-table", max_height=400)
    with gr.Accordion("Cypher that ran", open=False):
        cypher = gr.Markdown("", elem_id="explore-cypher")
    submit.click(bind(explore, pipeline, access=access), [name, sources, min_count],
                 [message, plot, table, html, cypher], api_name="explore", concurrency_id="pipeline")
