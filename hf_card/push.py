"""Uploading a model folder to the Hugging Face Hub (or showing what would be uploaded)."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import Path

from fpkg.errors import CardError, UploadError
from hf_card.model_card import build_model_card

# Never uploaded: hidden files, caches, training checkpoints and optimiser state.
IGNORE_PATTERNS = [".*", "*/.*", "__pycache__/*", "checkpoint-*/*", "*.pt", "*.ckpt", "optimizer*", "*.tmp"]
REQUIRED = ("config.json", "model.safetensors", "tokenizer.json")


@dataclass(frozen=True)
class PushPlan:
    repo_id: str
    private: bool
    files: list[tuple[str, int]]  # (relative path, size in bytes), README.md included
    card: str


def plan_push(model_dir: Path, repo_id: str, private: bool = False, license: str = "apache-2.0") -> PushPlan:
    """Check the folder, render the card and list the files; no network."""
    model_dir = Path(model_dir)
    if not model_dir.is_dir():
        raise CardError(f"model folder {model_dir} not found")
    missing = [name for name in REQUIRED if not (model_dir / name).is_file()]
    if missing:
        raise CardError(f"{model_dir} lacks {', '.join(missing)}: is it a model saved by `python -m ner train`?")
    if repo_id.count("/") != 1 or not all(repo_id.split("/")):
        raise CardError(f"repo id {repo_id!r} should look like 'user-or-org/model-name'")
    card = build_model_card(model_dir, repo_id, license)
    files = [(p.relative_to(model_dir).as_posix(), p.stat().st_size)
             for p in sorted(model_dir.rglob("*")) if p.is_file()]
    files = [(name, size) for name, size in files if not _ignored(name) and name != "README.md"]
    files.append(("README.md", len(str(card).encode("utf-8"))))
    return PushPlan(repo_id, private, files, str(card))


def push(model_dir: Path, plan: PushPlan, token: str | None = None) -> str:
    """Write README.md, create the repo if needed and upload the folder; returns the commit URL."""
    from huggingface_hub import HfApi

    (Path(model_dir) / "README.md").write_text(plan.card, encoding="utf-8")
    api = HfApi(token=token)
    try:
        api.create_repo(plan.repo_id, repo_type="model", private=plan.private, exist_ok=True)
        commit = api.upload_folder(
            folder_path=str(model_dir), repo_id=plan.repo_id, repo_type="model",
            commit_message="Upload FPKG NER model", ignore_patterns=IGNORE_PATTERNS,
        )
    except OSError as e:  # huggingface_hub's HTTP errors derive from OSError
        raise UploadError(f"the upload failed: {e}") from e
    return str(getattr(commit, "commit_url", commit))


def _ignored(name: str) -> bool:
    return any(fnmatch.fnmatch(name, pattern) for pattern in IGNORE_PATTERNS)
