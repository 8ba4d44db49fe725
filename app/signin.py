"""Password sign-in pages on the app's FastAPI server: GET/POST /signin, GET /signout.

A right password sets the signed session cookie (accounts/sessions.py) and goes back to the app; a
wrong one waits before answering, longer after each recent failure for that name, so that guessing
is slow, and says only that the name or password is wrong. Passwords are never logged or stored.
"""

from __future__ import annotations

import asyncio
import html
import threading
import time
from collections import defaultdict, deque

from fastapi import FastAPI, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from accounts.sessions import COOKIE
from app.access import Access

FAILURE_WINDOW_S = 900  # failures older than this no longer slow a name down
FIRST_DELAY_S = 1.0
MAX_DELAY_S = 8.0
MAX_FIELD = 1024


class FailedAttempts:
    """Recent failed sign-ins per name: each makes the next refusal wait longer (1, 2, 4, 8 s)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._times: dict[str, deque[float]] = defaultdict(deque)

    def delay_after_failure(self, name: str) -> float:
        now = time.monotonic()
        with self._lock:
            times = self._times[name.lower()]
            while times and now - times[0] > FAILURE_WINDOW_S:
                times.popleft()
            times.append(now)
            return min(FIRST_DELAY_S * 2 ** (len(times) - 1), MAX_DELAY_S)


def page(message: str = "", anonymous: bool = True, status_code: int = 200) -> HTMLResponse:
    note = f'<p class="error" role="alert">{html.escape(message)}</p>' if message else ""
    leave = '<p><a href="./">Continue without signing in</a></p>' if anonymous else ""
    return HTMLResponse(f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in · FPKG-RAG</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{{font-family:sans-serif;max-width:22rem;margin:4rem auto}}label,input,button{{display:block;width:100%;
margin:.4rem 0}}input{{padding:.4rem}}.error{{color:#b00020}}</style></head>
<body><h1>FPKG-RAG</h1><h2>Sign in</h2>{note}
<form method="post" action="signin">
<label for="username">User name</label><input id="username" name="username" autocomplete="username" required>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button id="signin" type="submit">Sign in</button></form>{leave}</body></html>""", status_code=status_code)


def add_routes(app: FastAPI, access: Access) -> None:
    failures = FailedAttempts()

    @app.get("/signin", include_in_schema=False)
    def signin_page() -> HTMLResponse:
        return page(anonymous=access.anonymous)

    @app.post("/signin", include_in_schema=False)
    async def signin(request: Request, username: str = Form(""), password: str = Form("")) -> Response:
        name = username.strip()[:MAX_FIELD]
        user = await run_in_threadpool(access.users.verify, name, password[:MAX_FIELD])
        if user is None:
            await asyncio.sleep(failures.delay_after_failure(name))
            access.audit.record(name or "(no name)", "sign-in refused", f"from {_client(request)}")
            return page("Wrong user name or password.", access.anonymous, status_code=401)
        access.audit.record(user.name, "signed in", f"from {_client(request)}")
        response = RedirectResponse("./", status_code=303)
        response.set_cookie(COOKIE, access.signer.token(user), max_age=int(access.signer.max_age_s),
                            httponly=True, samesite="lax", secure=request.url.scheme == "https")
        return response

    @app.get("/signout", include_in_schema=False)
    def signout() -> Response:
        response = RedirectResponse("./", status_code=303)
        response.delete_cookie(COOKIE)
        return response

    @app.middleware("http")
    async def sign_in_first(request: Request, call_next):
        """With anonymous use off, the page itself sends a visitor to the sign-in form (the API
        answers 401 through Gradio's auth_dependency)."""
        if (not access.anonymous and request.method == "GET" and request.url.path in ("", "/")
                and access.identity(request).role is None):
            return RedirectResponse("signin", status_code=303)
        return await call_next(request)


def _client(request: Request) -> str:
    return request.client.host if request.client else "unknown"
