"""python -m bench gpu-smoke: the 4-bit path, a tiny random Llama quantised to NF4 through LocalGenerator.

    python -m bench gpu-smoke                  # tiny random model (nothing to download)
    python -m bench gpu-smoke --model DIR|ID   # any local folder or cached Hub id, e.g. the default
                                               # Qwen/Qwen2.5-7B-Instruct

Reports what it loaded (4-bit layers, GPU memory), the timings and four checks (quantised,
greedy and seeded sampling repeatable, stream equal to generate); exits 1 when a check fails.
On a machine without a CUDA device it runs nothing and exits 2 with "bench: gpu-smoke needs a
CUDA device ...". Needs `pip install bitsandbytes` on the GPU machine.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.results import variant_name
from fpkg.config import Settings
from fpkg.errors import BenchError
from llm.base import GenerationRequest

MESSAGES = [
    {"role": "system", "content": "Name the single most likely disease."},
    {"role": "user", "content": "A boy with a PTPN11 variant, hypertelorism and low-set ears."},
]
NO_CUDA = "gpu-smoke needs a CUDA device, and torch sees none (torch.cuda.is_available() is False)"


def _timed(fn):
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def run(model: str | Path, max_new_tokens: int = 32) -> dict[str, Any]:
    """Load `model` in 4 bit on CUDA, generate greedy, sampled and streamed; return checks and timings."""
    import torch

    from llm.local import LocalGenerator

    torch.cuda.reset_peak_memory_stats()
    settings = Settings(data_dir=Path("."), cache_dir=Path("."), llm_backend="local", llm_model=str(model))
    generator, load_s = _timed(lambda: LocalGenerator(settings, device="cuda"))
    greedy = GenerationRequest(MESSAGES, max_new_tokens=max_new_tokens)
    sampled = GenerationRequest(MESSAGES, temperature=0.8, seed=42, max_new_tokens=max_new_tokens)
    first, first_s = _timed(lambda: generator.generate(greedy))
    second, second_s = _timed(lambda: generator.generate(greedy))
    sample_a = generator.generate(sampled)
    sample_b = generator.generate(sampled)
    pieces, stream_s = _timed(lambda: list(generator.stream(greedy)))
    layers_4bit = sum(1 for m in generator.model.modules() if type(m).__name__ == "Linear4bit")
    n_tokens = len(generator.tokenizer(second, add_special_tokens=False)["input_ids"])
    return {
        "model": str(model),
        "device": torch.cuda.get_device_name(0),
        "quantized": generator.quantized,
        "linear4bit_layers": layers_4bit,
        "weights_dtype": str(next(generator.model.parameters()).dtype),
        "peak_gpu_mib": round(torch.cuda.max_memory_allocated() / 2**20, 1),
        "load_s": round(load_s, 3),
        "first_generate_s": round(first_s, 3),
        "generate_s": round(second_s, 3),
        "tokens_per_s": round(n_tokens / second_s, 1) if second_s > 0 else None,
        "stream_s": round(stream_s, 3),
        "greedy_repeatable": first == second,
        "seeded_sampling_repeatable": sample_a == sample_b,
        "stream_matches_generate": "".join(pieces) == second,
        "stream_pieces": len(pieces),
        "reply": second[:120],
    }


def problems(result: dict[str, Any]) -> list[str]:
    checks = {
        "no Linear4bit layers: the model was not quantised": result["linear4bit_layers"] > 0,
        "greedy generation differs between two runs": result["greedy_repeatable"],
        "seeded sampling differs between two runs": result["seeded_sampling_repeatable"],
        "joined stream differs from generate": result["stream_matches_generate"],
    }
    return [message for message, ok in checks.items() if not ok]


def smoke(model: str | None, max_new_tokens: int = 32) -> dict[str, Any]:
    """The whole check: `model`, else a tiny random Llama built for the run; the result with its
    `failed_checks` (empty when all pass). BenchError without a CUDA device."""
    import torch

    from llm.tiny import build_tiny_llama

    if not torch.cuda.is_available():
        raise BenchError(NO_CUDA)
    with tempfile.TemporaryDirectory() as tmp:
        build_s = None
        if not model:
            model, build_s = _timed(lambda: build_tiny_llama(Path(tmp) / "tiny-llama"))
            print(f"built tiny random Llama in {build_s:.2f} s", file=sys.stderr)
        result = run(model, max_new_tokens)  # an LLMError (no bitsandbytes, no model) says why
    result["tiny_model_build_s"] = round(build_s, 3) if build_s is not None else None
    result["failed_checks"] = problems(result)
    return result


def summary(result: dict[str, Any]) -> str:
    lines = [f"{key:28} {value!r}" for key, value in result.items() if key != "failed_checks"]
    lines += [f"FAILED: {message}" for message in result["failed_checks"]]
    lines.append("failed" if result["failed_checks"] else "ok")
    return "\n".join(lines)


def register(subparsers, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser("gpu-smoke", parents=[common], help="the 4-bit CUDA path on a tiny model",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", help="a model folder or Hub id (default: a tiny random Llama)")
    parser.add_argument("--max-new-tokens", type=int, default=32)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, context) -> tuple[str, dict[str, Any], str]:
    result = smoke(args.model, args.max_new_tokens)
    variant = variant_name(Path(args.model).name if args.model else "tiny-llama")
    return variant, result, summary(result)
