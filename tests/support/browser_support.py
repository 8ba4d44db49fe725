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
