"""Password sign-in pages on the app's FastAPI server: GET/POST /signin, GET/POST /signout.

A right password sets the signed session cookie (accounts/sessions.py) and goes back to the app; a
wrong one waits before answering, longer after each recent failure for that name, and says only that
the name or password is wrong. How many checks run, from where and how often is bounded
(app/signin_limits.py): past a limit the answer is 429 with the time to wait. Both forms refuse a post
from another site (its Origin), and signing out (a POST) ends the session on the server, not only in
the browser. Passwords are never logged or stored; names are cut short in the audit log.
"""

from __future__ import annotations

import asyncio
import html
from urllib.parse import parse_qs, urlsplit

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from accounts.sessions import COOKIE
from accounts.users_file import DamagedUsersFile
from app.access import Access, client_address
from app.signin_limits import SignInLimiter, shown_name

MAX_FIELD = 1024
MAX_BODY = 4 * MAX_FIELD  # a sign-in form is two short fields; a longer body is not read
FORM = "application/x-www-form-urlencoded"


def page(message: str = "", anonymous: bool = True, status_code: int = 200, form: str = "signin",
         headers: dict | None = None) -> HTMLResponse:
    note = f'<p class="error" role="alert">{html.escape(message)}</p>' if message else ""
    leave = '<p><a href="./">Continue without signing in</a></p>' if anonymous else ""
    if form == "signout":
        body = ('<h2>Sign out</h2><form method="post" action="signout">'
                '<button id="signout" type="submit">Sign out</button></form>')
    else:
        body = f"""<h2>Sign in</h2>{note}
<form method="post" action="signin">
<label for="username">User name</label><input id="username" name="username" autocomplete="username" required>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button id="signin" type="submit">Sign in</button></form>{leave}"""
    return HTMLResponse(f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in · FPKG-RAG</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{{font-family:sans-serif;max-width:22rem;margin:4rem auto}}label,input,button{{display:block;width:100%;
margin:.4rem 0}}input{{padding:.4rem}}.error{{color:#b00020}}</style></head>
<body><h1>FPKG-RAG</h1>{body}</body></html>""", status_code=status_code, headers=headers)


def from_this_site(request: Request, trusted: tuple[str, ...]) -> bool:
    """Whether a form post comes from the app's own pages (or a trusted origin). Browsers name the
    posting page's origin; a client that names none (curl, a script) is no cross-site forgery."""
    if request.headers.get("sec-fetch-site") == "cross-site":
        return False
    origin = request.headers.get("origin") or request.headers.get("referer")
    if origin is None:
        return True
    parts = urlsplit(origin)
    own = request.headers.get("host", "").lower()
    return bool(parts.netloc) and (parts.netloc.lower() == own
                                   or f"{parts.scheme}://{parts.netloc}".lower() in trusted)


async def form_fields(request: Request) -> dict[str, str] | None:
    """The posted form's fields, or None when it is not a short url-encoded form."""
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != FORM:
        return None
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            return None
    fields = parse_qs(body.decode("utf-8", errors="replace"), keep_blank_values=True)
    return {name: values[0][:MAX_FIELD] for name, values in fields.items()}


def add_routes(app: FastAPI, access: Access) -> None:
    settings = access.settings
    limiter = SignInLimiter(settings.signin_checks, settings.signin_per_address, settings.signin_per_minute)
    trusted, always_secure = settings.trusted_origins, settings.secure_cookie

    @app.get("/signin", include_in_schema=False)
    def signin_page() -> HTMLResponse:
        return page(anonymous=access.anonymous)

    @app.post("/signin", include_in_schema=False)
    async def signin(request: Request) -> Response:
        address = client_address(request)
        if not from_this_site(request, trusted):
            if limiter.first_refusal(address, "cross-site"):
                access.audit.record("(sign-in)", "sign-in refused", f"a post from another site, from {address}")
            return page("This sign-in form was sent from another site.", access.anonymous, status_code=403)
        fields = await form_fields(request)
        if fields is None:
            return page("Send the sign-in form's two fields.", access.anonymous, status_code=400)
        name, password = fields.get("username", "").strip(), fields.get("password", "")
        refusal = limiter.admit(name, address)  # a check slot is free when it lets the attempt in
        if refusal is not None:
            if refusal.first_for_address:
                access.audit.record("(sign-in)", "sign-ins throttled", f"{refusal.reason}, from {address}")
            return page(f"Too many sign-in attempts ({refusal.reason}). Try again in {refusal.retry_after_s} s.",
                        access.anonymous, status_code=429, headers={"Retry-After": str(refusal.retry_after_s)})
        try:
            async with limiter.checked():
                user = await run_in_threadpool(access.users.verify, name, password)
            if user is None:
                await asyncio.sleep(limiter.failure_delay(name))
                access.audit.record(shown_name(name) or "(no name)", "sign-in refused", f"from {address}")
                return page("Wrong user name or password.", access.anonymous, status_code=401)
        except DamagedUsersFile:
            return page("Sign-in is unavailable: the server's users file cannot be read. The operator has been "
                        "told (/healthz).", access.anonymous, status_code=503)
        finally:
            limiter.release(name)
        limiter.succeeded(address)
        access.audit.record(user.name, "signed in", f"from {address}")
        response = RedirectResponse("./", status_code=303)
        response.set_cookie(COOKIE, access.signer.token(user), max_age=int(access.signer.max_age_s),
                            httponly=True, samesite="lax", secure=always_secure or request.url.scheme == "https")
        return response

    @app.get("/signout", include_in_schema=False)
    def signout_page() -> HTMLResponse:
        return page(form="signout")

    @app.post("/signout", include_in_schema=False)
    def signout(request: Request) -> Response:
        if not from_this_site(request, trusted):
            return page("This sign-out form was sent from another site.", form="signout", status_code=403)
        identity = access.identity(request)
        if access.signer.revoke(request.cookies.get(COOKIE)):
            access.audit.record(identity.name or "(signed out)", "signed out", f"from {client_address(request)}")
        response = RedirectResponse("./", status_code=303)
        response.delete_cookie(COOKIE, httponly=True, samesite="lax")
        return response

    @app.middleware("http")
    async def sign_in_first(request: Request, call_next):
        """With anonymous use off, the page itself sends a visitor to the sign-in form (the API
        answers 401 through Gradio's auth_dependency)."""
        if (not access.anonymous and request.method == "GET" and request.url.path in ("", "/")
                and access.identity(request).role is None):
            return RedirectResponse("signin", status_code=303)
        return await call_next(request)
