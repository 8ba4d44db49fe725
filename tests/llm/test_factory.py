"""The backend factory: lazy imports, caching, and the error for an unknown backend."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from fpkg.config import Settings
from fpkg.errors import LLMConfigError
from llm import factory
from llm.base import GenerationRequest, Generator
from llm.endpoint import EndpointGenerator
from tests.support.paths import REPO_ROOT


def settings(**kwargs) -> Settings:
    return Settings(data_dir=Path("."), cache_dir=Path("."), **kwargs)


@pytest.fixture(autouse=True)
def empty_cache():
    factory.clear_cache()
    yield
    factory.clear_cache()


def test_unknown_backend_lists_the_known_ones():
    with pytest.raises(
        LLMConfigError, match="unknown LLM backend 'gpt'; use one of grounded, local, endpoint"
    ):
        factory.make_generator(settings(), "gpt")


def test_one_instance_per_backend_model_and_endpoint():
    s = settings(llm_backend="endpoint", llm_endpoint="http://127.0.0.1:9/v1", llm_model="m1")
    first = factory.make_generator(s)
    assert isinstance(first, EndpointGenerator)
    assert factory.make_generator(s) is first
    assert (
        factory.make_generator(settings(llm_endpoint="http://127.0.0.1:9/v1", llm_model="m1"), " Endpoint ")
        is first
    )
    assert (
        factory.make_generator(settings(llm_endpoint="http://127.0.0.1:9/v1", llm_model="m2"), "endpoint")
        is not first
    )


def test_local_model_is_loaded_once(tmp_path):
    from llm.tiny import build_tiny_llama

    s = settings(llm_backend="local", llm_model=str(build_tiny_llama(tmp_path / "tiny")))
    first = factory.make_generator(s)
    assert factory.make_generator(s) is first


def test_importing_the_factory_loads_no_ml_library():
    code = "import sys, llm.factory; print(sorted({'torch', 'transformers'} & set(sys.modules)))"
    root = REPO_ROOT
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


class Echo(Generator):
    name = "echo"

    def stream(self, request):
        yield from request.messages[-1]["content"].split(" ")


def test_generate_joins_the_stream():
    assert Echo().generate(GenerationRequest([{"role": "user", "content": "a b"}])) == "ab"
    assert Echo().is_llm and Echo().notice is None


@pytest.mark.parametrize(
    "kwargs",
    [
        {"messages": []},
        {"messages": [{"role": "robot", "content": "x"}]},
        {"messages": [{"role": "user"}]},
        {"messages": [{"role": "user", "content": "x"}], "temperature": -0.1},
        {"messages": [{"role": "user", "content": "x"}], "max_new_tokens": 0},
    ],
)
def test_invalid_requests_are_refused(kwargs):
    with pytest.raises(ValueError):
        GenerationRequest(**kwargs)
