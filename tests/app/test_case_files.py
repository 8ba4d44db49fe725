"""The Diagnosis form's files through its handlers (app/case_files.py) on the real pipeline: a phenopacket read
into the form, the differential written out as private files, pastes over their limits refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import gradio as gr
import pandas as pd
import pytest
from google.protobuf import json_format
from phenopackets import Phenopacket

from app.access import Access
from app.case_files import export_differential, fill_form, form_case, read_upload
from fpkg.config import AccessSettings
from service.validation import MAX_FINDINGS_CHARS, MAX_PHENOPACKET_BYTES

EMPTY_FORM = dict(age="", sex=None, ethnicity="", gene="", variant="", phenotypes=[], selective=False, option_a="",
                  option_b="", option_c="", option_d="", description="", phenopacket="")


@pytest.fixture
def access(tmp_path) -> Access:
    return Access(AccessSettings.from_env({"FPKG_STATE_DIR": str(tmp_path / "state")}), hf_oauth=False)


@pytest.fixture
def uploaded(tmp_path, monkeypatch, store_phenopacket):
    """The store's phenopacket as Gradio keeps an upload: a file in its upload folder."""
    folder = tmp_path / "gradio-uploads"
    (folder / "abc123").mkdir(parents=True)
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(folder))
    return shutil.copy(store_phenopacket, folder / "abc123" / store_phenopacket.name)


def test_an_uploaded_phenopacket_fills_the_form_for_the_user_to_check(pipeline, access, uploaded):
    text = read_upload(access, uploaded)
    age, sex, gene, variant, findings, read = fill_form(pipeline, access, text)
    assert (sex, gene, variant) == ("male", "PTPN11", "NM_002834.5:c.836A>G")
    # each finding with its own HPO id, absent ones as "no X"
    assert "Hypertelorism (HP:0000316)" in findings and "no Intellectual disability, mild (HP:0001256)" in findings
    assert read.startswith("Read from the phenopacket") and "Check the form" in read
    # the form so filled reads back as the phenopacket's case: a name with a comma stays whole, each id its term
    filled = form_case(pipeline, **{**EMPTY_FORM, "age": age, "sex": sex, "gene": gene, "variant": variant,
                                    "phenotypes": findings})
    from_packet = form_case(pipeline, **{**EMPTY_FORM, "phenopacket": text})
    filled_result, packet_result = pipeline.diagnose(filled.case), pipeline.diagnose(from_packet.case)
    assert sorted(lk.ids for lk in filled_result.links if lk.type == "ABSENT_FINDING") == \
        sorted(lk.ids for lk in packet_result.links if lk.type == "ABSENT_FINDING")
    assert [r.node_id for r in filled_result.ranked] == [r.node_id for r in packet_result.ranked]


def test_a_phenopacket_age_under_two_years_is_shown_in_months(pipeline, access):
    packet = json.dumps({"id": "infant", "subject": {"id": "p1", "timeAtLastEncounter": {"age": {
        "iso8601duration": "P11M"}}}, "phenotypicFeatures": [{"type": {"id": "HP:0001252", "label": "Hypotonia"}}],
        "metaData": {"phenopacketSchemaVersion": "2.0"}})
    age, *_, findings, read = fill_form(pipeline, access, packet)
    assert age == "11 months" and "11 months old" in read
    assert findings == ["Hypotonia (HP:0001252)"]
    assert form_case(pipeline, **{**EMPTY_FORM, "age": age, "phenotypes": findings}).case.age_years == \
        pytest.approx(11 / 12, abs=0.01)


def test_a_file_over_the_limit_or_not_uploaded_here_is_refused(pipeline, access, uploaded, tmp_path):
    with open(uploaded, "a") as f:
        f.write(" " * MAX_PHENOPACKET_BYTES)
    with pytest.raises(gr.Error, match=f"at most {MAX_PHENOPACKET_BYTES:,}"):
        read_upload(access, uploaded)
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text("{}")
    with pytest.raises(gr.Error, match="was not uploaded here"):
        read_upload(access, str(elsewhere))
    with pytest.raises(gr.Error, match="is not JSON"):
        fill_form(pipeline, access, "{broken")


def test_the_differential_is_exported_as_private_files(pipeline, access, store_phenopacket):
    form = {**EMPTY_FORM, "description": "A boy with PTPN11 c.922A>G, hypertelorism, ptosis and low-set ears"}
    tsv, packet = export_differential(pipeline, access, **form)
    table = pd.read_csv(tsv, sep="\t")
    assert list(table.columns[:3]) == ["disease_name", "disease_identifier", "score"]
    assert table["disease_identifier"][0] == "OMIM:163950"
    assert json_format.Parse(Path(packet).read_text(), Phenopacket()).interpretations
    assert access.exports.files in Path(tsv).parents  # private, for the one who asked
    with_packet = export_differential(pipeline, access, **{**EMPTY_FORM, "phenopacket": store_phenopacket.read_text()})
    given = json_format.Parse(Path(with_packet[1]).read_text(), Phenopacket())
    assert given.id == json_format.Parse(store_phenopacket.read_text(), Phenopacket()).id


def test_a_paste_over_the_findings_limit_is_refused_naming_it(pipeline):
    paste = "p" * (MAX_FINDINGS_CHARS + 1)
    with pytest.raises(gr.Error, match=f"the limit is {MAX_FINDINGS_CHARS:,}.*description box"):
        form_case(pipeline, **{**EMPTY_FORM, "phenotypes": [paste]})
