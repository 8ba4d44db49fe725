"""Signed session tokens: who signed in, when, and which password they used.

The token holds the user's name and `User.session_stamp`, signed with the server's secret
(itsdangerous) and timed: a token older than the session length, one signed with another secret,
one whose stamp no longer matches (the password changed, the user was removed) or one edited by
hand counts for nobody. The role is never in the token: it is read from the users file each time.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from pathlib import Path

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from accounts.users_file import User, UsersFile

COOKIE = "fpkg-session"
SECRET_FILE = "session-secret"
SALT = "fpkg-rag sign-in"


def load_secret(state_dir: Path, given: str | None) -> str:
    """FPKG_SESSION_SECRET when set; else one made once and kept (owner-only) in the state folder,
    so that sessions outlive a restart."""
    if given:
        return given
    path = state_dir / SECRET_FILE
    if not path.is_file():
        state_dir.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as out:
            out.write(secrets.token_urlsafe(48))
    return path.read_text().strip()


class SessionSigner:
    def __init__(self, secret: str, max_age_s: float):
        self._serializer = URLSafeTimedSerializer(secret, salt=SALT)
        self.max_age_s = max_age_s
        self.secret_digest = hashlib.sha256(secret.encode()).hexdigest()  # for keys derived one-way

    def token(self, user: User) -> str:
        return self._serializer.dumps({"name": user.name, "stamp": user.session_stamp})

    def user(self, token: str | None, users: UsersFile) -> User | None:
        """The signed-in user the token names, or None."""
        if not token:
            return None
        try:
            claims = self._serializer.loads(token, max_age=self.max_age_s)
        except (SignatureExpired, BadSignature):
            return None
        if not isinstance(claims, dict):
            return None
        user = users.get(str(claims.get("name", "")))
        if user is None or user.password_hash is None or claims.get("stamp") != user.session_stamp:
            return None
        return user
