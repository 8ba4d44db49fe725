"""The local backend with a real 4-bit GGUF model on the CPU through llama.cpp (SmolLM2-135M)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from fpkg.config import Settings
from fpkg.errors import LLMUnavailable
from llm.base import GenerationRequest
from llm.factory import clear_cache, make_generator
from llm.gguf import GgufGenerator, is_gguf
from tests.llm.smollm2 import require_smollm2

MESSAGES = [{"role": "system", "content": "Answer in one short sentence."},
            {"role": "user", "content": "Which gene is linked to CHARGE syndrome?"}]


def settings_for(model: str | Path) -> Settings:
    return Settings(data_dir=Path("."), cache_dir=Path("."), llm_backend="local", llm_model=str(model))


@pytest.fixture(scope="module")
def generator() -> GgufGenerator:
    return GgufGenerator(settings_for(require_smollm2()))


def test_the_factory_picks_llama_cpp_for_a_gguf_model():
    path = require_smollm2()
    clear_cache()
    try:
        assert isinstance(make_generator(settings_for(path)), GgufGenerator)
    finally:
        clear_cache()
    assert is_gguf("owner/repo:model.Q4_K_M.gguf") and not is_gguf("Qwen/Qwen2.5-7B-Instruct")


def test_greedy_replies_stream_and_repeat(generator):
    request = GenerationRequest(MESSAGES, temperature=0.0, max_new_tokens=24)
    pieces = list(generator.stream(request))
    assert len(pieces) > 1 and "".join(pieces).strip()
    assert generator.generate(request) == "".join(pieces)  # greedy: the same words every time


def test_a_shared_prompt_prefix_is_restored_from_the_state_cache_with_the_same_reply(generator):
    """A long shared prefix (as the Cypher prompt's schema and examples) is read once: the reply
    after restoring a saved state is the reply computed from scratch."""
    prefix = [{"role": "system", "content": "You answer in one word. " + "Facts: CHD7 causes CHARGE syndrome. " * 40}]
    first = [*prefix, {"role": "user", "content": "Which gene causes CHARGE syndrome?"}]
    other = [*prefix, {"role": "user", "content": "Which syndrome does CHD7 cause?"}]
    request = GenerationRequest(first, temperature=0.0, max_new_tokens=12)
    fresh = GgufGenerator(settings_for(require_smollm2())).generate(request)
    generator.model.cache.cache_state.clear()
    generator.generate(GenerationRequest(other, temperature=0.0, max_new_tokens=12))
    generator.generate(GenerationRequest(MESSAGES, temperature=0.0, max_new_tokens=12))  # the context moves on
    assert len(generator.model.cache.cache_state) == 2
    context = generator.model._input_ids.tolist()  # now the short prompt's: it shares little with the prefix
    longest = max(generator.model.cache.cache_state, key=len)
    assert len(longest) > 300 and generator.model.longest_token_prefix(list(longest), context) < 50
    assert generator.generate(request) == fresh  # read from the restored prefix


def test_sampling_follows_the_seed(generator):
    def reply(seed: int) -> str:
        return generator.generate(GenerationRequest(MESSAGES, temperature=1.0, seed=seed, max_new_tokens=24))

    assert reply(3) == reply(3)
    assert len({reply(seed) for seed in range(4)}) > 1


@pytest.mark.parametrize("content, says", [(None, "no GGUF file"), (b"not a model at all", "not a GGUF model file"),
                                           (b"GGUF" + bytes(64), "cannot load the GGUF model")])
def test_a_missing_or_unreadable_file_is_a_clear_error(tmp_path, content, says):
    require_smollm2()
    path = tmp_path / "model.gguf"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(LLMUnavailable, match=says):
        GgufGenerator(settings_for(path))


def test_the_pipeline_answers_with_the_real_model(pipeline):
    from tests.support.hardening_support import with_generator

    local = with_generator(pipeline, GgufGenerator(replace(pipeline.settings, llm_model=str(require_smollm2()))))
    asked = local.ask("What facial phenotypes are associated with Crouzon syndrome?", backend="local")
    assert asked.done and asked.answer.strip() and asked.backend == "local"
    assert asked.triples  # the templates' evidence beside the model's words
    result = local.diagnose_question(
        "A 5 year old girl with a CHD7 variant, chorioretinal coloboma and posteriorly rotated ears.",
        backend="local")
    # whatever the small model says is the LLM's answer, or is recorded as unusable: never the graph's
    assert result.llm_failed or result.predicted is not None
    assert result.ranked and result.ranked[0].name == "CHARGE syndrome"


def test_a_hub_file_loads_from_the_cache_at_the_pinned_revision(tmp_path, monkeypatch):
    """`owner/repo:file.gguf` with LLM_MODEL_REVISION: the file at that commit, from an offline Hub cache."""
    from huggingface_hub import constants

    commit = "89abcdef0123456789abcdef0123456789abcdef"
    snapshot = tmp_path / "hub" / "models--someone--tiny-gguf" / "snapshots" / commit
    snapshot.mkdir(parents=True)
    (snapshot / "tiny.gguf").symlink_to(require_smollm2())
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    pinned = replace(settings_for("someone/tiny-gguf:tiny.gguf"), llm_model_revision=commit)
    reply = GgufGenerator(pinned).generate(GenerationRequest(MESSAGES, temperature=0.0, max_new_tokens=8))
    assert reply.strip()
    with pytest.raises(LLMUnavailable, match="cannot fetch tiny.gguf from someone/tiny-gguf at " + "f" * 40):
        GgufGenerator(replace(pinned, llm_model_revision="f" * 40))
