"""The real SmolLM2-135M-Instruct in 4-bit NF4 on the CPU: the shipped GGUF converted once into the cache
(`python -m llm convert`), loaded by the local backend through bitsandbytes, answering from the graph."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fpkg.config import Settings
from llm.base import GenerationRequest
from llm.convert import SOURCE_FILE, is_converted, smollm2_gguf
from llm.local import LocalGenerator
from service.answer_check import IN_EVIDENCE
from tests.llm.smollm2 import require_smollm2_nf4

LAYERS = 30  # SmolLM2-135M: 30 decoder layers of 7 linear projections each


@pytest.fixture(scope="module")
def smollm2_folder(tmp_path_factory) -> Path:
    cache = Path(os.environ.get("FPKG_CACHE_DIR") or tmp_path_factory.mktemp("cache"))
    return require_smollm2_nf4(cache)


@pytest.fixture(scope="module")
def nf4(smollm2_folder) -> LocalGenerator:
    settings = Settings(data_dir=Path("."), cache_dir=Path("."), llm_backend="local", llm_model=str(smollm2_folder))
    return LocalGenerator(settings, device="cpu")


def test_the_conversion_is_kept_in_the_cache_with_its_source(smollm2_folder):
    written = {p.name for p in smollm2_folder.iterdir()}
    assert {"config.json", "model.safetensors", "tokenizer.json", SOURCE_FILE} <= written
    assert is_converted(smollm2_gguf(), smollm2_folder)  # converted once: later runs reuse it


def test_every_linear_layer_is_4_bit(nf4):
    import bitsandbytes as bnb

    linear4bit = [m for m in nf4.model.modules() if isinstance(m, bnb.nn.Linear4bit)]
    assert nf4.quantized and len(linear4bit) == 7 * LAYERS
    assert all(m.weight.quant_type == "nf4" for m in linear4bit)
    assert nf4.precision == "4-bit NF4 on cpu (float32 compute)" and "4-bit NF4 on the CPU" in nf4.notice
    assert nf4.model.get_memory_footprint() < 200 * 2**20  # float32 would be about 540 MB


def test_greedy_replies_repeat_and_stream_whole(nf4):
    request = GenerationRequest([{"role": "user", "content": "Which gene is linked to CHARGE syndrome?"}],
                                max_new_tokens=12)
    pieces = list(nf4.stream(request))
    assert len(pieces) > 1 and "".join(pieces) == nf4.generate(request)


def test_it_answers_a_grounded_question(pipeline, nf4):
    from tests.support.hardening_support import with_generator

    local = with_generator(pipeline, nf4)
    local.diagnosis_reply_tokens = 24  # the first lines are the answer; a CPU writes ~6 tokens a second
    result = local.diagnose_question(
        "A 5 year old girl with a CHD7 variant, chorioretinal coloboma and posteriorly rotated ears.",
        backend="local")
    assert result.done and result.llm_answer.strip() and result.ranked[0].name == "CHARGE syndrome"
    # the model's words, checked: it names a disease the evidence holds, and the answer of record is one
    assert any(n.kind == "disease" and n.status == IN_EVIDENCE for n in result.check.names), result.llm_answer
    assert result.predicted is not None and result.record is not None and result.llm_failed is None
    assert "Checked against the graph:" in result.answer
