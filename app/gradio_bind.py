"""Bind a handler's first arguments and keep what Gradio reads from its signature.

`functools.partial` hides the handler's type hints from Gradio, so a `request: gr.Request`
parameter would never be filled in; this keeps the signature and hints, minus what is bound.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable


def bind(handler: Callable, *first, **named) -> Callable:
    if inspect.isgeneratorfunction(handler):
        def bound(*args, **kwargs):
            yield from handler(*first, *args, **named, **kwargs)
    else:
        def bound(*args, **kwargs):
            return handler(*first, *args, **named, **kwargs)
    functools.update_wrapper(bound, handler)
    del bound.__wrapped__  # the signature below is the one to read, not the handler's
    signature = inspect.signature(handler)
    kept = [p for p in list(signature.parameters.values())[len(first):] if p.name not in named]
    bound.__signature__ = signature.replace(parameters=kept)
    bound.__annotations__ = {name: hint for name, hint in typing.get_type_hints(handler).items()
                             if name in {p.name for p in kept} or name == "return"}
    return bound
