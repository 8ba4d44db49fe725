"""Bind a handler's first arguments and keep what Gradio reads from its signature.

`functools.partial` hides the handler's type hints from Gradio, so a `request: gr.Request`
parameter would never be filled in; this keeps the signature and hints, minus what is bound.

Every handler the app serves is bound here, so this is also where the messages it shows users are
made safe: Gradio renders a `gr.Error`'s message as HTML, and the messages repeat what users typed,
so the text is escaped (shown as typed, never as markup), and a server path in it is cut to its
file name.
"""

from __future__ import annotations

import functools
import html
import inspect
import re
import typing
from collections.abc import Callable

import gradio as gr

# An absolute path of two parts or more, not part of a URL (`http://host/x`) or of a word.
SERVER_PATH = re.compile(r"(?<![\w:/.~-])/(?:[\w.@+-]+/)+([\w.@+-]*)")


def shown(message: str) -> str:
    """A message as a user may see it: no server path, and escaped for Gradio's HTML toast."""
    return html.escape(SERVER_PATH.sub(lambda m: m.group(1) or "…", message), quote=False)


def _safe(error: gr.Error) -> gr.Error:
    return gr.Error(shown(str(error.message)), duration=error.duration, visible=error.visible, title=error.title,
                    print_exception=error.print_exception)


def bind(handler: Callable, *first, **named) -> Callable:
    if inspect.isgeneratorfunction(handler):
        def bound(*args, **kwargs):
            try:
                yield from handler(*first, *args, **named, **kwargs)
            except gr.Error as e:
                raise _safe(e) from e
    else:
        def bound(*args, **kwargs):
            try:
                return handler(*first, *args, **named, **kwargs)
            except gr.Error as e:
                raise _safe(e) from e
    functools.update_wrapper(bound, handler)
    del bound.__wrapped__  # the signature below is the one to read, not the handler's
    signature = inspect.signature(handler)
    kept = [p for p in list(signature.parameters.values())[len(first):] if p.name not in named]
    bound.__signature__ = signature.replace(parameters=kept)
    bound.__annotations__ = {name: hint for name, hint in typing.get_type_hints(handler).items()
                             if name in {p.name for p in kept} or name == "return"}
    return bound
