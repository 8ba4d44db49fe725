"""The Neo4j dump reader: the real FPKG dump, damaged dumps, and the value codecs one by one."""

from __future__ import annotations

import io
import os
import struct
import subprocess
import sys
import tarfile
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zstandard

from fpkg.errors import CorruptStoreError, DumpError
from graphstore.graph import Graph
from kg_dump import neo4j_values as nv
from kg_dump.dump_reader import DumpStats, read_dump, read_dump_with_stats
from kg_dump.neo4j_records import DynamicStore, node_label_ids
from tests.support.paths import REPO_ROOT

REPO_ROOT = REPO_ROOT
MASK64 = (1 << 64) - 1

LABEL_COUNTS = {"FacePhenotype": 2623, "Variation": 1242, "Sample": 1147, "Article": 509,
                "Genotype": 397, "Disease": 225}
TYPE_COUNTS = {"Affect": 4296, "Cause": 748, "From": 1147, "Exhibit": 2598, "Have": 1242,
               "with_FP": 8012, "with_Var": 1239}
PATTERN_COUNTS = {
    ("FacePhenotype", "with_FP", "Sample"): 8012, ("Genotype", "Affect", "FacePhenotype"): 4296,
    ("Disease", "Exhibit", "FacePhenotype"): 2598, ("Variation", "Have", "Genotype"): 1242,
    ("Sample", "with_Var", "Variation"): 1239, ("Sample", "From", "Article"): 1147,
    ("Variation", "Cause", "Disease"): 748,
}
# Upstream damage: these `evidence` texts hold U+FFFD in the stored bytes themselves (EF BF BD).
REPLACEMENT_CHAR_VALUES = {("Affect", rel_id, "evidence")
                           for rel_id in (14745, 14746, 14747, 14748, 14749, 15730, 16184, 16185)}


@pytest.fixture(scope="module")
def dump_path() -> Path:
    path = Path(os.environ.get("FPKG_DATA_DIR", "/work/shared/data/fpkg")) / "FPKG.dump"
    if not path.is_file():
        pytest.skip(f"the FPKG dump is not at {path} (set FPKG_DATA_DIR)")
    return path


@pytest.fixture(scope="module")
def decoded(dump_path: Path) -> tuple[Graph, DumpStats]:
    return read_dump_with_stats(dump_path)


@pytest.fixture(scope="module")
def graph(decoded: tuple[Graph, DumpStats]) -> Graph:
    return decoded[0]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


# --- the real dump ------------------------------------------------------------------------

def test_counts_match_the_paper(graph: Graph, decoded: tuple[Graph, DumpStats]) -> None:
    assert len(graph.nodes) == 6143
    assert len(graph.relationships) == 19282
    assert decoded[1].store_format == "record-aligned"


def test_label_type_and_pattern_counts(graph: Graph) -> None:
    assert dict(graph.label_counts()) == LABEL_COUNTS
    assert all(len(node.labels) == 1 for node in graph.nodes)
    assert dict(graph.type_counts()) == TYPE_COUNTS
    assert dict(graph.pattern_counts()) == PATTERN_COUNTS


def test_ids_are_unique_and_relationships_connect_nodes(graph: Graph) -> None:
    node_ids = [node.id for node in graph.nodes]
    assert len(set(node_ids)) == len(node_ids)
    assert len({rel.id for rel in graph.relationships}) == len(graph.relationships)
    known = set(node_ids)
    assert all(rel.start in known and rel.end in known for rel in graph.relationships)


def test_property_storage_types(decoded: tuple[Graph, DumpStats]) -> None:
    # The dump only uses inline strings, dynamic strings and inline longs; no arrays at all.
    assert dict(decoded[1].property_types) == {"short_string": 23999, "string": 6397, "long": 12292}


def test_names_of_diseases_phenotypes_and_genes(graph: Graph) -> None:
    by_label: dict[str, list] = {}
    for node in graph.nodes:
        by_label.setdefault(node.labels[0], []).append(node)
    assert all(node.properties.get("dname") for node in by_label["Disease"])
    # One FacePhenotype is an empty, unconnected stub: {"pid": ""}.
    unnamed = [node for node in by_label["FacePhenotype"] if not node.properties.get("phenotypeName")]
    assert [(node.id, node.properties) for node in unnamed] == [(3295, {"pid": ""})]
    assert not any(3295 in (rel.start, rel.end) for rel in graph.relationships)
    # Every Genotype has the key; the 79 chromosome-level entries (no geneId) hold "".
    genotypes = by_label["Genotype"]
    assert all("geneName" in node.properties for node in genotypes)
    empty = {node.id for node in genotypes if node.properties["geneName"] == ""}
    assert len(empty) == 79
    assert empty == {node.id for node in genotypes if "geneId" not in node.properties}


def test_decoded_strings_are_clean(graph: Graph) -> None:
    with_replacement_char = set()
    for entity, kind in [(n, n.labels[0]) for n in graph.nodes] + [(r, r.type) for r in graph.relationships]:
        for key, value in entity.properties.items():
            for text in _strings(value):
                assert not any(unicodedata.category(ch) == "Cc" for ch in text), (entity.id, key, text)
                if "\ufffd" in text:
                    with_replacement_char.add((kind, entity.id, key))
    assert with_replacement_char == REPLACEMENT_CHAR_VALUES


def test_known_values(graph: Graph) -> None:
    assert graph.nodes[0].properties == {
        "fullName": "STIL centriolar assembly protein", "exonCount": 23, "geneId": 6491,
        "geneName": "STIL", "chromosomalLoci": "1p33", "gid": 1, "chromosomesName": "Chromosome 1"}
    sample = next(node for node in graph.nodes if node.labels == ["Sample"])
    assert "`sample number`" in sample.properties  # the key's backticks are part of its name
    used_keys = {key for e in graph.nodes + graph.relationships for key in e.properties}
    assert "synonyms" in used_keys and "gname" not in used_keys


def test_upstream_example_query(graph: Graph) -> None:
    # MATCH (d:Disease)-[:Exhibit]->(fp:FacePhenotype {phenotypeName: "Cleft palate"}) RETURN d, fp
    by_id = {node.id: node for node in graph.nodes}
    cleft = {node.id for node in graph.nodes
             if node.labels == ["FacePhenotype"] and node.properties.get("phenotypeName") == "Cleft palate"}
    rows = [(by_id[rel.start], by_id[rel.end]) for rel in graph.relationships
            if rel.type == "Exhibit" and rel.end in cleft and by_id[rel.start].labels == ["Disease"]]
    assert len(rows) == 12
    assert any(d.properties["dname"].startswith("Treacher Collins syndrome 1") for d, _ in rows)


# --- damaged dumps ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def store_files(dump_path: Path) -> dict[str, bytes]:
    """The top-level files of the real store, for repacking into altered dumps."""
    inner = zstandard.ZstdDecompressor().decompressobj().decompress(dump_path.read_bytes()[4:])
    files = {}
    with tarfile.open(fileobj=io.BytesIO(inner[24:])) as archive:
        for member in archive.getmembers():
            name = member.name.removeprefix("./")
            if member.isfile() and "/" not in name and name.startswith("neostore"):
                files[name] = archive.extractfile(member).read()
    return files


def _pack_dump(path: Path, files: dict[str, bytes], file_count: int | None = None) -> Path:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(f"./{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    count = len(files) if file_count is None else file_count
    header = struct.pack(">4sIqq", b"zstd", 1, count, sum(len(d) for d in files.values()))
    path.write_bytes(b"DZV1" + zstandard.ZstdCompressor().compress(header + buffer.getvalue()))
    return path


def test_repacked_store_reads_the_same(tmp_path: Path, store_files: dict[str, bytes]) -> None:
    graph = read_dump(_pack_dump(tmp_path / "copy.dump", store_files))
    assert (len(graph.nodes), len(graph.relationships)) == (6143, 19282)


@pytest.mark.parametrize("engine, fmt", [(b"record", b"standard"), (b"record", b"high_limit"),
                                         (b"block", b"block")])
def test_other_store_formats_are_refused(tmp_path: Path, store_files: dict[str, bytes],
                                         engine: bytes, fmt: bytes) -> None:
    neostore = store_files["neostore"].replace(
        b"\x06record\x01\x07aligned", bytes([len(engine)]) + engine + b"\x01" + bytes([len(fmt)]) + fmt)
    dump = _pack_dump(tmp_path / "other.dump", {**store_files, "neostore": neostore})
    with pytest.raises(DumpError, match=f"unsupported store format {engine.decode()}-{fmt.decode()}"):
        read_dump(dump)


def test_metadata_without_a_format_is_refused(tmp_path: Path, store_files: dict[str, bytes]) -> None:
    dump = _pack_dump(tmp_path / "nometa.dump", {**store_files, "neostore": bytes(8192)})
    with pytest.raises(DumpError, match="cannot find the store format"):
        read_dump(dump)


def test_missing_store_file(tmp_path: Path, store_files: dict[str, bytes]) -> None:
    files = {k: v for k, v in store_files.items() if k != "neostore.propertystore.db.strings"}
    with pytest.raises(DumpError, match="missing.*neostore.propertystore.db.strings"):
        read_dump(_pack_dump(tmp_path / "missing.dump", files))


def test_header_disagreeing_with_the_archive(tmp_path: Path, store_files: dict[str, bytes]) -> None:
    with pytest.raises(DumpError, match="header announces"):
        read_dump(_pack_dump(tmp_path / "count.dump", store_files, file_count=len(store_files) + 1))


def test_corrupt_property_store(tmp_path: Path, store_files: dict[str, bytes]) -> None:
    files = {**store_files, "neostore.propertystore.db": bytes(len(store_files["neostore.propertystore.db"]))}
    with pytest.raises(DumpError, match="corrupt store: property record .* not in use"):
        read_dump(_pack_dump(tmp_path / "props.dump", files))


def test_wrong_magic(tmp_path: Path, dump_path: Path) -> None:
    path = tmp_path / "magic.dump"
    path.write_bytes(b"DZV2" + dump_path.read_bytes()[4:])
    with pytest.raises(DumpError, match="not a Neo4j dump"):
        read_dump(path)


def test_truncated_dump(tmp_path: Path, dump_path: Path) -> None:
    data = dump_path.read_bytes()
    path = tmp_path / "half.dump"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(DumpError, match="truncated"):
        read_dump(path)


@pytest.mark.parametrize("payload", [b"not zstd at all" * 100, b""])
def test_garbage_or_empty_payload(tmp_path: Path, payload: bytes) -> None:
    path = tmp_path / "garbage.dump"
    path.write_bytes(b"DZV1" + payload)
    with pytest.raises(DumpError):
        read_dump(path)


def test_missing_dump_file(tmp_path: Path) -> None:
    with pytest.raises(DumpError, match="cannot read the dump"):
        read_dump(tmp_path / "absent.dump")


# --- command line -------------------------------------------------------------------------

def _run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kg_dump", *args], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=120)


def test_cli_export(tmp_path: Path, dump_path: Path) -> None:
    result = _run_cli("export", "--dump", str(dump_path), "--out", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    assert "nodes: 6143  relationships: 19282" in result.stdout
    assert "(Disease)-[:Exhibit]->(FacePhenotype)" in result.stdout
    for name, lines in [("nodes.jsonl", 6143), ("relationships.jsonl", 19282)]:
        with open(tmp_path / "out" / name, encoding="utf-8") as f:
            assert sum(1 for _ in f) == lines
    assert Graph.read_jsonl(tmp_path / "out").type_counts() == TYPE_COUNTS


def test_cli_reports_a_bad_dump_without_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.dump"
    bad.write_bytes(b"XXXX")
    result = _run_cli("export", "--dump", str(bad), "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and "Traceback" not in result.stderr
    assert not (tmp_path / "out").exists()


# --- value codecs on synthetic blocks (encodings the real dump does not use too) --------

def _to_blocks(bits: int, bit_count: int) -> list[int]:
    return [(bits >> (64 * i)) & MASK64 for i in range((bit_count - 1) // 64 + 1)]


def _short_string(encoding: int, step: int, codes: list[int]) -> list[int]:
    bits = 7 | (nv.SHORT_STRING << 24) | (encoding << 28) | (len(codes) << 33)
    for i, code in enumerate(codes):
        bits |= code << (39 + i * step)
    return _to_blocks(bits, 39 + step * len(codes))


# Code points written out by hand from the tables in Neo4j's LongerShortString javadoc.
@pytest.mark.parametrize("encoding, step, codes, text", [
    (1, 4, [1, 2, 0xB, 5, 0xC, 3, 0xA, 0xD, 0xE, 0xF], "12.5-3 +,'"),
    (2, 4, [2, 0, 2, 4, 0xB, 0, 1, 0xD, 0, 2, 0xA, 1, 2, 0xC, 3, 0], "2024-01/02 12:30"),
    (3, 5, [1, 2, 27, 26, 0, 28, 29, 30, 31], "AB_Z .-:/"),
    (4, 5, [1, 28, 2, 31, 3], "a.b/c"),
    (5, 5, [10, 0x1C, 4, 15, 5, 0x1E, 24, 0x1F, 5, 24, 0, 25, 0x1B, 0x1D], "j.doe+x@ex,y_-"),
    (6, 6, [1, 0x21, 0x2E, 0x36, 0x3F, 0, 0x2A, 0x31], "a1/?= _'"),
    (7, 6, [1, 0x22, 0, 0x1B, 0x3F, 0x20, 0x3A], "Ab 09_z"),
    (8, 6, [1, 0x20, 0x3A, 0x3B, 0x3F, 0x1B], "A;z+|_"),
    (9, 7, [0x09, 0x61, 0x17, 0x37, 0x3F, 0x40, 0x7B, 0x5B, 0x60], "Éa.-ÿ 50_"),
    (11, 4, [0, 10, 15, 9], "0af9"),
    (12, 4, [0, 10, 15, 9], "0AF9"),
    (10, 8, list("Größe".encode("latin-1")), "Größe"),
    (0, 8, list("β-κ €".encode()), "β-κ €"),
])
def test_short_string_encodings(encoding: int, step: int, codes: list[int], text: str) -> None:
    blocks = _short_string(encoding, step, codes)
    assert nv.blocks_used(blocks[0]) == len(blocks)
    assert nv.decode_inline(nv.SHORT_STRING, blocks) == text


def test_short_string_rejects_impossible_codes() -> None:
    with pytest.raises(CorruptStoreError):
        nv.decode_short_string(_short_string(6, 6, [0x1B]))  # a gap in the URI table
    with pytest.raises(CorruptStoreError):
        nv.blocks_used(_short_string(13, 4, [1])[0])  # no such encoding


def _short_array(element_type: int, width: int, raw_values: list[int]) -> list[int]:
    bits = 7 | (nv.SHORT_ARRAY << 24) | (element_type << 28) | (len(raw_values) << 32) | ((width % 64) << 38)
    for i, value in enumerate(raw_values):
        bits |= value << (44 + i * width)
    return _to_blocks(bits, 44 + width * len(raw_values))


@pytest.mark.parametrize("element_type, width, raw, expected", [
    (nv.INT, 32, [1, 0xFFFFFFFF, 7], [1, -1, 7]),
    (nv.BOOL, 1, [1, 0, 1], [True, False, True]),
    (nv.LONG, 64, [(-2) & MASK64], [-2]),
    (nv.DOUBLE, 64, [struct.unpack(">Q", struct.pack(">d", 1.5))[0]], [1.5]),
    (nv.CHAR, 7, [ord("x"), ord("y")], ["x", "y"]),
    (nv.BYTE, 8, [0x80, 3], [-128, 3]),
    (nv.INT, 1, [], []),
])
def test_short_arrays(element_type: int, width: int, raw: list[int], expected: list[Any]) -> None:
    blocks = _short_array(element_type, width, raw)
    assert nv.blocks_used(blocks[0]) == len(blocks)
    assert nv.decode_inline(nv.SHORT_ARRAY, blocks) == expected


def test_dynamic_array_payloads() -> None:
    items = [b"abc", "é".encode(), b""]
    body = b"".join(struct.pack(">i", len(item)) + item for item in items)
    strings = bytes([nv.STRING]) + struct.pack(">i", len(items)) + body
    assert nv.decode_array_payload(strings) == ["abc", "é", ""]
    packed = (1 | 2 << 3 | 3 << 6 | 4 << 9).to_bytes(2, "little")  # four 3-bit ints, 4 bits in last byte
    assert nv.decode_array_payload(bytes([nv.INT, 4, 3]) + packed) == [1, 2, 3, 4]
    doubles = bytes([nv.DOUBLE, 8, 64]) + struct.pack("<dd", 1.5, -2.0)
    assert nv.decode_array_payload(doubles) == [1.5, -2.0]
    assert nv.decode_array_payload(bytes([nv.LONG, 8, 0])) == []
    with pytest.raises(CorruptStoreError, match="temporal"):
        nv.decode_array_payload(bytes([nv.TEMPORAL, 0]))
    with pytest.raises(CorruptStoreError):
        nv.decode_array_payload(bytes([nv.STRING]) + struct.pack(">ii", 1, 10) + b"short")


def _scalar(kind: int, payload: int) -> list[int]:
    return [7 | (kind << 24) | (payload << 28)]


@pytest.mark.parametrize("blocks, expected", [
    (_scalar(nv.BOOL, 1), True),
    (_scalar(nv.BYTE, 0xFF), -1),
    (_scalar(nv.SHORT, 0x8000), -32768),
    (_scalar(nv.CHAR, ord("é")), "é"),
    (_scalar(nv.INT, 0xFFFFFFFE), -2),
    (_scalar(nv.LONG, (2**34 << 1) | 1), 2**34),
    ([7 | (nv.LONG << 24), (-5) & MASK64], -5),
    (_scalar(nv.FLOAT, 0x3FC00000), 1.5),
    ([7 | (nv.DOUBLE << 24), struct.unpack(">Q", struct.pack(">d", 2.25))[0]], 2.25),
])
def test_inline_scalars(blocks: list[int], expected: Any) -> None:
    kind = (blocks[0] >> 24) & 0xF
    assert nv.blocks_used(blocks[0]) == len(blocks)
    assert nv.decode_inline(kind, blocks) == expected


def _dynamic_store(record_size: int, records: dict[int, tuple[int, int, bytes]]) -> DynamicStore:
    """Build a store file: record 0 holds the record size; others (head flags, next, data)."""
    data = bytearray(8192)
    struct.pack_into(">I", data, 0, record_size)
    for record_id, (flags, next_id, payload) in records.items():
        struct.pack_into(">II", data, record_id * record_size, flags | len(payload), next_id)
        data[record_id * record_size + 8:record_id * record_size + 8 + len(payload)] = payload
    return DynamicStore("test", bytes(data))


def test_dynamic_chains_and_labels() -> None:
    start, continuation, end = 0x10000000, 0x90000000, 0xFFFFFFFF
    text = ("x" * 50 + "ÿz").encode()
    store = _dynamic_store(64, {1: (start, 2, text[:56]), 2: (continuation, end, text[56:])})
    assert store.read_string(1) == "x" * 50 + "ÿz"
    with pytest.raises(CorruptStoreError, match="misplaced"):
        store.read_chain(2)  # a continuation record cannot start a chain
    looping = _dynamic_store(64, {1: (start, 1, b"a")})
    with pytest.raises(CorruptStoreError, match="loops"):
        looping.read_chain(1)
    # Labels: inline (two 18-bit ids) and dynamic (a long array that starts with the node id).
    assert node_label_ids((2 << 36) | 3 | (5 << 18), store) == [3, 5]
    labels = bytes([nv.LONG, 2, 6]) + (42 | 3 << 6 | 9 << 12).to_bytes(3, "little")
    label_store = _dynamic_store(64, {1: (start, end, labels)})
    assert node_label_ids(0x8000000000 | 1, label_store) == [3, 9]
