"""Read a `neo4j-admin database dump` of a Neo4j 5 `record-aligned` store, without Neo4j.

Container: 4 bytes `DZV1`, then one zstd frame. Decompressed: a 24-byte header (`zstd`,
int version, long file count, long total file bytes) and then a tar of the store directory.
The meaning of the two header counts was inferred from FPKG.dump (they match its tar
exactly), not from Neo4j's sources; a mismatch is treated as a damaged dump.
The tar is streamed into memory (only the store files the graph needs are kept) and the
stores are decoded by `kg_dump.neo4j_records`.
"""

from __future__ import annotations

import io
import re
import struct
import tarfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import BinaryIO

import zstandard

from fpkg.errors import CorruptStoreError, DumpError
from graphstore.graph import Graph, Node, Relationship
from kg_dump.neo4j_records import (
    LABEL_TOKEN_RECORD_SIZE,
    NODE_RECORD_SIZE,
    PROPERTY_KEY_TOKEN_RECORD_SIZE,
    PROPERTY_RECORD_SIZE,
    RELATIONSHIP_RECORD_SIZE,
    RELATIONSHIP_TYPE_TOKEN_RECORD_SIZE,
    DynamicStore,
    PropertyReader,
    RecordFile,
    iter_nodes,
    iter_relationships,
    node_label_ids,
    read_tokens,
)

DUMP_MAGIC = b"DZV1"
_INNER_HEADER = struct.Struct(">4sIqq")  # b"zstd", version, file count, total file bytes
_SUPPORTED_FORMAT = ("record", "aligned")
_CHUNK = 1 << 20

# Store files the graph is built from (metadata first, so a wrong format fails early).
NEOSTORE = "neostore"
NODES = "neostore.nodestore.db"
NODE_LABELS = "neostore.nodestore.db.labels"
RELATIONSHIPS = "neostore.relationshipstore.db"
PROPERTIES = "neostore.propertystore.db"
STRINGS = "neostore.propertystore.db.strings"
ARRAYS = "neostore.propertystore.db.arrays"
PROPERTY_KEYS = "neostore.propertystore.db.index"
PROPERTY_KEY_NAMES = "neostore.propertystore.db.index.keys"
LABELS = "neostore.labeltokenstore.db"
LABEL_NAMES = "neostore.labeltokenstore.db.names"
REL_TYPES = "neostore.relationshiptypestore.db"
REL_TYPE_NAMES = "neostore.relationshiptypestore.db.names"
REQUIRED_FILES = (
    NEOSTORE, NODES, NODE_LABELS, RELATIONSHIPS, PROPERTIES, STRINGS, ARRAYS,
    PROPERTY_KEYS, PROPERTY_KEY_NAMES, LABELS, LABEL_NAMES, REL_TYPES, REL_TYPE_NAMES,
)


@dataclass
class DumpStats:
    """What `read_dump_with_stats` saw besides the graph itself."""

    store_format: str = ""
    property_types: Counter[str] = field(default_factory=Counter)


def read_dump(path: Path) -> Graph:
    """Decode the whole graph of a Neo4j 5 record-aligned dump; raise DumpError if impossible."""
    return read_dump_with_stats(path)[0]


def read_dump_with_stats(path: Path) -> tuple[Graph, DumpStats]:
    stats = DumpStats()
    files = _read_store_files(Path(path))
    stats.store_format = _check_store_format(files[NEOSTORE], path)
    try:
        graph = _decode_graph(files, stats.property_types)
    except CorruptStoreError as e:
        raise DumpError(f"{path}: corrupt store: {e}") from e
    return graph, stats


# --- container ----------------------------------------------------------------------------

class _ZstdReader(io.RawIOBase):
    """Streams one zstd frame and, unlike a plain stream reader, fails on a truncated one."""

    def __init__(self, source: BinaryIO, path: Path) -> None:
        self._source = source
        self._path = path
        self._decompressor = zstandard.ZstdDecompressor().decompressobj()
        self._buffer = memoryview(b"")
        self._done = False

    def readable(self) -> bool:
        return True

    def readinto(self, target: memoryview) -> int:  # type: ignore[override]
        while not self._buffer and not self._done:
            self._fill()
        size = min(len(target), len(self._buffer))
        target[:size] = self._buffer[:size]
        self._buffer = self._buffer[size:]  # a view: no copy of the rest
        return size

    def _fill(self) -> None:
        chunk = self._source.read(_CHUNK)
        if chunk:
            self._buffer = memoryview(self._decompressor.decompress(chunk))
            self._done = self._decompressor.eof
        elif not self._decompressor.eof:
            raise DumpError(f"{self._path}: the zstd stream ends before its frame does (truncated dump)")
        else:
            self._done = True


def _read_store_files(path: Path) -> dict[str, bytes]:
    try:
        with open(path, "rb") as raw:
            if raw.read(len(DUMP_MAGIC)) != DUMP_MAGIC:
                raise DumpError(f"{path}: not a Neo4j dump (the file does not start with {DUMP_MAGIC!r})")
            stream = io.BufferedReader(_ZstdReader(raw, path), _CHUNK)
            header = _read_inner_header(stream, path)
            files, file_count, total_bytes = _read_tar(stream, path)
    except OSError as e:
        raise DumpError(f"{path}: cannot read the dump: {e}") from e
    except zstandard.ZstdError as e:
        raise DumpError(f"{path}: corrupt zstd stream: {e}") from e
    except tarfile.TarError as e:
        raise DumpError(f"{path}: corrupt or truncated tar archive: {e}") from e
    if (file_count, total_bytes) != header:
        raise DumpError(f"{path}: the archive holds {file_count} files of {total_bytes} bytes, "
                        f"its header announces {header[0]} files of {header[1]} bytes")
    missing = [name for name in REQUIRED_FILES if name not in files]
    if missing:
        raise DumpError(f"{path}: store files missing from the dump: {', '.join(missing)}")
    return files


def _read_inner_header(stream: BinaryIO, path: Path) -> tuple[int, int]:
    raw = stream.read(_INNER_HEADER.size)
    if len(raw) < _INNER_HEADER.size:
        raise DumpError(f"{path}: the decompressed dump is shorter than its header")
    magic, version, file_count, total_bytes = _INNER_HEADER.unpack(raw)
    if magic != b"zstd" or version != 1:
        raise DumpError(f"{path}: unknown dump header {magic!r} version {version}")
    return file_count, total_bytes


def _read_tar(stream: BinaryIO, path: Path) -> tuple[dict[str, bytes], int, int]:
    """Keep the needed top-level store files; count all regular files for the header check."""
    files: dict[str, bytes] = {}
    file_count = total_bytes = 0
    with tarfile.open(fileobj=stream, mode="r|") as archive:
        for member in archive:
            if not member.isfile():
                continue
            file_count += 1
            total_bytes += member.size
            parts = [p for p in PurePosixPath(member.name).parts if p not in (".", "/")]
            if len(parts) == 1 and parts[0] in REQUIRED_FILES:
                extracted = archive.extractfile(member)
                if extracted is None:
                    raise DumpError(f"{path}: cannot extract {member.name}")
                data = extracted.read()
                if len(data) != member.size:
                    raise DumpError(f"{path}: {member.name} is truncated")
                files[parts[0]] = data
    return files, file_count, total_bytes


def _check_store_format(metadata: bytes, path: Path) -> str:
    """Find the store id's engine and format names in the `neostore` metadata page.

    Neo4j 5 writes them as length-prefixed ASCII strings (`\\x06record`, then after one
    byte `\\x07aligned`), a layout observed in FPKG.dump rather than read in the sources;
    only record/aligned uses the record layout this reader knows.
    """
    page = metadata[:8192]
    for match in re.finditer(rb"([\x01-\x20])([a-z_]{2,32})\x01([\x01-\x20])([a-z_\-]{2,32})", page):
        engine, fmt = match.group(2), match.group(4)
        if len(engine) == match.group(1)[0] and len(fmt) == match.group(3)[0]:
            found = (engine.decode(), fmt.decode())
            if found != _SUPPORTED_FORMAT:
                raise DumpError(f"{path}: unsupported store format {found[0]}-{found[1]}: only "
                                f"{'-'.join(_SUPPORTED_FORMAT)} stores can be read")
            return "-".join(found)
    raise DumpError(f"{path}: cannot find the store format in the neostore metadata")


# --- stores -> graph ----------------------------------------------------------------------

def _decode_graph(files: dict[str, bytes], property_types: Counter[str]) -> Graph:
    properties = PropertyReader(
        RecordFile(PROPERTIES, files[PROPERTIES], PROPERTY_RECORD_SIZE),
        DynamicStore(STRINGS, files[STRINGS]),
        DynamicStore(ARRAYS, files[ARRAYS]),
        keys=_token_names(files, PROPERTY_KEYS, PROPERTY_KEY_NAMES, PROPERTY_KEY_TOKEN_RECORD_SIZE, 5),
    )
    nodes = _read_nodes(files, properties, property_types)
    relationships = _read_relationships(files, properties, property_types, {node.id for node in nodes})
    return Graph(nodes, relationships)


def _token_names(files: dict[str, bytes], store: str, names: str, record_size: int, name_offset: int
                 ) -> dict[int, str]:
    return read_tokens(RecordFile(store, files[store], record_size), DynamicStore(names, files[names]),
                       name_offset)


def _read_nodes(files: dict[str, bytes], properties: PropertyReader, property_types: Counter[str]
                ) -> list[Node]:
    label_names = _token_names(files, LABELS, LABEL_NAMES, LABEL_TOKEN_RECORD_SIZE, 1)
    label_store = DynamicStore(NODE_LABELS, files[NODE_LABELS])
    nodes = []
    for record in iter_nodes(RecordFile(NODES, files[NODES], NODE_RECORD_SIZE)):
        label_ids = node_label_ids(record.label_field, label_store)
        labels = [_token(label_names, label_id, "label") for label_id in label_ids]
        nodes.append(Node(record.id, labels, properties.read(record.next_property, property_types)))
    return nodes


def _read_relationships(files: dict[str, bytes], properties: PropertyReader, property_types: Counter[str],
                        node_ids: set[int]) -> list[Relationship]:
    type_names = _token_names(files, REL_TYPES, REL_TYPE_NAMES, RELATIONSHIP_TYPE_TOKEN_RECORD_SIZE, 1)
    relationships = []
    rel_file = RecordFile(RELATIONSHIPS, files[RELATIONSHIPS], RELATIONSHIP_RECORD_SIZE)
    for record in iter_relationships(rel_file):
        if record.start not in node_ids or record.end not in node_ids:
            raise CorruptStoreError(f"relationship {record.id} points to a node that is not in use")
        rel_type = _token(type_names, record.type_id, "relationship type")
        props = properties.read(record.next_property, property_types)
        relationships.append(Relationship(record.id, rel_type, record.start, record.end, props))
    return relationships


def _token(names: dict[int, str], token_id: int, what: str) -> str:
    if token_id not in names:
        raise CorruptStoreError(f"unknown {what} token {token_id}")
    return names[token_id]
