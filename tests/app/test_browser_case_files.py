"""The Diagnosis form as clinicians use it, in headless Chromium (issue 46): a description typed in, a GA4GH
phenopacket uploaded into the form, and the differential downloaded as a TSV and a phenopacket."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from google.protobuf import json_format
from phenopackets import Phenopacket

from tests.support.app_process import ARTIFACTS
from tests.support.browser_support import evidence_picture_width, field, wait_for_answer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PTPN11_DESCRIPTION = ("A 4-year-old boy with a de novo PTPN11 c.922A>G variant, hypertelorism, ptosis, low-set ears "
                      "and pulmonary valve stenosis; no intellectual disability")


def test_a_description_typed_in_is_read_whole(page):
    field(page, "diag-description").fill(PTPN11_DESCRIPTION)
    page.locator("#diag-submit").click()
    answer = wait_for_answer(page, "diag", "Most likely:")
    assert answer.startswith("Most likely: Noonan syndrome 1"), answer
    page.wait_for_function("document.querySelector('#diag-notices').innerText.includes('Findings read')",
                           timeout=60_000)
    notices = page.locator("#diag-notices").inner_text()
    assert "Pulmonic stenosis (HP:0001642, beside the face)" in notices
    assert "Findings read, absent: intellectual disability" in notices and "The variant c.922A>G counted" in notices
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "app-description-ptpn11.png"), full_page=True)


def test_an_uploaded_phenopacket_fills_the_form_and_the_differential_comes_back_as_files(page, store_phenopacket):
    page.locator("#diag-phenopacket-box").get_by_text("A GA4GH phenopacket (JSON)").first.click()
    page.locator("#diag-phenopacket-file input[type=file]").set_input_files(str(store_phenopacket))
    page.wait_for_function("document.querySelector('#diag-phenopacket-read').innerText.includes('Read from')",
                           timeout=60_000)
    assert field(page, "diag-gene").input_value() == "PTPN11"  # in the form, for the user to check
    assert page.locator("#diag-phenotypes").get_by_text("Hypertelorism (HP:0000316)", exact=True).count() >= 1
    page.locator("#diag-submit").click()
    answer = wait_for_answer(page, "diag", "Most likely:")
    evidence_picture_width(page, "diag")
    # the same differential as the same case through the API (tests/app/test_client.py reads the same file)
    assert answer.startswith("Most likely: Leopard syndrome 1"), answer
    files = {}
    for elem_id in ("diag-tsv", "diag-interpretation"):
        link = page.locator(f"#{elem_id} a").first
        link.wait_for(timeout=60_000)
        with page.expect_download() as download:
            link.click()
        files[elem_id] = Path(download.value.path())
    table = pd.read_csv(files["diag-tsv"], sep="\t")
    assert list(table.columns[:3]) == ["disease_name", "disease_identifier", "score"]
    assert table["disease_name"][0].startswith("Leopard syndrome 1")
    packet = json_format.Parse(files["diag-interpretation"].read_text(), Phenopacket())
    assert packet.id == json_format.Parse(store_phenopacket.read_text(), Phenopacket()).id
    assert packet.interpretations[-len(table):][0].diagnosis.disease.id == table["disease_identifier"][0]
    page.screenshot(path=str(ARTIFACTS / "app-phenopacket-upload.png"), full_page=True)


def pick_suggestion(page, elem_id: str, typed: str, name: str) -> None:
    """Type into an option box and choose `name` among the suggestions the server sends back."""
    box = field(page, elem_id)
    box.click()
    box.type(typed, delay=120)  # as a person types (keys a few milliseconds apart can outrun the suggestions)
    suggestion = page.locator("ul[role=listbox] li").filter(has_text=re.compile(re.escape(name))).first
    suggestion.wait_for(timeout=30_000)  # offered, as the findings box offers phenotypes
    suggestion.click()
    page.wait_for_function(f"document.querySelector('#{elem_id} input').value === {name!r}", timeout=30_000)


def test_an_option_box_suggests_the_graphs_disease_names_as_one_types(page):
    field(page, "diag-gene").fill("CHD7")
    page.locator("#diag-selective input").first.check()
    page.locator("#diag-option-A").wait_for(state="visible")
    pick_suggestion(page, "diag-option-A", "CHARGE syn", "CHARGE syndrome")
    pick_suggestion(page, "diag-option-B", "Kabuki syndrome", "Kabuki syndrome 1 (KS1)")
    page.locator("#diag-submit").click()
    answer = wait_for_answer(page, "diag", "Most likely:")
    assert "CHARGE syndrome" in answer.splitlines()[0], answer




def test_a_description_in_chinese_is_read_into_the_differential(page):
    field(page, "diag-description").fill("一名5岁男孩，PTPN11基因突变，表现为：眼距过宽、上睑下垂、低位耳。")
    page.locator("#diag-submit").click()
    answer = wait_for_answer(page, "diag", "Most likely:")
    assert "PTPN11" in answer, answer
    page.wait_for_function("document.querySelector('#diag-notices').innerText.includes('Read as Chinese')",
                           timeout=60_000)
    notices = page.locator("#diag-notices").inner_text()
    assert "« 眼距过宽 » = Hypertelorism" in notices and "« 低位耳 » = Low-set ears" in notices
    page.screenshot(path=str(ARTIFACTS / "app-description-chinese.png"), full_page=True)
