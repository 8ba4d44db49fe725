"""The 4-bit CUDA path (bench/gpu_smoke.py) as a test; skipped without a CUDA device."""

from __future__ import annotations

import importlib.util

import pytest
import torch

from bench import gpu_smoke
from llm.tiny import build_tiny_llama


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_tiny_llama_in_4bit_on_cuda(tmp_path):
    if importlib.util.find_spec("bitsandbytes") is None:
        pytest.skip("bitsandbytes not installed (pip install bitsandbytes)")
    result = gpu_smoke.run(build_tiny_llama(tmp_path / "tiny"), max_new_tokens=16)
    assert result["quantized"]
    assert gpu_smoke.problems(result) == []


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the message shown without CUDA")
def test_smoke_script_skips_without_cuda(capsys):
    assert gpu_smoke.main([]) == 0
    assert capsys.readouterr().out.strip() == "skipped: no CUDA"
