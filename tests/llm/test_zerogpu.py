"""The local backend under a stand-in for Hugging Face's `spaces` package that does what ZeroGPU
does with a `@spaces.GPU` function's arguments: pickles them into a worker. A model or a tensor
among them fails, as it would there (it would be copied, gigabytes, on every call)."""

from __future__ import annotations

import importlib
import importlib.machinery
import inspect
import pickle
import sys
import types
from pathlib import Path

import pytest
import torch

from fpkg.config import Settings
from llm.base import GenerationRequest
from llm.tiny import build_tiny_llama

MESSAGES = [{"role": "user", "content": "A boy with a PTPN11 variant and hypertelorism."}]


def _heavy(value) -> bool:
    if isinstance(value, torch.nn.Module | torch.Tensor):
        return True
    if isinstance(value, dict):
        return any(_heavy(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_heavy(v) for v in value)
    return False


def stand_in_spaces() -> types.ModuleType:
    module = types.ModuleType("spaces")
    module.__spec__ = importlib.machinery.ModuleSpec("spaces", None)  # find_spec("spaces") finds it
    module.calls = []

    def gpu(fn=None, *, duration=None):
        def wrap(target):
            def run(*args, **kwargs):
                if _heavy((args, kwargs)):
                    raise TypeError("a model or tensor was passed to a @spaces.GPU function")
                args, kwargs = pickle.loads(pickle.dumps((args, kwargs)))  # into the worker
                module.calls.append(duration)
                return target(*args, **kwargs)

            if inspect.isgeneratorfunction(target):
                def run_generator(*args, **kwargs):
                    yield from run(*args, **kwargs)
                return run_generator
            return run
        return wrap(fn) if fn is not None else wrap

    module.GPU = gpu
    return module


@pytest.fixture
def local_under_zerogpu(monkeypatch, tmp_path):
    spaces = stand_in_spaces()
    monkeypatch.setitem(sys.modules, "spaces", spaces)
    import llm.local

    reloaded = importlib.reload(llm.local)  # on_gpu now wraps with the stand-in
    yield reloaded, spaces, build_tiny_llama(tmp_path / "tiny")
    monkeypatch.undo()
    importlib.reload(llm.local)


def test_generation_runs_with_only_small_picklable_arguments(local_under_zerogpu):
    local, spaces, model_dir = local_under_zerogpu
    settings = Settings(data_dir=Path("."), cache_dir=Path("."), llm_backend="local", llm_model=str(model_dir))
    generator = local.LocalGenerator(settings, device="cpu")
    reply = generator.generate(GenerationRequest(MESSAGES, max_new_tokens=5))
    assert isinstance(reply, str) and spaces.calls == [local.GPU_SECONDS]


def test_the_stand_in_refuses_a_model_as_zerogpu_would(local_under_zerogpu):
    local, spaces, model_dir = local_under_zerogpu
    wrapped = spaces.GPU(duration=10)(lambda model, text: text)
    with pytest.raises(TypeError, match="model or tensor"):
        wrapped(torch.nn.Linear(2, 2), "hello")
    assert wrapped("small", "hello") == "hello"
