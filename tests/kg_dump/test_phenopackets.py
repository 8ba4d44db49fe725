"""GA4GH phenopackets read with the GA4GH schema: one file, and phenopacket-store's release zip."""

from __future__ import annotations

import json
import shutil
import zipfile

import pytest

from fpkg.errors import DataFileError, PhenopacketError
from kg_dump.phenopacket_reader import duration_years, parse_phenopacket
from kg_dump.phenopacket_store import RELEASE_ZIP, read_store, store_path


@pytest.fixture(scope="module")
def store_zip(data_dir):
    path = data_dir.parent / "phenopacket-store" / RELEASE_ZIP
    if not path.is_file():
        pytest.skip(f"no {path}")
    return path


def member(store_zip, name: str) -> bytes:
    with zipfile.ZipFile(store_zip) as archive:
        return archive.read(name)


def first_member(store_zip, cohort: str) -> str:
    with zipfile.ZipFile(store_zip) as archive:
        return next(n for n in sorted(archive.namelist()) if n.startswith(cohort + "/"))


def test_a_published_patient_is_read_whole(store_zip):
    name = first_member(store_zip, "KMT2D")
    patient = parse_phenopacket(member(store_zip, name), name, "KMT2D")
    document = json.loads(member(store_zip, name))
    assert patient.id == document["id"] and patient.cohort == "KMT2D"
    assert patient.disease_id.startswith("OMIM:") and patient.genes == ("KMT2D",)
    assert patient.pmid == int(document["metaData"]["externalReferences"][0]["id"].split(":")[1])
    features = document["phenotypicFeatures"]
    assert len(patient.present) == sum(not f.get("excluded") for f in features)
    assert len(patient.excluded) == sum(bool(f.get("excluded")) for f in features)
    assert all(v.hgvs and ":c." in v.hgvs for v in patient.variants)


def test_a_patient_without_gene_or_hgvs_is_kept_with_what_it_has(store_zip):
    name = first_member(store_zip, "11q_terminal_deletion")
    patient = parse_phenopacket(member(store_zip, name), name)
    assert patient.genes == () and patient.disease_label == "Jacobsen syndrome"
    assert patient.variants and patient.variants[0].hgvs is None and patient.variants[0].description
    assert patient.present and patient.sex in ("female", "male", None)


@pytest.mark.parametrize(("text", "says"), [
    ("{not json", "is not JSON"),
    ("[1, 2]", "not an object"),
    ('{"id": 3}', "not a GA4GH Phenopacket v2"),  # a number where the schema wants a string
    ('{"id": "x", "subject": {"sex": "BOTH"}}', "not a GA4GH Phenopacket v2"),  # no such enum value
    ('{"id": "x", "unknownField": 1}', "not a GA4GH Phenopacket v2"),
    ('{"id": "x", "phenotypicFeatures": [{"type": {"id": "HP:0000316"}}]}', "no diagnosis"),
    ('{"id": "x", "interpretations": [{"id": "i", "diagnosis": {"disease": {"id": "OMIM:147920"}}}]}',
     "no HPO finding"),
])
def test_what_is_no_usable_phenopacket_is_said(text, says):
    with pytest.raises(PhenopacketError, match=says):
        parse_phenopacket(text, "upload.json")


def test_ages_are_read_as_years():
    assert duration_years("P6Y") == 6 and duration_years("P10Y6M") == 10.5
    assert duration_years("P14D") == pytest.approx(0.0383, abs=1e-3)
    assert duration_years("six years") is None and duration_years("") is None


def test_the_release_zip_is_read_with_every_skipped_file_named(store_zip, tmp_path):
    read = read_store(store_zip.parent, tmp_path / "cache")
    assert 6500 < len(read.patients) <= 6727 and len({p.id for p in read.patients}) == len(read.patients)
    assert len(read.patients) + len(read.problems) == 6727
    assert all(problem.reason for problem in read.problems)
    again = read_store(store_zip.parent, tmp_path / "cache")  # from the cache: the same read
    assert again.sha256 == read.sha256 and len(again.patients) == len(read.patients)


def test_a_folder_with_bad_files_keeps_the_good_ones(store_zip, tmp_path):
    good = first_member(store_zip, "KMT2D")
    (tmp_path / "KMT2D").mkdir()
    (tmp_path / good).write_bytes(member(store_zip, good))
    (tmp_path / "KMT2D" / "broken.json").write_text('{"id": "broken", "subject": {"sex": 7}}')
    (tmp_path / "KMT2D" / "half.json").write_bytes(member(store_zip, good)[:200])
    read = read_store(tmp_path, workers=1)
    assert [p.id for p in read.patients] == [json.loads(member(store_zip, good))["id"]]
    assert {p.file for p in read.problems} == {"KMT2D/broken.json", "KMT2D/half.json"}
    assert any("is not JSON" in p.reason for p in read.problems)


def test_a_folder_without_the_store_says_which_variable_to_set(tmp_path):
    with pytest.raises(DataFileError, match="PHENOPACKET_STORE_DIR"):
        store_path(tmp_path)
    shutil.rmtree(tmp_path)
    with pytest.raises(DataFileError, match="PHENOPACKET_STORE_DIR"):
        store_path(tmp_path)
