"""Bad input through the running app (`python -m app` in a subprocess): the named endpoints with
gradio_client, and a few cases typed into headless Chromium (marked `browser`). Refusals come back
as the validation message (through the API a `gr.Error`; on the page the same message at the field at
fault), answers as answers, script in any field stays text, and the graph is unchanged afterwards.
"""

from __future__ import annotations

from contextlib import suppress

import pytest
from gradio_client import Client
from gradio_client.exceptions import AppError

from tests.support.browser_support import error_badges, field, field_message, wait_for_answer
from tests.support.hardening_support import unchanged_graph

pytestmark = pytest.mark.slow

CASE = dict(age="5", sex="female", ethnicity="Turkish", gene="CHD7", variant="c.2443-2A>G",
            phenotypes=["Wide nasal bridge", "Chorioretinal coloboma"], selective=False,
            option_a="", option_b="", option_c="", option_d="")
SETTINGS = ("cypher", "grounded", 0.0)
CYPHER = "x'}) MATCH (n) DETACH DELETE n //"
SQL = "'; DROP TABLE diseases; --"
HTML = "<script>alert('x')</script><img src=x onerror=alert(1)>"
BIG = "lorem ipsum " * 8600  # ~100 kB


def fields(**changes) -> tuple:
    return (*dict(CASE, **changes).values(), *SETTINGS)


@pytest.fixture(scope="module")
def client(app_server) -> Client:
    return Client(app_server.url, verbose=False, download_files=False)


REFUSED_DIAGNOSES = {
    "age -5": (fields(age="-5"), "-5 years is not possible"),
    "age 500": (fields(age="500"), "500 years is not possible"),
    "age not a number": (fields(age="five"), "not a number of years"),
    "everything empty": (fields(age="", sex=None, ethnicity="", gene="", variant="", phenotypes=[]),
                         "at least one facial phenotype or a gene"),
    "zero-width phenotypes only": (fields(gene="", phenotypes=["\u200b", " "]), "at least one facial phenotype"),
    "100 kB gene": (fields(gene=BIG), "characters long"),
    "duplicated options": (fields(selective=True, option_a="CHARGE syndrome", option_b="charge syndrome"), "same"),
    "one option": (fields(selective=True, option_a="CHARGE syndrome"), "at least two"),
    "a sex not offered": (fields(sex="banana"), "banana"),
}


@pytest.mark.parametrize("arguments, message", REFUSED_DIAGNOSES.values(), ids=REFUSED_DIAGNOSES.keys())
def test_refused_cases_come_back_as_messages(client, arguments, message):
    with pytest.raises(AppError, match=message) as caught:
        client.predict(*arguments, api_name="/diagnose")
    assert "Traceback" not in str(caught.value)


ANSWERED_DIAGNOSES = {
    "control chars and malformed hgvs": (fields(variant="\x00c.>>>del<<<(?"), "CHARGE syndrome", None),
    "emoji gene": (fields(gene="💥"), None, "not in the graph"),
    "non-latin phenotype": (fields(gene="", phenotypes=["гипертелоризм", "Chorioretinal coloboma"]), None,
                            "matches no HPO phenotype"),
    "html in every text field": (fields(ethnicity=HTML, variant=HTML, phenotypes=[HTML, "Chorioretinal coloboma"],
                                        selective=True, option_a=HTML, option_b="CHARGE syndrome"), "CHARGE", None),
    "cypher in every field": (fields(ethnicity=CYPHER, gene=CYPHER, variant=CYPHER, phenotypes=[CYPHER, "Proptosis"],
                                     selective=True, option_a=CYPHER, option_b="CHARGE syndrome"), None, None),
    "sql in every field": (fields(ethnicity=SQL, gene=SQL, variant=SQL, phenotypes=[SQL, "Proptosis"],
                                  selective=True, option_a=SQL, option_b="Noonan syndrome"), None, None),
    # what the browser tests below type into the form
    "the browser's hostile form": (fields(ethnicity=HTML, variant="<svg onload=alert(3)>", selective=True,
                                          option_a="<img src=x onerror=alert(2)>", option_b="CHARGE syndrome"),
                                   "CHARGE syndrome", None),
}


@pytest.mark.parametrize("arguments, contains, notice", ANSWERED_DIAGNOSES.values(), ids=ANSWERED_DIAGNOSES.keys())
def test_odd_cases_are_answered(client, arguments, contains, notice):
    answer, notices, *_ = client.predict(*arguments, api_name="/diagnose")
    assert answer.strip() and "Traceback" not in answer
    if contains:
        assert contains in answer
    if notice:
        assert notice in notices


ASKED = {
    "empty": ("", "empty"),
    "zero-width only": ("\u200b\u200d\ufeff", "empty"),
    "100 kB": (BIG, "characters long"),
    "control and zero-width inside": ("What\x07 facial pheno\u200btypes are associated with Crouzon syndrome?",
                                      "Hypertelorism"),
    "html around": (HTML + "What facial phenotypes are associated with Crouzon syndrome?", "Hypertelorism"),
    "cypher statement": ("MATCH (n) DETACH DELETE n", None),
    "sql": (SQL, "Nothing found for"),
    "chinese": ("克鲁宗综合征的面部表型是什么？", "Nothing found for"),
    "emoji only": ("🧬😀", "Nothing to look for"),
    "an img tag around": ("<img src=x onerror=alert(1)> What facial phenotypes are associated with Crouzon "
                          "syndrome?", "Hypertelorism"),  # as the browser test below types it
}


@pytest.mark.parametrize("question, expected", ASKED.values(), ids=ASKED.keys())
def test_odd_questions(client, question, expected):
    try:
        answer, *_ = client.predict(question, *SETTINGS, api_name="/ask")
    except AppError as e:
        assert expected and expected in str(e), str(e)
        return
    assert answer.strip()
    if expected:
        assert expected in answer


# ---- in the browser --------------------------------------------------------------------------------


PANELS = ", ".join(f"#{panel} *" for panel in ("diag-answer", "diag-notices", "diag-summary", "diag-differential",
                                                 "ask-answer", "ask-notices"))
# Elements in the answer panels that could run code: scripts, frames, any on* handler attribute.
ACTIVE_CONTENT = f"""() => [...document.querySelectorAll("{PANELS}")]
    .filter(e => ["SCRIPT", "IFRAME", "OBJECT", "EMBED"].includes(e.tagName)
                 || [...e.attributes].some(a => a.name.startsWith("on")))
    .map(e => e.outerHTML.slice(0, 120))"""


def fill_hostile_case(page) -> None:
    field(page, "diag-gene").fill("CHD7")
    field(page, "diag-ethnicity").fill(HTML)
    field(page, "diag-variant").fill("<svg onload=alert(3)>")
    page.locator("#diag-selective input").first.check()
    page.locator("#diag-option-A").wait_for(state="visible")
    field(page, "diag-option-A").fill("<img src=x onerror=alert(2)>")
    field(page, "diag-option-B").fill("CHARGE syndrome")
    page.locator("#diag-submit").click()
    assert "CHARGE syndrome" in wait_for_answer(page, "diag", "CHARGE syndrome")
    page.wait_for_timeout(1000)  # time for any injected handler to fire


@pytest.mark.browser
def test_script_in_the_form_never_runs(page):
    fill_hostile_case(page)
    assert page.dialogs == []
    assert page.evaluate(ACTIVE_CONTENT) == []  # Gradio's sanitizer strips handlers and scripts


@pytest.mark.browser
def test_user_text_in_the_answer_is_shown_as_text(page):
    fill_hostile_case(page)
    assert page.locator("#diag-answer img, #diag-summary img, #diag-differential img").count() == 0
    assert "<img src=x" in page.locator("#diag-answer").inner_text()
    assert "option A: <img src=x onerror=alert(2)>" in page.locator("#diag-differential").inner_text()


@pytest.mark.browser
def test_script_in_a_question_stays_text(page):
    page.get_by_role("tab", name="Ask").click()
    field(page, "ask-question").fill("<img src=x onerror=alert(1)> What facial phenotypes are associated with "
                                     "Crouzon syndrome?")
    page.locator("#ask-submit").click()
    assert "Hypertelorism" in wait_for_answer(page, "ask", "Hypertelorism")
    page.wait_for_timeout(1000)
    assert page.dialogs == [] and page.evaluate(ACTIVE_CONTENT) == []
    assert page.locator("#ask-answer img, #ask-notices img").count() == 0


@pytest.mark.browser
def test_bad_input_in_the_browser_is_explained(page):
    field(page, "diag-age").fill("-5")
    field(page, "diag-gene").fill("CHD7")
    page.locator("#diag-submit").click()
    assert "give an age from 0 to 130" in field_message(page, "diag-age", "-5 years is not possible")
    page.get_by_role("tab", name="Ask").click()
    field(page, "ask-question").fill("\u200b \u200b")
    page.locator("#ask-submit").click()
    assert "question is empty" in field_message(page, "ask-question", "question is empty")
    assert error_badges(page) == []  # said at the field alone
    assert "Traceback" not in page.content()


@pytest.mark.browser
def test_markup_in_an_error_message_is_shown_as_typed(page):
    field(page, "diag-age").fill("<b>five</b><img src=x onerror=alert('x')>")  # no digit: not an age
    field(page, "diag-gene").fill("CHD7")
    page.locator("#diag-submit").click()
    assert "<b>five</b><img src=x onerror" in field_message(page, "diag-age", "is not a number of years")
    assert page.locator("#diag-age .validation-error b, #diag-age .validation-error img").count() == 0
    assert page.dialogs == []


# ---- the graph --------------------------------------------------------------------------------------
def test_graph_unchanged_by_every_case(client, pipeline, graph_baseline):
    """Every case sent to the app above again (the browser tests' input included), between this
    test's own two fingerprints of the graph the app serves (its FalkorDB is the session's)."""
    with unchanged_graph(pipeline.store, graph_baseline):
        for arguments in [*(a for a, _ in REFUSED_DIAGNOSES.values()), *(a for a, *_ in ANSWERED_DIAGNOSES.values())]:
            with suppress(AppError):  # a refusal; the tests above check which
                client.predict(*arguments, api_name="/diagnose")
        for question, _ in ASKED.values():
            with suppress(AppError):
                client.predict(question, *SETTINGS, api_name="/ask")
