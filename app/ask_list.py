"""The Ask tab's full list: every fact behind an answer, in the order the answer ranks them, as a CSV
download (the table on the page shows the first rows; a list is never cut short alphabetically).

The file is made after the answer, by a private event that retrieves again without an LLM (a few
milliseconds in Cypher mode); it holds only the graph's own facts, so it is a public export.
"""

from __future__ import annotations

import csv
import hashlib
import io

import gradio as gr

from app.access import Access, allow
from app.exports import export_folder
from fpkg.display import display_name
from fpkg.errors import FpkgError
from retrieval.result import Triple
from service.pipeline import Pipeline
from service.validation import validate_question

LIST_FOLDER = "fpkg-rag-lists"
LIST_MAX_AGE_S = 3600
COLUMNS = ["rank", "head", "relation", "tail", "source", "PMIDs", "stored head", "stored tail"]


def list_csv(triples: list[Triple]) -> str:
    """The facts as CSV text: ranked, names as displayed (HGVS variants) and as stored."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(COLUMNS)
    for rank, t in enumerate(triples, start=1):
        writer.writerow([rank, display_name(t.head, t.head_label), t.relation, display_name(t.tail, t.tail_label),
                         t.source, " ".join(map(str, t.pmids)), t.head, t.tail])
    return out.getvalue()


def full_list(pipeline: Pipeline, question: str, mode: str, request: gr.Request = None,
              access: Access | None = None) -> str | None:
    """The CSV file of the question's facts (None when there are none, or the mode uses no graph)."""
    allow(access, request, "ask")
    try:
        retriever = pipeline.retriever(mode, wait_s=0)
        if not retriever.uses_graph:
            return None
        triples = retriever.retrieve(validate_question(question)).triples
    except FpkgError:
        return None  # the answer's own event has said what went wrong
    if not triples:
        return None
    text = list_csv(triples)
    path = export_folder(LIST_FOLDER, LIST_MAX_AGE_S) / f"facts-{hashlib.sha1(text.encode()).hexdigest()[:12]}.csv"
    path.write_text(text, encoding="utf-8")
    return str(path)



def answered_list(pipeline: Pipeline, failed: str, question: str, mode: str, request: gr.Request = None,
                  access: Access | None = None) -> str | None:
    """After the page's answer, its full list (`full_list`); the file left as it was when the request failed
    (`failed`: the page's message)."""
    if failed:
        return gr.skip()
    return full_list(pipeline, question, mode, request, access)
