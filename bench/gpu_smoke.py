"""GPU smoke test of the 4-bit path: a tiny random Llama quantised to NF4 through LocalGenerator.

    python -m bench.gpu_smoke                  # tiny random model (nothing to download)
    python -m bench.gpu_smoke --model DIR|ID   # any local folder or cached Hub id, e.g. the default
                                               # Qwen/Qwen2.5-7B-Instruct

Prints what it loaded (4-bit layers, GPU memory) and the timings; exits 0 with "skipped: no CUDA" on a
machine without a CUDA device, 1 if a check fails. Needs `pip install bitsandbytes` on the GPU machine.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository root importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fpkg.config import Settings  # noqa: E402
from llm.base import GenerationRequest, LLMError  # noqa: E402
from llm.local import LocalGenerator  # noqa: E402
from llm.tiny import build_tiny_llama  # noqa: E402

MESSAGES = [
    {"role": "system", "content": "Name the single most likely disease."},
    {"role": "user", "content": "A boy with a PTPN11 variant, hypertelorism and low-set ears."},
]


def _timed(fn):
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def run(model: str | Path, max_new_tokens: int = 32) -> dict:
    """Load `model` in 4 bit on CUDA, generate greedy, sampled and streamed; return checks and timings."""
    import torch

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


def problems(result: dict) -> list[str]:
    checks = {
        "no Linear4bit layers: the model was not quantised": result["linear4bit_layers"] > 0,
        "greedy generation differs between two runs": result["greedy_repeatable"],
        "seeded sampling differs between two runs": result["seeded_sampling_repeatable"],
        "joined stream differs from generate": result["stream_matches_generate"],
    }
    return [message for message, ok in checks.items() if not ok]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="a model folder or Hub id (default: a tiny random Llama)")
    parser.add_argument("--max-new-tokens", type=int, default=32)
    args = parser.parse_args(argv)

    import torch

    if not torch.cuda.is_available():
        print("skipped: no CUDA")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        if args.model:
            model = args.model
        else:
            model, build_s = _timed(lambda: build_tiny_llama(Path(tmp) / "tiny-llama"))
            print(f"built tiny random Llama in {build_s:.2f} s")
        try:
            result = run(model, args.max_new_tokens)
        except LLMError as e:
            print(f"failed: {e}", file=sys.stderr)
            return 1
    for key, value in result.items():
        print(f"{key:28} {value!r}")
    failed = problems(result)
    for message in failed:
        print(f"FAILED: {message}", file=sys.stderr)
    print("ok" if not failed else "failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
