"""The app's web server: FastAPI around the Gradio Blocks, with what a public server needs.

- `/healthz`: 200 while the graph store answers and the users file and the curated overlay can be
  read; 503 with the reason otherwise (the reason names no server path).
- Password sign-in pages (app/signin.py) unless a Space signs people in with Hugging Face.
- Security headers on every answer: no framing by other sites (`frame-ancestors`, and
  X-Frame-Options when no site may), `nosniff`, a same-origin Referrer-Policy.
- No `/docs` and no `/openapi.json` (the Gradio API documents itself at `?view=api`).
- Uploads up to FPKG_MAX_UPLOAD_MB; only files uploaded through Gradio reach a handler (Gradio's own
  check, which `mount_gradio_app` leaves off); a private export is served to its owner only.
- Errors other than the messages meant for users are not sent to the page (they name code and paths).
"""

from __future__ import annotations

import gradio as gr
from fastapi import FastAPI
from fastapi.responses import JSONResponse
from starlette.requests import Request
from starlette.responses import PlainTextResponse

from app import signin
from app.about import ner_in_use
from app.access import Access
from app.exports import is_private_export
from app.page_style import PAGE_STYLE
from service.pipeline import Pipeline

GRADIO_API = "/gradio_api/"  # its file routes: file={path} and the older file/{path}


def security_headers(frame_ancestors: str) -> list[tuple[bytes, bytes]]:
    headers = [(b"content-security-policy", f"frame-ancestors {frame_ancestors}".encode()),
               (b"x-content-type-options", b"nosniff"),
               (b"referrer-policy", b"same-origin")]
    if frame_ancestors == "'none'":  # X-Frame-Options cannot name the sites that may frame the page
        headers.append((b"x-frame-options", b"DENY"))
    return headers


class Guard:
    """ASGI middleware (plain, not BaseHTTPMiddleware: no cost on streamed answers): adds the
    security headers, and answers 404 to a request for someone else's (or an expired) export."""

    def __init__(self, app, access: Access, headers: list[tuple[bytes, bytes]]):
        self.app, self.access, self.headers = app, access, headers
        self.names = {name for name, _ in headers}

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        if scope["path"].startswith(GRADIO_API) and not self._may_fetch(scope):
            return await PlainTextResponse("Not found", status_code=404)(scope, receive, self._send(send))
        await self.app(scope, receive, self._send(send))

    def _may_fetch(self, scope) -> bool:
        """Whatever Gradio route names a private export (by its file name: ASGI's path is already
        decoded, as Gradio's routes read it), only its owner gets it."""
        name = scope["path"].rsplit("/", 1)[-1].rsplit("=", 1)[-1]
        if not is_private_export(name):
            return True
        return self.access.exports.may_fetch(name, self.access.identity(Request(scope)).name)

    def _send(self, send):
        async def with_headers(message):
            if message["type"] == "http.response.start":
                kept = [(k, v) for k, v in message.get("headers", []) if k.lower() not in self.names]
                message = {**message, "headers": kept + self.headers}
            await send(message)
        return with_headers


def health(pipeline: Pipeline, access: Access) -> tuple[dict, int]:
    """What /healthz answers: its body and status."""
    problems = [problem for problem in (None if pipeline.store.health() else "graph store not answering",
                                        access.users.problem(), pipeline.curated.health())
                if problem]
    body = {"status": "; ".join(problems) if problems else "ok",
            "vector_index": "ready" if pipeline.ready("vector") else "loading",
            "ner": ner_in_use(pipeline)}
    return body, 503 if problems else 200


def build_app(pipeline: Pipeline, access: Access, demo: gr.Blocks) -> FastAPI:
    settings = access.settings
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    if not access.hf_oauth:
        signin.add_routes(app, access)

    @app.get("/healthz")
    def healthz() -> JSONResponse:
        body, status = health(pipeline, access)
        return JSONResponse(body, status_code=status)

    # With anonymous use off, Gradio answers 401 to any request that `gradio_user` lets not in.
    app = gr.mount_gradio_app(app, demo, path="", ssr_mode=False, footer_links=["api", "gradio"], **PAGE_STYLE,
                              auth_dependency=None if access.anonymous else access.gradio_user,
                              max_file_size=settings.max_upload_bytes, show_error=False,
                              allowed_paths=[str(access.exports.files)], app_kwargs={"openapi_url": None})
    # Gradio checks that a file given to a handler was uploaded (and that a file it serves is one
    # it may) only once `launch()` has run: mounted, it never does, so say it has.
    demo.has_launched = True
    access.exports.sweep()  # what expired while the app was stopped
    app.add_middleware(Guard, access=access, headers=security_headers(settings.frame_ancestors))
    return app
