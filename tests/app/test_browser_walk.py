"""A new user's first ten minutes with the app, in headless Chromium (issue 58): the landing page, a case typed in
the form, a mistake in it, a description, a phenopacket, a question, Explore, a visitor's view and a phone's.

Each screen is checked the same way (`looked_at`): no panel marked as failed, no message left over from an
earlier request, no cell of a table cut or past the page's edge, nothing hidden behind something else, no
sideways scrolling; and photographed into artifacts/walk/ (git-ignored; `.ci/run` prints where), in order.
"""

from __future__ import annotations

import json

import pytest

from service.validation import MAX_DESCRIPTION_CHARS
from tests.app.test_browser import CHD7_CASE, fill_case
from tests.support.app_process import ARTIFACTS
from tests.support.browser_support import (
    cut_cells,
    error_badges,
    evidence_picture_width,
    field,
    field_message,
    visible_tabs,
    wait_for_answer,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WALK = ARTIFACTS / "walk"
PHONE = {"width": 390, "height": 844}
# what must be in view and on top wherever it is shown (the page's header, tabs, buttons, answers)
KEY_PARTS = ["#page-title", "#account-status", "[role=tablist]", "#diag-submit", "#diag-summary", "#diag-disclaimer",
             "#diag-differential table", "#ask-submit", "#ask-answer", "#explore-submit", "#explore-table",
             "#about-text", "#diag-description-count"]
TABLES = "#diag-differential table, #ask-answer table, #diag-summary table, #about-text table"

# The element at a few points of each part (its centre and inset corners), once scrolled into view: the part
# itself or something inside it, else what covers it.
COVERED = """(selectors) => {
  const covered = [];
  for (const selector of selectors) {
    for (const part of document.querySelectorAll(selector)) {
      const box = part.getBoundingClientRect();
      if (part.offsetParent === null || box.width < 2 || box.height < 2) continue;
      part.scrollIntoView({block: "start", inline: "nearest"});
      const r = part.getBoundingClientRect();
      const points = [[r.left + r.width / 2, r.top + Math.min(r.height / 2, 20)], [r.left + 3, r.top + 3],
                      [r.right - 3, r.top + 3]];
      for (const [x, y] of points) {
        if (y < 0 || y > innerHeight || x < 0 || x > innerWidth) { covered.push(`${selector}: outside the view`);
                                                                   continue; }
        const hit = document.elementFromPoint(x, y);
        if (hit && !part.contains(hit) && !hit.contains(part)) {
          covered.push(`${selector} under ${hit.outerHTML.slice(0, 80)}`);
        }
      }
    }
  }
  window.scrollTo(0, 0);
  return covered;
}"""


def looked_at(page, name: str, faults: tuple[str, ...] = ()) -> None:
    """The screen's checks, then its screenshot. `faults`: the fields expected to say what is wrong."""
    WALK.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(500)  # what the last event changed is drawn
    page.screenshot(path=str(WALK / f"{name}.png"), full_page=True)
    assert error_badges(page) == [], name  # no panel marked as failed
    assert page.locator("[data-testid='toast-body']").count() == 0, name  # no pop-up error
    said = page.evaluate("""() => [...document.querySelectorAll('.validation-error')]
        .filter(e => e.offsetParent !== null && e.innerText.trim()).map(e => (e.closest('[id]') || {}).id)""")
    assert sorted(set(said)) == sorted(faults), (name, said)  # a message at each field at fault, none elsewhere
    messages = [m.strip() for m in page.locator(".form-message").all_inner_texts() if m.strip()]
    assert messages == [], (name, messages)  # no message left over
    assert cut_cells(page, TABLES) == [], name
    assert page.evaluate(COVERED, KEY_PARTS) == [], name
    width = page.evaluate("document.documentElement.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= width, name  # no sideways scrolling


def title_fonts(page) -> list[str]:
    """The fonts the page's title is drawn with (Chromium's own account of each glyph)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument")["root"]["nodeId"]
    title = cdp.send("DOM.querySelector", {"nodeId": root, "selector": "#page-title h1"})["nodeId"]
    fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": title})["fonts"]
    return [f"{font['familyName']} ({font['glyphCount']})" for font in fonts]


def test_01_the_landing_page(page):
    assert page.locator("#page-title h1").inner_text() == "FPKG-RAG"
    fonts = title_fonts(page)
    assert len(fonts) == 1 and fonts[0].endswith(f"({len('FPKG-RAG')})"), fonts  # one font, as written
    assert visible_tabs(page) == ["Diagnosis", "Ask", "Explore", "History", "About"]
    assert "0 / 5,000 characters" in page.locator("#diag-description-count").inner_text()  # the limit, before it
    looked_at(page, "01-landing")


def test_02_a_case_typed_in_is_answered_in_a_glance(page):
    fill_case(page, **CHD7_CASE)
    page.locator("#diag-submit").click()
    wait_for_answer(page, "diag", "CHARGE syndrome")
    evidence_picture_width(page, "diag")
    summary = page.locator("#diag-summary")
    assert summary.inner_text().startswith("Most likely: CHARGE syndrome (OMIM:214800)")
    assert summary.bounding_box()["y"] < 300  # at the top of the page, beside the form: seen without scrolling
    disclaimer = page.locator("#diag-disclaimer").bounding_box()
    assert abs(disclaimer["y"] - summary.bounding_box()["y"]) < 40  # the "not a medical device" line beside it
    assert page.locator("#diag-differential tbody tr").count() == 10
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(WALK / "02-case-first-screen.png"))  # what the clinician sees first
    looked_at(page, "02-case")


def test_03_a_mistake_is_said_at_its_field_and_forgotten_once_fixed(page):
    fill_case(page, **CHD7_CASE)
    page.locator("#diag-submit").click()
    wait_for_answer(page, "diag", "CHARGE syndrome")
    before = page.locator("#diag-summary").inner_text()
    field(page, "diag-age").fill("250")
    page.locator("#diag-submit").click()
    assert "give an age from 0 to 130" in field_message(page, "diag-age", "250 years is not possible")
    assert page.locator("#diag-summary").inner_text() == before  # the last answer kept, not marked as failed
    looked_at(page, "03-mistake", faults=("diag-age",))
    field(page, "diag-age").fill("5")
    page.locator("#diag-submit").click()
    page.wait_for_function("!document.querySelector('#diag-age .validation-error')", timeout=60_000)
    wait_for_answer(page, "diag", "CHARGE syndrome")
    looked_at(page, "03-fixed")  # no message left at the age


def test_04_a_description_with_its_limit_shown_before_it_is_hit(page):
    field(page, "diag-description").fill("hypertelorism " * 1500)  # ~21,000 characters pasted
    counter = page.locator("#diag-description-count")
    page.wait_for_function("document.querySelector('#diag-description-count').innerText.includes('too many')")
    assert f"/ {MAX_DESCRIPTION_CHARS:,} characters: " in counter.inner_text()
    assert counter.locator(".over").count() == 1  # in the error colour, before anything is sent
    page.locator("#diag-submit").click()
    assert "Shorten it: nothing was read" in field_message(page, "diag-description", "characters long")
    looked_at(page, "04-description-too-long", faults=("diag-description",))
    field(page, "diag-description").fill("A 4-year-old boy with a de novo PTPN11 c.922A>G variant, hypertelorism, "
                                        "ptosis, low-set ears and pulmonary valve stenosis")
    page.locator("#diag-submit").click()
    assert wait_for_answer(page, "diag", "Most likely:").startswith("Most likely: Noonan syndrome 1")
    assert page.locator("#diag-summary").inner_text().startswith("Most likely: Noonan syndrome 1")
    looked_at(page, "04-description")


def test_05_a_phenopacket_read_into_the_form(page, store_phenopacket):
    page.locator("#diag-phenopacket-box").get_by_text("A GA4GH phenopacket (JSON)").first.click()
    field(page, "diag-phenopacket").fill("{not a phenopacket")
    page.locator("#diag-phenopacket-fill").click()
    assert "GA4GH Phenopacket" in field_message(page, "diag-phenopacket", "JSON")
    looked_at(page, "05-phenopacket-not-json", faults=("diag-phenopacket",))
    field(page, "diag-phenopacket").fill(json.dumps(json.loads(store_phenopacket.read_text())))
    page.locator("#diag-phenopacket-fill").click()
    page.wait_for_function("document.querySelector('#diag-phenopacket-read').innerText.includes('Read from')",
                           timeout=60_000)
    assert field(page, "diag-gene").input_value() == "PTPN11"
    page.locator("#diag-submit").click()
    assert wait_for_answer(page, "diag", "Most likely:").startswith("Most likely: Leopard syndrome 1")
    looked_at(page, "05-phenopacket")


def test_06_a_question_with_its_tables_at_full_width(page):
    page.get_by_role("tab", name="Ask").click()
    field(page, "ask-question").fill("What distinguishes Kabuki syndrome from CHARGE syndrome?")
    page.locator("#ask-submit").click()
    wait_for_answer(page, "ask", "Facial findings shared")
    assert page.locator("#ask-answer table").count() >= 3
    assert page.locator("#ask-answer").bounding_box()["width"] >= 1200
    looked_at(page, "06-question")


def test_07_explore_shows_every_column_of_its_table(page):
    page.get_by_role("tab", name="Explore").click()
    field(page, "explore-name").fill("CHARGE syndrome")
    page.locator("#explore-submit").click()
    page.locator("#explore-plot .sankey-node").first.wait_for(timeout=60_000)
    table = page.locator("#explore-table").bounding_box()
    headers = page.evaluate("""() => [...document.querySelectorAll('#explore-table th')]
        .map(th => [th.innerText.trim(), th.getBoundingClientRect().right])
        .filter(([text]) => text)""")
    assert [text.split("\n")[0] for text, _ in headers] == ["from", "from type", "to", "to type", "count", "source"]
    assert all(right <= table["x"] + table["width"] + 1 for _, right in headers), headers  # all six in view
    looked_at(page, "07-explore")


def test_08_a_visitor_sees_only_what_they_may_use_and_no_server_detail(page, pipeline):
    assert visible_tabs(page) == ["Diagnosis", "Ask", "Explore", "History", "About"]  # no Curate, no Admin
    page.get_by_role("tab", name="About").click()
    about = page.locator("#about-text").inner_text()
    assert "not a medical device" in about and "\tin use: " in about  # each source's state, in words
    settings = pipeline.settings
    for detail in (str(settings.data_dir.parent), str(settings.cache_dir), "Errno", "Error:", "Traceback"):
        assert detail not in about, detail
    looked_at(page, "08-visitor-about")


def test_09_a_phone(browser, app_server):
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        page.goto(app_server.url)
        page.wait_for_selector("#diag-submit")
        title = page.locator("#page-title").bounding_box()
        assert title["width"] >= 300 and page.locator("#page-title h1").inner_text() == "FPKG-RAG"  # not squeezed
        looked_at(page, "09-phone-landing")
        fill_case(page, **CHD7_CASE)
        page.locator("#diag-submit").click()
        wait_for_answer(page, "diag", "CHARGE syndrome")
        page.locator("#diag-evidence img").first.wait_for(state="attached", timeout=60_000)  # the answer is whole
        for part in ("#diag-summary", "#diag-differential table", "#diag-submit"):
            box = page.locator(part).bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], part  # within the screen
        looked_at(page, "09-phone-answer")
        page.get_by_role("tab", name="Ask").click()
        field(page, "ask-question").fill("What distinguishes Kabuki syndrome from CHARGE syndrome?")
        page.locator("#ask-submit").click()
        wait_for_answer(page, "ask", "Facial findings shared")
        looked_at(page, "09-phone-question")
    finally:
        context.close()
