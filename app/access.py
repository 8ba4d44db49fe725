"""Who is asking, and may they? The app's one place for sign-in state, roles and history storage.

An identity comes from the request, on the server: a signed session cookie (password sign-in,
app/signin.py), or Hugging Face's OAuth session on a Space; otherwise the request is anonymous,
a viewer unless the operator turned anonymous use off (FPKG_ANONYMOUS=off). Roles come from the
users file, never from the request. Every endpoint calls `require` before it does anything; a refused
curator or admin action is written to the audit log. A users file that cannot be read signs nobody
in (it fails closed) and says so, rather than failing every request.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import gradio as gr

from accounts.audit import AUDIT_FILE, AuditLog
from accounts.history import HistoryStore
from accounts.roles import ACTION_ROLES, may
from accounts.sessions import COOKIE, REVOKED_FILE, RevokedSessions, SessionSigner, load_secret
from accounts.users_file import DamagedUsersFile, UsersFile
from app.exports import EXPORTS_FOLDER, PrivateExports
from fpkg.config import AccessSettings
from fpkg.errors import AccessDenied

HOUR_S = 3600
HISTORY_FILE = "history.sqlite3"


@dataclass(frozen=True)
class Identity:
    name: str | None  # None: not signed in
    role: str | None  # None: may do nothing (anonymous use is off)
    via: str  # password, huggingface or anonymous

    @property
    def signed_in(self) -> bool:
        return self.name is not None


def hf_oauth_enabled(environ=os.environ) -> bool:
    """Sign in with Hugging Face: on a Space whose card says `hf_oauth: true` (which sets these)."""
    return bool(environ.get("SPACE_ID") and environ.get("OAUTH_CLIENT_ID"))


class Access:
    def __init__(self, settings: AccessSettings, hf_oauth: bool | None = None):
        self.settings = settings
        self.anonymous = settings.anonymous
        self.history_mode = settings.history
        self.users = UsersFile(settings.users_file)
        self.audit = AuditLog(settings.state_dir / AUDIT_FILE)
        self.hf_oauth = hf_oauth_enabled() if hf_oauth is None else hf_oauth
        self.signer = SessionSigner(load_secret(settings.state_dir, settings.session_secret),
                                    settings.session_hours * HOUR_S, RevokedSessions(settings.state_dir / REVOKED_FILE))
        self.history = (HistoryStore(settings.state_dir / HISTORY_FILE, settings.history_days)
                        if self.history_mode == "server" else None)
        self.exports = PrivateExports(settings.state_dir / EXPORTS_FOLDER)

    @property
    def password_sign_in(self) -> bool:
        """Offered when the users file holds someone with a password (off a Space's OAuth)."""
        return not self.hf_oauth and any(user.password_hash for user in self.users.users().values())

    def identity(self, request) -> Identity:
        """The request's user, read on the server; anonymous when none is proven (and when the users
        file cannot be read: no role can be known then)."""
        try:
            if request is not None:
                if self.hf_oauth:
                    name = _hf_username(request)
                    if name:
                        user = self.users.get(name)
                        role = user.role if user and not user.password_hash else "viewer"
                        return Identity(name, role, "huggingface")
                else:
                    user = self.signer.user(_cookies(request).get(COOKIE), self.users)
                    if user is not None:
                        return Identity(user.name, user.role, "password")
        except DamagedUsersFile:
            pass
        return Identity(None, "viewer" if self.anonymous else None, "anonymous")

    def require(self, request, action: str) -> Identity:
        """The identity, when it may take `action`; else AccessDenied saying what it needs."""
        identity = self.identity(request)
        if may(identity.role, action):
            return identity
        needed = ACTION_ROLES[action]
        if not identity.signed_in:
            problem = self.users.problem()
            if problem:
                raise AccessDenied(f"Sign-in is unavailable: {problem}. The operator has been told (/healthz).")
            raise AccessDenied(f"Please sign in: {action} needs a signed-in {needed}.")
        raise AccessDenied(f"{identity.name} is a {identity.role}; {action} needs the {needed} role.")

    def who(self, request) -> str:
        """How the audit log names the one asking: the user, or an anonymous address."""
        identity = self.identity(request)
        return identity.name or f"anonymous from {client_address(request)}"

    def gradio_user(self, request) -> str | None:
        """Gradio's `auth_dependency`: a name lets a request in ("" for an anonymous viewer), None
        answers 401. Only installed when anonymous use is off."""
        identity = self.identity(request)
        if identity.role is None:
            return None
        return identity.name or ""

    def server_history_user(self, request) -> str | None:
        """Whose server-side history a request's entries go to; None: they stay in the browser."""
        if self.history is None:
            return None
        return self.identity(request).name

    def history_where(self) -> str:
        if self.history is None:
            return "in your browser only (nothing about a case is stored on the server)"
        return (f"on the server for signed-in users, deleted after {self.settings.history_days:g} days "
                "(in the browser for anyone not signed in)")


def client_address(request) -> str:
    """The caller's address (behind a proxy on this machine, the one it forwards: uvicorn's
    --forwarded-allow-ips, 127.0.0.1 by default)."""
    client = getattr(request, "client", None)
    return getattr(client, "host", None) or "unknown"


def _cookies(request) -> dict:
    try:
        return dict(request.cookies or {})
    except (AttributeError, AssertionError):
        return {}


def _hf_username(request) -> str | None:
    """The Hugging Face user name Gradio's OAuth stored in the session (gradio/oauth.py)."""
    try:
        session = request.session
    except (AttributeError, AssertionError):  # no SessionMiddleware: no OAuth sign-in
        return None
    info = (session or {}).get("oauth_info") or {}
    return (info.get("userinfo") or {}).get("preferred_username")


def allow(access: Access | None, request, action: str) -> Identity | None:
    """The request's identity, or a refusal shown to the user as a message (checked on the server).
    `access` None: a call from Python, not through the app, is not checked."""
    if access is None:
        return None
    try:
        return access.require(request, action)
    except AccessDenied as e:
        if ACTION_ROLES[action] != "viewer":  # what a curator or an admin may do: refusals are kept
            access.audit.record(access.who(request), f"{action} refused", str(e))
        raise gr.Error(str(e), title="Not allowed", print_exception=False) from e
