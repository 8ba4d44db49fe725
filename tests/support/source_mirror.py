"""A real local HTTP mirror of the sources' upstream files, for the fetching tests.

`serving(root)` runs Python's http.server on a folder laid out as FPKG_SOURCES_MIRROR expects
(`<root>/<host>/<path>` for each upstream URL). `mirror_files` fills it from the shared data folder:
FPKG's files, the HPO translations and the phenopacket-store zip are the upstream bytes, so their
real pins hold. MONDO's upstream files are not on this machine (the shared folder holds the tables
derived from them), so `write_mondo_upstream` writes files in the upstream layout, column for
column, from those tables: their sha256 differ from the pins, and the tests that fetch them pass
their own (`mondo_pins`).
"""

from __future__ import annotations

import csv
import http.server
import shutil
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from functools import partial
from pathlib import Path
from urllib.parse import unquote

from identity.mondo_upstream import UPSTREAM_FILES
from kg_dump.fetch import sha256_of
from kg_dump.sources import MONDO, SOURCES, Source


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@contextmanager
def serving(root: Path, handler: type[QuietHandler] = QuietHandler) -> Iterator[str]:
    """http://127.0.0.1:PORT serving `root`, for the block's duration (through `handler`, a QuietHandler)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(handler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def mirror_path(root: Path, url: str) -> Path:
    """Where the mirror keeps `url`: `<root>/<host>/<path>`, the path unquoted as http.server reads it."""
    return root / unquote(url.split("://", 1)[1])


def mirror_files(root: Path, source: Source, files: dict[str, Path]) -> None:
    """Copy each download of `source` from `files` (saved_as -> a local file) into the mirror."""
    for download in source.downloads:
        target = mirror_path(root, download.url)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(files[download.saved_as], target)


def shared_files(data_root: Path, key: str) -> dict[str, Path]:
    """The shared data folder's copy of each download of a source whose upstream bytes are here."""
    return {d.saved_as: data_root / key / d.saved_as for d in SOURCES[key].downloads}


def _rows(path: Path) -> list[list[str]]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))[1:]


def write_mondo_upstream(tables: Path, out: Path) -> dict[str, Path]:
    """MONDO's six upstream files as the repository lays them out (SSSOM with its `#` metadata, the
    rare-subset edges with their ids, the class report's IRIs and quoted labels, the pattern data's
    IRIs), made from the derived `tables`; returns saved_as -> file. Each holds one row more than its
    table would keep where the upstream file has rows the derivation leaves out."""
    written = {}
    for table, upstream in UPSTREAM_FILES.items():
        rows = _rows(tables / table)
        path = out / upstream
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(_upstream_text(table, rows))
        written[upstream] = path
    return written


def _upstream_text(table: str, rows: list[list[str]]) -> str:
    iri = "http://purl.obolibrary.org/obo/{}".format
    if table.startswith("exactmatch_"):
        lines = ["# curie_map:", "#   MONDO: http://purl.obolibrary.org/obo/MONDO_",
                 "# license: https://w3id.org/sssom/license/unspecified",
                 "subject_id\tsubject_label\tpredicate_id\tobject_id\tobject_label\tmapping_justification"]
        lines += [f"{m}\t{ml}\tskos:exactMatch\t{x}\t{xl}\tsemapv:ManualMappingCuration" for m, ml, x, xl in rows]
        lines.append(f"{rows[0][0]}\t{rows[0][1]}\tskos:closeMatch\tOMIM:999999\tnot exact\tsemapv:Lexical")
    elif table == "rare_subclass_edges.tsv":
        lines = ["id\tsubject\tpredicate\tobject\trelation\tknowledge_source"]
        lines += [f"urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, c + p)}\t{c}\tbiolink:subclass_of\t{p}\t"
                  "rdfs:subClassOf\tmondo-rare.json" for c, p in rows]
        lines.append(f"urn:uuid:{uuid.uuid4()}\t{rows[0][0]}\tbiolink:related_to\t{rows[0][1]}\tRO:0000000\tx.json")
    elif table == "labels.tsv":
        lines = ["?cls\t?cls_label\t?textdef_count\t?xref_count\t?named_superclass_count\t?anon_superclass_count"
                 "\t?named_equiv_count\t?anon_equiv_count"]
        lines += [f"<{iri(m.replace(':', '_'))}>\t\"{label}\"\t1\t3\t1\t0\t1\t1" for m, label in rows]
        lines.append('<http://purl.obolibrary.org/obo/HP_0000001>\t"All"\t0\t0\t0\t0\t0\t0')
    else:  # disease_series_by_gene.tsv
        lines = ["iri\tiri label\tdisease\tdisease label\tgene\tgene label"]
        lines += [f"{iri(m.replace(':', '_'))}\t{ml}\t{iri(s.replace(':', '_'))}\t{sl}\t"
                  f"http://identifiers.org/hgnc/{h.split(':')[1]}\t{g}" for m, ml, s, sl, h, g in rows]
    return "\n".join(lines) + "\n"


def mondo_pins(files: dict[str, Path]) -> dict[str, str]:
    """URL -> sha256 of the MONDO files made here (their upstream pins cannot hold)."""
    return {d.url: sha256_of(files[d.saved_as]) for d in SOURCES[MONDO].downloads}


def with_pins(pins: dict[str, str]) -> dict[str, Source]:
    """The sources, each download whose URL is in `pins` pinned to that sha256 instead."""
    return {key: replace(source, downloads=tuple(replace(d, sha256=pins.get(d.url, d.sha256))
                                                 for d in source.downloads))
            for key, source in SOURCES.items()}
