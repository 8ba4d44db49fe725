"""Curated growth on the real app (a `python -m app` subprocess with a users file): roles guard every
curation endpoint through the API; in Chromium a curator pastes a case report, accepts two facts,
edits one and rejects one, merges, and `/ask` then retrieves the accepted facts with source
`curated`; a full rebuild keeps them; an export imports as a new batch; an admin's undos remove
them; bad input changes nothing."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from gradio_client import Client, handle_file

from app.curate_tab import REVIEW_HEADERS
from tests.app.test_accounts_server import PASSWORDS, add_users, client, session_cookie
from tests.support.app_process import ARTIFACTS, REPO_ROOT, app_environment, launch_app, private_cache
from tests.support.browser_support import field, sign_in, toast_with

pytestmark = [pytest.mark.slow]

REPORT = ("We report a 6-year-old boy with Crouzon syndrome. He had proptosis, hypertelorism and arched eyebrows.\n"
          "Sequencing found a heterozygous FGFR2 variant.")
QUESTION = "What facial phenotypes are associated with Crouzon syndrome?"
EDITED_TAIL = "Synophrys"  # the curator corrects "Highly arched eyebrow" to what the report's figure shows


class CuratingApp:
    def __init__(self, pipeline, folder):
        self.state = folder / "state"
        add_users(self.state)
        self.settings = private_cache(pipeline, folder / "cache")
        self.env = {"FPKG_STATE_DIR": str(self.state), "FPKG_SESSION_SECRET": "curation test secret, long enough"}
        self.app = None
        self.start()

    def start(self) -> None:
        ARTIFACTS.mkdir(exist_ok=True)
        self.app = launch_app(self.settings, ARTIFACTS / "app-curation-server.log", env=self.env)

    def stop(self) -> None:
        self.app.process.terminate()
        self.app.process.wait(timeout=30)

    @property
    def url(self) -> str:
        return self.app.url

    def as_user(self, name: str) -> Client:
        return client(self.url, session_cookie(self.url, name))

    def overlay(self) -> bytes:
        path = self.state / "curated-overlay.jsonl"
        return path.read_bytes() if path.is_file() else b""


@pytest.fixture(scope="module")
def curating(pipeline, tmp_path_factory):
    made = CuratingApp(pipeline, tmp_path_factory.mktemp("curating-app"))
    yield made
    made.stop()


def curated_triples(url: str) -> set[tuple[str, str, str]]:
    _, _, triples, *_ = Client(url, verbose=False, download_files=False).predict(
        QUESTION, "cypher", "grounded", 0.0, api_name="/ask")
    return {(row[0], row[1], row[2]) for row in triples["data"] if row[3] == "curated"}


def table(rows: list[list]) -> dict:
    return {"headers": REVIEW_HEADERS, "data": rows, "metadata": None}


def test_every_curation_endpoint_checks_the_role_on_the_server(curating):
    anonymous = Client(curating.url, verbose=False, download_files=False)
    with pytest.raises(Exception, match="Please sign in: review needs a signed-in curator"):
        anonymous.predict(REPORT, "", api_name="/extract")
    row = [True, "Disease", "Crouzon syndrome", "Exhibit", "FacePhenotype", "Ptosis", ""]
    with pytest.raises(Exception, match="vera is a viewer; merge needs the curator role"):
        curating.as_user("vera").predict(table([row]), REPORT, "", api_name="/merge")
    with pytest.raises(Exception, match="cara is a curator; undo needs the admin role"):
        curating.as_user("cara").predict("1", "1", api_name="/undo")
    assert curating.overlay() == b"" and curated_triples(curating.url) == set()


@pytest.mark.parametrize(("rows", "text", "pmid", "message"), [
    ([[True, "Disease", "Crouzon syndrome", "Cause", "Genotype", "FGFR2", ""]], REPORT, "",
     "not in the graph's schema"),
    ([[True, "Disease", "Crouzon syndrome", "Exhibit", "FacePhenotype", "Glowing eyes", ""]], REPORT, "",
     "no facial phenotype 'Glowing eyes'"),
    ([[True, "Disease", "Crouzon syndrome", "Exhibit) DETACH DELETE (x", "FacePhenotype", "Ptosis", ""]], REPORT, "",
     "not in the graph's schema"),
    ([[False, "Disease", "Crouzon syndrome", "Exhibit", "FacePhenotype", "Ptosis", ""]], REPORT, "",
     "accept at least one"),
    ([["yes", "Disease"]], REPORT, "", "Row 1 has 2 cells"),
    ([[True, "Disease", "Crouzon syndrome", "Exhibit", "FacePhenotype", "Ptosis", ""]], REPORT, "1 OR 1=1",
     "not a PubMed id"),
])
def test_bad_merges_leave_the_graph_and_overlay_as_they_were(curating, rows, text, pmid, message):
    cara = curating.as_user("cara")
    before = curating.overlay(), curated_triples(curating.url)
    with pytest.raises(Exception, match=message):
        cara.predict(table(rows), text, pmid, api_name="/merge")
    assert (curating.overlay(), curated_triples(curating.url)) == before


@pytest.mark.parametrize(("text", "message"), [("x" * 100_000, "the limit is 20,000"),
                                               ("The weather was fine all week.", "No candidate fact")])
def test_text_too_long_or_without_entities_is_told_plainly(curating, text, message):
    if "limit" in message:
        with pytest.raises(Exception, match=message):
            curating.as_user("cara").predict(text, "", api_name="/extract")
    else:
        said, rows = curating.as_user("cara").predict(text, "", api_name="/extract")
        assert message in said and "No gene, disease or facial phenotype" in said and not rows["data"]


def edit_cell(page, row: int, column: int, text: str) -> None:
    cell = page.locator(f"#curate-review [data-testid='cell-{row}-{column}']").first
    cell.dblclick()
    editor = page.locator("#curate-review textarea, #curate-review input[type='text']").first
    editor.fill(text)
    editor.press("Enter")
    page.locator("#curate-message").click()  # leave the cell


@pytest.mark.browser
def test_a_curator_reviews_merges_a_rebuild_keeps_it_and_an_admin_undoes_it(browser, curating):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(30_000)
    sign_in(page, curating.url, "cara", PASSWORDS["cara"])
    page.get_by_role("tab", name="Curate").click()
    field(page, "curate-text").fill(REPORT)
    field(page, "curate-pmid").fill("12345678")
    page.locator("#curate-extract").click()
    page.wait_for_function("document.querySelector('#curate-message').innerText.includes('4 candidate facts')")
    tails = [page.locator(f"#curate-review [data-testid='cell-{i}-5']").inner_text().strip() for i in range(4)]
    assert tails == ["Highly arched eyebrow", "Proptosis", "Hypertelorism", "Crouzon syndrome"]
    page.locator("#curate-review [data-testid='cell-2-0'] input[type='checkbox']").click()  # reject hypertelorism
    edit_cell(page, 0, 5, EDITED_TAIL)  # edit one
    page.locator("#curate-merge").click()
    page.wait_for_function("document.querySelector('#curate-message').innerText.includes('Merged batch 1')")
    assert "3 facts by cara (PMID 12345678)" in page.locator("#curate-message").inner_text()
    expected = {("Crouzon syndrome", "Exhibit", "Proptosis"), ("Crouzon syndrome", "Exhibit", EDITED_TAIL)}
    assert curated_triples(curating.url) == expected
    page.screenshot(path=str(ARTIFACTS / "app-curate.png"), full_page=True)
    context.close()

    curating.stop()  # a full rebuild, then a start: the overlay is replayed
    env = app_environment(curating.settings) | curating.env
    subprocess.run([sys.executable, "-m", "kg_dump", "build"], cwd=REPO_ROOT, env=env, check=True,
                   capture_output=True, timeout=600)
    curating.start()
    assert curated_triples(curating.url) == expected

    cara = curating.as_user("cara")  # the overlay exported and imported again: a second batch, same facts
    exported = cara.predict(api_name="/export_overlay")
    said, _ = cara.predict(handle_file(exported["path"] if isinstance(exported, dict) else exported),
                           api_name="/import_overlay")
    assert said.startswith("Imported 1 batches (3 facts) as batches 2-2")

    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    sign_in(page, curating.url, "ada", PASSWORDS["ada"])
    page.get_by_role("tab", name="Curate").click()
    field(page, "curate-batch").fill("1")
    field(page, "curate-confirm").fill("1")
    page.locator("#curate-undo").click()
    page.wait_for_function("document.querySelector('#curate-message').innerText.includes('Batch 1 undone')")
    assert curated_triples(curating.url) == expected  # batch 2 still holds them
    curating.as_user("ada").predict("2", "2", api_name="/undo")
    assert curated_triples(curating.url) == set()
    audit = [json.loads(line) for line in (curating.state / "audit.jsonl").read_text().splitlines()]
    assert [(r["actor"], r["action"]) for r in audit if r["action"] in ("merged", "imported", "undone")] == [
        ("cara", "merged"), ("cara", "imported"), ("ada", "undone"), ("ada", "undone")]
    page.locator("#curate-undo").click()
    assert "already undone by ada" in toast_with(page, "already undone")
    page.context.close()
