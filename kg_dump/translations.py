"""The HPO's translations (the HPO Internationalization Effort, `hpo-translations/`): each term's label in
French, Spanish, Portuguese, German, Italian, Japanese and Chinese, and the French synonyms.

Babelon TSV files, read by their header (the files do not share one column order): labels
(`rdfs:label`) that are OFFICIAL or CANDIDATE (German and Italian are mostly candidates); rows that are not
translated (`NA`) are skipped. Kept in the cache under the files' sizes and times: reading them all takes
about a second.
"""

from __future__ import annotations

import csv
import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from fpkg.names import fold_name
from fpkg.pickles import read_pickle, write_pickle

LANGUAGES = {"fr": "French", "es": "Spanish", "pt": "Portuguese", "de": "German", "it": "Italian",
             "ja": "Japanese", "zh": "Chinese"}
CJK = ("ja", "zh")  # written without spaces between words
KEPT_STATUSES = {"OFFICIAL", "CANDIDATE"}
_LETTERS = re.compile(r"[^\W\d_]+|\d+")
FORMAT = 3  # of the cached pickle


@dataclass
class Translations:
    """language -> (HP id, label) pairs, labels then synonyms; empty when the folder holds no files."""

    labels: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    official: dict[str, int] = field(default_factory=dict)  # language -> how many of its labels are official
    key: str = ""  # the files' fingerprint: what is made from them is kept under it

    def __bool__(self) -> bool:
        return any(self.labels.values())

    def languages(self) -> list[str]:
        return [code for code in LANGUAGES if self.labels.get(code)]


def load_translations(folder: Path | None, cache_dir: Path | None = None) -> Translations:
    """The translations in `folder` (None or a folder without them: none)."""
    files = sorted(folder.glob("hp-*.tsv")) if folder and folder.is_dir() else []
    if not files:
        return Translations()
    stamp = ";".join(f"{f.name}:{f.stat().st_size}:{int(f.stat().st_mtime)}" for f in files)
    key = hashlib.sha256(f"{FORMAT}|{folder}|{stamp}".encode()).hexdigest()[:16]
    path = cache_dir / "hpo" / f"translations-{key}.pickle" if cache_dir else None
    found = read_pickle(path) if path else None
    if not isinstance(found, Translations):
        found = _read(files)
        found.key = key
        if path:
            write_pickle(path, found)
    return found


def _read(files: list[Path]) -> Translations:
    found = Translations()
    for path in files:
        language = path.name.split(".")[0].removeprefix("hp-")
        if language not in LANGUAGES:
            continue
        pairs = found.labels.setdefault(language, [])
        with open(path, encoding="utf-8", newline="") as f:
            rows = csv.DictReader(f, delimiter="\t")
            for row in rows:
                hp_id, value = (row.get("subject_id") or "").strip(), (row.get("translation_value") or "").strip()
                if not hp_id.startswith("HP:") or not value or value == "NA":
                    continue
                status = row.get("translation_status") or row.get("Status") or ""
                predicate = row.get("predicate_id", "rdfs:label")  # the synonyms file has none: all synonyms
                if "predicate_id" not in row and len(_LETTERS.findall(value)) < 2:
                    continue  # a one-word synonym is too often the general word ("Sténose" for Ureteral stenosis)
                if predicate == "rdfs:label" and status in KEPT_STATUSES:
                    pairs.append((hp_id, value))
                    found.official[language] = found.official.get(language, 0) + (status == "OFFICIAL")
    return found


def strip_accents(text: str) -> str:
    text = text.replace("œ", "oe").replace("Œ", "Oe").replace("æ", "ae").replace("ß", "ss")
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def word_key(word: str) -> str:
    """A word folded for matching: accents and case away, a final plural s or x dropped."""
    folded = fold_name(strip_accents(word))
    return folded[:-1] if len(folded) > 3 and folded[-1] in "sx" else folded


def cjk_key(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip().lower()


def label_key(text: str, language: str) -> str:
    """A label's key in its language: its folded words, or for Chinese and Japanese the text itself."""
    return cjk_key(text) if language in CJK else " ".join(word_key(w) for w in _LETTERS.findall(text))
