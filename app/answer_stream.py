"""An answer on its way to the panels: its place in its lane, the pipeline's results throttled, the evidence
picture drawn once at the end, and what failed said in plain words.

Answers wait in lanes (app/lanes.py: grounded and LLM answers apart, "Busy" past the LLM lane's places); a
grounded answer is sent once, whole, and its evidence picture is drawn once per distinct evidence
(app/evidence_cache.py): docs/scaling.md. The API's endpoints get what failed as a `gr.Error` (their error
contract: docs/app.md); the page gets it as one message where the request was made (`on_the_page`), the
panels keeping what they showed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import gradio as gr

from app.evidence_cache import PictureCache
from app.gradio_bind import SERVER_PATH
from app.lanes import Lane, Lanes, ordinal
from app.ui_format import evidence_image, timings
from fpkg.errors import Busy, InputError, LLMError, NotReady, StoreError
from service.pipeline import PipelineResult

STREAM_EVERY_S = 0.25  # a growing LLM answer is sent at most this often; a grounded one, once, whole
WAIT_STEP_S = 1.0  # a waiting answer's place in its lane is said again this often
SHARED_LANES = Lanes()  # for handlers called without the app's own (tests, scripts)
_MARKDOWN_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_{}[]<>()#+-.!|~"})

Shown = tuple[PipelineResult, str | None, dict[str, float]]  # a result, its picture (at the end), its timings


def in_lane(lane: Lane, answer: Callable[[], Iterator[tuple]], waiting: Callable[[str], tuple]) -> Iterator[tuple]:
    """The answer once it has a place in its lane; until then, `waiting(words)`: its place in the queue."""
    try:
        ticket = lane.admit()
    except Busy as e:
        hint = "" if lane.waiting is None else " The grounded backend answers without this wait."
        raise gr.Error(f"Busy: {e}.{hint}", title="Busy", print_exception=False) from e
    try:
        while position := ticket.wait(WAIT_STEP_S):
            yield waiting(f"_Busy: you are {ordinal(position)} in the queue ({lane.name} answers); yours starts as "
                          "soon as one ahead of it is done._")
        yield from answer()
    finally:
        ticket.release()


def shown_results(backend: str, start: Callable[[], Iterator[PipelineResult]],
                  pictures: PictureCache | None = None) -> Iterator[Shown]:
    """The results worth sending: a growing (LLM) answer at most every STREAM_EVERY_S, then the whole answer
    with its picture; a grounded answer, written in milliseconds, once. What failed comes as a gr.Error."""
    try:
        sent = time.monotonic()
        for result in start():
            if not result.done and time.monotonic() - sent < STREAM_EVERY_S:
                continue
            sent = time.monotonic()
            picture, extra = None, {}
            if result.done:  # drawn once, at the end (and once per distinct evidence: app/evidence_cache.py)
                began = time.perf_counter()
                picture = evidence_image(result, pictures)
                extra = {"evidence_picture": (time.perf_counter() - began) * 1000}
            yield result, picture, timings(result, extra)
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


def once_and_at_the_end(results: Iterator[Shown], tables: Callable[[PipelineResult], tuple]
                        ) -> Iterator[tuple[Shown, tuple]]:
    """Each result with `tables(result)`, made for the first result (retrieval is done before the first piece
    of an answer) and again for the whole answer only."""
    made = None
    for shown in results:
        if made is None or shown[0].done:
            made = tables(shown[0])
        yield shown, made


def on_the_page(outputs: Iterator[tuple], panels: int) -> Iterator[tuple]:
    """The page's outputs, its message last; what failed is said there, in plain words, the `panels` before it
    left as they were (no panel is marked as failed: none of them is at fault)."""
    try:
        yield from outputs
    except gr.Error as e:
        yield (*[gr.skip()] * panels, message_markdown(str(e.message)))


def message_markdown(message: str) -> str:
    """An error message as Markdown: shown as written (it may repeat what the user typed), no server path."""
    said = SERVER_PATH.sub(lambda m: m.group(1) or "…", message).replace("&", "&amp;")
    return f"⚠ {said.translate(_MARKDOWN_SPECIAL)}"
