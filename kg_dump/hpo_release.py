"""Checking an HPO release's files before they are kept: the ontology parses and names the release, the
annotation files are whole tables of UTF-8 text with the columns the graph reads, and the annotation
file's header names the same release.

A release's sha256 cannot be known before it is published, so these checks stand in for a pin: a file
cut off inside a line, a page of HTML or a binary in its place, or another release's file is refused
with what was wrong. (A file cut exactly at a line's end has whole rows: the sha256 recorded at its first
fetch, in `source.json` and the build manifest, is what tells it apart afterwards.) How the lines are
read into the graph is `kg_dump/hpo_layer.py`'s and `kg_dump/hpo_profiles.py`'s.
"""

from __future__ import annotations

import re
from pathlib import Path

from fpkg.errors import DataFileError, HpoError
from kg_dump.hpo_layer import FACIAL_ROOTS, HPO_FILES, has_symbol, read_terms, release_of

ROOTS = ("HP:0000001", "HP:0000118", *FACIAL_ROOTS)  # All, Phenotypic abnormality, the facial roots
# the columns the graph reads (HPO's annotation format; the files hold a few more)
ANNOTATION_COLUMNS = ("database_id", "disease_name", "qualifier", "hpo_id", "reference", "frequency", "aspect")
GENE_COLUMNS = ("ncbi_gene_id", "gene_symbol", "hpo_id", "disease_id")
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def release_date(tag: str) -> str:
    """A release tag's date: "v2026-09-01" -> "2026-09-01"."""
    found = DATE.search(tag)
    if not found:
        raise ValueError(f"{tag!r} is not an HPO release tag (vYYYY-MM-DD)")
    return found.group()


def check_release(folder: Path, tag: str) -> None:
    """The three files of release `tag` in `folder`, each checked; DataFileError says what is wrong."""
    date = release_date(tag)
    _check_ontology(folder / HPO_FILES[0], date)
    header = _check_table(folder / HPO_FILES[1], ANNOTATION_COLUMNS)
    named = [line for line in header if line.startswith(("#version:", "#hpo-version:"))]
    if not any(date in line for line in named):
        raise DataFileError(f"{HPO_FILES[1]}'s header names no release {date} "
                            f"({'; '.join(named) or 'no #version line'}): another release's file")
    _check_table(folder / HPO_FILES[2], GENE_COLUMNS, named_genes=True)


def _check_ontology(path: Path, date: str) -> None:
    _check_text(path)
    version = release_of(path)
    if version == "unknown":
        raise DataFileError(f"{path.name} names no release (no data-version in its header): not HPO's ontology")
    if not version.endswith(date):
        raise DataFileError(f"{path.name} is release {version!r}, not {date}: another release's file")
    try:
        terms = read_terms(path)
    except HpoError as e:
        raise DataFileError(f"{path.name} does not parse: {e}") from None
    lacking = [root for root in ROOTS if not terms.get(root, {}).get("name")]
    if lacking:
        raise DataFileError(f"{path.name} lacks the terms {', '.join(lacking)} that every HPO release holds "
                            "(cut off, or not HPO)")


def _check_text(path: Path) -> None:
    """UTF-8 text ending with a line break (a file cut off inside a line does not)."""
    try:
        with open(path, encoding="utf-8") as f:
            for _ in f:
                pass
    except UnicodeDecodeError as e:
        raise DataFileError(f"{path.name} is not UTF-8 text (byte {e.start}): damaged, or not this file") from None
    with open(path, "rb") as f:
        if f.seek(0, 2) == 0:
            raise DataFileError(f"{path.name} is empty")
        f.seek(-1, 2)
        if f.read(1) != b"\n":
            raise DataFileError(f"{path.name} is cut off: its last line is not whole")


def _check_table(path: Path, columns: tuple[str, ...], named_genes: bool = False) -> list[str]:
    """A tab-separated table after its `#` header lines, every row as wide as its header; returns the
    header lines."""
    _check_text(path)
    header: list[str] = []
    rows = genes = 0
    with open(path, encoding="utf-8") as f:
        line = f.readline()
        while line.startswith("#"):
            header.append(line.strip())
            line = f.readline()
        names = line.rstrip("\n").split("\t")
        lacking = [column for column in columns if column not in names]
        if lacking:
            raise DataFileError(f"{path.name} has no column {', '.join(lacking)} (its header: {line.strip()[:120]!r})")
        symbol = names.index("gene_symbol") if named_genes else -1
        for number, line in enumerate(f, start=len(header) + 2):
            fields = line.rstrip("\n").split("\t")
            if len(fields) != len(names):
                raise DataFileError(f"{path.name}: line {number} has {len(fields)} fields, not {len(names)}")
            rows += 1
            genes += named_genes and has_symbol(fields[symbol])
    if not rows:
        raise DataFileError(f"{path.name} holds no row")
    if named_genes and not genes:
        raise DataFileError(f"{path.name} names no gene (every gene_symbol is empty or '-')")
    return header
