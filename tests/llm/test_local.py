"""The local backend end to end on CPU with a tiny random Llama built here (no download): 4-bit NF4 through
bitsandbytes, float32 where bitsandbytes is missing. The real SmolLM2 in NF4: tests/llm/test_nf4.py."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from fpkg.config import Settings
from fpkg.errors import LLMUnavailable
from llm.base import GenerationRequest
from llm.local import LocalGenerator, plain_prompt
from llm.tiny import build_tiny_llama

MESSAGES = [
    {"role": "system", "content": "Name the single most likely disease."},
    {"role": "user", "content": "A boy with a PTPN11 variant and hypertelorism."},
]


def settings_for(model: str | Path) -> Settings:
    return Settings(data_dir=Path("."), cache_dir=Path("."), llm_backend="local", llm_model=str(model))


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> Path:
    return build_tiny_llama(tmp_path_factory.mktemp("tiny-llama"))


@pytest.fixture(scope="module")
def generator(tiny_model) -> LocalGenerator:
    return LocalGenerator(settings_for(tiny_model), device="cpu")


def test_loads_in_nf4_on_the_cpu_and_says_so(generator):
    assert generator.name == "local" and generator.is_llm
    assert generator.quantized and generator.precision == "4-bit NF4 on cpu (float32 compute)"
    assert sum(type(m).__name__ == "Linear4bit" for m in generator.model.modules()) == 14  # 7 per layer
    assert "runs in 4-bit NF4 on the CPU" in generator.notice and "float32 on the" not in generator.notice


def test_without_bitsandbytes_it_loads_unquantised_and_says_why(tiny_model, monkeypatch):
    import llm.local

    monkeypatch.setattr(llm.local, "bitsandbytes_installed", lambda: False)  # a machine without it
    generator = LocalGenerator(settings_for(tiny_model), device="cpu")
    assert not generator.quantized and generator.precision == "float32 on cpu"
    assert not any(type(m).__name__ == "Linear4bit" for m in generator.model.modules())
    assert next(generator.model.parameters()).dtype == torch.float32
    assert generator.notice.startswith("bitsandbytes cannot load here (bitsandbytes is not installed)")
    assert "unquantised in float32 on the CPU" in generator.notice
    assert generator.generate(GenerationRequest(MESSAGES, max_new_tokens=4))


def test_prompt_uses_the_chat_template(generator):
    ids = generator.encode(MESSAGES)["input_ids"][0]
    text = generator.tokenizer.decode(ids)
    assert text.startswith("<|bos|><|system|>\nName the single")
    assert text.endswith("<|assistant|>\n")


def test_generate_and_stream_agree_and_greedy_repeats(generator):
    request = GenerationRequest(MESSAGES, max_new_tokens=16)
    first = generator.generate(request)
    assert isinstance(first, str) and first
    pieces = list(generator.stream(request))
    assert len(pieces) >= 1 and all(isinstance(p, str) for p in pieces)
    assert "".join(pieces) == first
    assert generator.generate(request) == first  # temperature 0 is greedy: identical every time


def test_sampling_is_reproducible_with_a_seed(generator):
    def sample(seed: int) -> str:
        return generator.generate(GenerationRequest(MESSAGES, temperature=1.0, seed=seed, max_new_tokens=16))

    assert sample(1) == sample(1)
    assert sample(1) != sample(2)  # the seed really drives sampling


def test_stopping_a_stream_early_frees_the_model(generator):
    stream = generator.stream(GenerationRequest(MESSAGES, max_new_tokens=200))
    next(stream)
    stream.close()  # ends generation and releases the lock
    assert generator.generate(GenerationRequest(MESSAGES, max_new_tokens=4))


def test_tokenizer_without_chat_template_uses_plain_prompt(tmp_path):
    folder = build_tiny_llama(tmp_path / "no-template", chat_template=False)
    generator = LocalGenerator(settings_for(folder), device="cpu")
    ids = generator.encode(MESSAGES)["input_ids"][0]
    assert generator.tokenizer.decode(ids, skip_special_tokens=True) == plain_prompt(MESSAGES)
    request = GenerationRequest(MESSAGES, max_new_tokens=4)
    assert "".join(generator.stream(request)) == generator.generate(request)  # both paths use that prompt


@pytest.mark.parametrize("missing", ["/nonexistent/models/qwen", "./models/not-here"])
def test_missing_folder_is_a_clear_error(missing):
    with pytest.raises(LLMUnavailable, match="does not exist; set LLM_MODEL"):
        LocalGenerator(settings_for(missing), device="cpu")


def test_folder_without_a_model_is_a_clear_error(tmp_path):
    with pytest.raises(LLMUnavailable, match="cannot load model"):
        LocalGenerator(settings_for(tmp_path), device="cpu")
