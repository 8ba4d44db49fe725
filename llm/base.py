"""The generator interface shared by the grounded writer, the local model and the endpoint client.

Every backend takes a `GenerationRequest` (chat messages plus sampling settings) and returns text,
either whole (`generate`) or piece by piece (`stream`). Failures surface as `LLMError` subclasses whose
messages tell the user what to do; the original exception is kept as `__cause__`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass

from fpkg.errors import LLMUnavailable

ROLES = ("system", "user", "assistant")


@dataclass(frozen=True)
class GenerationRequest:
    """What to generate. `grounding` is structured evidence for the grounded writer; LLMs ignore it."""

    messages: list[dict[str, str]]
    temperature: float = 0.0
    seed: int = 0
    max_new_tokens: int = 512
    grounding: object | None = None

    def __post_init__(self) -> None:
        if not self.messages:
            raise ValueError("a generation request needs at least one message")
        for message in self.messages:
            if (
                not isinstance(message, dict)
                or message.get("role") not in ROLES
                or not isinstance(message.get("content"), str)
            ):
                raise ValueError(f"each message needs a role in {ROLES} and a text content, got {message!r}")
        if self.temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {self.temperature}")
        if self.max_new_tokens < 1:
            raise ValueError(f"max_new_tokens must be >= 1, got {self.max_new_tokens}")


class Generator(ABC):
    """One text generator. Subclasses implement `stream`; `generate` joins it."""

    name: str = "generator"
    # A line the UI shows next to answers (e.g. "running unquantised on CPU"); None when all is normal.
    notice: str | None = None

    @property
    def is_llm(self) -> bool:
        """True for language models; the deterministic grounded writer overrides this to False."""
        return True

    def generate(self, request: GenerationRequest) -> str:
        return "".join(self.stream(request))

    @abstractmethod
    def stream(self, request: GenerationRequest) -> Iterator[str]:
        """Yield the reply in pieces, in order; joined they equal `generate(request)`."""


class Unavailable(Generator):
    """Stands in for a backend that could not be loaded (a missing or unreadable model): every request
    fails with the reason, so that the service answers from the graph and says why."""

    def __init__(self, name: str, reason: str):
        self.name, self.reason = name, reason

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        raise LLMUnavailable(self.reason)
        yield  # a generator, like every backend's stream
