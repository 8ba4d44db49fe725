"""Messages a bound handler shows users (app/gradio_bind.py): what a user typed is shown as text,
never as markup, and no server path reaches the page."""

from __future__ import annotations

import gradio as gr
import pytest

from app.gradio_bind import bind, shown


@pytest.mark.parametrize(("message", "expected"), [
    ("'<img src=x onerror=alert(1)>' is not an age", "'&lt;img src=x onerror=alert(1)&gt;' is not an age"),
    ("Variant c.2443-2A>G & more", "Variant c.2443-2A&gt;G &amp; more"),
    ("line 2 of /home/op/.local/share/fpkg-rag/curated-overlay.jsonl was changed", "line 2 of curated-overlay.jsonl "
     "was changed"),
    ("cannot open /var/lib/fpkg/ (a folder)", "cannot open … (a folder)"),
    ("see https://example.org/a/b and /healthz, 1/2 and and/or", "see https://example.org/a/b and /healthz, 1/2 and "
     "and/or"),
])
def test_a_message_is_shown_as_text_without_server_paths(message, expected):
    assert shown(message) == expected


def test_a_bound_handler_raises_the_safe_message():
    def handler(prefix: str, text: str, request: gr.Request = None):
        raise gr.Error(f"{prefix}: {text!r} in /srv/state/users.json", title="Please fix the input")

    def streaming(prefix: str, text: str):
        yield "first"
        raise gr.Error(f"{prefix}: <b>{text}</b>")

    with pytest.raises(gr.Error) as raised:
        bind(handler, "Not allowed")("<script>")
    assert raised.value.message == "Not allowed: '&lt;script&gt;' in users.json"
    assert raised.value.title == "Please fix the input"
    with pytest.raises(gr.Error) as raised:
        list(bind(streaming, "Stop")("x"))
    assert raised.value.message == "Stop: &lt;b&gt;x&lt;/b&gt;"
