"""Settings are checked where they are used, and every command reports a project error on one line."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from fpkg.config import Settings
from fpkg.errors import EXIT_FAILURE, EXIT_USER_ERROR, FpkgError, LLMConfigError, SettingsError
from graphstore.store import open_store
from llm.factory import check_backend
from tests.support.paths import REPO_ROOT


def test_reading_the_settings_never_fails_on_a_part_not_used(tmp_path):
    settings = Settings.from_env({"FPKG_CACHE_DIR": str(tmp_path), "LLM_BACKEND": "endpoint",
                                  "LLM_TIMEOUT_S": "soon", "GRAPH_BACKEND": "sqlite"})
    with pytest.raises(LLMConfigError, match="needs LLM_ENDPOINT"):
        check_backend(settings)
    with pytest.raises(SettingsError, match="GRAPH_BACKEND='sqlite' is not known"):
        open_store(settings)
    with pytest.raises(SettingsError, match="LLM_TIMEOUT_S='soon'"):
        check_backend(Settings.from_env({"LLM_BACKEND": "endpoint", "LLM_ENDPOINT": "http://127.0.0.1:9",
                                         "LLM_TIMEOUT_S": "soon"}))
    assert check_backend(settings, "grounded") == "grounded"  # another backend is not held up


def test_every_error_kind_has_the_one_root_and_an_exit_code():
    import fpkg.errors as errors

    kinds = [value for value in vars(errors).values() if isinstance(value, type) and issubclass(value, Exception)]
    assert len(kinds) > 10 and all(issubclass(kind, FpkgError) for kind in kinds)
    assert {kind.exit_code for kind in kinds} == {EXIT_FAILURE, EXIT_USER_ERROR}


def _run(module: str, *args: str, env: dict[str, str], tmp_path) -> subprocess.CompletedProcess:
    environ = {key: value for key, value in os.environ.items() if not key.startswith(("LLM_", "GRAPH_", "FALKORDB"))}
    environ.update({"FPKG_CACHE_DIR": str(tmp_path), "GRADIO_ANALYTICS_ENABLED": "False", **env})
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, env=environ,
                          timeout=300, cwd=str(REPO_ROOT))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
@pytest.mark.parametrize(("module", "args", "env", "code", "message"), [
    ("kg_dump", ["stats"], {"GRAPH_BACKEND": "sqlite"}, 2, "error: GRAPH_BACKEND='sqlite' is not known"),
    ("bench", ["diagnosis"], {"GRAPH_BACKEND": "sqlite"}, 2, "bench: GRAPH_BACKEND='sqlite' is not known"),
    ("app", [], {"LLM_BACKEND": "endpoint"}, 2, "error: LLM_BACKEND=endpoint needs LLM_ENDPOINT"),
    ("bench", ["diagnosis"], {"FALKORDB_URL": "redis://127.0.0.1:{port}"}, 1, "bench: "),
    ("kg_dump", ["stats"], {"FALKORDB_URL": "redis://127.0.0.1:{port}"}, 1, "error: "),
])
def test_a_command_reports_a_project_error_on_one_line(tmp_path, module, args, env, code, message):
    env = {key: value.format(port=_free_port()) for key, value in env.items()}  # a port nobody serves
    done = _run(module, *args, env=env, tmp_path=tmp_path)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == code, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and lines and lines[-1].startswith(message), done.stderr[-2000:]


@pytest.mark.slow
def test_ner_runs_whatever_the_llm_settings_say(tmp_path):
    done = _run("ner", "predict", "A 5 year old girl with a CHD7 mutation", tmp_path=tmp_path,
                env={"LLM_BACKEND": "endpoint", "LLM_TIMEOUT_S": "soon", "NER_MODEL": ""})
    assert done.returncode == 0, done.stderr[-2000:]
    assert "GENDER" in done.stdout and "girl" in done.stdout
