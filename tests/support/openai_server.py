"""A real OpenAI-compatible chat server on loopback, for tests of everything that calls an LLM
endpoint. Behaviours switch per test: ok, slow, 500, bad_json, no_choices, bad_stream, cut_stream, trickle
(each streamed word TRICKLE_S after the last)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

REPLY = "The most likely diagnosis is Noonan syndrome."
TRICKLE_S = 0.2


class FakeServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)
        self.behaviour = "ok"
        self.reply = REPLY
        self.requests: list[dict] = []

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}/v1"

    def handle_error(self, request, client_address):
        pass  # the client hanging up on a slow reply is expected in the timeout test


class Handler(BaseHTTPRequestHandler):
    server: FakeServer

    def log_message(self, *args):  # keep pytest output clean
        pass

    def do_POST(self):  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(
            {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body}
        )
        behaviour = self.server.behaviour
        if self.path != "/v1/chat/completions":
            return self._send(404, b'{"error": "not found"}')
        if behaviour == "slow":
            time.sleep(1.5)
        if behaviour == "500":
            return self._send(500, b'{"error": "model crashed"}')
        if behaviour == "bad_json":
            return self._send(200, b'{"choices": [ {"message": ')
        if behaviour == "no_choices":
            return self._send(200, b'{"id": "x", "object": "chat.completion"}')
        if body.get("stream"):
            return self._stream(behaviour)
        reply = {
            "id": "cmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": self.server.reply}, "finish_reason": "stop"}
            ],
        }
        self._send(200, json.dumps(reply).encode())

    def _send(self, status: int, payload: bytes, content_type: str = "application/json"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _stream(self, behaviour: str):
        pieces = [{"role": "assistant"}] + [{"content": word} for word in self.server.reply.split(" ")]
        events = []
        for i, delta in enumerate(pieces):
            if i > 1:
                delta = {"content": " " + delta["content"]}
            chunk = {
                "id": "c",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": "m",
                "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
            }
            events.append(f"data: {json.dumps(chunk)}\n\n")
        if behaviour == "bad_stream":
            events.insert(3, "data: {not json\n\n")
        events.append("data: [DONE]\n\n")
        payload = "".join(events).encode()
        if behaviour == "cut_stream":  # a server that dies mid-reply: half of what it announced, then closed
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload[: len(payload) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        if behaviour == "trickle":  # a slow model: every word on time, the whole reply late
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for event in events:
                self.wfile.write(event.encode())
                self.wfile.flush()
                time.sleep(TRICKLE_S)
            self.close_connection = True
            return
        self._send(200, payload, content_type="text/event-stream")




@contextmanager
def running_server() -> Iterator[FakeServer]:
    srv = FakeServer()
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield srv
    finally:
        srv.shutdown()
        srv.server_close()
