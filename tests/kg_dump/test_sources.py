"""Every source fetched for a real user: against a real local HTTP server laid out as the upstream
(FPKG_SOURCES_MIRROR), each file checked by sha256 (nothing kept on a mismatch), the store's zip
checked member by member, MONDO's tables derived from its upstream files, and a server that is down
named in one clear message."""

from __future__ import annotations

import io
import json
import shutil
import socket
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest

from fpkg.config import Settings, default_data_dir
from fpkg.errors import DataFileError
from identity.mondo import TABLES, Mondo
from identity.mondo_upstream import derive_tables
from kg_dump.fetch import mirrored, sha256_of
from kg_dump.sources import (
    HPO_TRANSLATIONS,
    MARKER,
    MONDO,
    PHENOPACKET_STORE,
    SOURCES,
    STORE_ZIP,
    phenopacket_store_sha256,
    release_text,
    source_folder,
)
from tests.support.source_mirror import (
    mirror_files,
    mirror_path,
    mondo_pins,
    serving,
    shared_files,
    with_pins,
    write_mondo_upstream,
)


@pytest.fixture(scope="module")
def data_root(data_dir: Path) -> Path:
    """The shared data folder (fpkg/ and the other sources beside it)."""
    root = data_dir.parent
    for key in (MONDO, PHENOPACKET_STORE, HPO_TRANSLATIONS):
        if not (root / key).is_dir():
            pytest.skip(f"no {key}/ beside {data_dir}")
    return root


def fresh_settings(tmp_path: Path, mirror: str | None) -> Settings:
    """A new user's settings: an empty cache, nothing set but the mirror."""
    env = {"FPKG_CACHE_DIR": str(tmp_path / "cache")} | ({"FPKG_SOURCES_MIRROR": mirror} if mirror else {})
    settings = Settings.from_env(env)
    return replace(settings, data_dir=tmp_path / "cache" / "data")  # not the data beside the checkout


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_mirror_url_is_the_upstream_url_under_the_mirror():
    url = SOURCES[HPO_TRANSLATIONS].downloads[0].url
    assert mirrored(url, None) == url
    assert mirrored(url, "http://mirror.example:8080/base/") == \
        "http://mirror.example:8080/base/" + url.removeprefix("https://")


def test_translations_are_fetched_from_the_mirror_byte_for_byte(data_root, tmp_path):
    mirror_files(tmp_path / "mirror", SOURCES[HPO_TRANSLATIONS], shared_files(data_root, HPO_TRANSLATIONS))
    lines = []
    with serving(tmp_path / "mirror") as url:
        folder = source_folder(fresh_settings(tmp_path, url), HPO_TRANSLATIONS, lines.append)
    assert folder == tmp_path / "cache" / "data" / HPO_TRANSLATIONS
    for name in SOURCES[HPO_TRANSLATIONS].needed:
        assert (folder / name).read_bytes() == (data_root / HPO_TRANSLATIONS / name).read_bytes(), name
    assert sorted(p.name for p in folder.iterdir()) == sorted([*SOURCES[HPO_TRANSLATIONS].needed, MARKER])
    recorded = json.loads((folder / MARKER).read_text())
    assert recorded["release"] == SOURCES[HPO_TRANSLATIONS].release
    assert recorded["files"]["hp-fr.babelon.tsv"]["sha256"] == sha256_of(folder / "hp-fr.babelon.tsv")
    # progress: the source, then each file with its size and its check
    assert lines[0].startswith("fetching HPO translations") and any("hp-ja.babelon.tsv: 3.8 MB" in x for x in lines)
    assert sum("sha256 checked" in x for x in lines) == 8
    # present now: a second call fetches nothing (the server is gone)
    assert source_folder(fresh_settings(tmp_path, url), HPO_TRANSLATIONS) == folder


def test_a_checksum_mismatch_keeps_nothing(data_root, tmp_path):
    mirror = tmp_path / "mirror"
    mirror_files(mirror, SOURCES[HPO_TRANSLATIONS], shared_files(data_root, HPO_TRANSLATIONS))
    tampered = mirror_path(mirror, SOURCES[HPO_TRANSLATIONS].downloads[3].url)
    tampered.write_bytes(tampered.read_bytes().replace(b"HP:", b"HQ:", 1))
    with serving(mirror) as url, pytest.raises(DataFileError) as error:
        source_folder(fresh_settings(tmp_path, url), HPO_TRANSLATIONS)
    message = str(error.value)
    assert "sha256" in message and tampered.name in message and "nothing was kept" in message
    assert "HPO_TRANSLATIONS_DIR" in message and "\n" not in message
    assert not (tmp_path / "cache" / "data" / HPO_TRANSLATIONS).exists()  # not even the files that matched


def test_a_server_that_is_down_is_named_with_the_variable_to_set(tmp_path):
    settings = fresh_settings(tmp_path, f"http://127.0.0.1:{closed_port()}")
    with pytest.raises(DataFileError) as error:
        source_folder(settings, MONDO)
    message = str(error.value)
    assert "cannot be reached" in message and "MONDO_DATA_DIR" in message and "\n" not in message
    assert not (tmp_path / "cache" / "data" / MONDO).exists()


def test_a_missing_file_on_the_server_is_named(data_root, tmp_path):
    mirror = tmp_path / "mirror"
    mirror_files(mirror, SOURCES[HPO_TRANSLATIONS], shared_files(data_root, HPO_TRANSLATIONS))
    mirror_path(mirror, SOURCES[HPO_TRANSLATIONS].downloads[-1].url).unlink()
    with serving(mirror) as url, pytest.raises(DataFileError, match="answered 404"):
        source_folder(fresh_settings(tmp_path, url), HPO_TRANSLATIONS)


def test_the_phenopacket_store_zip_is_checked_and_its_sha256_recorded(data_root, tmp_path):
    zip_path = data_root / PHENOPACKET_STORE / STORE_ZIP
    mirror_files(tmp_path / "mirror", SOURCES[PHENOPACKET_STORE], {STORE_ZIP: zip_path})
    lines = []
    with serving(tmp_path / "mirror") as url:
        settings = fresh_settings(tmp_path, url)
        folder = source_folder(settings, PHENOPACKET_STORE, lines.append)
    digest = sha256_of(zip_path)
    assert (folder / STORE_ZIP).read_bytes() == zip_path.read_bytes()
    assert json.loads((folder / MARKER).read_text())["files"][STORE_ZIP]["sha256"] == digest
    assert phenopacket_store_sha256(settings) == digest  # what the build manifest records
    assert release_text(settings, PHENOPACKET_STORE) == f"release {SOURCES[PHENOPACKET_STORE].release.split()[-1]}, " \
                                                       f"sha256 {digest[:12]}"
    assert any("25 %" in line for line in lines)  # a large file reports as it comes


def bad_zip(kind: str, good: Path) -> bytes:
    if kind == "truncated":
        return good.read_bytes()[: good.stat().st_size // 2]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("cohort/PMID_1_a.json", json.dumps({"id": "a"}))
        archive.writestr("cohort/PMID_1_b.json" if kind == "not json" else "cohort/notes.txt", "{not json")
    return buffer.getvalue()


@pytest.mark.parametrize("kind, says", [("truncated", "not a whole zip"), ("not json", "PMID_1_b.json is not JSON"),
                                        ("not a json file", "notes.txt is not a .json file")])
def test_a_damaged_store_zip_is_refused(data_root, tmp_path, kind, says):
    target = mirror_path(tmp_path / "mirror", SOURCES[PHENOPACKET_STORE].downloads[0].url)
    target.parent.mkdir(parents=True)
    target.write_bytes(bad_zip(kind, data_root / PHENOPACKET_STORE / STORE_ZIP))
    with serving(tmp_path / "mirror") as url, pytest.raises(DataFileError, match=says) as error:
        source_folder(fresh_settings(tmp_path, url), PHENOPACKET_STORE)
    assert "PHENOPACKET_STORE_DIR" in str(error.value)
    assert not (tmp_path / "cache" / "data" / PHENOPACKET_STORE).exists()


def mondo_content(folder: Path) -> dict:
    mondo = Mondo.load(folder)
    return {"xrefs": mondo.xrefs, "xref_labels": mondo.xref_labels, "labels": mondo.labels,
            "parents": dict(mondo.parents), "children": dict(mondo.children), "series_gene": mondo.series_gene}


def test_mondo_tables_derived_from_upstream_files_are_the_shared_ones(data_root, tmp_path):
    """The derivation keeps every row and column the shared tables hold, in order, and leaves out the
    rows that are not exact matches, subclass edges or MONDO classes. The upstream files are written
    here from the shared tables (the real ones are not on this machine)."""
    shared = data_root / MONDO
    write_mondo_upstream(shared, tmp_path / "upstream")
    written = derive_tables(tmp_path / "upstream", tmp_path / "tables")
    assert written["labels.tsv"] == 23_412 and written["exactmatch_omim.tsv"] == 10_045
    for table in TABLES:
        derived, expected = (tmp_path / "tables" / table).read_bytes(), (shared / table).read_bytes()
        # the shared series table ends its rows with CR LF, its header with LF: the same rows
        assert derived == (expected.replace(b"\r\n", b"\n") if table == "disease_series_by_gene.tsv" else expected), \
            table
    assert mondo_content(tmp_path / "tables") == mondo_content(shared)


def test_an_upstream_file_without_the_columns_expected_is_refused(data_root, tmp_path):
    write_mondo_upstream(data_root / MONDO, tmp_path / "upstream")
    (tmp_path / "upstream" / "subsets" / "mondo-rare_edges.tsv").write_text("id\tchild\tparent\nx\tMONDO:1\tMONDO:2\n")
    with pytest.raises(DataFileError, match="mondo-rare_edges.tsv has no column subject, predicate, object"):
        derive_tables(tmp_path / "upstream", tmp_path / "tables")


def test_mondo_is_fetched_over_http_and_its_tables_derived(data_root, tmp_path):
    files = write_mondo_upstream(data_root / MONDO, tmp_path / "made")
    mirror_files(tmp_path / "mirror", SOURCES[MONDO], files)
    with serving(tmp_path / "mirror") as url:
        folder = source_folder(fresh_settings(tmp_path, url), MONDO, sources=with_pins(mondo_pins(files)))
    assert mondo_content(folder) == mondo_content(data_root / MONDO)
    assert Mondo.load(folder).release  # disease identity, with its release
    for download in SOURCES[MONDO].downloads:  # the upstream files are kept beside the tables
        assert (folder / "upstream" / download.saved_as).read_bytes() == files[download.saved_as].read_bytes()


def test_mondo_files_that_are_not_the_pinned_ones_keep_nothing(data_root, tmp_path):
    """Files in the upstream layout but not the pinned commit's bytes (as this machine's are)."""
    files = write_mondo_upstream(data_root / MONDO, tmp_path / "made")
    mirror_files(tmp_path / "mirror", SOURCES[MONDO], files)
    with serving(tmp_path / "mirror") as url, pytest.raises(DataFileError, match="expected 7dad9b7df272"):
        source_folder(fresh_settings(tmp_path, url), MONDO)
    assert not (tmp_path / "cache" / "data" / MONDO).exists()


def test_without_fpkg_data_dir_a_data_folder_beside_the_checkout_is_used(tmp_path):
    """A machine with the data laid out beside the checkout starts offline with nothing set; one that
    fetched into its cache keeps using that copy; else the cache is where a first start fetches."""
    beside = tmp_path / "shared" / "data" / "fpkg"
    cache = tmp_path / "cache"
    assert default_data_dir(cache, beside) == cache / "data"  # nothing anywhere: fetch into the cache
    beside.mkdir(parents=True)
    (beside / "FPKG.dump").write_bytes(b"x")
    assert default_data_dir(cache, beside) == beside
    (cache / "data").mkdir(parents=True)
    (cache / "data" / "FPKG.dump").write_bytes(b"x")
    assert default_data_dir(cache, beside) == cache / "data"


def test_a_folder_given_by_its_variable_is_read_where_it_is(data_root, tmp_path):
    copy = tmp_path / "my-mondo"
    shutil.copytree(data_root / MONDO, copy)
    settings = replace(fresh_settings(tmp_path, None), mondo_dir=copy)
    assert source_folder(settings, MONDO) == copy  # present: nothing fetched, no server needed


def test_two_starts_at_once_fetch_a_source_once(data_root, tmp_path):
    mirror_files(tmp_path / "mirror", SOURCES[HPO_TRANSLATIONS], shared_files(data_root, HPO_TRANSLATIONS))
    lines = []
    with serving(tmp_path / "mirror") as url, ThreadPoolExecutor(2) as pool:
        settings = fresh_settings(tmp_path, url)
        folders = list(pool.map(lambda _: source_folder(settings, HPO_TRANSLATIONS, lines.append), range(2)))
    assert folders[0] == folders[1] and sum(line.startswith("fetching") for line in lines) == 1
    assert sorted(p.name for p in folders[0].iterdir()) == sorted([*SOURCES[HPO_TRANSLATIONS].needed, MARKER])
