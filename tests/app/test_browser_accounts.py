"""Users in headless Chromium: history kept in the browser across a reload (the default); signing in
with the users file; history kept on the server across a restart; each role sees the tabs it may use (a
viewer neither Curate nor Admin; what the server refuses them is tests/app/test_hardening_access.py's);
delete-all empties the history."""

from __future__ import annotations

import pytest

from tests.app.test_accounts_server import PASSWORDS, add_users, closed_app_env
from tests.support.app_process import ARTIFACTS, launch_app, private_cache
from tests.support.browser_support import field, visible_tabs, wait_for_answer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

QUESTION = "What diseases are associated with gene CHD7?"


def ask(page, question: str = QUESTION) -> None:
    page.get_by_role("tab", name="Ask").click()
    field(page, "ask-question").fill(question)
    page.locator("#ask-submit").click()
    wait_for_answer(page, "ask", "CHARGE syndrome")


def history_rows(page) -> list[str]:
    page.get_by_role("tab", name="History").click()
    page.locator("#history-table").wait_for()
    return [text for text in page.locator("#history-table [role=gridcell][data-col='3']").all_inner_texts()
            if text.strip()]


def wait_for_rows(page, count: int) -> list[str]:
    page.get_by_role("tab", name="History").click()
    page.wait_for_function("n => [...document.querySelectorAll(\"#history-table [role=gridcell][data-col='3']\")]"
                           ".filter(c => c.innerText.trim()).length === n", arg=count, timeout=30_000)
    return history_rows(page)


def delete_all(page) -> None:
    page.get_by_role("tab", name="History").click()
    page.locator("#history-delete-all").click()
    wait_for_rows(page, 0)


def test_browser_history_survives_a_reload_reruns_and_is_deleted(page, app_server):
    ask(page)
    [summary] = wait_for_rows(page, 1)
    assert "CHD7" in summary.split(":")[0]  # the answer's count line names the gene
    assert "in your browser only" in page.locator("#history-where").inner_text()
    page.reload()
    page.wait_for_selector("#diag-submit")
    assert wait_for_rows(page, 1) == [summary]
    page.locator("#history-rerun").click()  # the entry goes back into the Ask form, which runs it
    assert "CHARGE syndrome" in wait_for_answer(page, "ask", "CHARGE syndrome")
    assert field(page, "ask-question").input_value() == QUESTION
    wait_for_rows(page, 2)
    page.locator("#history-export-csv").click()
    link = page.locator("#history-file a").first
    link.wait_for()
    with page.expect_download() as download_info:
        link.click()
    exported = download_info.value.path().read_text()
    assert exported.splitlines()[0] == "id,at,kind,summary,inputs" and exported.count(QUESTION) == 2
    delete_all(page)
    page.reload()
    page.wait_for_selector("#diag-submit")
    page.get_by_role("tab", name="History").click()
    page.wait_for_timeout(1000)
    assert history_rows(page) == []


def sign_in(page, url: str, name: str, password: str) -> None:
    page.goto(url)
    page.wait_for_selector("#signin")  # anonymous use is off: the page sends us to sign in
    page.fill("#username", name)
    page.fill("#password", password)
    page.click("#signin")


@pytest.fixture
def closed_app_parts(pipeline, tmp_path):
    state = tmp_path / "state"
    add_users(state)
    return private_cache(pipeline, tmp_path / "cache"), closed_app_env(state)


def test_signed_in_history_is_kept_on_the_server_across_a_restart(browser, closed_app_parts):
    settings, env = closed_app_parts
    ARTIFACTS.mkdir(exist_ok=True)
    app = launch_app(settings, ARTIFACTS / "app-accounts-server.log", env=env)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        page = context.new_page()
        page.set_default_timeout(30_000)
        sign_in(page, app.url, "cara", "not her password")
        assert "Wrong user name or password" in page.locator(".error").inner_text()
        sign_in(page, app.url, "cara", PASSWORDS["cara"])
        page.wait_for_selector("#diag-submit")
        page.wait_for_function("document.querySelector('#account-status').innerText.includes('Signed in as')")
        assert "Signed in as cara (curator)" in page.locator("#account-status").inner_text()
        ask(page)
        wait_for_rows(page, 1)
        assert "on the server for signed-in users" in page.locator("#history-where").inner_text()
        page.screenshot(path=str(ARTIFACTS / "app-history.png"), full_page=True)

        app.process.terminate()
        app.process.wait(timeout=30)
        app = launch_app(settings, ARTIFACTS / "app-accounts-server.log", env=env)
        page.context.clear_cookies()  # a new port: sign in again
        sign_in(page, app.url, "cara", PASSWORDS["cara"])
        page.wait_for_selector("#diag-submit")
        assert "CHD7" in wait_for_rows(page, 1)[0].split(":")[0]
        delete_all(page)

        assert visible_tabs(page, "cara") == ["Diagnosis", "Ask", "Explore", "Curate", "History", "About"]  # no Admin
        page.locator("#signout-button").click()
        page.wait_for_selector("#signin")  # signed out: anonymous use is off, so back to the form
        sign_in(page, app.url, "vera", PASSWORDS["vera"])  # a viewer: neither Curate nor Admin on the page
        page.wait_for_selector("#diag-submit")
        assert visible_tabs(page, "vera") == ["Diagnosis", "Ask", "Explore", "History", "About"]
        page.context.clear_cookies()
        sign_in(page, app.url, "ada", PASSWORDS["ada"])
        page.wait_for_selector("#diag-submit")
        assert visible_tabs(page, "ada") == ["Diagnosis", "Ask", "Explore", "Curate", "History", "Admin", "About"]
        page.get_by_role("tab", name="Admin").click()
        page.locator("#admin-show").click()
        page.wait_for_function("document.querySelector('#admin-message').innerText.includes('shown to ada')")
        assert "signed in" in page.locator("#admin-audit").inner_text()
    finally:
        context.close()
        app.process.terminate()
        app.process.wait(timeout=30)
