"""Helpers for driving the app's page in headless Chromium (elements are found by elem_id)."""

from __future__ import annotations

ANSWER_TIMEOUT_MS = 120_000


def field(page, elem_id: str):
    return page.locator(f"#{elem_id} textarea, #{elem_id} input").first


def wait_for_answer(page, prefix: str, text: str) -> str:
    page.wait_for_function(f"document.querySelector('#{prefix}-answer').innerText.includes({text!r})",
                           timeout=ANSWER_TIMEOUT_MS)
    return page.locator(f"#{prefix}-answer").inner_text()


def toast_with(page, text: str) -> str:
    """The error toast that contains `text` (Gradio shows gr.Error as a toast)."""
    toast = page.locator("[data-testid='toast-body']").filter(has_text=text).first
    toast.wait_for(timeout=60_000)
    return toast.inner_text()


def triple_rows(page, prefix: str) -> int:
    return page.locator(f"#{prefix}-triples [role=gridcell][data-col='0']").count()


def evidence_picture_width(page, prefix: str) -> int:
    """The evidence picture's width once drawn: it is drawn when the answer is complete."""
    image = page.locator(f"#{prefix}-evidence img").first
    image.wait_for(timeout=ANSWER_TIMEOUT_MS)
    page.wait_for_function(f"document.querySelector('#{prefix}-evidence img').complete", timeout=30_000)
    return page.evaluate(f"document.querySelector('#{prefix}-evidence img').naturalWidth")


def sign_in(page, url: str, name: str, password: str) -> None:
    """Through the app's sign-in form, back to the app."""
    page.goto(f"{url}/signin")
    page.fill("#username", name)
    page.fill("#password", password)
    page.click("#signin")
    page.wait_for_selector("#diag-submit")


def field_message(page, elem_id: str, text: str) -> str:
    """The message the page's check shows at a field (Gradio's validation message), once it says `text`."""
    page.wait_for_function(f"[...document.querySelectorAll('#{elem_id} .validation-error')]"
                           f".some(e => e.innerText.includes({text!r}))", timeout=60_000)
    return page.locator(f"#{elem_id} .validation-error").filter(has_text=text).first.inner_text()


def error_badges(page) -> list[str]:
    """The panels Gradio marks as failed (its red "Error" badge): the elem_id of each."""
    return page.evaluate("""() => [...document.querySelectorAll('[data-testid="status-tracker"]')]
        .filter(e => e.offsetParent !== null && /\\bError\\b/.test(e.innerText))
        .map(e => (e.closest('[id]') || {}).id || '?')""")


def open_differential_row(page, rank: int) -> str:
    """The differential's row `rank` (1 = the first), opened: all its text."""
    row = page.locator("#diag-differential tbody tr").nth(rank - 1)
    row.locator("details summary").first.click()
    return row.inner_text()


def cut_cells(page, tables: str) -> list[str]:
    """The cells of the tables matching `tables` (a CSS selector) whose text does not fit them (cut, or run
    past the cell) or that reach past the page's right edge."""
    return page.evaluate("""(tables) => [...document.querySelectorAll(tables)]
        .flatMap(t => [...t.querySelectorAll('th, td')])
        .filter(c => c.offsetParent !== null)
        .filter(c => [c, ...c.querySelectorAll('*')].some(e => e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)
                     || c.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
        .map(c => c.innerText.slice(0, 80))""", tables)


def visible_tabs(page, signed_in_as: str | None = None) -> list[str]:
    """The tabs the page offers, in order, at a width where each shows, once the page's load events have said
    which its user may use (for `signed_in_as`, once its top line names them)."""
    if signed_in_as:
        page.wait_for_function(f"document.querySelector('#account-status').innerText.includes({signed_in_as!r})")
    page.wait_for_timeout(1000)  # the tabs' own load event, sent with the top line's
    return page.evaluate("""() => [...document.querySelectorAll('[role="tab"]')]
        .map(t => t.innerText.trim()).filter(t => t)""")
