"""``python -m hf_card push --model DIR --repo ID [--private] [--dry-run]``.

One subcommand per thing packaged for the Hub; errors are printed as messages.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fpkg.cli import reports_errors


@reports_errors()
def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    return args.run(args)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m hf_card", description="Package models for the Hub.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("push", help="upload a trained NER model folder with its model card")
    p.add_argument("--model", type=Path, required=True, help="folder written by `python -m ner train`")
    p.add_argument("--repo", required=True, help="Hub repo id, e.g. my-org/fpkg-ner")
    p.add_argument("--private", action="store_true", help="create the repo as private")
    p.add_argument("--license", default="apache-2.0", help="licence id for the card (default: apache-2.0)")
    p.add_argument("--dry-run", action="store_true", help="print the files and the card; no network")
    p.set_defaults(run=_push)
    from hf_card.space_cli import add_space_parser

    add_space_parser(sub)
    return parser


def _push(args) -> int:
    from hf_card.push import plan_push, push

    plan = plan_push(args.model, args.repo, private=args.private, license=args.license)
    if args.dry_run:
        visibility = "private" if plan.private else "public"
        print(f"would create {visibility} model repo {plan.repo_id} and upload {len(plan.files)} files:")
        for name, size in plan.files:
            print(f"  {name:<28} {size:>12,d} bytes")
        print("\n--- README.md ---")
        print(plan.card)
        return 0
    url = push(args.model, plan)
    print(f"uploaded {len(plan.files)} files to https://huggingface.co/{plan.repo_id} ({url})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
