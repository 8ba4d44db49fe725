"""FastHPOCR (PyPI `fasthpocr`, Groza et al.), a published HPO concept recogniser, run on the reading set beside the
project's reader (`bench reading --compare-fasthpocr`).

Its index of the HPO release in use is built once into the cache folder (`<cache>/fasthpocr/<release>/`): the
build serialises its token clusters in quadratic time, more than ten minutes on two cores, so it is never built in
a test. FastHPOCR reads concepts only (no negation, no family history, no genes): each annotation counts as a
present finding, as a user of it would take it.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from types import SimpleNamespace

from ner.context import PRESENT

INDEX_FILE = "hp.index"  # what FastHPOCR's IndexHPO writes (FastHPOCR.util.CRConstants.HP_INDEX_FILE)
_HPO_ID = re.compile(r"HP[:_]\d{7}")


def index_folder(cache_dir: Path, release: str) -> Path:
    return cache_dir / "fasthpocr" / re.sub(r"[^\w.-]+", "_", release or "unknown")


def annotator(hp_obo: Path, folder: Path):
    """FastHPOCR's annotator over `hp_obo`, its index built into `folder` when not there yet."""
    from FastHPOCR.HPOAnnotator import HPOAnnotator
    from FastHPOCR.IndexHPO import IndexHPO

    if not (folder / INDEX_FILE).is_file():
        folder.mkdir(parents=True, exist_ok=True)
        print(f"building FastHPOCR's index of {hp_obo} into {folder} (once; over ten minutes on two cores)",
              file=sys.stderr)
        IndexHPO(str(hp_obo), str(folder), indexConfig={"allow3LetterAcronyms": True}).index()
    return HPOAnnotator(str(folder / INDEX_FILE))


def read(annotate, text: str) -> SimpleNamespace:
    """A reading as bench/reading.py scores one: each concept FastHPOCR found, as present; no gene."""
    ids = {m.group().replace("_", ":") for a in annotate(text) if (m := _HPO_ID.search(a.getHPOUri()))}
    return SimpleNamespace(findings=[SimpleNamespace(hpo_id=hpo_id, polarity=PRESENT) for hpo_id in sorted(ids)],
                           gene=None)
