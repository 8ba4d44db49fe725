"""MONDO's identity tables derived from the repository's own files, as a first start fetches them.

`identity.mondo` reads six small tables (`TABLES`); each is a few columns of one upstream file of
monarch-initiative/mondo, rows kept in the file's order and never edited: the exact-match SSSOM
mappings (OMIM, Orphanet, OMIM phenotypic series), the rare-disease subclass edges, the release's
class report (labels) and the disease-series-by-gene pattern data. Pure data: no network here
(`kg_dump.sources` fetches and checks the files).
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterator
from pathlib import Path

from fpkg.errors import DataFileError
from identity.mondo import TABLES

OBO = "http://purl.obolibrary.org/obo/"
HGNC_IRI = "http://identifiers.org/hgnc/"
SSSOM = ("mondo_id", "mondo_label", "xref_id", "xref_label")

# table -> the upstream file (path in the repository) it is derived from
UPSTREAM_FILES = {
    "exactmatch_omim.tsv": "src/ontology/mappings/mondo_exactmatch_omim.sssom.tsv",
    "exactmatch_orphanet.tsv": "src/ontology/mappings/mondo_exactmatch_orphanet.sssom.tsv",
    "exactmatch_omimps.tsv": "src/ontology/mappings/mondo_exactmatch_omimps.sssom.tsv",
    "rare_subclass_edges.tsv": "subsets/mondo-rare_edges.tsv",
    "labels.tsv": "reports/release/class-stats.tsv",
    "disease_series_by_gene.tsv": "src/patterns/data/ld-mondo/ld-mondo-disease_series_by_gene.tsv",
}
assert set(UPSTREAM_FILES) == set(TABLES)


def derive_tables(upstream: Path, out: Path) -> dict[str, int]:
    """Write the six tables into `out` from the upstream files laid out under `upstream` as in the
    repository; returns the rows written per table. A file without the columns expected raises."""
    out.mkdir(parents=True, exist_ok=True)
    written = {}
    for table, source in UPSTREAM_FILES.items():
        header, columns, row_of = DERIVATIONS[table]
        with open(out / table, "w", encoding="utf-8", newline="") as f:
            f.write("\t".join(header) + "\n")
            written[table] = 0
            for values in _columns(upstream / source, columns):
                row = row_of(*values)
                if row:
                    f.write("\t".join(row) + "\n")
                    written[table] += 1
    return written


def _columns(path: Path, columns: tuple[str, ...]) -> Iterator[list[str]]:
    """The named columns of each row of a TSV file (a column missing from a row reads as ""),
    skipping SSSOM's `#` metadata block. No quoting: class-stats writes its labels in SPARQL's double
    quotes, which belong to the text, not to the TSV."""
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.reader((line for line in f if not line.startswith("#")), delimiter="\t",
                            quoting=csv.QUOTE_NONE)
        header = next(reader, [])
        missing = [c for c in columns if c not in header and c not in OPTIONAL]
        if missing:
            raise DataFileError(f"{path} has no column {', '.join(missing)}: not the MONDO file expected")
        at = [header.index(c) if c in header else None for c in columns]
        for values in reader:
            if values:
                yield [values[i] if i is not None and i < len(values) else "" for i in at]


OPTIONAL = {"object_label"}  # older SSSOM files of the phenotypic series carry no object labels


def _exact_match(subject: str, label: str, predicate: str, xref: str, xref_label: str):
    return (subject, label, xref, xref_label) if predicate == "skos:exactMatch" else None


def _rare_edge(child: str, predicate: str, parent: str):
    return (child, parent) if predicate == "biolink:subclass_of" else None


def _label(iri: str, label: str):
    curie = _curie(iri.strip("<>"))
    return (curie, _literal(label)) if curie.startswith("MONDO:") else None


def _series_member(member: str, label: str, series: str, series_label: str, gene: str, symbol: str):
    return _curie(member), label, _curie(series), series_label, _curie(gene), symbol


SSSOM_COLUMNS = ("subject_id", "subject_label", "predicate_id", "object_id", "object_label")
# table -> (its header, the upstream columns read, the row they give: None leaves the row out)
DERIVATIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...], Callable]] = {
    "exactmatch_omim.tsv": (SSSOM, SSSOM_COLUMNS, _exact_match),
    "exactmatch_orphanet.tsv": (SSSOM, SSSOM_COLUMNS, _exact_match),
    "exactmatch_omimps.tsv": (SSSOM, SSSOM_COLUMNS, _exact_match),
    "rare_subclass_edges.tsv": (("child", "parent"), ("subject", "predicate", "object"), _rare_edge),
    "labels.tsv": (("mondo_id", "label"), ("?cls", "?cls_label"), _label),
    "disease_series_by_gene.tsv": (("mondo_id", "mondo_label", "series_id", "series_label", "hgnc_id",
                                    "gene_symbol"),
                                   ("iri", "iri label", "disease", "disease label", "gene", "gene label"),
                                   _series_member),
}


def _curie(iri: str) -> str:
    """http://purl.obolibrary.org/obo/MONDO_0008861 -> MONDO:0008861; an HGNC IRI -> HGNC:n."""
    if iri.startswith(OBO):
        prefix, _, local = iri[len(OBO):].partition("_")
        return f"{prefix}:{local}"
    if iri.startswith(HGNC_IRI):
        return "HGNC:" + iri[len(HGNC_IRI):]
    return iri


def _literal(value: str) -> str:
    """A SPARQL result literal ("text", "text"@en, "text"^^<type>) as its text."""
    if value.startswith('"'):
        end = value.rfind('"')
        if end > 0:
            return value[1:end].replace('\\"', '"').replace("\\\\", "\\")
    return value
