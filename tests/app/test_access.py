"""Who a request is and what it may do (app/access.py), the settings behind it, and the users CLI."""

from __future__ import annotations

import io
from types import SimpleNamespace

import gradio as gr
import pytest

from accounts.sessions import COOKIE
from app.__main__ import main as app_main
from app.access import Access, allow
from fpkg.config import AccessSettings
from fpkg.errors import AccessDenied, SettingsError


def settings(tmp_path, **env) -> AccessSettings:
    return AccessSettings.from_env({"FPKG_STATE_DIR": str(tmp_path / "state"), **env})


def signed_in(access: Access, name: str) -> SimpleNamespace:
    return SimpleNamespace(cookies={COOKIE: access.signer.token(access.users.get(name))})


@pytest.fixture
def access(tmp_path) -> Access:
    access = Access(settings(tmp_path), hf_oauth=False)
    access.users.add("vera", "viewer", "viewer password")
    access.users.add("cara", "curator", "curator password")
    access.users.add("ada", "admin", "admin password")
    return access


def test_roles_are_enforced_for_each_signed_in_user(access):
    assert access.require(signed_in(access, "cara"), "merge").name == "cara"
    assert access.require(signed_in(access, "ada"), "undo").role == "admin"
    with pytest.raises(AccessDenied, match="vera is a viewer; merge needs the curator role"):
        access.require(signed_in(access, "vera"), "merge")
    with pytest.raises(AccessDenied, match="cara is a curator; audit needs the admin role"):
        access.require(signed_in(access, "cara"), "audit")


def test_anonymous_requests_may_read_unless_the_operator_turns_that_off(access, tmp_path):
    anonymous = SimpleNamespace(cookies={})
    assert access.require(anonymous, "diagnose").name is None
    assert access.gradio_user(anonymous) == "" and access.gradio_user(signed_in(access, "cara")) == "cara"
    with pytest.raises(AccessDenied, match="Please sign in: merge needs a signed-in curator"):
        access.require(anonymous, "merge")
    closed = Access(settings(tmp_path, FPKG_ANONYMOUS="off"), hf_oauth=False)
    with pytest.raises(AccessDenied, match="Please sign in"):
        closed.require(anonymous, "diagnose")
    assert closed.gradio_user(anonymous) is None  # Gradio answers 401
    assert closed.gradio_user(signed_in(closed, "cara")) == "cara"


def test_a_role_claimed_by_the_request_counts_for_nothing(access):
    forged = SimpleNamespace(cookies={COOKIE: "ada", "role": "admin"}, headers={"X-Role": "admin"},
                             username="ada", session={"role": "admin"})
    assert access.identity(forged).name is None
    with pytest.raises(AccessDenied):
        access.require(forged, "audit")


def test_on_a_space_the_hugging_face_session_names_the_user(access, tmp_path):
    space = Access(settings(tmp_path), hf_oauth=True)
    space.users.add("hf-curator", "curator", None)
    session = {"oauth_info": {"userinfo": {"preferred_username": "hf-curator"}}}
    assert space.require(SimpleNamespace(session=session), "merge").via == "huggingface"
    stranger = {"oauth_info": {"userinfo": {"preferred_username": "someone"}}}
    assert space.identity(SimpleNamespace(session=stranger)).role == "viewer"
    # a password user's name signed in with Hugging Face gets no password user's role
    ada = {"oauth_info": {"userinfo": {"preferred_username": "ada"}}}
    assert space.identity(SimpleNamespace(session=ada)).role == "viewer"
    assert space.identity(signed_in(access, "ada")).name is None  # no password sessions on a Space


@pytest.mark.parametrize(("env", "message"), [
    ({"FPKG_ANONYMOUS": "maybe"}, "FPKG_ANONYMOUS"), ({"FPKG_HISTORY": "cloud"}, "FPKG_HISTORY"),
    ({"FPKG_HISTORY_DAYS": "0"}, "FPKG_HISTORY_DAYS"), ({"FPKG_HISTORY_DAYS": "soon"}, "not a number"),
    ({"FPKG_SESSION_HOURS": "nan"}, "FPKG_SESSION_HOURS"),
])
def test_bad_settings_are_named(tmp_path, env, message):
    with pytest.raises(SettingsError, match=message):
        Access(settings(tmp_path, **{"FPKG_HISTORY": "server", **env}), hf_oauth=False)


@pytest.mark.parametrize(("env", "read", "message"), [
    ({"FPKG_CURATION_REVIEW": "three"}, "review", "use one or two"),
    ({"FPKG_SIGNIN_CHECKS": "0"}, "signin_checks", "whole number from 1"),
    ({"FPKG_SIGNIN_PER_ADDRESS": "2.5"}, "signin_per_address", "whole number"),
    ({"FPKG_SIGNIN_PER_MINUTE": "-1"}, "signin_per_minute", "whole number"),
    ({"FPKG_MAX_UPLOAD_MB": "0"}, "max_upload_bytes", "FPKG_MAX_UPLOAD_MB"),
    ({"FPKG_SECURE_COOKIE": "always"}, "secure_cookie", "use auto or on"),
    ({"FPKG_FRAME_ANCESTORS": "'none'; script-src *"}, "frame_ancestors", "FPKG_FRAME_ANCESTORS"),
    ({"FPKG_TRUSTED_ORIGINS": "example.org"}, "trusted_origins", "not an origin"),
])
def test_bad_hardening_settings_are_named(tmp_path, env, read, message):
    with pytest.raises(SettingsError, match=message):
        getattr(settings(tmp_path, **env), read)


def test_hardening_settings_and_their_defaults(tmp_path):
    defaults = settings(tmp_path)
    assert (defaults.signin_checks, defaults.signin_per_address, defaults.signin_per_minute) == (2, 10, 60)
    assert defaults.max_upload_bytes == 5 * 2**20 and not defaults.secure_cookie and defaults.review == "one"
    assert defaults.frame_ancestors == "'none'" and defaults.trusted_origins == ()
    given = settings(tmp_path, FPKG_MAX_UPLOAD_MB="2", FPKG_SECURE_COOKIE="on", FPKG_CURATION_REVIEW="Two",
                     FPKG_TRUSTED_ORIGINS="https://Example.org/, http://localhost:8080")
    assert given.max_upload_bytes == 2 * 2**20 and given.secure_cookie and given.review == "two"
    assert given.trusted_origins == ("https://example.org", "http://localhost:8080")
    assert settings(tmp_path, SPACE_ID="someone/app").frame_ancestors == "https://huggingface.co"


def test_a_refused_curator_or_admin_action_is_audited(access):
    request = SimpleNamespace(cookies={COOKIE: access.signer.token(access.users.get("vera"))},
                              client=SimpleNamespace(host="10.1.2.3"))
    with pytest.raises(gr.Error, match="vera is a viewer; merge needs the curator role"):
        allow(access, request, "merge")
    with pytest.raises(gr.Error, match="Please sign in"):
        allow(access, SimpleNamespace(cookies={}, client=SimpleNamespace(host="10.9.9.9")), "undo")
    allow(access, request, "diagnose")
    records = [(r.actor, r.action) for r in access.audit.records()[0]]
    assert records == [("vera", "merge refused"), ("anonymous from 10.9.9.9", "undo refused")]


def test_a_damaged_users_file_signs_nobody_in_and_says_why(access):
    cara = signed_in(access, "cara")
    access.users.path.write_text('{"version": 1, "users": {"cara": ')
    assert access.identity(cara).name is None  # fails closed, no exception
    with pytest.raises(AccessDenied, match="Sign-in is unavailable: the users file cannot be read") as refused:
        access.require(cara, "merge")
    assert str(access.users.path.parent) not in str(refused.value)


def test_the_users_command_adds_lists_and_removes(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FPKG_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("FPKG_USERS_FILE", raising=False)
    monkeypatch.setattr("sys.stdin", io.StringIO("a long password\n"))
    assert app_main(["users", "add", "cara", "--role", "curator", "--password-stdin"]) == 0
    assert app_main(["users", "add", "hf-person", "--role", "admin", "--huggingface"]) == 0
    assert app_main(["users", "list"]) == 0
    out = capsys.readouterr().out
    assert "cara\tcurator\tpassword" in out and "hf-person\tadmin\thuggingface" in out
    assert "a long password" not in out + (tmp_path / "state" / "users.json").read_text()
    monkeypatch.setattr("sys.stdin", io.StringIO("short\n"))
    assert app_main(["users", "add", "bob", "--password-stdin"]) == 2
    assert "8 to 1024 characters" in capsys.readouterr().err
    assert app_main(["users", "remove", "cara"]) == 0
    assert app_main(["users", "remove", "cara"]) == 2
    audit = (tmp_path / "state" / "audit.jsonl").read_text()
    assert audit.count("user added") == 2 and audit.count("user removed") == 1


def test_a_tab_is_shown_only_to_the_roles_that_may_use_it(access):
    from app.account_tab import account_line, tabs_for

    def shown(request) -> tuple[bool, bool]:
        curate, admin = tabs_for(access, request)
        return curate["visible"], admin["visible"]

    assert shown(SimpleNamespace(cookies={})) == (False, False)  # a visitor: neither Curate nor Admin
    assert shown(signed_in(access, "vera")) == (False, False)
    assert shown(signed_in(access, "cara")) == (True, False)
    assert shown(signed_in(access, "ada")) == (True, True)
    # the visitor is offered the sign-in in the page's top line instead
    assert 'href="signin"' in account_line(access, SimpleNamespace(cookies={}))
