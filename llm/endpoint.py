"""Chat completions from any OpenAI-compatible server (TGI, vLLM, Ollama, OpenAI, HF router).

`LLM_ENDPOINT` may be given as `http://host:8000`, `http://host:8000/v1` or the full
`.../v1/chat/completions`; all become the base `http://host:8000/v1`, to which the client adds
`/chat/completions`. `LLM_MODEL` is sent as the `model` field (e.g. `qwen2.5:7b-instruct` for Ollama).

Connection errors, 429 and 5xx answers are retried a bounded number of times with exponential backoff
(a streamed reply only before its first piece); a read timeout is not retried, since a server that is
too slow once is likely too slow again. The API key travels only in the Authorization header.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

import httpx2
from huggingface_hub import InferenceClient
from huggingface_hub.errors import HfHubHTTPError, InferenceTimeoutError, TextGenerationError

from fpkg.errors import LLMBadResponse, LLMConfigError, LLMError, LLMHTTPError, LLMTimeout, LLMUnavailable
from llm.base import GenerationRequest, Generator

if TYPE_CHECKING:
    from fpkg.config import Settings

# Sent when LLM_API_KEY is unset: without a key, huggingface_hub would fall back to the user's saved
# Hugging Face token and send it to whatever server LLM_ENDPOINT names.
NO_KEY = "no-key"
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_BODY_CHARS = 300


def normalize_base_url(url: str | None) -> str:
    """`http://h:8000`, `http://h:8000/v1/`, `.../v1/chat/completions` -> `http://h:8000/v1`."""
    text = (url or "").strip()
    parsed = urlparse(text)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise LLMConfigError(
            f"LLM_ENDPOINT={text!r} is not an http(s) URL; give the server's base URL, "
            "e.g. http://localhost:8000/v1 (vLLM, TGI) or http://localhost:11434/v1 (Ollama)"
        )
    path = parsed.path.rstrip("/")
    path = path.removesuffix("/chat/completions")
    if not path.endswith("/v1"):
        path += "/v1"
    return parsed._replace(path=path, query="", fragment="").geturl()


class EndpointGenerator(Generator):
    """An OpenAI-compatible chat completion server reached with `huggingface_hub.InferenceClient`."""

    name = "endpoint"

    def __init__(
        self,
        settings: Settings,
        *,
        timeout: float | None = None,
        retries: int = 2,
        backoff: float = 0.5,
    ):
        self.base_url = normalize_base_url(settings.llm_endpoint)
        self.model = settings.llm_model
        self.timeout = timeout if timeout is not None else settings.llm_timeout_s
        self.retries = retries
        self.backoff = backoff
        self._api_key = settings.llm_api_key or None

    def __repr__(self) -> str:
        return f"EndpointGenerator(base_url={self.base_url!r}, model={self.model!r}, timeout={self.timeout})"

    def _client(self) -> InferenceClient:
        return InferenceClient(base_url=self.base_url, api_key=self._api_key or NO_KEY, timeout=self.timeout)

    def _redact(self, text: str) -> str:
        return text.replace(self._api_key, "***") if self._api_key else text

    def _call(self, client: InferenceClient, request: GenerationRequest, stream: bool) -> Any:
        """`chat_completion` with retries; returns its output (an iterator when streaming)."""
        for attempt in range(self.retries + 1):
            try:
                return client.chat_completion(
                    request.messages,
                    model=self.model,
                    temperature=request.temperature,
                    seed=request.seed,
                    max_tokens=request.max_new_tokens,
                    stream=stream,
                )
            except (httpx2.HTTPError, TextGenerationError, ValueError) as e:
                error = self._translate(e)
                if attempt == self.retries or not _retryable(error):
                    raise error from e
            time.sleep(self.backoff * 2**attempt)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def generate(self, request: GenerationRequest) -> str:
        with self._client() as client:
            output = self._call(client, request, stream=False)
        choices = getattr(output, "choices", None)
        if not choices:
            raise LLMBadResponse(
                f"the LLM endpoint {self.base_url} answered without any choices: "
                f"{self._redact(str(output))[:MAX_BODY_CHARS]}"
            )
        message = getattr(choices[0], "message", None)
        content = getattr(message, "content", None)
        if not isinstance(content, str):
            raise LLMBadResponse(f"the LLM endpoint {self.base_url} answered without message content")
        return content

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        with self._client() as client:
            chunks = self._call(client, request, stream=True)
            replying = False
            try:
                for chunk in chunks:
                    # Some servers send a role-only first chunk and a usage-only last one.
                    choices = getattr(chunk, "choices", None) or []
                    delta = getattr(choices[0], "delta", None) if choices else None
                    content = getattr(delta, "content", None)
                    if content:
                        replying = True
                        yield content
            except (httpx2.HTTPError, TextGenerationError, ValueError) as e:
                if replying and isinstance(e, httpx2.TransportError):  # it was reached: it died mid-reply
                    raise LLMUnavailable(f"the LLM endpoint {self.base_url} closed the connection in the middle "
                                         f"of its reply ({type(e).__name__})") from e
                raise self._translate(e) from e

    def _translate(self, error: Exception) -> LLMError:
        """The user-facing error for a client exception; never includes the API key."""
        where = f"the LLM endpoint {self.base_url}"
        if isinstance(error, (InferenceTimeoutError, httpx2.TimeoutException)) and not isinstance(
            error, httpx2.ConnectTimeout
        ):
            return LLMTimeout(
                f"{where} did not answer within {self.timeout:g} s; the server may be overloaded or the "
                "model too slow for this timeout"
            )
        if isinstance(error, HfHubHTTPError):
            status = error.response.status_code
            body = _short_body(error)
            hint = {
                401: " (check LLM_API_KEY)",
                403: " (check LLM_API_KEY)",
                404: f" (check LLM_ENDPOINT and that the server serves model {self.model!r})",
            }.get(status, "")
            return LLMHTTPError(self._redact(f"{where} answered HTTP {status}{hint}: {body}"), status=status)
        if isinstance(error, TextGenerationError):
            return LLMBadResponse(self._redact(f"{where} reported an error while generating: {error}"))
        if isinstance(error, httpx2.TransportError):
            return LLMUnavailable(
                f"cannot reach {where} ({type(error).__name__}: {self._redact(str(error))}); "
                "is the server running and LLM_ENDPOINT right?"
            )
        if isinstance(error, json.JSONDecodeError):
            return LLMBadResponse(f"{where} answered with malformed JSON ({error.msg} at char {error.pos})")
        return LLMBadResponse(self._redact(f"{where} answered with something unreadable: {error}"))


def _retryable(error: LLMError) -> bool:
    if isinstance(error, LLMHTTPError):
        return error.status in RETRY_STATUSES
    return isinstance(error, LLMUnavailable)


def _short_body(error: HfHubHTTPError) -> str:
    if error.server_message:
        return error.server_message.strip()[:MAX_BODY_CHARS]
    try:
        text = error.response.text
    except httpx2.ResponseNotRead:  # a streamed response whose body was never read
        text = ""
    return text.strip()[:MAX_BODY_CHARS] or "(empty body)"
