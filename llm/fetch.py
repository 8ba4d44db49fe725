"""The configured local model downloaded ahead of its first use (a Docker image's build, a Space's).

`python -m llm fetch` reads LLM_MODEL and LLM_MODEL_REVISION (or SPACE_LLM's small model) and puts the
model into the Hugging Face cache, where `LLM_BACKEND=local` finds it offline: a GGUF file
(`owner/repo:file.gguf`) alone, or a transformers model's config, tokenizer and safetensors weights.
A local file or folder is only checked.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from fpkg.errors import LLMUnavailable
from llm.gguf import hub_file, hub_parts, is_gguf

if TYPE_CHECKING:
    from fpkg.config import Settings

# what a transformers model needs to load; not other formats' copies of the weights (.bin, .gguf, onnx)
WEIGHTS_AND_TOKENIZER = ["*.json", "*.safetensors", "*.jinja", "*.txt", "*.model", "*.tiktoken"]


def fetch_model(settings: Settings) -> Path:
    """The model's file or folder, downloaded at its pinned revision when it is not cached yet."""
    model = settings.llm_model.strip()
    local = Path(model).expanduser()
    if local.exists():
        return local
    if is_gguf(model):
        parts = hub_parts(model)
        if parts is None:
            raise LLMUnavailable(f"no GGUF file at {model}; set LLM_MODEL to a .gguf file or owner/repo:file.gguf")
        return hub_file(*parts, settings.llm_model_revision)
    from huggingface_hub import snapshot_download

    try:
        return Path(snapshot_download(model, revision=settings.llm_model_revision,
                                      allow_patterns=WEIGHTS_AND_TOKENIZER))
    except (OSError, ValueError) as e:  # offline and not cached, no such repo or revision
        raise LLMUnavailable(f"cannot fetch {model} at {settings.llm_model_revision or 'main'}: {e}") from e
