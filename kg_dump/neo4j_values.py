"""Decoders for Neo4j 5 record-store property values (pure functions on ints and bytes).

Learnt from the public Neo4j sources (`PropertyType`, `LongerShortString`, `ShortArray`,
`DynamicArrayStore`, `Bits`); written from scratch. Property blocks are 64-bit words; the
inline encodings treat a block sequence as one little-endian bit stream (block 0 holds the
lowest bits), which is why the decoders below join the blocks into one Python int first.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from typing import Any

from fpkg.errors import CorruptStoreError

# Property type ids (bits 24-27 of a property block).
BOOL, BYTE, SHORT, CHAR, INT, LONG, FLOAT, DOUBLE = 1, 2, 3, 4, 5, 6, 7, 8
STRING, ARRAY, SHORT_STRING, SHORT_ARRAY, GEOMETRY, TEMPORAL = 9, 10, 11, 12, 13, 14
TYPE_NAMES = {
    BOOL: "bool", BYTE: "byte", SHORT: "short", CHAR: "char", INT: "int", LONG: "long",
    FLOAT: "float", DOUBLE: "double", STRING: "string", ARRAY: "array",
    SHORT_STRING: "short_string", SHORT_ARRAY: "short_array", GEOMETRY: "geometry",
    TEMPORAL: "temporal",
}

# --- compact short-string encodings -------------------------------------------------------

_INVALID = "\x00"  # placeholder for code points no encoder ever writes
_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LOWER = _UPPER.lower()
_ALPHANUM = " " + _UPPER + "01234" + "_" + _LOWER + "56789"
_EUROPEAN_HIGH = "".join(
    "." if c == 0x17 else "-" if c == 0x37 else chr(0xC0 + c) for c in range(0x40)
)
# encoding id -> (bits per character, decoding table indexed by code point)
_TABLES: dict[int, tuple[int, str]] = {
    1: (4, "0123456789 .-+,'"),                                      # numerical
    2: (4, "0123456789 -:/+,"),                                      # date
    3: (5, " " + _UPPER + "_.-:/"),                                  # upper
    4: (5, " " + _LOWER + "_.-:/"),                                  # lower
    5: (5, "," + _LOWER + "_.-+@"),                                  # email
    6: (6, " " + _LOWER + _INVALID * 5 + "0123456789_.-:/+,'@|;*?&%#()$<>="),  # uri
    7: (6, _ALPHANUM),                                               # alphanum
    8: (6, " " + _UPPER + "_.-:/" + ";" + _LOWER + "+,'@|"),         # alphasym
    9: (7, _EUROPEAN_HIGH + _ALPHANUM),                              # european
    11: (4, "0123456789abcdef"),                                     # lower hex
    12: (4, "0123456789ABCDEF"),                                     # upper hex
}
_ENCODING_UTF8 = 0
_ENCODING_LATIN1 = 10
_STRING_HEADER_BITS = 39  # key 24 + type 4 + encoding 5 + length 6

assert all(len(table) == 1 << step for step, table in _TABLES.values())


def _join_blocks(blocks: Sequence[int]) -> int:
    value = 0
    for i, block in enumerate(blocks):
        value |= block << (64 * i)
    return value


def _blocks_for_bits(bits: int) -> int:
    return (bits - 1) // 64 + 1


def short_string_blocks(first_block: int) -> int:
    """How many 64-bit blocks an inline short string occupies."""
    encoding = (first_block >> 28) & 0x1F
    length = (first_block >> 33) & 0x3F
    if encoding in (_ENCODING_UTF8, _ENCODING_LATIN1):
        step = 8
    elif encoding in _TABLES:
        step = _TABLES[encoding][0]
    else:
        raise CorruptStoreError(f"unknown short-string encoding {encoding}")
    return _blocks_for_bits(_STRING_HEADER_BITS + length * step)


def decode_short_string(blocks: Sequence[int]) -> str:
    encoding = (blocks[0] >> 28) & 0x1F
    length = (blocks[0] >> 33) & 0x3F
    bits = _join_blocks(blocks) >> _STRING_HEADER_BITS
    if encoding in (_ENCODING_UTF8, _ENCODING_LATIN1):
        raw = bytes((bits >> (8 * i)) & 0xFF for i in range(length))
        if encoding == _ENCODING_LATIN1:
            return raw.decode("latin-1")
        return decode_utf8(raw)
    step, table = _TABLES[encoding]
    mask = (1 << step) - 1
    chars = [table[(bits >> (step * i)) & mask] for i in range(length)]
    if _INVALID in chars:
        raise CorruptStoreError(f"short string uses a code point encoding {encoding} never writes")
    return "".join(chars)


def decode_utf8(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CorruptStoreError(f"string is not valid UTF-8: {raw[:40]!r}") from e


# --- numbers ------------------------------------------------------------------------------

def _signed(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def _float32(bits: int) -> float:
    return struct.unpack(">f", struct.pack(">I", bits & 0xFFFFFFFF))[0]


def _float64(bits: int) -> float:
    return struct.unpack(">d", struct.pack(">Q", bits & 0xFFFFFFFFFFFFFFFF))[0]


# Element converters shared by short arrays and dynamic arrays: raw unsigned bits -> value.
# Narrow types are stored with their sign bit only when negative, so the Java-style
# truncating casts are reproduced by sign-extending at the type's full width.
_ELEMENT: dict[int, Callable[[int], Any]] = {
    BOOL: lambda v: v != 0,
    BYTE: lambda v: _signed(v, 8),
    SHORT: lambda v: _signed(v, 16),
    CHAR: lambda v: chr(v & 0xFFFF),
    INT: lambda v: _signed(v, 32),
    LONG: lambda v: _signed(v, 64),
    FLOAT: _float32,
    DOUBLE: _float64,
}


def _unpack_bits(bits: int, count: int, width: int, element_type: int) -> list[Any]:
    convert = _ELEMENT[element_type]
    mask = (1 << width) - 1
    return [convert((bits >> (width * i)) & mask) for i in range(count)]


# --- short arrays (inline) ----------------------------------------------------------------

_SHORT_ARRAY_HEADER_BITS = 44  # key 24 + type 4 + element type 4 + length 6 + bits/element 6


def _short_array_shape(first_block: int) -> tuple[int, int, int]:
    element_type = (first_block >> 28) & 0xF
    length = (first_block >> 32) & 0x3F
    width = (first_block >> 38) & 0x3F or 64  # 0 stands for 64: six bits cannot hold 64
    if element_type not in _ELEMENT:
        raise CorruptStoreError(f"short array of unknown element type {element_type}")
    return element_type, length, width


def short_array_blocks(first_block: int) -> int:
    _, length, width = _short_array_shape(first_block)
    return _blocks_for_bits(_SHORT_ARRAY_HEADER_BITS + length * width)


def decode_short_array(blocks: Sequence[int]) -> list[Any]:
    element_type, length, width = _short_array_shape(blocks[0])
    bits = _join_blocks(blocks) >> _SHORT_ARRAY_HEADER_BITS
    return _unpack_bits(bits, length, width, element_type)


# --- dynamic arrays (array store payload) -------------------------------------------------

def decode_array_payload(data: bytes) -> list[Any]:
    """Decode the joined data of an array-store record chain (header + body)."""
    if not data:
        raise CorruptStoreError("empty array payload")
    element_type = data[0]
    if element_type == STRING:
        return _decode_string_array(data)
    if element_type in _ELEMENT:
        return _decode_number_array(data, element_type)
    name = TYPE_NAMES.get(element_type, str(element_type))
    raise CorruptStoreError(f"array of element type {name} is not supported")


def _decode_string_array(data: bytes) -> list[str]:
    # 1 byte type, 4 bytes item count, then per item 4 bytes length + UTF-8 bytes.
    (count,) = struct.unpack_from(">i", data, 1)
    pos, items = 5, []
    for _ in range(count):
        if pos + 4 > len(data):
            raise CorruptStoreError("string array payload is shorter than its item count")
        (size,) = struct.unpack_from(">i", data, pos)
        pos += 4
        if size < 0 or pos + size > len(data):
            raise CorruptStoreError("string array item runs past the payload")
        items.append(decode_utf8(data[pos:pos + size]))
        pos += size
    return items


def _decode_number_array(data: bytes, element_type: int) -> list[Any]:
    # 1 byte type, 1 byte "bits used in the last byte", 1 byte bits per element, then a
    # little-endian bit stream of the elements.
    if len(data) < 3:
        raise CorruptStoreError("number array payload shorter than its header")
    bits_in_last_byte, width = data[1], data[2]
    body = data[3:]
    if width == 0:
        return []
    count = (len(body) * 8 - (8 - bits_in_last_byte)) // width
    return _unpack_bits(int.from_bytes(body, "little"), count, width, element_type)


# --- inline scalar values -----------------------------------------------------------------

def blocks_used(first_block: int) -> int:
    """How many 64-bit blocks the property starting with this block occupies."""
    kind = (first_block >> 24) & 0xF
    if kind == DOUBLE:
        return 2
    if kind == LONG:
        return 1 if first_block & 0x10000000 else 2
    if kind == SHORT_STRING:
        return short_string_blocks(first_block)
    if kind == SHORT_ARRAY:
        return short_array_blocks(first_block)
    if kind in (GEOMETRY, TEMPORAL):
        raise CorruptStoreError(f"property type {TYPE_NAMES[kind]} is not supported")
    if kind in TYPE_NAMES:
        return 1
    raise CorruptStoreError(f"unknown property type {kind}")


def decode_inline(kind: int, blocks: Sequence[int]) -> Any:
    """Decode a property whose value lives in the property record itself."""
    first = blocks[0]
    payload = first >> 28  # the value bits above key and type
    if kind == BOOL:
        return bool(payload & 1)
    if kind == BYTE:
        return _signed(payload, 8)
    if kind == SHORT:
        return _signed(payload, 16)
    if kind == CHAR:
        return chr(payload & 0xFFFF)
    if kind == INT:
        return _signed(payload, 32)
    if kind == LONG:
        # bit 28 flags a non-negative value of up to 35 bits stored inline
        return payload >> 1 if payload & 1 else _signed(blocks[1], 64)
    if kind == FLOAT:
        return _float32(payload)
    if kind == DOUBLE:
        return _float64(blocks[1])
    if kind == SHORT_STRING:
        return decode_short_string(blocks)
    if kind == SHORT_ARRAY:
        return decode_short_array(blocks)
    raise CorruptStoreError(f"property type {TYPE_NAMES.get(kind, kind)} is not stored inline")
