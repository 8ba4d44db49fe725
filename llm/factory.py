"""Backend name -> generator class, imported lazily so that `grounded` never loads torch.

`make_generator` keeps one instance per (backend, model, endpoint), so a local model is loaded once
per process however many requests ask for it.
"""

from __future__ import annotations

import importlib
import threading
from typing import TYPE_CHECKING

from fpkg.config import SPACE_LLMS
from fpkg.errors import LLMConfigError
from llm.base import Generator
from llm.gguf import is_gguf

if TYPE_CHECKING:
    from fpkg.config import Settings

BACKENDS: dict[str, str] = {
    "grounded": "llm.grounded:GroundedWriter",
    "local": "llm.local:LocalGenerator",
    "endpoint": "llm.endpoint:EndpointGenerator",
}

_cache: dict[tuple[str, str, str | None], Generator] = {}
# Held while a generator is built, so two first requests don't load the same model twice.
_lock = threading.Lock()


def known_backends() -> tuple[str, ...]:
    return tuple(BACKENDS)


def generator_class(backend: str) -> type[Generator]:
    """Import and return the class for `backend` (e.g. "local")."""
    try:
        target = BACKENDS[backend]
    except KeyError:
        raise LLMConfigError(f"unknown LLM backend {backend!r}; use one of {', '.join(BACKENDS)}") from None
    module_name, class_name = target.split(":")
    return getattr(importlib.import_module(module_name), class_name)


def check_backend(settings: Settings, backend: str | None = None) -> str:
    """The backend's name, once its settings are known to be usable (nothing is loaded):
    where the LLM settings are checked, so that commands without an LLM never read them."""
    name = (backend or settings.llm_backend).strip().lower()
    if name not in BACKENDS:
        raise LLMConfigError(f"unknown LLM backend {name!r}; use one of {', '.join(BACKENDS)}")
    if name == "endpoint" and not settings.llm_endpoint:
        raise LLMConfigError("LLM_BACKEND=endpoint needs LLM_ENDPOINT (an OpenAI-compatible base URL)")
    if settings.space_llm and settings.space_llm.strip().lower() not in SPACE_LLMS:
        raise LLMConfigError(f"SPACE_LLM={settings.space_llm!r} is not one of {', '.join(SPACE_LLMS)} "
                             "(the Space's small model: 4-bit GGUF on CPU hardware, NF4 on a GPU)")
    if name != "grounded":
        settings.llm_timeout_s  # noqa: B018 - a bad LLM_TIMEOUT_S is reported here, before a request
    return name


def make_generator(settings: Settings, backend: str | None = None) -> Generator:
    """The generator for `backend` (default `settings.llm_backend`), created on first use and cached."""
    name = check_backend(settings, backend)
    cls = generator_class(name)
    if name == "local" and is_gguf(settings.llm_model):  # llama.cpp on the CPU, not transformers
        from llm.gguf import GgufGenerator

        cls = GgufGenerator
    key = (name, settings.llm_model, settings.llm_endpoint if name == "endpoint" else None)
    with _lock:
        generator = _cache.get(key)
        if generator is None:
            generator = cls(settings)
            _cache[key] = generator
    return generator


def clear_cache() -> None:
    """Forget cached generators (tests, or to free a local model's memory)."""
    with _lock:
        _cache.clear()
