"""Signed session tokens: who signed in, when, and which password they used.

The token holds the user's name, `User.session_stamp` and a random session id, signed with the
server's secret (itsdangerous) and timed: a token older than the session length, one signed with
another secret, one whose stamp no longer matches (the password changed, the user was removed), one
signed out (its id in the state folder's revocation list) or one edited by hand counts for nobody.
The role is never in the token: it is read from the users file each time.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import secrets
import tempfile
import threading
import time
from pathlib import Path

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from accounts.users_file import User, UsersFile

COOKIE = "fpkg-session"
SECRET_FILE = "session-secret"
REVOKED_FILE = "revoked-sessions.json"
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


class RevokedSessions:
    """Session ids signed out before their time, each kept until its token would have expired anyway:
    one small JSON file in the state folder, shared by every app process that shares the folder."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._lock = threading.Lock()
        self._read_at: tuple | None = None
        self._ids: dict[str, float] = {}

    def ids(self) -> dict[str, float]:
        """Revoked id -> until when (epoch seconds); read again when the file changed."""
        with self._lock:
            try:
                stat = self.path.stat()
            except FileNotFoundError:
                return {}
            if self._read_at != (stat.st_ino, stat.st_mtime_ns, stat.st_size):
                self._ids = self._read()
                self._read_at = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
            return self._ids

    def revoke(self, session_id: str, until: float) -> None:
        """Adds the id and drops the expired ones: the whole file rewritten atomically under a lock
        file, so that two processes signing people out at once lose neither."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(self.path.with_suffix(".lock"), os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            now = time.time()
            kept = {sid: t for sid, t in self._read().items() if t > now}
            kept[session_id] = until
            handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".revoked-", suffix=".json")
            with os.fdopen(handle, "w") as out:
                json.dump(kept, out)
            os.replace(temporary, self.path)
        finally:
            os.close(descriptor)  # releases the lock

    def _read(self) -> dict[str, float]:
        """The file's ids; a file that cannot be read revokes nothing it cannot name (sign-out
        rewrites it whole)."""
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}
        return {str(k): float(v) for k, v in data.items() if isinstance(v, (int, float))} \
            if isinstance(data, dict) else {}


class SessionSigner:
    def __init__(self, secret: str, max_age_s: float, revoked: RevokedSessions | None = None):
        self._serializer = URLSafeTimedSerializer(secret, salt=SALT)
        self.max_age_s = max_age_s
        self.revoked = revoked
        self.secret_digest = hashlib.sha256(secret.encode()).hexdigest()  # for keys derived one-way

    def token(self, user: User) -> str:
        return self._serializer.dumps({"name": user.name, "stamp": user.session_stamp,
                                       "sid": secrets.token_urlsafe(12)})

    def _claims(self, token: str | None) -> tuple[dict, float] | None:
        """The token's claims and when it was signed, when it is ours and unexpired."""
        if not token:
            return None
        try:
            claims, signed_at = self._serializer.loads(token, max_age=self.max_age_s, return_timestamp=True)
        except (SignatureExpired, BadSignature):
            return None
        if not isinstance(claims, dict) or not isinstance(claims.get("sid"), str):
            return None  # a token without a session id could never be signed out
        return claims, signed_at.timestamp()

    def user(self, token: str | None, users: UsersFile) -> User | None:
        """The signed-in user the token names, or None."""
        opened = self._claims(token)
        if opened is None or (self.revoked is not None and opened[0]["sid"] in self.revoked.ids()):
            return None
        claims = opened[0]
        user = users.get(str(claims.get("name", "")))
        if user is None or user.password_hash is None or claims.get("stamp") != user.session_stamp:
            return None
        return user

    def revoke(self, token: str | None) -> bool:
        """Signs the token's session out on the server: it names nobody from now on, wherever it
        is kept. False when the token was no valid session anyway."""
        opened = self._claims(token)
        if opened is None or self.revoked is None:
            return False
        claims, signed_at = opened
        self.revoked.revoke(claims["sid"], signed_at + self.max_age_s)
        return True
