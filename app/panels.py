"""What the Diagnosis and Ask tabs share: the retrieval settings, the evidence after the answer (triples,
Cypher, picture, timings), the form's message and the character counter of a long text box."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from app.ui_format import TRIPLE_HEADERS, TRIPLE_TYPES, TRIPLE_WIDTHS
from retrieval.retriever import MODES

MODE_LABELS = {"cypher": "Cypher (graph queries)", "vector": "Vector (embeddings)", "none": "None (the LLM alone)"}
NO_LLM = "grounded"  # the one backend that is no LLM


def mode_choices(backends: tuple[str, ...] | list[str]) -> list[tuple[str, str]]:
    """The retrieval modes offered: "none" (no retrieval, the paper's baseline) only where an LLM is configured
    (without one it has nothing to answer with)."""
    with_llm = any(backend != NO_LLM for backend in backends)
    return [(MODE_LABELS.get(mode, mode), mode) for mode in MODES if mode != "none" or with_llm]


def settings_row(prefix: str, backends: list[str], default_backend: str) -> tuple:
    mode = gr.Radio(mode_choices(backends), value="cypher", label="Retrieval mode", elem_id=f"{prefix}-mode")
    with gr.Accordion("Advanced", open=False):
        backend = gr.Dropdown(backends, value=default_backend, label="LLM backend",
                              info="grounded writes the answer from the graph evidence alone (no LLM)",
                              elem_id=f"{prefix}-backend")
        temperature = gr.Slider(0.0, 1.5, value=0.0, step=0.1, label="Temperature",
                                elem_id=f"{prefix}-temperature")
    return mode, backend, temperature


@dataclass
class Evidence:
    """The evidence under an answer, in the order the API returns it."""

    triples: gr.Dataframe
    cypher: gr.Markdown
    picture: gr.Image
    timings: gr.JSON

    def outputs(self) -> list:
        return [self.triples, self.cypher, self.picture, self.timings]


def evidence_panels(prefix: str) -> Evidence:
    triples = gr.Dataframe(headers=TRIPLE_HEADERS, datatype=TRIPLE_TYPES, label="Retrieved triples",
                           interactive=False, wrap=True, column_widths=TRIPLE_WIDTHS,
                           elem_id=f"{prefix}-triples", max_height=360)
    with gr.Accordion("Cypher that ran (with the checker's corrections)", open=False):
        cypher = gr.Markdown("", label="Cypher", elem_id=f"{prefix}-cypher")
    picture = gr.Image(label="Evidence subgraph", type="filepath", format="png", interactive=False,
                       elem_id=f"{prefix}-evidence")
    timings = gr.JSON(label="Timings (ms)", elem_id=f"{prefix}-timings")
    return Evidence(triples, cypher, picture, timings)


def form_message(elem_id: str) -> gr.Markdown:
    """Where a request that failed as a whole is said, under its button (a field at fault says it at the field
    itself)."""
    return gr.Markdown("", elem_id=elem_id, elem_classes=["form-message"])


# The count as the server counts (service/validation.py clean_text: zero-width characters out, spaces folded,
# code points), over the limit in red with what to do; run in the browser alone (no request per key).
_COUNTER_JS = """(text) => {
  const folded = (text || "").replace(/[\\u200b-\\u200f\\u2060\\ufeff]/g, "").trim().split(/\\s+/).join(" ");
  const count = [...folded].length, limit = LIMIT, over = count > limit;
  const said = `${count.toLocaleString("en")} / ${limit.toLocaleString("en")} characters`;
  return over ? `<span class="char-count over">${said}: ${(count - limit).toLocaleString("en")} too many. `
                + `Shorten it: nothing is read until it fits.</span>`
              : `<span class="char-count">${said}</span>`;
}"""


def char_counter(box: gr.Textbox, limit: int, elem_id: str) -> gr.HTML:
    """A count of `box`'s characters against its limit, shown under it before the limit is hit."""
    counter = gr.HTML(f'<span class="char-count">0 / {limit:,} characters</span>', elem_id=elem_id)
    box.change(None, box, counter, js=_COUNTER_JS.replace("LIMIT", str(limit)), queue=False,
               show_progress="hidden", api_visibility="private")
    return counter
