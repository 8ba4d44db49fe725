"""``python -m hf_card space --sdk docker|gradio [--zero-gpu] [--storage small|medium|large] [--out README.md]``.

Prints (or writes) the Space README for the chosen SDK and checks that the files its front
matter names exist. `add_space_parser` registers the subcommand on hf_card's own parser; this
module also runs on its own (``python -m hf_card.space_cli``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fpkg.errors import CardError
from hf_card.space_card import SDKS, STORAGE_TIERS, check_files, space_card

REPO_ROOT = Path(__file__).resolve().parents[1]


def add_space_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("space", help="write the Space README (front matter for a Docker or Gradio-SDK Space)")
    p.add_argument("--sdk", choices=SDKS, default="docker", help="the Space SDK (default: docker)")
    p.add_argument("--zero-gpu", action="store_true", help="suggest ZeroGPU hardware (Gradio SDK only)")
    p.add_argument("--storage", choices=STORAGE_TIERS, default=None,
                   help="suggest persistent storage (the app then keeps its cache under /data)")
    p.add_argument("--out", type=Path, default=None, help="write the README here instead of printing it")
    p.set_defaults(run=run_space)
    return p


def run_space(args: argparse.Namespace) -> int:
    if args.zero_gpu and args.sdk != "gradio":
        raise CardError("ZeroGPU is only available to Gradio-SDK Spaces; use --sdk gradio")
    card = space_card(args.sdk, zero_gpu=args.zero_gpu, storage=args.storage)
    check_files(card, REPO_ROOT)
    text = str(card)
    if args.out is None:
        print(text)
    else:
        args.out.write_text(text, encoding="utf-8")
        print(f"wrote {args.out} ({args.sdk} Space)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hf_card.space_cli")
    add_space_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["space", *(argv if argv is not None else sys.argv[1:])])
    try:
        return args.run(args)
    except CardError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
