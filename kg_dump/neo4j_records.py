"""Record-level reading of a Neo4j 5 `record-aligned` store held in memory.

Learnt from the public Neo4j sources (`NodeRecordFormat`, `RelationshipRecordFormat`,
`PropertyRecordFormat`, `DynamicRecordFormat`, token record formats, `NodeLabelsField`);
written from scratch. All integers are big-endian. In the aligned format a record never
straddles an 8 KiB page: each page holds `8192 // record_size` records and the tail of the
page is padding.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from fpkg.errors import CorruptStoreError
from kg_dump import neo4j_values as values

PAGE_SIZE = 8192
NODE_RECORD_SIZE = 15
RELATIONSHIP_RECORD_SIZE = 34
PROPERTY_RECORD_SIZE = 41
LABEL_TOKEN_RECORD_SIZE = 5          # in use + name id
RELATIONSHIP_TYPE_TOKEN_RECORD_SIZE = 5
PROPERTY_KEY_TOKEN_RECORD_SIZE = 9   # in use + property count + name id
DYNAMIC_HEADER_SIZE = 8              # flags/length int + next-block int

_NULL_REFERENCE = 0xFFFFFFFF  # "no next record" when the high-bit modifier is zero
_NODE = struct.Struct(">BIIIB")
_RELATIONSHIP = struct.Struct(">BIII16xI")
_PROPERTY_HEADER = struct.Struct(">BII")
_PROPERTY_BLOCKS = struct.Struct(">4Q")


def _reference(low: int, high: int) -> int:
    """Join a 32-bit reference with its high bits; -1 for the null reference."""
    if high == 0 and low == _NULL_REFERENCE:
        return -1
    return low | high


class RecordFile:
    """Fixed-size records laid out page-aligned in one store file."""

    def __init__(self, name: str, data: bytes, record_size: int) -> None:
        if record_size <= 0 or record_size > PAGE_SIZE:
            raise CorruptStoreError(f"{name}: impossible record size {record_size}")
        self.name = name
        self.data = memoryview(data)
        self.record_size = record_size
        self.per_page = PAGE_SIZE // record_size
        full_pages, tail = divmod(len(data), PAGE_SIZE)
        self.count = full_pages * self.per_page + tail // record_size

    def offset(self, record_id: int) -> int:
        if not 0 <= record_id < self.count:
            raise CorruptStoreError(f"{self.name}: record {record_id} is outside the file")
        page, slot = divmod(record_id, self.per_page)
        return page * PAGE_SIZE + slot * self.record_size


class DynamicStore(RecordFile):
    """A store of chained variable-length records (strings, arrays, labels, token names).

    Record 0 is a header whose first int is the record size the store was created with.
    """

    def __init__(self, name: str, data: bytes) -> None:
        if len(data) < 4:
            raise CorruptStoreError(f"{name}: too short for its header record")
        (record_size,) = struct.unpack_from(">I", data, 0)
        if record_size <= DYNAMIC_HEADER_SIZE:
            raise CorruptStoreError(f"{name}: impossible record size {record_size}")
        super().__init__(name, data, record_size)

    def read_chain(self, first_id: int) -> bytes:
        """Join the data of the record chain that starts at `first_id`."""
        parts: list[bytes] = []
        seen: set[int] = set()
        record_id, is_first = first_id, True
        data_size = self.record_size - DYNAMIC_HEADER_SIZE
        while record_id != -1:
            if record_id in seen or record_id == 0:
                raise CorruptStoreError(f"{self.name}: chain from {first_id} loops or hits the header")
            seen.add(record_id)
            pos = self.offset(record_id)
            head, low_next = struct.unpack_from(">II", self.data, pos)
            if not head & 0x10000000:
                raise CorruptStoreError(f"{self.name}: record {record_id} in a chain is not in use")
            if bool(head & 0x80000000) == is_first:  # the top bit marks a continuation record
                raise CorruptStoreError(f"{self.name}: record {record_id} is misplaced in its chain")
            length = head & 0xFFFFFF
            if length > data_size:
                raise CorruptStoreError(f"{self.name}: record {record_id} claims {length} bytes")
            start = pos + DYNAMIC_HEADER_SIZE
            parts.append(bytes(self.data[start:start + length]))
            record_id = _reference(low_next, (head & 0x0F000000) << 8)
            is_first = False
        return b"".join(parts)

    def read_string(self, first_id: int) -> str:
        return values.decode_utf8(self.read_chain(first_id))


def read_tokens(tokens: RecordFile, names: DynamicStore, name_offset: int) -> dict[int, str]:
    """Map token id -> name for the in-use records of a token store."""
    result: dict[int, str] = {}
    for token_id in range(tokens.count):
        pos = tokens.offset(token_id)
        if not tokens.data[pos] & 0x1:
            continue
        (name_id,) = struct.unpack_from(">I", tokens.data, pos + name_offset)
        result[token_id] = names.read_string(name_id)
    return result


@dataclass(frozen=True)
class NodeRecord:
    id: int
    next_property: int
    label_field: int


@dataclass(frozen=True)
class RelationshipRecord:
    id: int
    start: int
    end: int
    type_id: int
    next_property: int


def iter_nodes(store: RecordFile) -> Iterator[NodeRecord]:
    data = store.data
    for node_id in range(store.count):
        pos = store.offset(node_id)
        header, _next_rel, low_prop, low_labels, high_labels = _NODE.unpack_from(data, pos)
        if not header & 0x1:
            continue
        next_property = _reference(low_prop, (header & 0xF0) << 28)
        yield NodeRecord(node_id, next_property, low_labels | (high_labels << 32))


def iter_relationships(store: RecordFile) -> Iterator[RelationshipRecord]:
    data = store.data
    for rel_id in range(store.count):
        pos = store.offset(rel_id)
        header, low_start, low_end, type_field, low_prop = _RELATIONSHIP.unpack_from(data, pos)
        if not header & 0x1:
            continue
        start = low_start | ((header & 0x0E) << 31)
        end = low_end | ((type_field & 0x70000000) << 4)
        next_property = _reference(low_prop, (header & 0xF0) << 28)
        yield RelationshipRecord(rel_id, start, end, type_field & 0xFFFF, next_property)


def node_label_ids(label_field: int, label_store: DynamicStore) -> list[int]:
    """Label ids of a node: up to seven packed in the 40-bit field, or in the label store."""
    if label_field & 0x8000000000:
        # A long array whose first element is the owning node id.
        stored = values.decode_array_payload(label_store.read_chain(label_field & 0xFFFFFFFFF))
        return [int(label) for label in stored[1:]]
    count = (label_field >> 36) & 0x7
    if count == 0:
        return []
    width = 36 // count
    mask = (1 << width) - 1
    return [(label_field >> (width * i)) & mask for i in range(count)]


@dataclass
class PropertyReader:
    """Follows property chains and decodes their values."""

    records: RecordFile
    strings: DynamicStore
    arrays: DynamicStore
    keys: dict[int, str]

    def read(self, first_id: int, type_counts: dict[str, int] | None = None) -> dict[str, Any]:
        """Properties of one entity; `type_counts` (optional) tallies the storage types seen."""
        result: dict[str, Any] = {}
        seen: set[int] = set()
        record_id = first_id
        while record_id != -1:
            if record_id in seen:
                raise CorruptStoreError(f"property chain from {first_id} loops at {record_id}")
            seen.add(record_id)
            record_id = self._read_record(record_id, result, type_counts)
        return result

    def _read_record(self, record_id: int, out: dict[str, Any], type_counts: dict[str, int] | None) -> int:
        pos = self.records.offset(record_id)
        modifiers, _low_prev, low_next = _PROPERTY_HEADER.unpack_from(self.records.data, pos)
        blocks = _PROPERTY_BLOCKS.unpack_from(self.records.data, pos + _PROPERTY_HEADER.size)
        found = 0
        index = 0
        while index < len(blocks):
            kind = (blocks[index] >> 24) & 0xF
            if kind == 0 or kind not in values.TYPE_NAMES:
                break  # the blocks of a record are packed; the first invalid type ends them
            size = values.blocks_used(blocks[index])
            if index + size > len(blocks):
                raise CorruptStoreError(f"property record {record_id}: value runs past the record")
            self._store(out, blocks[index:index + size], record_id)
            if type_counts is not None:
                type_counts[values.TYPE_NAMES[kind]] = type_counts.get(values.TYPE_NAMES[kind], 0) + 1
            found += 1
            index += size
        if found == 0:
            raise CorruptStoreError(f"property record {record_id} in a chain is not in use")
        return _reference(low_next, (modifiers & 0x0F) << 32)

    def _store(self, out: dict[str, Any], blocks: tuple[int, ...], record_id: int) -> None:
        key_id = blocks[0] & 0xFFFFFF
        key = self.keys.get(key_id)
        if key is None:
            raise CorruptStoreError(f"property record {record_id}: unknown property key {key_id}")
        if key in out:
            raise CorruptStoreError(f"property record {record_id}: key {key!r} appears twice")
        out[key] = self._value(blocks)

    def _value(self, blocks: tuple[int, ...]) -> Any:
        kind = (blocks[0] >> 24) & 0xF
        if kind == values.STRING:
            return self.strings.read_string(blocks[0] >> 28)
        if kind == values.ARRAY:
            return values.decode_array_payload(self.arrays.read_chain(blocks[0] >> 28))
        return values.decode_inline(kind, blocks)
