"""A small HPO release in the real files' formats, for the fetching tests: `hp.obo` (OBO 1.2, its header's
data-version, a few terms under the roots every release holds, an obsolete term, a Typedef),
`phenotype.hpoa` (its `#` header naming the release as HPO's does, the twelve columns) and
`genes_to_phenotype.txt` (the six columns). Two new diseases with facial findings, one Orphanet entry,
two genes (one row without a symbol, as the real file has). `damaged` spoils one file the ways a download
goes wrong."""

from __future__ import annotations

from pathlib import Path

from kg_dump.hpo_release import release_date

NEW_DISEASE, NEW_GENE = "OMIM:999001", "NEWG1"  # what the graph holds only when built from this release

TERMS = [  # id, name, parent (or None), extra tag lines
    ("HP:0000001", "All", None, []),
    ("HP:0000005", "Mode of inheritance", "HP:0000001", []),
    ("HP:0000006", "Autosomal dominant inheritance", "HP:0000005", []),
    ("HP:0000118", "Phenotypic abnormality", "HP:0000001", []),
    ("HP:0000152", "Abnormality of head or neck", "HP:0000118", []),
    ("HP:0000478", "Abnormality of the eye", "HP:0000118", []),
    ("HP:0000598", "Abnormality of the ear", "HP:0000118", []),
    ("HP:0000316", "Hypertelorism", "HP:0000478",
     ['def: "Interpupillary distance more than 2 SD above the mean." [PMID:19125427]',
      'synonym: "Wide-set eyes" EXACT layperson []']),
    ("HP:0000369", "Low-set ears", "HP:0000598", ['synonym: "Low set ears" EXACT layperson []']),
    ("HP:0001250", "Seizure", "HP:0000118", []),
]


def obo(date: str) -> str:
    stanzas = [f"format-version: 1.2\ndata-version: hp/releases/{date}\n"
               'subsetdef: hposlim_core "Core clinical terminology"\n'
               'synonymtypedef: layperson "layperson term"\ndefault-namespace: human_phenotype\nontology: hp\n'
               f'property_value: owl:versionInfo "{date}" xsd:string\n']
    for hpo_id, name, parent, extra in TERMS:
        lines = [f"id: {hpo_id}", f"name: {name}", *extra] + ([f"is_a: {parent}"] if parent else [])
        stanzas.append("[Term]\n" + "\n".join(lines) + "\n")
    stanzas.append("[Term]\nid: HP:0009999\nname: obsolete Retired term\nis_obsolete: true\n")
    stanzas.append("[Typedef]\nid: part_of\nname: part of\nxref: BFO:0000050\n")
    return "\n".join(stanzas)


def hpoa(date: str, annotation_version: str | None = None) -> str:
    """HPO's annotation file; its `#version` is the annotations' own date (a day after the ontology's
    in some releases), its `#hpo-version` the ontology release they were made against."""
    rows = [
        ("OMIM:999001", "Newly described syndrome", "", "HP:0000316", "PMID:40000001", "PCS", "", "3/4", "P"),
        ("OMIM:999001", "Newly described syndrome", "", "HP:0000369", "PMID:40000001", "PCS", "", "HP:0040281", "P"),
        ("OMIM:999001", "Newly described syndrome", "", "HP:0000006", "PMID:40000001", "PCS", "", "", "I"),
        ("OMIM:999002", "Seizure-only disorder", "", "HP:0001250", "OMIM:999002", "IEA", "", "", "P"),
        ("OMIM:999002", "Seizure-only disorder", "NOT", "HP:0000316", "OMIM:999002", "IEA", "", "", "P"),
        ("ORPHA:999003", "Wide-set eyes and low ears", "", "HP:0000316", "ORPHA:999003", "TAS", "", "HP:0040281",
         "P"),
    ]
    lines = ['#description: "HPO annotations for rare diseases [2: OMIM; 0: DECIPHER; 1 ORPHANET]"',
             f"#version: {annotation_version or date}",
             "#tracker: https://github.com/obophenotype/human-phenotype-ontology/issues",
             f"#hpo-version: http://purl.obolibrary.org/obo/hp/releases/{date}/hp.json",
             "database_id\tdisease_name\tqualifier\thpo_id\treference\tevidence\tonset\tfrequency\tsex\tmodifier"
             "\taspect\tbiocuration"]
    lines += ["\t".join([*row[:8], "", "", row[8], f"HPO:probinson[{date}]"]) for row in rows]
    return "\n".join(lines) + "\n"


GENES = """ncbi_gene_id\tgene_symbol\thpo_id\thpo_name\tfrequency\tdisease_id
99901\tNEWG1\tHP:0000316\tHypertelorism\t3/4\tOMIM:999001
99901\tNEWG1\tHP:0000369\tLow-set ears\t-\tOMIM:999001
99902\tSEIZ1\tHP:0001250\tSeizure\t-\tOMIM:999002
7467\t-\tHP:0001250\tSeizure\t-\tOMIM:999002
"""


def write_release(folder: Path, tag: str) -> dict[str, Path]:
    """The release `tag`'s three files in `folder`; returns file name -> path."""
    date = release_date(tag)
    folder.mkdir(parents=True, exist_ok=True)
    texts = {"hp.obo": obo(date), "phenotype.hpoa": hpoa(date, annotation_version=date[:-2] + "02"),
             "genes_to_phenotype.txt": GENES}
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
    return {name: folder / name for name in texts}


DAMAGES = {  # kind -> (the file it spoils, words the refusal says)
    "truncated annotations": ("phenotype.hpoa", "phenotype.hpoa is cut off"),
    "truncated ontology": ("hp.obo", "hp.obo lacks the terms"),
    "an HTML page": ("hp.obo", "hp.obo names no release"),
    "not UTF-8": ("genes_to_phenotype.txt", "genes_to_phenotype.txt is not UTF-8 text"),
    "a row cut short": ("genes_to_phenotype.txt", "genes_to_phenotype.txt: line 3 has 3 fields, not 6"),
    "another release's annotations": ("phenotype.hpoa", "phenotype.hpoa's header names no release"),
    "no gene symbols": ("genes_to_phenotype.txt", "names no gene"),
}


def damaged(path: Path, kind: str) -> None:
    """Spoil `path` (the file DAMAGES names for `kind`) in place."""
    text = path.read_bytes()
    if kind == "truncated annotations":
        path.write_bytes(text[: len(text) * 2 // 3])  # inside a row
    elif kind == "truncated ontology":
        path.write_bytes(text[: text.index(b"[Term]\nid: HP:0000118")])  # at a stanza's start: whole lines
    elif kind == "an HTML page":
        path.write_bytes(b"<!DOCTYPE html>\n<html><body>Rate limit exceeded</body></html>\n")
    elif kind == "not UTF-8":
        path.write_bytes(text.replace(b"Seizure", b"Seiz\xff\xfe", 1))
    elif kind == "a row cut short":
        lines = text.split(b"\n")
        lines[2] = b"\t".join(lines[2].split(b"\t")[:3])
        path.write_bytes(b"\n".join(lines))
    elif kind == "another release's annotations":
        path.write_text(hpoa("2025-01-16"))
    elif kind == "no gene symbols":
        lines = text.decode().splitlines()
        path.write_text("\n".join([lines[0]] + ["\t".join(x if i != 1 else "-" for i, x in enumerate(line.split("\t")))
                                                for line in lines[1:]]) + "\n")
    else:
        raise ValueError(kind)
