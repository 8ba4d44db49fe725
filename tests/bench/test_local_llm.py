"""`python -m bench local-llm`: the GGUF and NF4 paths of the real SmolLM2 side by side, on this CPU."""

from __future__ import annotations

import json
import os
from pathlib import Path

from bench import local_llm
from bench.__main__ import main
from tests.llm.smollm2 import require_smollm2, require_smollm2_nf4

ALL_OK = {"four_bit": True, "greedy_repeatable": True, "seeded_sampling_repeatable": True,
          "stream_matches_generate": True}


def test_problems_name_each_failed_check():
    assert local_llm.problems({"gguf": ALL_OK, "nf4": ALL_OK}) == []
    failed = local_llm.problems({"gguf": ALL_OK, "nf4": {**ALL_OK, "four_bit": False, "greedy_repeatable": False}})
    assert failed == ["nf4: not loaded in 4 bit", "nf4: greedy generation differs between two runs"]


def test_both_paths_are_measured_side_by_side(capsys, tmp_path):
    require_smollm2()
    folder = require_smollm2_nf4(Path(os.environ.get("FPKG_CACHE_DIR") or tmp_path))  # converted once
    capsys.readouterr()
    assert main(["local-llm", "--nf4", str(folder), "--max-new-tokens", "8", "--device", "cpu", "--json",
                 "--results-dir", str(tmp_path), "--torch-threads", "0"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["device"] == "cpu" and out["failed_checks"] == []
    gguf, nf4 = out["gguf"], out["nf4"]
    assert gguf["precision"].startswith("4-bit GGUF") and nf4["precision"] == "4-bit NF4 on cpu (float32 compute)"
    assert nf4["linear4bit_layers"] == 210 and nf4["weights_mb"] < 200 < 2 * gguf["weights_mb"] + 200
    for path in (gguf, nf4):
        assert path["load_s"] > 0 and path["tokens"] > 0 and path["tokens_per_s"] > 0 and path["memory_mb"] > 0
    assert (tmp_path / "local-llm" / f"{folder.name}-cpu.json").is_file()


def test_a_missing_model_is_a_clear_refusal(capsys, tmp_path):
    capsys.readouterr()
    assert main(["local-llm", "--gguf", str(tmp_path / "none.gguf"), "--nf4", str(tmp_path), "--results-dir",
                 str(tmp_path), "--torch-threads", "0"]) == 2
    assert capsys.readouterr().err.startswith("bench: no GGUF file at")
    assert not list(tmp_path.rglob("*.json"))
