"""`python -m bench gpu-smoke`: a clear refusal without CUDA, exit 1 when a check fails, the run with CUDA."""

from __future__ import annotations

import importlib.util
import json

import pytest
import torch

from bench import gpu_smoke
from bench.__main__ import main

ALL_OK = {"linear4bit_layers": 12, "greedy_repeatable": True, "seeded_sampling_repeatable": True,
          "stream_matches_generate": True}


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the refusal without CUDA")
def test_without_cuda_it_says_so_and_exits_2(capsys, tmp_path):
    capsys.readouterr()
    assert main(["gpu-smoke", "--results-dir", str(tmp_path), "--torch-threads", "0"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [f"bench: {gpu_smoke.NO_CUDA}"]
    assert not list(tmp_path.rglob("*.json"))


def test_problems_name_each_failed_check():
    assert gpu_smoke.problems(ALL_OK) == []
    failed = gpu_smoke.problems({**ALL_OK, "linear4bit_layers": 0, "stream_matches_generate": False})
    assert failed == ["no Linear4bit layers: the model was not quantised", "joined stream differs from generate"]


def test_a_failed_check_is_saved_and_exits_1(capsys, tmp_path, monkeypatch):
    result = {"model": "m", **ALL_OK, "greedy_repeatable": False}

    def fake_smoke(model, max_new_tokens):  # the CUDA part; the command's own handling is real
        assert (model, max_new_tokens) == ("some/model", 8)
        return {**result, "failed_checks": gpu_smoke.problems(result)}

    monkeypatch.setattr(gpu_smoke, "smoke", fake_smoke)
    capsys.readouterr()
    assert main(["gpu-smoke", "--model", "some/model", "--max-new-tokens", "8", "--results-dir", str(tmp_path),
                 "--torch-threads", "0"]) == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines()[-2:] == ["FAILED: greedy generation differs between two runs", "failed"]
    assert "bench: gpu-smoke: 1 check(s) failed: greedy generation differs between two runs" in captured.err
    record = json.loads((tmp_path / "gpu-smoke" / "model.json").read_text())
    assert record["result"]["failed_checks"] == ["greedy generation differs between two runs"]


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_tiny_llama_in_4bit_on_cuda(capsys, tmp_path):
    if importlib.util.find_spec("bitsandbytes") is None:
        pytest.skip("bitsandbytes not installed (pip install bitsandbytes)")
    capsys.readouterr()
    assert main(["gpu-smoke", "--max-new-tokens", "16", "--json", "--results-dir", str(tmp_path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["quantized"] and out["linear4bit_layers"] > 0 and out["failed_checks"] == []
    assert (tmp_path / "gpu-smoke" / "tiny-llama.json").is_file()
