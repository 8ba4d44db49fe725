"""The load generator's clients: a light HTTP one (the default) and `gradio_client` (the API's own).

`HttpClient` speaks Gradio's documented HTTP API with `httpx`: `POST /gradio_api/call/<name>` with
`{"data": [...]}` returns an event id, and `GET /gradio_api/call/<name>/<event id>` streams the
answer as server-sent events (`generating`, then `complete` with the outputs, or `error`). It reads
the stream line by line and keeps only the last event, so one user costs the generator a few
milliseconds of CPU per request, where a `gradio_client.Client` (a thread per job, a queue
listener, file handling) costs about ten times more on the same cores as the server. Like a page in
a browser (and `gradio_client`), a user keeps one session for all its requests: the server makes
its per-session state once per user, not once per request.
"""

from __future__ import annotations

import concurrent.futures
import json
import secrets
import time

import httpx

from fpkg.errors import LoadRequestFailed

CONNECT_TIMEOUT_S = 60  # a busy app answers slowly; httpx's default is 5 s
CLIENTS = ("http", "gradio")


class HttpClient:
    """One user: one connection pool, a request at a time."""

    def __init__(self, url: str, headers: dict[str, str] | None = None):
        self.http = httpx.Client(base_url=url, headers=headers, timeout=CONNECT_TIMEOUT_S)
        self.session_hash = secrets.token_hex(8)

    def predict(self, api: str, arguments: tuple, timeout_s: float) -> list:
        """The endpoint's outputs once the answer is complete; raises LoadRequestFailed on an error
        event, a refused call or a stream that ends without an answer."""
        name = api.strip("/")
        body = {"data": list(arguments), "session_hash": self.session_hash}
        response = self.http.post(f"/gradio_api/call/{name}", json=body)
        if response.status_code != 200:
            raise LoadRequestFailed(f"POST {api}: HTTP {response.status_code}: {response.text[:200]}")
        event_id = response.json()["event_id"]
        deadline = time.monotonic() + timeout_s
        event = None
        with self.http.stream("GET", f"/gradio_api/call/{name}/{event_id}",
                              timeout=httpx.Timeout(CONNECT_TIMEOUT_S, read=timeout_s)) as stream:
            for line in stream.iter_lines():
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{api}: no answer within {timeout_s:.0f} s")
                if line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:") and event in ("complete", "error"):
                    data = line[5:].strip()
                    if event == "error":
                        raise LoadRequestFailed(f"{api}: the app answered an error: {data[:300]}")
                    return json.loads(data)
        raise LoadRequestFailed(f"{api}: the stream ended without an answer (last event {event!r})")

    def close(self) -> None:
        self.http.close()


class GradioApiClient:
    """The same calls through `gradio_client` (the API's own client, heavier)."""

    def __init__(self, url: str, headers: dict[str, str] | None = None):
        from gradio_client import Client

        # download_files=False: the evidence pictures stay on the server, not in a temp folder per request
        self.client = Client(url, verbose=False, download_files=False, analytics_enabled=False,
                             httpx_kwargs={"timeout": CONNECT_TIMEOUT_S}, headers=headers)

    def predict(self, api: str, arguments: tuple, timeout_s: float) -> list:
        outputs = self.client.submit(*arguments, api_name=api).result(timeout=timeout_s)
        return list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]

    def close(self) -> None:
        self.client.close()


def make_client(kind: str, url: str, headers: dict[str, str] | None = None) -> HttpClient | GradioApiClient:
    return GradioApiClient(url, headers) if kind == "gradio" else HttpClient(url, headers)


def call(client, api: str, arguments: tuple, timeout_s: float) -> list:
    """One request; its outputs, whose first (the answer) must be a non-empty text."""
    outputs = client.predict(api, arguments, timeout_s)
    answer = outputs[0] if outputs else None
    if not isinstance(answer, str) or not answer.strip():
        raise LoadRequestFailed(f"{api}: no answer in the reply: {str(outputs)[:200]}")
    return outputs


def request_failures() -> tuple[type[BaseException], ...]:
    """What a request can fail with: the app's own error, the queue or the connection, a bad
    reply, the time limit."""
    from gradio_client.exceptions import AppError
    from gradio_client.utils import QueueError, TooManyRequestsError

    return (LoadRequestFailed, AppError, QueueError, TooManyRequestsError, httpx.HTTPError, OSError, ValueError,
            KeyError, TimeoutError, concurrent.futures.TimeoutError)
