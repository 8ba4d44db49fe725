"""Hardened access on the real app (a `python -m app` subprocess, anonymous use off, history on the
server, uploads up to 2 MB, two-person curation review, the Secure flag forced): security headers and
no API docs; sign-in refused from another site; a token refused after sign-out; uploads over the
limit refused and a path outside the upload folder never read; exports private to their owner;
two-person review; `/healthz` 503 on a damaged users file or overlay; and, last, a flood of 50
concurrent anonymous sign-ins answered with 429s while resident memory stays within 300 MB and
signed-in users keep being answered (the figures go to artifacts/signin-flood.json)."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress

import httpx
import psutil
import pytest

from accounts.sessions import COOKIE
from app.curate_tab import REVIEW_HEADERS
from tests.app.test_accounts_server import add_users, client, closed_app_env, session_cookie, sign_in
from tests.support.app_process import ARTIFACTS, launch_app, private_cache

pytestmark = [pytest.mark.slow]

FLOOD = 50
FLOOD_MEMORY_LIMIT = 300 * 2**20
UPLOAD_LIMIT = 2 * 2**20
QUESTION = "What facial phenotypes are associated with Crouzon syndrome?"
FACT = [True, "Disease", "Crouzon syndrome", "Exhibit", "FacePhenotype", "Ptosis", "He had ptosis."]
REPORT = "We report a boy with Crouzon syndrome and ptosis."


@pytest.fixture(scope="module")
def hardened(pipeline, tmp_path_factory):
    folder = tmp_path_factory.mktemp("hardened-app")
    state, uploads = folder / "state", folder / "gradio"
    add_users(state)
    # the state folder outside the app's temporary folder (TMPDIR) and working folder, as in a deployment:
    # Gradio serves a file from neither unless told to
    (folder / "tmp").mkdir()
    env = closed_app_env(state, FPKG_MAX_UPLOAD_MB="2", FPKG_CURATION_REVIEW="two", FPKG_SECURE_COOKIE="on",
                         GRADIO_TEMP_DIR=str(uploads), TMPDIR=str(folder / "tmp"))
    ARTIFACTS.mkdir(exist_ok=True)
    app = launch_app(private_cache(pipeline, folder / "cache"), ARTIFACTS / "app-hardened-server.log", env=env)
    app.state_dir, app.uploads = state, uploads
    yield app
    app.process.terminate()
    app.process.wait(timeout=30)


def cookies(url: str, name: str) -> dict[str, str]:
    return {COOKIE: session_cookie(url, name)}


def audit(app) -> list[tuple[str, str]]:
    lines = (app.state_dir / "audit.jsonl").read_text().splitlines()
    return [(record["actor"], record["action"]) for record in map(json.loads, lines)]


def table(rows: list[list]) -> dict:
    return {"headers": REVIEW_HEADERS, "data": rows, "metadata": None}


def test_every_answer_carries_the_security_headers_and_there_are_no_api_docs(hardened):
    vera = cookies(hardened.url, "vera")
    for path, sent in (("/signin", {}), ("/healthz", {}), ("/config", vera), ("/", vera), ("/gradio_api/info", vera)):
        response = httpx.get(f"{hardened.url}{path}", cookies=sent, timeout=30)
        assert response.status_code == 200, path
        assert response.headers["content-security-policy"] == "frame-ancestors 'none'", path
        assert response.headers["x-frame-options"] == "DENY" and response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["referrer-policy"] == "same-origin"
    for path in ("/docs", "/redoc", "/openapi.json"):
        assert httpx.get(f"{hardened.url}{path}", cookies=vera, timeout=30).status_code == 404, path


def test_a_session_cookie_is_http_only_same_site_and_secure_when_the_setting_says_so(hardened):
    response = sign_in(hardened.url, "vera", "viewer password 1")
    cookie = response.headers["set-cookie"].lower()
    assert response.status_code == 303 and "httponly" in cookie and "samesite=lax" in cookie and "secure" in cookie


@pytest.mark.parametrize("headers", [{"Origin": "https://evil.example"}, {"Referer": "https://evil.example/x"},
                                     {"Sec-Fetch-Site": "cross-site"}, {"Origin": "null"}])
def test_a_sign_in_posted_from_another_site_is_refused(hardened, headers):
    response = httpx.post(f"{hardened.url}/signin", data={"username": "ada", "password": "admin password 3"},
                          headers=headers, timeout=30)
    assert response.status_code == 403 and "from another site" in response.text and COOKIE not in response.cookies
    own = {"Origin": hardened.url}
    response = httpx.post(f"{hardened.url}/signin", data={"username": "ada", "password": "admin password 3"},
                          headers=own, timeout=30)
    assert response.status_code == 303 and COOKIE in response.cookies


def test_a_token_is_refused_after_sign_out(hardened):
    token = session_cookie(hardened.url, "cara")
    other = session_cookie(hardened.url, "cara")  # the same user on another device
    config = f"{hardened.url}/config"
    assert httpx.get(config, cookies={COOKIE: token}, timeout=30).status_code == 200
    assert httpx.get(f"{hardened.url}/signout", cookies={COOKIE: token}, timeout=30).status_code == 200  # a form
    assert httpx.get(config, cookies={COOKIE: token}, timeout=30).status_code == 200  # a GET signs nobody out
    forged = httpx.post(f"{hardened.url}/signout", cookies={COOKIE: token}, headers={"Origin": "https://evil.example"},
                        timeout=30)
    assert forged.status_code == 403 and httpx.get(config, cookies={COOKIE: token}, timeout=30).status_code == 200
    response = httpx.post(f"{hardened.url}/signout", cookies={COOKIE: token}, timeout=30)
    assert response.status_code == 303 and f'{COOKIE}=""' in response.headers["set-cookie"]
    assert httpx.get(config, cookies={COOKIE: token}, timeout=30).status_code == 401  # kept, it names nobody
    assert httpx.get(config, cookies={COOKIE: other}, timeout=30).status_code == 200
    assert ("cara", "signed out") in audit(hardened)


def upload(url: str, token: str, size: int) -> httpx.Response:
    files = {"files": ("overlay.jsonl", b"x" * size, "application/octet-stream")}
    return httpx.post(f"{url}/gradio_api/upload", files=files, cookies={COOKIE: token}, timeout=60)


def test_an_upload_over_the_limit_is_refused(hardened):
    token = session_cookie(hardened.url, "cara")
    assert upload(hardened.url, token, UPLOAD_LIMIT - 4096).status_code == 200
    refused = upload(hardened.url, token, UPLOAD_LIMIT + 4096)
    assert refused.status_code == 413 and "maximum allowed size" in refused.text


def call(url: str, token: str, api: str, data: list) -> tuple[str, str]:
    """An API call the way any HTTP client can make it (no gradio_client): its last event and data."""
    started = httpx.post(f"{url}/gradio_api/call/{api}", json={"data": data}, cookies={COOKIE: token}, timeout=30)
    started.raise_for_status()
    stream = httpx.get(f"{url}/gradio_api/call/{api}/{started.json()['event_id']}", cookies={COOKIE: token},
                       timeout=120)
    events = [line.removeprefix("event: ") for line in stream.text.splitlines() if line.startswith("event: ")]
    data = [line.removeprefix("data: ") for line in stream.text.splitlines() if line.startswith("data: ")]
    return events[-1], data[-1]


def test_two_person_review_a_path_outside_the_upload_folder_and_an_exact_undo(hardened):
    cara, ada = session_cookie(hardened.url, "cara"), session_cookie(hardened.url, "ada")
    with pytest.raises(Exception, match="Say where the facts come from"):
        client(hardened.url, cara).predict(table([FACT]), "", "", api_name="/merge")
    said, _ = client(hardened.url, cara).predict(table([FACT]), REPORT, "", api_name="/merge")
    assert said.startswith("Proposed batch 1: 1 facts by cara")
    with pytest.raises(Exception, match="proposed by cara: another curator must merge it"):
        client(hardened.url, cara).predict("1", api_name="/approve")
    with pytest.raises(Exception, match="vera is a viewer; approve needs the curator role"):
        client(hardened.url, session_cookie(hardened.url, "vera")).predict("1", api_name="/approve")
    assert not curated_in_answers(hardened.url, ada)
    said, batches = client(hardened.url, ada).predict("1", api_name="/approve")
    assert said == "Merged batch 1: 1 facts by cara, approved by ada." and curated_in_answers(hardened.url, ada)
    assert batches["data"][0][5] == "in the graph (approved by ada)"

    overlay = hardened.state_dir / "curated-overlay.jsonl"
    before = overlay.read_bytes()
    for path in (overlay, "/etc/passwd"):  # a path on the server, named in the request: never read
        named = {"path": str(path), "meta": {"_type": "gradio.FileData"}}
        event, data = call(hardened.url, cara, "import_overlay", [named])
        assert event == "error" and str(hardened.state_dir) not in data and "/etc" not in data
    assert overlay.read_bytes() == before and not list(hardened.uploads.glob("*/curated-overlay.jsonl"))

    for number, confirm, message in (("1", "", "type 1 again under Confirm"), ("1.5", "1.5", "not a batch id"),
                                     ("1", "2", "type 1 again")):
        with pytest.raises(Exception, match=message):
            client(hardened.url, ada).predict(number, confirm, api_name="/undo")
    assert curated_in_answers(hardened.url, ada)
    said, _ = client(hardened.url, ada).predict("1", "1", api_name="/undo")
    assert said.startswith("Batch 1 undone") and not curated_in_answers(hardened.url, ada)
    refused = [action for actor, action in audit(hardened) if action.endswith("refused") and actor != "(sign-in)"]
    assert Counter(refused) == {"merge refused": 1, "approve refused": 2, "undo refused": 3}


def curated_in_answers(url: str, token: str) -> bool:
    _, _, triples, *_ = client(url, token).predict(QUESTION, "cypher", "grounded", 0.0, api_name="/ask")
    curated = {(row[0], row[1], row[2]) for row in triples["data"] if row[3] == "curated"}
    return ("Crouzon syndrome", "Exhibit", "Ptosis") in curated


def test_an_export_is_private_to_its_owner(hardened):
    cara, ada = session_cookie(hardened.url, "cara"), session_cookie(hardened.url, "ada")
    exported = client(hardened.url, cara).predict(api_name="/export_overlay")
    url = f"{hardened.url}/gradio_api/file={exported['path']}"
    assert httpx.get(url, cookies={COOKIE: cara}, timeout=30).text.startswith('{"kind": "propose"')
    assert httpx.get(url, cookies={COOKIE: ada}, timeout=30).status_code == 404  # another signed-in user
    older_route = f"{hardened.url}/gradio_api/file/{exported['path']}"
    assert httpx.get(older_route, cookies={COOKIE: ada}, timeout=30).status_code == 404
    assert httpx.get(older_route, cookies={COOKIE: cara}, timeout=30).status_code == 200
    assert httpx.get(url, timeout=30).status_code in (401, 404)
    [kept] = (hardened.state_dir / "exports" / "files").glob("*/curated-overlay-*.jsonl")
    assert kept.name == exported["path"].rsplit("/", 1)[-1] and kept.stat().st_mode & 0o777 == 0o600
    assert (hardened.state_dir / "exports").stat().st_mode & 0o777 == 0o700


def test_healthz_answers_503_with_the_reason_for_a_damaged_users_file_or_overlay(hardened):
    token = session_cookie(hardened.url, "vera")
    for path, reason in ((hardened.state_dir / "users.json", "the users file cannot be read"),
                         (hardened.state_dir / "curated-overlay.jsonl", "the curated overlay is damaged")):
        text = path.read_text()
        try:
            path.write_text(text[: len(text) // 2] + "\n")  # cut short while the app runs
            health = httpx.get(f"{hardened.url}/healthz", timeout=30)
            assert health.status_code == 503 and reason in health.json()["status"]
            assert str(hardened.state_dir) not in health.text
            if path.name == "users.json":  # fails closed: nobody is signed in, and nothing answers 500
                assert httpx.get(f"{hardened.url}/config", cookies={COOKIE: token}, timeout=30).status_code == 401
                refused = sign_in(hardened.url, "vera", "viewer password 1")
                assert refused.status_code == 503 and "Sign-in is unavailable" in refused.text
        finally:
            path.write_text(text)
        assert httpx.get(f"{hardened.url}/healthz", timeout=30).status_code == 200


def tree_rss(process: psutil.Process) -> int:
    """Resident memory of the app and the processes it started (the embedded graph server)."""
    total = 0
    for member in (process, *process.children(recursive=True)):
        with suppress(psutil.NoSuchProcess):  # a child that has just ended
            total += member.memory_info().rss
    return total


def test_a_sign_in_flood_gets_429s_while_memory_stays_put_and_users_are_answered(hardened):
    vera = client(hardened.url, session_cookie(hardened.url, "vera"))  # signed in before the flood
    process = psutil.Process(hardened.process.pid)
    start = tree_rss(process)
    peak, done = start, threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, tree_rss(process))
            time.sleep(0.05)

    def guess(n: int) -> httpx.Response:
        return httpx.post(f"{hardened.url}/signin", data={"username": f"flood-{n}", "password": f"guess number {n}"},
                          timeout=120)

    sampler = threading.Thread(target=sample)
    sampler.start()
    began = time.monotonic()
    try:
        with ThreadPoolExecutor(FLOOD + 1) as pool:
            answer = pool.submit(vera.predict, "What diseases are associated with gene CHD7?", "cypher", "grounded",
                                 0.0, api_name="/ask")
            responses = list(pool.map(guess, range(FLOOD)))
            answered = answer.result(timeout=120)[0]
    finally:
        done.set()
        sampler.join()
    statuses = Counter(response.status_code for response in responses)
    figures = {"requests": FLOOD, "statuses": dict(statuses), "seconds": round(time.monotonic() - began, 2),
               "rss_start_mb": round(start / 2**20, 1), "rss_peak_mb": round(peak / 2**20, 1),
               "rss_end_mb": round(tree_rss(process) / 2**20, 1), "growth_mb": round((peak - start) / 2**20, 1)}
    (ARTIFACTS / "signin-flood.json").write_text(json.dumps(figures, indent=1))
    assert peak - start < FLOOD_MEMORY_LIMIT, figures
    assert "CHARGE syndrome" in answered
    assert statuses[429] >= FLOOD // 2 and statuses[429] + statuses[401] == FLOOD, figures
    waits = [int(r.headers["retry-after"]) for r in responses if r.status_code == 429]
    assert all(1 <= wait <= 60 for wait in waits) and "Try again in" in next(
        r.text for r in responses if r.status_code == 429)
    throttled = [record for record in audit(hardened) if record[1] == "sign-ins throttled"]
    assert len(throttled) == 1  # one line for the flood, not one per refused request
