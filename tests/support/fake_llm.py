"""A scripted stand-in for an LLM: replies in order, and fails loudly on an unscripted call."""

from __future__ import annotations

from collections.abc import Iterator

from llm.base import GenerationRequest, Generator


class ScriptedLLM(Generator):
    name = "scripted"

    def __init__(self, replies: list[str]):
        self.replies = list(replies)
        self.requests: list[GenerationRequest] = []

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        self.requests.append(request)
        if not self.replies:
            raise AssertionError(f"unscripted LLM call: {request.messages[-1]['content'][:200]!r}")
        yield self.replies.pop(0)
