"""Which NER model to load: the one NER_MODEL names, else one trained here, else the published
weights, else none (the rules and the dictionary alone).

    NER_MODEL=<folder or Hub id>   that model (a Hub id at NER_MODEL_REVISION when set)
    NER_MODEL=rules                no model
    NER_MODEL unset                <FPKG_CACHE_DIR>/ner-model when `python -m ner train` wrote one
                                   there, else hfchloe/FP_NER (the paper's weights) through the Hub
                                   cache, so a Space or an image that preloaded it works offline
A model that cannot be loaded falls back to the rules with a notice (`ner.predict`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fpkg.config import Settings

PUBLISHED_MODEL = "hfchloe/FP_NER"
RULES_ONLY = frozenset({"rules", "none"})
TRAINED_FOLDER = "ner-model"


@dataclass(frozen=True)
class ModelChoice:
    model: str | None  # a folder or a Hub id; None: no model
    revision: str | None  # the Hub revision (branch, tag or commit) of a Hub id
    reason: str  # why this one, for the About tab and /healthz

    @property
    def on_hub(self) -> bool:
        """A Hub id (looked up in the Hub cache, and on the Hub when it can be reached)."""
        return self.model is not None and not looks_local(self.model)


def looks_local(name: str) -> bool:
    """A folder's name rather than a Hub id ("owner/model")."""
    return Path(name).expanduser().exists() or name.startswith((".", "/", "~")) or name.count("/") > 1


def trained_model_folder(cache_dir: Path) -> Path:
    """Where `python -m ner train` saves a model by default, and where the app looks for one."""
    return cache_dir / TRAINED_FOLDER


def choose_model(settings: Settings) -> ModelChoice:
    named = (settings.ner_model or "").strip()
    if named.lower() in RULES_ONLY:
        return ModelChoice(None, None, f"NER_MODEL={named}")
    if named:
        return ModelChoice(named, settings.ner_model_revision, "NER_MODEL")
    trained = trained_model_folder(settings.cache_dir)
    if (trained / "config.json").is_file():
        return ModelChoice(str(trained), None, "trained here (python -m ner train)")
    return ModelChoice(PUBLISHED_MODEL, settings.ner_model_revision, "the published weights")
