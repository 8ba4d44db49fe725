"""The History tab: past diagnoses and questions, re-run, deleted one or all, exported as JSON or CSV.

Where entries live is the operator's choice (app/access.py): in the user's browser (Gradio's
BrowserState, the default), or, with FPKG_HISTORY=server, in the server's SQLite database for
signed-in users. The answer handlers record server-side entries themselves (so API calls count
too); `remember` adds browser-side ones after each answer.
"""

from __future__ import annotations

import hashlib
import inspect
import re
import sqlite3
import sys
from collections.abc import Callable

import gradio as gr

from accounts.history import MAX_ENTRIES, Entry, as_csv, as_json, browser_entries, new_entry
from app.access import Access, allow
from app.gradio_bind import bind

# The form fields each kind of entry keeps, in the order of the handlers' parameters.
SETTINGS_FIELDS = ("mode", "backend", "temperature")
FIELDS = {
    "diagnose": ("age", "sex", "ethnicity", "gene", "variant", "phenotypes", "selective",
                 "option_a", "option_b", "option_c", "option_d", *SETTINGS_FIELDS, "description", "phenopacket"),
    "ask": ("question", *SETTINGS_FIELDS),
}
TABLE_HEADERS = ["#", "when (UTC)", "kind", "answer"]
STORAGE_KEY = "fpkg-rag-history"
MARKDOWN = re.compile(r"[*_`#>]+")


def summary_of(answer_markdown: str) -> str:
    """The answer's first line, as plain text."""
    for line in (answer_markdown or "").splitlines():
        text = MARKDOWN.sub("", line).strip()
        if text:
            return text
    return ""


def record_on_server(access: Access | None, request, kind: str, values: tuple, answer_markdown: str) -> None:
    """Keeps the entry in the server's history when that is where the user's history goes."""
    user = access.server_history_user(request) if access else None
    if user:
        try:
            access.history.add(user, kind, dict(zip(FIELDS[kind], values, strict=True)), summary_of(answer_markdown))
        except sqlite3.Error as e:  # the answer was given; a history that cannot be written must not undo that
            print(f"history: the entry for {user} could not be written ({e})", file=sys.stderr, flush=True)


def _entries(access: Access, request, stored) -> list[Entry]:
    user = access.server_history_user(request)
    return access.history.entries(user) if user else browser_entries(stored)


def _view(entries: list[Entry]) -> tuple:
    rows = [[e.id, e.at[:19].replace("T", " "), e.kind, e.summary] for e in entries]
    choices = [(e.label(), e.id) for e in entries]
    return rows, gr.update(choices=choices, value=choices[0][1] if choices else None)


def show(access: Access, stored, request: gr.Request = None) -> tuple:
    allow(access, request, "history")
    return _view(_entries(access, request, stored))


def remember(access: Access, kind: str, values: list, answer: str, stored, request) -> tuple:
    """After an answer: a browser-side entry (unless the server kept it), then the refreshed view."""
    allow(access, request, "history")
    entries = browser_entries(stored)
    if access.server_history_user(request) is None:
        next_id = max((e.id for e in entries), default=0) + 1
        entries = [new_entry(next_id, kind, dict(zip(FIELDS[kind], values, strict=True)), summary_of(answer)),
                   *entries][:MAX_ENTRIES]
    stored = [e.as_dict() for e in entries]
    return stored, *_view(_entries(access, request, stored))


def remembering(access: Access, kind: str) -> Callable:
    """`remember` for one kind, taking the page's message (empty when the answer came: a request that failed
    is not remembered), the form's fields, the answer and the store one by one: Gradio passes the request
    only to a function that names its parameters."""
    def remember_kind(*args) -> tuple:
        failed, *values, answer, stored, request = args
        if failed:
            return (gr.skip(),) * 3
        return remember(access, kind, values, answer, stored, request)

    named = [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD)
             for name in ("failed", *FIELDS[kind], "answer", "stored")]
    request = inspect.Parameter("request", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None,
                                annotation=gr.Request)
    remember_kind.__signature__ = inspect.Signature([*named, request])
    remember_kind.__annotations__ = {"request": gr.Request}
    return remember_kind


def delete(access: Access, entry_id, stored, request: gr.Request = None) -> tuple:
    allow(access, request, "history")
    if entry_id is None:
        raise gr.Error("Choose an entry to delete.", title="Please fix the input", print_exception=False)
    user = access.server_history_user(request)
    if user:
        access.history.delete(user, int(entry_id))
    else:
        stored = [e.as_dict() for e in browser_entries(stored) if e.id != int(entry_id)]
    return stored, *_view(_entries(access, request, stored))


def delete_all(access: Access, stored, request: gr.Request = None) -> tuple:
    allow(access, request, "history")
    user = access.server_history_user(request)
    if user:
        access.history.delete_all(user)
    return [], *_view(_entries(access, request, []))


def export(access: Access, fmt: str, stored, request: gr.Request = None) -> str:
    """The whole history as a JSON or CSV file to download: private, for the one who asked, for a few
    minutes (app/exports.py)."""
    identity = allow(access, request, "history")
    entries = _entries(access, request, stored)
    text = as_json(entries) if fmt == "json" else as_csv(entries)
    return str(access.exports.write(identity.name, "history", f".{fmt}", text))


def rerun(access: Access, entry_id, stored, request: gr.Request = None) -> tuple:
    """The entry's fields back in its form, that form's tab selected, and its kind (the page then
    presses the form's button)."""
    allow(access, request, "history")
    entry = next((e for e in _entries(access, request, stored) if e.id == entry_id), None)
    if entry is None:
        raise gr.Error("Choose an entry to re-run.", title="Please fix the input", print_exception=False)
    fill = {kind: [gr.update(value=entry.inputs[name]) if kind == entry.kind and name in entry.inputs
                   else gr.update() for name in names] for kind, names in FIELDS.items()}
    return *fill["diagnose"], *fill["ask"], gr.Tabs(selected=entry.kind), entry.kind


# after a tick: a click while the fill event is still finishing is dropped by the page
PRESS_SUBMIT = ("(kind) => { setTimeout(() => document.querySelector(kind === 'ask' ? '#ask-submit' : "
                "'#diag-submit').click(), 100); }")


def browser_store(access: Access) -> gr.BrowserState:
    """The browser-side history. Made outside any tab: a component in a tab not yet opened is not on
    the page, and neither reads nor writes the browser's storage."""
    return gr.BrowserState([], storage_key=STORAGE_KEY, secret=_browser_secret(access))


def build_tab(access: Access, inputs: dict[str, list], tabs: gr.Tabs, stored: gr.BrowserState) -> list:
    """The tab's components and events; returns the view's outputs (for the answer events' `remember`
    step and the page's load). `inputs` holds each kind's form components in FIELDS order."""
    gr.Markdown(f"Your history is kept **{access.history_where()}**.", elem_id="history-where")
    with gr.Row():
        choice = gr.Dropdown([], label="Entry", elem_id="history-entry", scale=3)
        rerun_button = gr.Button("Re-run", elem_id="history-rerun", scale=1)
        delete_button = gr.Button("Delete", elem_id="history-delete", scale=1)
        delete_all_button = gr.Button("Delete all", variant="stop", elem_id="history-delete-all", scale=1)
    table = gr.Dataframe(headers=TABLE_HEADERS, label="History", interactive=False, wrap=True,
                         elem_id="history-table", max_height=400)
    with gr.Row():
        json_button = gr.Button("Export JSON", elem_id="history-export-json")
        csv_button = gr.Button("Export CSV", elem_id="history-export-csv")
    download = gr.File(label="Export", elem_id="history-file")
    kind = gr.Textbox(visible="hidden")  # on the page (the re-run script reads it), never shown
    view = [table, choice]
    private = {"api_visibility": "private", "queue": False}
    delete_button.click(bind(delete, access), [choice, stored], [stored, *view], **private)
    delete_all_button.click(bind(delete_all, access), [stored], [stored, *view], **private)
    json_button.click(bind(export, access, "json"), [stored], download, **private)
    csv_button.click(bind(export, access, "csv"), [stored], download, **private)
    rerun_button.click(bind(rerun, access), [choice, stored], [*inputs["diagnose"], *inputs["ask"], tabs, kind],
                       **private).success(None, [kind], None, js=PRESS_SUBMIT)
    return view


def _browser_secret(access: Access) -> str:
    """BrowserState's key: stable across restarts (entries stay readable), and derived one-way from
    the session secret, which the page never sees."""
    return hashlib.sha256(f"{STORAGE_KEY}:{access.signer.secret_digest}".encode()).hexdigest()[:32]
