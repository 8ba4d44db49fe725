"""The users file: names, roles and salted password hashes (Argon2id), edited by `python -m app users`.

    {"version": 1, "users": {"alice": {"role": "curator", "password": "$argon2id$...", "added": "..."}}}

An entry without a password is a Hugging Face account: it signs in with Hugging Face on a Space and
the file only gives it a role (such a file holds no secret). The app re-reads the file when it
changes, so a removed user or a new role counts from the next request.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from accounts.roles import checked_role
from fpkg.errors import InputError, SettingsError

FORMAT_VERSION = 1
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")
MIN_PASSWORD = 8
MAX_PASSWORD = 1024
_HASHER = PasswordHasher()
# Checked when the name is unknown, so that a wrong name takes as long as a wrong password.
_DUMMY_HASH = _HASHER.hash("not a password of anyone")


@dataclass(frozen=True)
class User:
    name: str
    role: str
    password_hash: str | None  # None: a Hugging Face account
    added: str

    @property
    def session_stamp(self) -> str:
        """Changes when the password does: a session signed before a change no longer counts."""
        return hashlib.sha256((self.password_hash or self.name).encode()).hexdigest()[:12]


class DamagedUsersFile(SettingsError):
    """The users file cannot be read; `reason` says why without naming the file's path."""

    def __init__(self, path: Path, reason: str):
        self.reason = reason
        super().__init__(f"The users file {path} cannot be read ({reason}); fix it or remove it and add the users "
                         "again with `python -m app users add`.")


def checked_name(name: str) -> str:
    name = (name or "").strip()
    if not NAME.fullmatch(name):
        raise InputError(f"{name!r} is not a valid user name: 1-64 letters, digits and . _ @ -, "
                         "starting with a letter or digit.")
    return name


def checked_password(password: str) -> str:
    if not MIN_PASSWORD <= len(password or "") <= MAX_PASSWORD:
        raise InputError(f"A password must be {MIN_PASSWORD} to {MAX_PASSWORD} characters long.")
    return password


class UsersFile:
    def __init__(self, path: Path):
        self.path = Path(path)
        self._lock = threading.Lock()
        self._read_at: tuple[float, int] | None = None
        self._users: dict[str, User] = {}

    def users(self) -> dict[str, User]:
        """Name -> user, read again when the file changed; {} when there is no file."""
        with self._lock:
            try:
                stat = self.path.stat()
            except FileNotFoundError:
                self._users, self._read_at = {}, None
                return {}
            if self._read_at != (stat.st_mtime, stat.st_size):
                self._users = self._parse()
                self._read_at = (stat.st_mtime, stat.st_size)
            return dict(self._users)

    def get(self, name: str) -> User | None:
        return self.users().get(name)

    def problem(self) -> str | None:
        """Why the file cannot be read now (no path in it: /healthz says it to anyone), else None."""
        try:
            self.users()
        except DamagedUsersFile as e:
            return f"the users file cannot be read ({e.reason})"
        return None

    def verify(self, name: str, password: str) -> User | None:
        """The user when the password is theirs, else None (in about the same time either way)."""
        user = self.get(name) if NAME.fullmatch(name or "") else None
        stored = user.password_hash if user and user.password_hash else _DUMMY_HASH
        try:
            _HASHER.verify(stored, password or "")
        except (VerificationError, InvalidHashError):
            return None
        return user if user and user.password_hash else None

    def add(self, name: str, role: str, password: str | None) -> User:
        """Adds a user, or replaces one's role and password. `password=None`: a Hugging Face account."""
        name, role = checked_name(name), checked_role(role)
        hashed = _HASHER.hash(checked_password(password)) if password is not None else None
        user = User(name, role, hashed, datetime.now(UTC).isoformat(timespec="seconds"))
        self._write({**self.users(), name: user})
        return user

    def remove(self, name: str) -> None:
        users = self.users()
        if name not in users:
            raise InputError(f"There is no user {name!r} in {self.path}.")
        del users[name]
        self._write(users)

    def _parse(self) -> dict[str, User]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            entries = data["users"]
            users = {checked_name(name): User(name, checked_role(entry["role"]), entry.get("password"),
                                              str(entry.get("added", "")))
                     for name, entry in entries.items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError, InputError) as e:
            reason = f"{type(e).__name__}: {e}" if isinstance(e, (KeyError, OSError)) else str(e)
            raise DamagedUsersFile(self.path, reason.replace(str(self.path), "the file")) from e
        if data.get("version") != FORMAT_VERSION:
            raise DamagedUsersFile(self.path, f"format version {data.get('version')!r}; this version reads "
                                              f"{FORMAT_VERSION}")
        return users

    def _write(self, users: dict[str, User]) -> None:
        """Whole file, atomically (a reader never sees half of it), readable by its owner only."""
        body = {"version": FORMAT_VERSION,
                "users": {u.name: {"role": u.role, "password": u.password_hash, "added": u.added}
                          for u in sorted(users.values(), key=lambda u: u.name)}}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".users-", suffix=".json")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(body, out, indent=1)
            os.chmod(temporary, 0o600)
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        with self._lock:
            self._read_at = None
