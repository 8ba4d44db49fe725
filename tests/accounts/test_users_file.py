"""The users file: Argon2 hashes, roles, atomic owner-only writes, clear errors for a bad file."""

from __future__ import annotations

import json
import stat

import pytest

from accounts.users_file import UsersFile
from fpkg.errors import InputError, SettingsError


@pytest.fixture
def users(tmp_path) -> UsersFile:
    return UsersFile(tmp_path / "state" / "users.json")


def test_a_user_signs_in_with_their_password_only(users):
    users.add("alice", "curator", "correct horse")
    assert users.verify("alice", "correct horse").role == "curator"
    assert users.verify("alice", "correct hors") is None
    assert users.verify("Alice", "correct horse") is None  # names are exact
    assert users.verify("bob", "correct horse") is None
    assert users.verify("", "") is None


def test_the_file_holds_salted_hashes_never_the_password(users):
    users.add("alice", "viewer", "correct horse")
    users.add("bob", "viewer", "correct horse")
    text = users.path.read_text()
    assert "correct horse" not in text
    hashes = {entry["password"] for entry in json.loads(text)["users"].values()}
    assert len(hashes) == 2 and all(h.startswith("$argon2id$") for h in hashes)  # one salt each
    assert stat.S_IMODE(users.path.stat().st_mode) == 0o600


def test_a_hugging_face_account_has_a_role_and_no_password_sign_in(users):
    users.add("hf-person", "admin", None)
    assert users.get("hf-person").role == "admin"
    assert users.verify("hf-person", "") is None and users.verify("hf-person", "anything at all") is None


def test_changes_are_seen_by_a_reader_holding_the_file_open(users, tmp_path):
    reader = UsersFile(users.path)
    users.add("alice", "viewer", "correct horse")
    assert reader.get("alice").role == "viewer"
    users.add("alice", "admin", "another password")
    assert reader.get("alice").role == "admin"
    assert reader.verify("alice", "correct horse") is None
    users.remove("alice")
    assert reader.get("alice") is None


@pytest.mark.parametrize(("name", "role", "password", "message"), [
    ("", "viewer", "long enough", "not a valid user name"),
    ("a b", "viewer", "long enough", "not a valid user name"),
    ("x" * 65, "viewer", "long enough", "not a valid user name"),
    ("alice", "root", "long enough", "Unknown role"),
    ("alice", "viewer", "short", "8 to 1024 characters"),
])
def test_bad_users_are_refused_and_nothing_is_written(users, name, role, password, message):
    with pytest.raises(InputError, match=message):
        users.add(name, role, password)
    assert not users.path.exists()


def test_removing_an_unknown_user_says_so(users):
    with pytest.raises(InputError, match="no user 'zed'"):
        users.remove("zed")


@pytest.mark.parametrize("text", ["{", '{"version": 1}', '{"version": 1, "users": {"a": {"role": "god"}}}',
                                  '{"version": 9, "users": {}}', "[]"])
def test_a_broken_file_is_a_clear_settings_error(users, text):
    users.path.parent.mkdir(parents=True)
    users.path.write_text(text)
    with pytest.raises(SettingsError, match=str(users.path)):
        users.users()


def test_a_file_cut_short_while_running_is_a_problem_named_without_its_path(users):
    users.add("cara", "curator", "curator password")
    assert users.problem() is None
    text = users.path.read_text()
    users.path.write_text(text[: len(text) // 2])  # cut short
    problem = users.problem()
    assert problem.startswith("the users file cannot be read") and str(users.path.parent) not in problem
    with pytest.raises(SettingsError):
        users.get("cara")
    users.path.write_text(text)
    assert users.problem() is None and users.get("cara").role == "curator"
