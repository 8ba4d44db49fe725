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
