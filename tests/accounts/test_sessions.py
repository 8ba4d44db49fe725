"""Signed session tokens: only an unexpired token signed with the server's secret, for a user whose
password has not changed since, and not signed out, names anyone; the role always comes from the
users file."""

from __future__ import annotations

import json
import time

import pytest
from itsdangerous import URLSafeTimedSerializer

from accounts.sessions import SALT, RevokedSessions, SessionSigner, load_secret
from accounts.users_file import UsersFile

SECRET = "a test secret that is long enough"


@pytest.fixture
def users(tmp_path) -> UsersFile:
    users = UsersFile(tmp_path / "users.json")
    users.add("cara", "curator", "curator password")
    return users


def test_a_token_names_its_user_with_the_files_role(users):
    signer = SessionSigner(SECRET, 3600)
    token = signer.token(users.get("cara"))
    assert signer.user(token, users).role == "curator"
    data = json.loads(users.path.read_text())
    data["users"]["cara"]["role"] = "admin"  # the role changed, the password did not
    users.path.write_text(json.dumps(data))
    assert signer.user(token, users).role == "admin"


def test_a_new_password_or_a_removed_user_ends_the_session(users):
    signer = SessionSigner(SECRET, 3600)
    token = signer.token(users.get("cara"))
    users.add("cara", "curator", "a new password")
    assert signer.user(token, users) is None
    token = signer.token(users.get("cara"))
    users.remove("cara")
    assert signer.user(token, users) is None


def test_an_expired_token_names_nobody(users):
    signer = SessionSigner(SECRET, 1)
    token = signer.token(users.get("cara"))
    time.sleep(2.1)
    assert signer.user(token, users) is None


@pytest.mark.parametrize("forge", [
    lambda token, user: token[:-2] + ("AA" if not token.endswith("AA") else "BB"),  # edited signature
    lambda token, user: SessionSigner("another secret entirely", 3600).token(user),  # another server's
    lambda token, user: URLSafeTimedSerializer("another secret entirely", salt=SALT).dumps(
        {"name": "cara", "stamp": user.session_stamp, "role": "admin"}),
    lambda token, user: "not a token", lambda token, user: "", lambda token, user: None,
])
def test_a_forged_token_names_nobody(users, forge):
    signer = SessionSigner(SECRET, 3600)
    user = users.get("cara")
    assert signer.user(forge(signer.token(user), user), users) is None


def test_a_role_written_into_a_validly_signed_token_is_ignored(users):
    signer = SessionSigner(SECRET, 3600)
    user = users.get("cara")
    token = URLSafeTimedSerializer(SECRET, salt=SALT).dumps({"name": "cara", "stamp": user.session_stamp,
                                                             "sid": "s1", "role": "admin"})
    assert signer.user(token, users).role == "curator"


def test_a_token_without_a_session_id_names_nobody(users):
    """One signed before sign-out could end a session on the server: it could never be signed out."""
    user = users.get("cara")
    token = URLSafeTimedSerializer(SECRET, salt=SALT).dumps({"name": "cara", "stamp": user.session_stamp})
    assert SessionSigner(SECRET, 3600).user(token, users) is None


def test_signing_out_ends_that_session_everywhere_and_only_that_one(users, tmp_path):
    revoked = RevokedSessions(tmp_path / "state" / "revoked-sessions.json")
    signer = SessionSigner(SECRET, 3600, revoked)
    phone, laptop = signer.token(users.get("cara")), signer.token(users.get("cara"))
    assert signer.revoke(phone) and signer.user(phone, users) is None
    assert signer.user(laptop, users).name == "cara"
    # another process sharing the state folder sees it too
    other = SessionSigner(SECRET, 3600, RevokedSessions(revoked.path))
    assert other.user(phone, users) is None and other.user(laptop, users).name == "cara"
    assert not signer.revoke("not a token") and not signer.revoke(None)


def test_revoked_ids_are_kept_until_their_token_would_have_expired(users, tmp_path):
    revoked = RevokedSessions(tmp_path / "revoked-sessions.json")
    revoked.revoke("old", time.time() - 1)  # expired: dropped at the next sign-out
    revoked.revoke("current", time.time() + 3600)
    assert set(json.loads(revoked.path.read_text())) == {"current"}
    revoked.path.write_text("{not json")  # damaged by hand: revokes nothing it cannot name, and is rewritten
    assert revoked.ids() == {}
    revoked.revoke("next", time.time() + 60)
    assert set(revoked.ids()) == {"next"}


def test_the_secret_is_made_once_and_kept_owner_only(tmp_path):
    first = load_secret(tmp_path / "state", None)
    assert load_secret(tmp_path / "state", None) == first and len(first) >= 40
    assert (tmp_path / "state" / "session-secret").stat().st_mode & 0o077 == 0
    assert load_secret(tmp_path / "state", "given") == "given"
