"""A transformers causal LM running in this process.

`LLM_MODEL` is a Hub id or a local folder. The default, Qwen/Qwen2.5-7B-Instruct (Apache-2.0), takes
about 5.5 GB of GPU memory in 4-bit NF4, so it fits a 16 GB GPU with room for the KV cache.

The model is loaded in 4 bit (bitsandbytes NF4, double quantisation) on a CUDA GPU and on the CPU
alike: bitsandbytes 0.50 quantises on the CPU too (a pure-PyTorch path). The compute dtype is bf16
where the GPU has it, else float32. Only where bitsandbytes cannot load (not installed, or it fails on
this machine) is the model loaded unquantised in float32, and `notice` says why. On ZeroGPU Spaces the
GPU is attached only inside a generation call, so the weights load in bf16 without bitsandbytes.
`precision` says which of these paths was taken.

Generation runs in a thread feeding a `TextIteratorStreamer`, so `stream` yields text as it is made.
Temperature 0 is greedy decoding; above 0 it samples with the request's seed, so a (seed, temperature)
pair is reproducible on the same hardware.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fpkg.errors import LLMConfigError, LLMError, LLMUnavailable
from llm.base import GenerationRequest, Generator

if TYPE_CHECKING:
    from fpkg.config import Settings

CPU_NOTICE = (
    "No CUDA GPU: {model} runs in 4-bit NF4 on the CPU (bitsandbytes, float32 compute), about half a byte "
    "of RAM per parameter; expect slower answers than on a GPU or from a GGUF model (llama.cpp)."
)
UNQUANTISED_NOTICE = (
    "bitsandbytes cannot load here ({reason}): {model} runs unquantised in float32 on the {device}. Expect "
    "slow answers and about 4 bytes of memory per parameter (~30 GB for a 7B model). Install "
    "bitsandbytes (requirements-llm.txt), or use a GGUF model, LLM_BACKEND=endpoint or the grounded backend."
)


GPU_SECONDS = 120  # the longest one generation may hold a ZeroGPU device


def on_gpu(fn: Callable) -> Callable:
    """Wrap `fn` with `spaces.GPU` on Hugging Face ZeroGPU Spaces (a GPU is attached only while it runs).

    ZeroGPU runs `fn` in a worker and pickles its arguments there: they must be small (a model id,
    messages, generation settings), never the model or a tensor. Returns `fn` unchanged where the
    `spaces` package is not installed.
    """
    if importlib.util.find_spec("spaces") is None:
        return fn
    import spaces

    return spaces.GPU(duration=GPU_SECONDS)(fn)


# Models loaded in this process, by LLM_MODEL: what the GPU function looks up, so that only the
# model's id crosses into ZeroGPU's worker.
_LOADED: dict[str, tuple[Any, Any]] = {}


def _looks_like_path(model: str) -> bool:
    # Hub ids are "name" or "owner/name"; anything else with a separator is meant as a folder.
    return model.startswith((".", "/", "~")) or model.count("/") > 1 or "\\" in model


def plain_prompt(messages: list[dict[str, str]]) -> str:
    """The prompt for tokenizers without a chat template: one "role: content" block per message."""
    lines = [f"{m['role']}: {m['content']}" for m in messages]
    return "\n\n".join(lines) + "\n\nassistant:"


def _generate_on_device(model_id: str, messages: list[dict[str, str]], gen_kwargs: dict,
                        seed: int | None) -> Iterator[str]:
    """Tokenise `messages` for the loaded model and yield its reply: the function ZeroGPU runs
    on a GPU, so it takes only picklable arguments."""
    tokenizer, model = _LOADED[model_id]
    yield from _stream_generate(model, tokenizer, encode(tokenizer, model, messages), gen_kwargs, seed)


def encode(tokenizer, model, messages: list[dict[str, str]]) -> dict:
    """Token ids for `messages` with the model's chat template, ready on the model's device."""
    if getattr(tokenizer, "chat_template", None):
        encoded = tokenizer.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt",
                                                return_dict=True)
    else:
        encoded = tokenizer(plain_prompt(messages), return_tensors="pt")
    return {key: value.to(model.device) for key, value in encoded.items()}


def _stream_generate(model, tokenizer, inputs: dict, gen_kwargs: dict, seed: int | None) -> Iterator[str]:
    """Run `model.generate` in a thread and yield decoded text as tokens arrive."""
    import torch
    from transformers import StoppingCriteria, StoppingCriteriaList, TextIteratorStreamer, set_seed

    stop = threading.Event()  # set when the consumer stops reading, so generation ends early

    class _StopWhenAsked(StoppingCriteria):
        def __call__(self, input_ids, scores, **kwargs):
            return torch.full((input_ids.shape[0],), stop.is_set(), dtype=torch.bool, device=input_ids.device)

    streamer = TextIteratorStreamer(tokenizer, skip_prompt=True, skip_special_tokens=True)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            if seed is not None:
                set_seed(seed)
            with torch.inference_mode():
                model.generate(
                    **inputs,
                    **gen_kwargs,
                    streamer=streamer,
                    stopping_criteria=StoppingCriteriaList([_StopWhenAsked()]),
                )
        except Exception as error:  # not swallowed: re-raised in the consumer's thread below
            errors.append(error)
            streamer.end()

    thread = threading.Thread(target=run, name="llm-local-generate", daemon=True)
    thread.start()
    try:
        for text in streamer:
            if text:
                yield text
    finally:
        stop.set()
        thread.join()
    if errors:
        error = errors[0]
        if isinstance(error, torch.OutOfMemoryError):
            raise LLMUnavailable(
                "the GPU ran out of memory while generating; lower max_new_tokens, shorten the evidence, "
                "or use a smaller LLM_MODEL"
            ) from error
        raise LLMError(f"local generation failed: {type(error).__name__}: {error}") from error


_generate_on_device = on_gpu(_generate_on_device)


def _from_pretrained(source: str, kwargs: dict[str, Any], local_only: bool,
                     revision: str | None) -> tuple[Any, Any]:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(source, local_files_only=local_only, revision=revision)
    model = AutoModelForCausalLM.from_pretrained(source, local_files_only=local_only, revision=revision, **kwargs)
    return tokenizer, model


def _load_pretrained(source: str, kwargs: dict[str, Any], is_folder: bool,
                     revision: str | None = None) -> tuple[Any, Any]:
    """Tokenizer and model from a folder, or for a Hub id (at `revision`) from the local cache
    first, then the Hub."""
    revision = None if is_folder else revision
    try:
        if not is_folder:
            try:
                return _from_pretrained(source, kwargs, local_only=True, revision=revision)
            except OSError:
                pass  # not in the Hugging Face cache yet: download it below
        return _from_pretrained(source, kwargs, local_only=is_folder, revision=revision)
    except ImportError as e:
        raise LLMUnavailable(f"cannot load {source}: a package is missing ({e})") from e
    except (OSError, ValueError) as e:
        # OSError: offline or unknown Hub id, missing files; ValueError: invalid id or config.
        advice = (
            ""
            if is_folder
            else "\nIf this machine is offline, download the model once elsewhere "
            f"(`hf download {source} --local-dir DIR`), copy it here and set LLM_MODEL=DIR "
            "(HF_HUB_OFFLINE=1 skips the network retries); or use LLM_BACKEND=endpoint or grounded."
        )
        raise LLMUnavailable(f"cannot load model {source!r}: {e}{advice}") from e


class NoBitsAndBytes(LLMUnavailable):
    """bitsandbytes is missing or cannot quantise on this machine (the model then loads in float32)."""


def bitsandbytes_installed() -> bool:
    return importlib.util.find_spec("bitsandbytes") is not None


def nf4_config(compute_dtype):
    """bitsandbytes' 4-bit NF4 with double quantisation; NoBitsAndBytes when it is not installed."""
    if not bitsandbytes_installed():
        raise NoBitsAndBytes("bitsandbytes is not installed")
    from transformers import BitsAndBytesConfig

    return BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=compute_dtype,
                              bnb_4bit_use_double_quant=True)


def _bitsandbytes_problem(error: Exception) -> str | None:
    """What kept bitsandbytes from loading the model, when that is what failed; None for other errors."""
    if isinstance(error, NoBitsAndBytes):
        return str(error)
    cause = error.__cause__ or error
    text = f"{type(cause).__name__}: {cause}"
    return text.splitlines()[0][:200] if "bitsandbytes" in text.lower() else None


def _compute_dtype(device: str):
    """bf16 where the GPU computes in it, else float32 (the CPU, older GPUs)."""
    import torch

    if device.startswith("cuda") and torch.cuda.is_available() and torch.cuda.is_bf16_supported():
        return torch.bfloat16
    return torch.float32


def _ready(model, device: str):
    model.to(device)
    model.eval()
    return model


class LocalGenerator(Generator):
    """A Hub or local causal LM in 4-bit NF4 on a GPU or the CPU; bf16 on ZeroGPU; float32 where
    bitsandbytes cannot load."""

    name = "local"

    def __init__(self, settings: Settings, *, device: str | None = None):
        import torch

        self.model_id = (settings.llm_model or "").strip()
        self.revision = settings.llm_model_revision
        if not self.model_id:
            raise LLMConfigError("LLM_MODEL is empty; set it to a Hub id or a local model folder")
        # ZeroGPU attaches a GPU only inside the generation call: load bf16 weights, no bitsandbytes
        self.zero_gpu = bool(os.environ.get("SPACES_ZERO_GPU"))
        self.device = device or ("cuda" if self.zero_gpu or torch.cuda.is_available() else "cpu")
        self._lock = threading.Lock()  # one generation at a time: shared weights, shared RNG
        self.tokenizer, self.model, self.quantized, self.precision, self.notice = self._load()
        _LOADED[self.model_id] = (self.tokenizer, self.model)

    def _source(self) -> tuple[str, bool]:
        """(what from_pretrained reads, whether it is a local folder)."""
        folder = Path(self.model_id).expanduser()
        if folder.is_dir():
            return str(folder), True
        if _looks_like_path(self.model_id):
            raise LLMUnavailable(
                f"model folder {self.model_id} does not exist; set LLM_MODEL to a folder holding config.json, "
                "the weights and the tokenizer, or to a Hugging Face Hub id"
            )
        return self.model_id, False

    def _load(self) -> tuple[Any, Any, bool, str, str | None]:
        """(tokenizer, model, quantized, precision, notice)."""
        import torch

        source, is_folder = self._source()
        if self.zero_gpu:
            tokenizer, model = _load_pretrained(source, {"dtype": torch.bfloat16}, is_folder, self.revision)
            return tokenizer, _ready(model, self.device), False, "bf16 on ZeroGPU", None
        compute = _compute_dtype(self.device)
        try:
            kwargs = {"quantization_config": nf4_config(compute),
                      "device_map": "auto" if self.device.startswith("cuda") else self.device}
            tokenizer, model = _load_pretrained(source, kwargs, is_folder, self.revision)
        except (LLMUnavailable, RuntimeError) as error:  # float32 only where bitsandbytes cannot load
            why = _bitsandbytes_problem(error)
            if why is None:
                raise
            tokenizer, model = _load_pretrained(source, {"dtype": torch.float32}, is_folder, self.revision)
            notice = UNQUANTISED_NOTICE.format(reason=why, model=self.model_id, device=self.device.upper())
            return tokenizer, _ready(model, self.device), False, f"float32 on {self.device}", notice
        model.eval()
        precision = f"4-bit NF4 on {self.device} ({str(compute).removeprefix('torch.')} compute)"
        notice = None if self.device.startswith("cuda") else CPU_NOTICE.format(model=self.model_id)
        return tokenizer, model, True, precision, notice

    def encode(self, messages: list[dict[str, str]]) -> dict:
        return encode(self.tokenizer, self.model, messages)

    def _generation_kwargs(self, request: GenerationRequest) -> dict[str, Any]:
        pad_id = self.tokenizer.pad_token_id
        if pad_id is None:
            pad_id = self.tokenizer.eos_token_id
        kwargs: dict[str, Any] = {"max_new_tokens": request.max_new_tokens, "pad_token_id": pad_id}
        if request.temperature > 0:
            kwargs.update(do_sample=True, temperature=request.temperature)
        else:
            # Greedy; clear the model's own sampling defaults so they neither apply nor warn.
            kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        return kwargs

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        gen_kwargs = self._generation_kwargs(request)
        seed = request.seed if request.temperature > 0 else None
        with self._lock:
            yield from _generate_on_device(self.model_id, request.messages, gen_kwargs, seed)
