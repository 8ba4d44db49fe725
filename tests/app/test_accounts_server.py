"""Sign-in and roles on the real app server (a `python -m app` subprocess) with anonymous use off and
history on the server: wrong passwords are slowed down, forged and expired sessions get nothing, a
viewer's admin request is refused through the API, SQL-looking history text is only text, and no
password reaches a log."""

from __future__ import annotations

import sqlite3
import time

import httpx
import pytest
from gradio_client import Client
from itsdangerous import TimestampSigner, URLSafeTimedSerializer

from accounts.sessions import COOKIE, SALT
from accounts.users_file import UsersFile
from tests.support.app_process import ARTIFACTS, launch_app, private_cache

pytestmark = [pytest.mark.slow]

SECRET = "the test server's session secret, long enough"
PASSWORDS = {"vera": "viewer password 1", "cara": "curator password 2", "ada": "admin password 3"}
ROLES = {"vera": "viewer", "cara": "curator", "ada": "admin"}
WRONG = "a wrong guess 4"
SQL_LOOKING = "What causes CHARGE syndrome?'); DROP TABLE history; --"


def add_users(state_dir) -> UsersFile:
    users = UsersFile(state_dir / "users.json")
    for name, password in PASSWORDS.items():
        users.add(name, ROLES[name], password)
    return users


def closed_app_env(state_dir, **more) -> dict[str, str]:
    return {"FPKG_STATE_DIR": str(state_dir), "FPKG_ANONYMOUS": "off", "FPKG_HISTORY": "server",
            "FPKG_SESSION_SECRET": SECRET, **more}


@pytest.fixture(scope="module")
def closed_app(pipeline, tmp_path_factory):
    folder = tmp_path_factory.mktemp("closed-app")
    users = add_users(folder / "state")
    ARTIFACTS.mkdir(exist_ok=True)
    app = launch_app(private_cache(pipeline, folder / "cache"), ARTIFACTS / "app-closed-server.log",
                     env=closed_app_env(folder / "state"))
    app.users, app.state_dir = users, folder / "state"
    yield app
    app.process.terminate()
    app.process.wait(timeout=30)


def sign_in(url: str, name: str, password: str) -> httpx.Response:
    return httpx.post(f"{url}/signin", data={"username": name, "password": password}, timeout=30)


def session_cookie(url: str, name: str) -> str:
    response = sign_in(url, name, PASSWORDS[name])
    assert response.status_code == 303, response.text
    return response.cookies[COOKIE]


def client(url: str, token: str) -> Client:
    return Client(url, headers={"Cookie": f"{COOKIE}={token}"}, verbose=False, download_files=False)


def test_without_signing_in_the_page_sends_to_sign_in_and_the_api_answers_401(closed_app):
    page = httpx.get(closed_app.url, follow_redirects=False, timeout=30)
    assert page.status_code == 303 and page.headers["location"].endswith("signin")
    assert httpx.get(f"{closed_app.url}/config", timeout=30).status_code == 401
    with pytest.raises(Exception, match="401|Unauthorized|Could not"):
        Client(closed_app.url, verbose=False)


def test_wrong_passwords_are_refused_more_slowly_each_time(closed_app):
    delays = []
    for _ in range(3):
        began = time.monotonic()
        response = sign_in(closed_app.url, "vera", WRONG)
        delays.append(time.monotonic() - began)
        assert response.status_code == 401 and "Wrong user name or password" in response.text
        assert COOKIE not in response.cookies
    assert delays[0] >= 1.0 and delays[1] >= 2.0 and delays[2] >= 4.0
    began = time.monotonic()
    assert sign_in(closed_app.url, "nobody-at-all", WRONG).status_code == 401  # an unknown name: the same
    assert time.monotonic() - began >= 1.0


def test_each_role_gets_what_it_may_through_the_api(closed_app):
    for name in ("vera", "cara"):
        with pytest.raises(Exception, match=f"{name} is a {ROLES[name]}; audit needs the admin role"):
            client(closed_app.url, session_cookie(closed_app.url, name)).predict(api_name="/audit")
    message, users, records = client(closed_app.url, session_cookie(closed_app.url, "ada")).predict(
        api_name="/audit")
    assert "shown to ada" in message
    assert {row[0]: row[1] for row in users["data"]} == ROLES
    assert any(row[1] == "vera" and row[2] == "sign-in refused" for row in records["data"])
    answer, *_ = client(closed_app.url, session_cookie(closed_app.url, "vera")).predict(
        "What diseases are associated with gene CHD7?", "cypher", "grounded", 0.0, api_name="/ask")
    assert "CHARGE syndrome" in answer


def old_token(name: str, users: UsersFile, age_s: float, secret: str = SECRET, **claims) -> str:
    class Backdated(TimestampSigner):
        def get_timestamp(self) -> int:
            return int(time.time() - age_s)

    payload = {"name": name, "stamp": users.get(name).session_stamp, "sid": f"test-{age_s}", **claims}
    return URLSafeTimedSerializer(secret, salt=SALT, signer=Backdated).dumps(payload)


@pytest.mark.parametrize(("label", "forge"), [
    ("expired", lambda users: old_token("ada", users, 13 * 3600)),
    ("another secret", lambda users: old_token("ada", users, 0, secret="not the server's secret at all")),
    ("edited", lambda users: old_token("vera", users, 0)[:-3] + "xyz"),
    ("bare name", lambda users: "ada"),
])
def test_a_forged_or_expired_session_gets_nothing(closed_app, label, forge):
    fresh = old_token("ada", closed_app.users, 11 * 3600)  # within the 12 h a session lasts: let in
    assert httpx.get(f"{closed_app.url}/config", cookies={COOKIE: fresh}, timeout=30).status_code == 200
    response = httpx.get(f"{closed_app.url}/config", cookies={COOKIE: forge(closed_app.users)}, timeout=30)
    assert response.status_code == 401, label


def test_a_role_written_into_a_signed_session_is_ignored(closed_app):
    token = old_token("vera", closed_app.users, 0, role="admin")
    with pytest.raises(Exception, match="vera is a viewer"):
        client(closed_app.url, token).predict(api_name="/audit")


def test_sql_looking_history_text_is_kept_as_text(closed_app):
    cara = client(closed_app.url, session_cookie(closed_app.url, "cara"))
    cara.predict(SQL_LOOKING, "cypher", "grounded", 0.0, api_name="/ask")
    cara.predict("What diseases are associated with gene CHD7?", "cypher", "grounded", 0.0, api_name="/ask")
    with sqlite3.connect(closed_app.state_dir / "history.sqlite3") as db:
        rows = db.execute("SELECT user, inputs FROM history WHERE user = 'cara' ORDER BY id").fetchall()
    assert [row[0] for row in rows] == ["cara", "cara"] and SQL_LOOKING in rows[0][1]


def test_no_password_reaches_a_log(closed_app):
    sign_in(closed_app.url, "cara", PASSWORDS["vera"])  # a real password typed for the wrong name
    written = closed_app.log_tail(10**7) + (closed_app.state_dir / "audit.jsonl").read_text()
    assert "sign-in refused" in written
    for password in (*PASSWORDS.values(), WRONG):
        assert password not in written
