"""A 4-bit GGUF model run on the CPU by llama.cpp (`llama-cpp-python`), in this process.

`LLM_BACKEND=local` with `LLM_MODEL` naming a `.gguf` file: a path, or `owner/repo:file.gguf` on the
Hugging Face Hub (downloaded once into the Hub cache). Quantised models (Q4_K_M, Q4_1, ...) answer on
an ordinary CPU: no GPU and no bitsandbytes needed. The context window is CONTEXT_TOKENS; the evidence
given to the model is cut to fit it (llm/prompts.py).

Temperature 0 is greedy; above 0 llama.cpp samples with the request's seed.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from fpkg.errors import LLMConfigError, LLMError, LLMUnavailable
from llm.base import GenerationRequest, Generator

if TYPE_CHECKING:
    from fpkg.config import Settings

CONTEXT_TOKENS = 4096
# Saved model states, looked up by the longest shared prompt prefix: the Cypher prompt's schema and
# examples (~700 tokens) are read once instead of per question. On a CPU reading the prompt is the
# slow part (SmolLM2 here: ~200 prompt tokens/s against ~95 generated/s).
PROMPT_CACHE_BYTES = 1 << 30
GGUF_MAGIC = b"GGUF"


def is_gguf(model: str) -> bool:
    """Whether LLM_MODEL names a GGUF file (a path or `owner/repo:file.gguf`)."""
    return model.strip().lower().endswith(".gguf")


def hub_parts(model: str) -> tuple[str, str] | None:
    """`owner/repo:file.gguf` → (repo, file); None for a path."""
    repo, sep, filename = model.partition(":")
    if sep and repo.count("/") == 1 and not Path(model).expanduser().exists():
        return repo, filename
    return None


def hub_file(repo: str, filename: str, revision: str | None) -> Path:
    """The GGUF file from the Hub cache, downloaded at `revision` (LLM_MODEL_REVISION) when missing."""
    from huggingface_hub import hf_hub_download

    try:
        return Path(hf_hub_download(repo, filename, revision=revision))
    except (OSError, ValueError) as e:  # offline and not cached, no such repo, file or revision
        raise LLMUnavailable(f"cannot fetch {filename} from {repo} at {revision or 'main'}: {e}") from e


class GgufGenerator(Generator):
    name = "local"

    def __init__(self, settings: Settings, *, context: int = CONTEXT_TOKENS, threads: int | None = None):
        self.model_id = settings.llm_model.strip()
        if not is_gguf(self.model_id):
            raise LLMConfigError(f"LLM_MODEL={self.model_id!r} is not a .gguf file")
        self.revision = settings.llm_model_revision
        self.context = context
        self._lock = threading.Lock()  # one generation at a time: one llama.cpp context
        self.model = self._load(threads or max(1, (os.cpu_count() or 2)))

    def _load(self, threads: int):
        try:
            from llama_cpp import Llama, LlamaRAMCache
        except ImportError as e:
            raise LLMUnavailable("GGUF models need llama-cpp-python: `pip install llama-cpp-python==0.3.36` "
                                 "(it builds llama.cpp with this machine's C compiler)") from e
        hub = hub_parts(self.model_id)
        try:
            path = hub_file(*hub, self.revision) if hub else Path(self.model_id).expanduser()
            _check_file(path)
            model = Llama(model_path=str(path), n_ctx=self.context, n_threads=threads, verbose=False)
            model.set_cache(LlamaRAMCache(capacity_bytes=PROMPT_CACHE_BYTES))
            return model
        except LLMUnavailable:
            raise
        except Exception as e:  # llama.cpp raises ValueError / RuntimeError on a file it cannot use
            raise LLMUnavailable(f"cannot load the GGUF model {self.model_id}: {e}") from e

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        sampling = {"temperature": request.temperature, "seed": request.seed} if request.temperature > 0 \
            else {"temperature": 0.0, "top_k": 1}
        with self._lock:
            try:
                chunks = self.model.create_chat_completion(messages=request.messages, stream=True,
                                                           max_tokens=request.max_new_tokens, **sampling)
                for chunk in chunks:
                    text = chunk["choices"][0]["delta"].get("content")
                    if text:
                        yield text
            except ValueError as e:  # e.g. the prompt is longer than the context window
                raise LLMError(f"llama.cpp refused the request: {e}") from e


def _check_file(path: Path) -> None:
    """A clear message for a missing file or one that is not GGUF, before llama.cpp reads it."""
    if not path.is_file():
        raise LLMUnavailable(f"no GGUF file at {path}; set LLM_MODEL to a .gguf file or owner/repo:file.gguf")
    with open(path, "rb") as f:
        if f.read(4) != GGUF_MAGIC:
            raise LLMUnavailable(f"{path} is not a GGUF model file (it does not start with the GGUF header)")
