"""A small Parquet decoder without pyarrow, for the files streams commonly are (docs/formats.md).

Flat schemas of INT32/INT64 and UTF-8 BYTE_ARRAY columns, PLAIN and dictionary encodings,
data pages v1 and v2, and the codecs UNCOMPRESSED, SNAPPY, GZIP, ZSTD and LZ4_RAW. Anything else
raises :class:`Unsupported` when the file is opened (the caller then reads it with pyarrow);
data that does not decode raises :class:`Corrupt`. Importing pyarrow costs more CPU than
reading a whole stream of a few hundred thousand rows this way.
"""

from __future__ import annotations

import functools
import struct
import sys
import zlib
from array import array
from collections.abc import Callable, Iterator
from itertools import chain
from operator import itemgetter

from ..syntax.ground_atoms import _TOKEN_BYTES, names_apart

__all__ = ["Unsupported", "Corrupt", "ParquetFile", "unpack", "hybrid", "glued_cells"]


class Unsupported(Exception):
    """The file uses something this decoder does not read (or its footer does not parse)."""


class Corrupt(Exception):
    """A page of the file does not decode."""


# ---------------------------------------------------------------- Thrift compact protocol


def _varint(buf: bytes, pos: int) -> tuple:
    shift = result = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7


def _zigzag(buf: bytes, pos: int) -> tuple:
    n, pos = _varint(buf, pos)
    return (n >> 1) ^ -(n & 1), pos


def _value(buf: bytes, pos: int, kind: int) -> tuple:
    """One value of compact type ``kind`` at ``pos``: (value, next position)."""
    if kind == 1 or kind == 2:  # booleans in a field header
        return kind == 1, pos
    if kind == 3:
        b = buf[pos]
        return b - 256 if b > 127 else b, pos + 1
    if 4 <= kind <= 6:
        return _zigzag(buf, pos)
    if kind == 7:
        return struct.unpack_from("<d", buf, pos)[0], pos + 8
    if kind == 8:
        size, pos = _varint(buf, pos)
        if pos + size > len(buf):
            raise IndexError("binary past the end")
        return bytes(buf[pos : pos + size]), pos + size
    if kind == 9 or kind == 10:
        head = buf[pos]
        pos += 1
        size, element = head >> 4, head & 0x0F
        if size == 15:
            size, pos = _varint(buf, pos)
        out = []
        for _ in range(size):
            if element in (1, 2):  # booleans in a list: one byte each
                out.append(buf[pos] == 1)
                pos += 1
            else:
                item, pos = _value(buf, pos, element)
                out.append(item)
        return out, pos
    if kind == 11:
        size, pos = _varint(buf, pos)
        out = {}
        if size:
            types = buf[pos]
            pos += 1
            for _ in range(size):
                key, pos = _value(buf, pos, types >> 4)
                out[key], pos = _value(buf, pos, types & 0x0F)
        return out, pos
    if kind == 12:
        return _struct(buf, pos)
    raise ValueError(f"unknown Thrift type {kind}")


def _struct(buf: bytes, pos: int) -> tuple:
    """A compact-protocol struct at ``pos`` as {field id: value}, and the position after it."""
    fields, last = {}, 0
    while True:
        head = buf[pos]
        pos += 1
        if head == 0:
            return fields, pos
        delta, kind = head >> 4, head & 0x0F
        if delta:
            last += delta
        else:
            last, pos = _zigzag(buf, pos)
        fields[last], pos = _value(buf, pos, kind)


# ---------------------------------------------------------------- levels and dictionary indices

_LITTLE = sys.byteorder == "little"


def unpack(data: bytes, start: int, groups: int, width: int) -> list:
    """``8 * groups`` bit-packed unsigned integers of ``width`` bits from ``data[start:]`` (LSB first)."""
    size = groups * width
    if width == 0:
        return [0] * (8 * groups)
    end = start + size
    if end > len(data):
        raise Corrupt("bit-packed run past the end of its page")
    if width in (8, 16, 32):
        return list(struct.unpack_from(f"<{size * 8 // width}{'BHI'[width // 16]}", data, start))
    stride = 16 if width < 16 else 32
    steps = _spreads(width, stride)
    chunk = _SPREAD * width // 8
    out: list = []
    frombytes = int.from_bytes
    for a in range(start, end, chunk):
        x = frombytes(data[a : min(a + chunk, end)], "little")
        for low, shift in steps:
            part = x & low
            x = part | ((x ^ part) << shift)
        spread = x.to_bytes(_SPREAD * stride // 8, "little")
        out += (
            memoryview(spread).cast("H" if stride == 16 else "I").tolist()
            if _LITTLE
            else list(struct.unpack(f"<{_SPREAD}{'H' if stride == 16 else 'I'}", spread))
        )
    del out[8 * groups :]
    return out


#: values unpacked at once by :func:`unpack`
_SPREAD = 1024


@functools.lru_cache(maxsize=64)
def _spreads(width: int, stride: int) -> tuple:
    """The steps that move :data:`_SPREAD` packed fields of ``width`` bits to ``stride`` bits each, in
    halves: each step shifts the upper half of every block of fields up, (mask of the lower halves, shift)."""
    steps, block = [], _SPREAD
    while block > 1:
        half = block // 2
        pattern = ((1 << (half * width)) - 1).to_bytes(block * stride // 8, "little")
        steps.append((int.from_bytes(pattern * (_SPREAD // block), "little"), half * (stride - width)))
        block = half
    return tuple(steps)


def _mapped(data: bytes, start: int, groups: int, width: int, lookup, memo: dict | None) -> list:
    """:func:`unpack` mapped through ``lookup`` (a list; None: the integers themselves). With a
    ``memo`` (blocks of bit-packed groups seen before, by their bytes: the values they stand for
    through this ``lookup``), when at most half of the blocks of 8 groups (or else of the groups) are distinct,
    each distinct one is unpacked once."""
    if lookup is not None and memo is not None and width and groups >= 16 and _recurs(data, start, groups, width):
        get = lookup.__getitem__
        for per in (8, 1):  # groups per block
            blocks = groups // per
            if blocks < 16:
                continue
            size = per * width
            whole = start + blocks * size
            if whole > len(data):
                raise Corrupt("bit-packed run past the end of its page")
            pieces = [data[i : i + size] for i in range(start, whole, size)]
            distinct = set(pieces)
            if len(distinct) * 2 > blocks:
                continue
            if len(memo) > 1 << 16:
                memo.clear()
            for piece in distinct.difference(memo):
                memo[piece] = tuple(map(get, unpack(piece, 0, per, width)))
            out = list(chain.from_iterable(map(memo.__getitem__, pieces)))
            if blocks * per < groups:
                out += map(get, unpack(data, whole, groups - blocks * per, width))
            return out
    first = _packed_run(data, start, groups, width)
    if first is not None:  # 8 * groups consecutive integers
        if lookup is None:
            return range(first, first + 8 * groups)
        if first + 8 * groups <= len(lookup):
            found = lookup[first : first + 8 * groups]
            return found.tolist() if type(found) is array else found
    codes = unpack(data, start, groups, width)
    if lookup is None:
        return codes
    first = codes[0]
    if first + len(codes) <= len(lookup) and _consecutive(codes):  # a column of distinct values
        found = lookup[first : first + len(codes)]
        return found.tolist() if type(found) is array else found
    return list(map(lookup.__getitem__, codes))


def _packed_run(data: bytes, start: int, groups: int, width: int) -> int | None:
    """v if the ``8 * groups`` integers bit-packed at ``data[start:]`` are ``v, v + 1, v + 2, ...``
    (an index column of distinct values), else None: read as one integer, each block of them is
    ``0, 1, 2, ...`` packed, plus its first value times ``1, 1, 1, ...`` packed (no field overflows)."""
    end = start + groups * width
    if not width or not groups or end > len(data):
        return None
    first = int.from_bytes(data[start : start + 4], "little") & ((1 << width) - 1)
    if first + 8 * groups > 1 << width:
        return None
    steps, ones = _packed_words(width)
    step = _BLOCK * width // 8
    for i, a in enumerate(range(start, end, step)):
        b = min(a + step, end)
        if b - a < step:
            mask = (1 << (8 * (b - a))) - 1
            steps, ones = steps & mask, ones & mask
        if int.from_bytes(data[a:b], "little") != steps + (first + i * _BLOCK) * ones:
            return None
    return first


@functools.lru_cache(maxsize=8)
def _packed_words(width: int) -> tuple:
    """``0, 1, ..., _BLOCK - 1`` and as many ones, bit-packed ``width`` bits each, read as integers."""
    steps, ones, m = 0, 1, 1  # for the first m values, doubled until m is _BLOCK
    while m < _BLOCK:
        steps, ones, m = steps + ((steps + m * ones) << (m * width)), ones + (ones << (m * width)), 2 * m
    return steps, ones


def _recurs(data: bytes, start: int, groups: int, width: int) -> bool:
    """Whether one of the first 256 groups (2,048 values) occurs twice among them: if none does,
    hardly any will later."""
    probe = min(groups, 256)
    return len({data[i : i + width] for i in range(start, start + probe * width, width)}) < probe


def hybrid(data: bytes, pos: int, end: int, width: int, count: int, lookup=None, memo: dict | None = None) -> list:
    """``count`` values of the RLE/bit-packed hybrid encoding in ``data[pos:end]`` (``width`` bits
    each), mapped through ``lookup`` if given (an index out of it raises :class:`Corrupt`).
    Consecutive bit-packed runs are unpacked together."""
    out: list = []
    packed: list = []  # the bit-packed runs not unpacked yet
    waiting = 0  # the values they hold
    size = (width + 7) // 8
    try:
        while len(out) + waiting < count:
            if pos >= end:
                raise Corrupt("levels or indices end early")
            head, pos = _varint(data, pos)
            if head & 1:
                groups = head >> 1
                take = min(groups, (count - len(out) - waiting + 7) // 8)
                piece = data[pos : pos + take * width]
                if len(piece) != take * width:
                    raise Corrupt("bit-packed run past the end of its page")
                packed.append(piece)
                waiting += 8 * take
                pos += groups * width
            else:
                if packed:
                    out += _mapped(b"".join(packed), 0, waiting // 8, width, lookup, memo)
                    packed, waiting = [], 0
                value = int.from_bytes(data[pos : pos + size], "little")
                pos += size
                out += [value if lookup is None else lookup[value]] * min(head >> 1, count - len(out))
        if packed:
            found = _mapped(b"".join(packed), 0, waiting // 8, width, lookup, memo)
            if not out and type(found) is range:  # one run of consecutive integers
                return found[:count]
            out += found
    except IndexError:
        raise Corrupt("dictionary index out of range") from None
    del out[count:]
    return out


# ---------------------------------------------------------------- the footer

_INTS = {1: 4, 2: 8}  # physical type -> byte width (INT32, INT64)
_BYTE_ARRAY = 6
_SIGNED_INTS = {None, 15, 16, 17, 18}  # no converted type, INT_8 .. INT_64
_DICTIONARY = {2, 8}  # PLAIN_DICTIONARY, RLE_DICTIONARY
_ENCODINGS = {0, 2, 3, 4, 8}  # PLAIN, the dictionary ones, RLE and BIT_PACKED (levels)
_DECOMPRESS: dict = {
    0: None,
    2: lambda data, size: zlib.decompress(data, 47),  # GZIP (and zlib) headers
}


def _codec(number: int):
    """The decompressor of codec ``number`` (None: uncompressed); Unsupported if there is none."""
    if number in _DECOMPRESS:
        return _DECOMPRESS[number]
    if number not in (1, 6, 7):
        raise Unsupported(f"compression codec {number}")
    import cramjam

    if number == 1:
        found = lambda data, size: cramjam.snappy.decompress_raw(data)  # noqa: E731
    elif number == 6:
        found = lambda data, size: cramjam.zstd.decompress(data)  # noqa: E731
    else:
        found = lambda data, size: cramjam.lz4.decompress_block(data, output_len=size)  # noqa: E731
    _DECOMPRESS[number] = found
    return found


class Column:
    """A leaf column of a flat schema: ``kind`` is ``"int"`` or ``"string"``."""

    __slots__ = ("name", "physical", "kind", "optional")

    def __init__(self, name: str, physical: int, kind: str, optional: bool):
        self.name, self.physical, self.kind, self.optional = name, physical, kind, optional


def _column(element: dict) -> Column:
    name = element.get(4, b"").decode()
    physical, converted, logical = element.get(1), element.get(6), element.get(10)
    repetition = element.get(3, 0)
    if repetition not in (0, 1) or element.get(5):
        raise Unsupported("a nested or repeated column")
    if physical in _INTS and converted in _SIGNED_INTS:
        kind = "int"
        if logical is not None and (set(logical) != {10} or logical[10].get(2) is not True):
            kind = "other"
    elif (
        physical == _BYTE_ARRAY
        and converted in (None, 0)
        and (logical is None or set(logical) == {1})
        and (converted == 0 or logical is not None)
    ):  # UTF8 / STRING
        kind = "string"
    else:
        kind = "other"
    return Column(name, physical, kind, repetition == 1)


#: Arrow type ids (Schema.fbs) of the kinds: Int; Utf8 and LargeUtf8 (any other becomes ``"other"``)
_ARROW_KINDS = {"int": "int", "string": "string"}
_ARROW_TYPES = {2: "int", 5: "string", 20: "string"}


def _arrow_types(key_values: list) -> dict | None:
    """The kind (``"int"``, ``"string"``, else None) of each top-level field of the Arrow schema
    pyarrow stored in the file (``ARROW:schema``), which is the type pyarrow reads it as; None if
    there is none. Unsupported if it does not parse (a flatbuffer IPC message)."""
    import base64

    stored = next((kv.get(2) for kv in key_values if kv.get(1) == b"ARROW:schema"), None)
    if stored is None:
        return None
    buf = base64.b64decode(stored)
    at = 8 if buf[:4] == b"\xff\xff\xff\xff" else 4  # continuation marker, then the length
    buf = buf[at:]
    message = _table(buf, int.from_bytes(buf[:4], "little"))
    if _scalar(buf, message, 1, "B") != 1:  # header type: Schema
        raise Unsupported("an Arrow schema message of another kind")
    schema = _offset(buf, message, 2)
    kinds = {}
    fields = _offset(buf, schema, 1)
    for i in range(int.from_bytes(buf[fields : fields + 4], "little")):
        at = fields + 4 + 4 * i
        field = _table(buf, at + int.from_bytes(buf[at : at + 4], "little"))
        name = _offset(buf, field, 0)
        name = buf[name + 4 : name + 4 + int.from_bytes(buf[name : name + 4], "little")].decode()
        extension = _field_at(buf, field, 6) is not None  # custom metadata: maybe an extension type
        kinds[name] = None if extension else _ARROW_TYPES.get(_scalar(buf, field, 2, "B"))
    return kinds


def _table(buf: bytes, at: int) -> int:
    """A flatbuffer table at ``at`` (its position; the vtable is found through it)."""
    if at + 4 > len(buf):
        raise Unsupported("an Arrow schema past its end")
    return at


def _field_at(buf: bytes, table: int, index: int) -> int | None:
    """The position of field ``index`` of a flatbuffer table, None if absent."""
    vtable = table - struct.unpack_from("<i", buf, table)[0]
    size = struct.unpack_from("<H", buf, vtable)[0]
    if 4 + 2 * index + 2 > size:
        return None
    offset = struct.unpack_from("<H", buf, vtable + 4 + 2 * index)[0]
    return table + offset if offset else None


def _scalar(buf: bytes, table: int, index: int, kind: str):
    at = _field_at(buf, table, index)
    return 0 if at is None else struct.unpack_from("<" + kind, buf, at)[0]


def _offset(buf: bytes, table: int, index: int) -> int:
    """Where an offset field (a table, vector or string) of a flatbuffer table points."""
    at = _field_at(buf, table, index)
    if at is None:
        raise Unsupported("an Arrow schema without a field it needs")
    return at + struct.unpack_from("<I", buf, at)[0]


class ParquetFile:
    """The footer of a Parquet file with a flat schema: :attr:`columns` by name, :attr:`row_groups`
    (their row counts and column chunks). Unsupported if the file is not one this module reads."""

    def __init__(self, path):
        self.path = str(path)
        try:
            with open(self.path, "rb") as f:
                f.seek(0, 2)
                size = f.tell()
                if size < 12:
                    raise Unsupported("too short")
                f.seek(0)
                head = f.read(4)
                f.seek(size - 8)
                tail = f.read(8)
                length = int.from_bytes(tail[:4], "little")
                if head != b"PAR1" or tail[4:] != b"PAR1" or length > size - 12:
                    raise Unsupported("not a plain Parquet file")
                f.seek(size - 8 - length)
                footer = f.read(length)
            meta, _ = _struct(footer, 0)
            self._read(meta)
        except Unsupported:
            raise
        except (
            OSError,
            ValueError,
            IndexError,
            KeyError,
            TypeError,
            AttributeError,
            UnicodeDecodeError,
            RecursionError,
            struct.error,
        ) as e:
            raise Unsupported(f"footer: {e}") from None

    def _read(self, meta: dict) -> None:
        if 8 in meta or 9 in meta:
            raise Unsupported("encryption")
        schema = meta[2]
        if not schema or schema[0].get(5, 0) != len(schema) - 1:
            raise Unsupported("a nested schema")
        columns = [_column(e) for e in schema[1:]]
        arrow = _arrow_types(meta.get(5, []))
        for c in columns:  # the Arrow type pyarrow gives a column overrides what Parquet says
            if arrow is not None and arrow.get(c.name) != _ARROW_KINDS.get(c.kind):
                c.kind = "other"
        self.columns = {c.name: c for c in columns}
        if len(self.columns) != len(columns):
            raise Unsupported("two columns of one name")
        self.names = [c.name for c in columns]
        self.row_groups = []
        for group in meta.get(4, []):
            chunks = {}
            for name, chunk in zip(self.names, group[1]):
                if 1 in chunk or 3 not in chunk or 8 in chunk or 9 in chunk:
                    raise Unsupported("a column chunk in another file or encrypted")
                chunks[name] = chunk[3]
            if len(chunks) != len(self.names):
                raise Unsupported("a row group without every column")
            self.row_groups.append((group[3], chunks))
        self.num_rows = meta[3]

    def check(self, name: str, kind: str) -> None:
        """Unsupported unless column ``name`` is of ``kind`` (``"int"``, ``"string"``) and every
        chunk of it uses encodings and a codec this module reads."""
        column = self.columns.get(name)
        if column is None or column.kind != kind:
            raise Unsupported(f"column {name!r}")
        for _, chunks in self.row_groups:
            meta = chunks[name]
            if meta.get(1) != column.physical or not _ENCODINGS.issuperset(meta.get(2, ())):
                raise Unsupported(f"the encodings of column {name!r}")
            _codec(meta.get(4, 0))

    def min_of(self, name: str) -> int | None:
        """The smallest value of integer column ``name`` from the row-group statistics, if every
        row group has them (None otherwise), as pyarrow reads them."""
        column = self.columns[name]
        found = []
        for _, chunks in self.row_groups:
            stats = chunks[name].get(12)
            if stats is None:
                return None
            low, high = (stats.get(6), stats.get(5)) if 6 in stats or 5 in stats else (stats.get(2), stats.get(1))
            if low is None or high is None or len(low) != _INTS[column.physical]:
                return None
            found.append(int.from_bytes(low, "little", signed=True))
        return min(found) if found else None

    def batches(
        self,
        names: list,
        convert: dict,
        batch_size: int,
        glued: dict | None = None,
        align: str | None = None,
        runs: tuple = (),
    ) -> Iterator[tuple]:
        """Lists of up to ``batch_size`` values of each column of ``names`` (None for a null), in
        row order; for each whether it may hold a null; and for each the page (the list of a page's
        values that :func:`_pages` yielded) its values were all taken from, else None.
        ``convert[name]`` (if given) maps the non-null values of a string column's dictionary or
        plain page to what the lists then hold (``convert[name](values, names)``, ``names``: True if
        the values are known to be names ``[a-z][A-Za-z0-9_']*``); before that, ``glued[name]`` (if
        given) is offered the cells of such a page glued together when :func:`glued_cells` finds
        them (``glued[name](raw, count)``: what the page then holds, or None to go on as without it).
        ``align``: a column whose pages no batch straddles. The integers of a column of ``runs``
        come as a ``range`` where they are consecutive (``5, 6, 7``), else as a list.
        Corrupt if the data does not decode."""
        glued = glued or {}
        with open(self.path, "rb") as f:
            for rows, chunks in self.row_groups:
                readers = [
                    _Rows(_pages(f, self.columns[n], chunks[n], convert.get(n), glued.get(n), n in runs)) for n in names
                ]
                aligned = readers[names.index(align)] if align in names else None
                left = rows
                while left > 0:
                    size = min(batch_size, left)
                    if aligned is not None:
                        size = min(size, aligned.left())
                    yield [r.take(size) for r in readers], [r.nulls for r in readers], [r.source for r in readers]
                    left -= size
                for r in readers:
                    r.finish()


class _Rows:
    """Takes rows from a column chunk's pages."""

    __slots__ = ("pages", "page", "pos", "nulls", "source")

    def __init__(self, pages: Iterator[tuple]):
        self.pages, self.page, self.pos = pages, [], 0
        self.nulls = False  # whether a page so far held a null
        self.source = None  # the page the rows taken last all came from, if one did

    def _next(self):
        page, nulls = next(self.pages, (None, False))
        if page is None:
            raise Corrupt("fewer values than rows")
        self.nulls = self.nulls or nulls
        return page

    def left(self) -> int:
        """The rows left in the current page (the next one if it is used up)."""
        while self.pos >= len(self.page):
            self.page, self.pos = self._next(), 0
        return len(self.page) - self.pos

    def take(self, size: int):
        page, pos = self.page, self.pos
        while pos >= len(page) and size:
            page, pos = self._next(), 0
        if pos + size <= len(page):
            self.source = page
            if pos == 0 and len(page) == size:
                self.page, self.pos = [], 0
                return page
            self.page, self.pos = page, pos + size
            return page[pos : pos + size]
        self.source = None
        pieces = [page[pos:]]
        got = len(pieces[0])
        while got < size:
            page = self._next()
            pieces.append(page[: size - got])
            got += len(pieces[-1])
        self.page, self.pos = page, len(pieces[-1])
        return _joined(pieces)

    def finish(self) -> None:
        if self.pos < len(self.page) or next(self.pages, None) is not None:
            raise Corrupt("more values than rows")


def _joined(pieces: list):
    """The values of ``pieces`` (lists, tuples or ranges) in one list, or in one range if they are
    ranges that continue each other."""
    ranges = [p for p in pieces if p]
    if all(type(p) is range for p in ranges) and all(a.stop == b.start for a, b in zip(ranges, ranges[1:])):
        return range(ranges[0].start, ranges[-1].stop) if ranges else []
    return list(chain.from_iterable(pieces))


def _pages(
    f, column: Column, meta: dict, convert: Callable | None, glued: Callable | None = None, runs: bool = False
) -> Iterator[tuple]:
    """The values of each data page of a column chunk (None for nulls), and whether it held a null;
    ``runs``: consecutive integers of a page without nulls as a ``range``."""
    try:
        yield from _decoded(f, column, meta, convert, glued, runs)
    except (IndexError, KeyError, ValueError, TypeError, struct.error) as e:
        raise Corrupt(f"{type(e).__name__}: {e}") from None


def _decoded(
    f, column: Column, meta: dict, convert: Callable | None, glued: Callable | None = None, runs: bool = False
) -> Iterator[tuple]:
    """:func:`_pages`, raising what Python raises on data that does not decode."""
    if column.kind not in ("int", "string") or meta.get(1) != column.physical:
        raise Corrupt("column type")
    decompress = _codec(meta.get(4, 0))
    start = meta[9]
    dictionary_at = meta.get(11)
    if dictionary_at is not None and 0 < dictionary_at < start:
        start = dictionary_at
    total, lookup, memo = meta[5], None, {}
    seen = 0
    pages = _chunk_pages(f, start, meta[7])
    while seen < total:
        header, body = next(pages)
        kind, raw_size = header[1], header[2]
        if kind == 2:
            dict_header = header.get(7, {})
            if dict_header.get(2, 0) not in (0, 2):
                raise Corrupt("dictionary encoding")
            raw, memo = _inflate(decompress, body, raw_size), {}  # blocks map through this dictionary
            if convert is None and column.physical in _INTS:  # integers kept as machine words
                lookup = _int_array(raw, dict_header[1], column)
            elif (
                glued is not None
                and column.physical == _BYTE_ARRAY
                and raw.isascii()
                and (short := _lengths_apart(raw, dict_header[1], False)) is not None
            ):
                lookup = _Dictionary(raw, dict_header[1], short[1], column, convert, glued)
            else:
                lookup = _strings(raw, 0, dict_header[1], column, convert, glued)
            continue
        if kind == 0:
            page = header.get(5)
            if page is None:
                raise Corrupt("data page without its header")
            count, encoding = page[1], page[2]
            body = _inflate(decompress, body, raw_size)
            at = 0
            if column.optional:
                if page.get(3, 3) != 3:  # parquet-mr lists BIT_PACKED for the (absent) repetition levels
                    raise Corrupt("definition levels not RLE")
                length = int.from_bytes(body[:4], "little")
                defined = hybrid(body, 4, 4 + length, 1, count)
                at = 4 + length
        elif kind == 3:
            page = header.get(8)
            if page is None:
                raise Corrupt("data page without its header")
            count, nulls, encoding = page[1], page[2], page[4]
            levels = page[5] + page[6]
            if page[6] or (page[5] and not column.optional):
                raise Corrupt("repetition levels in a flat column")
            if column.optional:
                defined = [1] * count if nulls == 0 else hybrid(body, 0, page[5], 1, count)
            rest = body[levels:]
            body = _inflate(decompress, rest, raw_size - levels) if page.get(7, True) else rest
            at = 0
        else:
            continue  # an index page
        present = defined.count(1) if column.optional else count
        runs_here = runs and present == count and column.kind == "int"
        if encoding == 0:
            values = (
                _run(_int_array(body, present, column, at))
                if runs_here
                else _strings(body, at, present, column, convert, glued)
            )
        elif encoding in _DICTIONARY:
            if lookup is None:
                raise Corrupt("dictionary indices without a dictionary")
            width = body[at] if at < len(body) else 0
            if runs_here and type(lookup) is array:
                values = _looked_up(lookup, hybrid(body, at + 1, len(body), width, present) if present else [])
            elif type(lookup) is _Dictionary:
                values, lookup = lookup.page(hybrid(body, at + 1, len(body), width, present) if present else [])
            else:
                values = hybrid(body, at + 1, len(body), width, present, lookup, memo) if present else []
        else:
            raise Corrupt(f"encoding {encoding}")  # the footer lists them; the caller checks first
        if column.optional and present < count:
            it = iter(values)
            values = [next(it) if d else None for d in defined]
        seen += count
        yield values, present < count


class _Dictionary:
    """A dictionary page of short cells (:func:`_lengths_apart`) not converted yet: a data page whose
    indices are one run ``i, i + 1, ...`` (a column of distinct values) converts just its part, and
    keeps nothing; the first other page converts the whole dictionary, which is then the lookup."""

    __slots__ = ("raw", "count", "sizes", "convert")

    def __init__(self, raw: bytes, count: int, sizes: bytes, column: Column, convert, glued):
        self.raw, self.count, self.sizes = raw, count, sizes
        self.convert = lambda data, n: _strings(data, 0, n, column, convert, glued)

    def page(self, codes: list) -> tuple:
        """(the values of ``codes``, the lookup for the pages after this one: self, or the converted
        dictionary)."""
        n = len(codes)
        if not n:
            return [], self
        first = codes[0]
        if first + n <= self.count and _consecutive(codes):
            sizes = self.sizes
            start = 4 * first + sum(sizes[:first])
            return self.convert(self.raw[start : start + 4 * n + sum(sizes[first : first + n])], n), self
        lookup = self.convert(self.raw, self.count)
        try:
            return list(map(lookup.__getitem__, codes)), lookup
        except IndexError:
            raise Corrupt("dictionary index out of range") from None


def _chunk_pages(f, start: int, length: int) -> Iterator[tuple]:
    """(header, body) of each page of the column chunk of ``length`` bytes at ``start`` of file ``f``,
    read page by page (other columns read ``f`` in between); IndexError if a header does not parse
    within the chunk, Corrupt if a body runs past its end."""
    at, end = start, start + length
    while True:
        f.seek(at)
        ahead = min(_HEADER, end - at)
        head = f.read(ahead)
        while True:
            try:
                header, pos = _struct(head, 0)
                break
            except IndexError:
                if len(head) < ahead or ahead == end - at:
                    raise
                ahead = min(ahead * 16, end - at)
                head += f.read(ahead - len(head))
        size = header[3]
        if at + pos + size > end:
            raise Corrupt("page past the end of its column chunk")
        body = head[pos : pos + size]
        if len(body) < size:
            body += f.read(size - len(body))
            if len(body) != size:
                raise Corrupt("column chunk past the end of the file")
        at += pos + size
        yield header, body


#: bytes read ahead for a page header (more if it is longer: statistics of long strings)
_HEADER = 512


def _run(values: array):
    """``values`` as a ``range`` if they are consecutive integers ``v, v + 1, ...`` with v >= 0
    (:func:`_consecutive`), else as a list."""
    return range(values[0], values[0] + len(values)) if _consecutive(values) else values.tolist()


def _consecutive(values) -> bool:
    """Whether ``values`` (a range, an array, or a list of integers below 2**62) are ``v, v + 1,
    v + 2, ...`` with v >= 0 (at least one): the machine words of each block of them, read as one integer, are those of
    ``0, 1, 2, ...`` plus its first value times those of ``1, 1, 1, ...`` (no carries between the
    words, as none of them overflows)."""
    n = len(values)
    if not n:
        return False
    if type(values) is range:
        return values.step == 1
    first = values[0]
    if type(values) is not array:
        if first < 0 or values[-1] != first + n - 1 or first + n > 1 << 62:
            return False
        values = array("q", values)
    size = values.itemsize
    if first < 0 or values[-1] != first + n - 1 or first + n > 1 << (8 * size - 1):
        return False
    steps, ones = _words(values.typecode)
    data, order = values.tobytes(), sys.byteorder
    for start in range(0, n, _BLOCK):
        k = min(_BLOCK, n - start)
        if k < _BLOCK:
            mask = (1 << (8 * size * k)) - 1
            steps, ones = steps & mask, ones & mask
        if int.from_bytes(data[start * size : (start + k) * size], order) != steps + (first + start) * ones:
            return False
    return True


#: words checked at once by :func:`_consecutive`
_BLOCK = 4096


@functools.lru_cache(maxsize=4)
def _words(typecode: str) -> tuple:
    """The machine words of ``0, 1, ..., _BLOCK - 1`` and of as many ones, each read as one integer."""
    return tuple(
        int.from_bytes(array(typecode, values).tobytes(), sys.byteorder) for values in (range(_BLOCK), [1] * _BLOCK)
    )


def _looked_up(lookup: array, codes: list):
    """The integers of dictionary ``lookup`` at ``codes`` (:func:`_run`)."""
    first, n = (codes[0], len(codes)) if codes else (0, 0)
    if first + n <= len(lookup) and _consecutive(codes):
        return _run(lookup[first : first + n])
    try:
        return list(map(lookup.__getitem__, codes))
    except IndexError:
        raise Corrupt("dictionary index out of range") from None


def _strings(
    data: bytes, pos: int, count: int, column: Column, convert: Callable | None, glued: Callable | None
) -> list:
    """``count`` PLAIN values of ``column`` from ``data[pos:]`` through ``glued`` or ``convert``
    (:meth:`ParquetFile.batches`)."""
    if glued is not None and column.physical == _BYTE_ARRAY:
        raw = glued_cells(data, pos, count)
        found = glued(raw, count) if raw is not None else None
        if found is not None:
            return found
    values, names = _plain_names(data, pos, count, column)
    return convert(values, names) if convert is not None else values


def _inflate(decompress, body: bytes, size: int) -> bytes:
    if decompress is None:
        return body
    try:
        out = bytes(decompress(body, size))
    except Exception as e:  # each codec library raises its own errors
        raise Corrupt(f"decompression: {e}") from None
    if len(out) != size:
        raise Corrupt("decompressed page of the wrong size")
    return out


_PLUS_ONE = bytes([*range(1, 256), 0])
_last = itemgetter(-1)
_but_last = itemgetter(slice(None, -1))


def _int_array(data: bytes, count: int, column: Column, pos: int = 0) -> array:
    """``count`` PLAIN integers of ``column``'s type from ``data[pos:]`` as an array (a dictionary:
    a fifth of a list's memory)."""
    width = _INTS[column.physical]
    if pos + width * count > len(data):
        raise Corrupt("values past the end of their page")
    found = array("i" if width == 4 else "q")
    found.frombytes(memoryview(data)[pos : pos + width * count])  # no copy of the bytes first
    if not _LITTLE:
        found.byteswap()
    return found


def _plain(data: bytes, pos: int, count: int, column: Column) -> list:
    """``count`` PLAIN values of ``column``'s type from ``data[pos:]``."""
    return _plain_names(data, pos, count, column)[0]


def _plain_names(data: bytes, pos: int, count: int, column: Column) -> tuple:
    """:func:`_plain`, and True if the values are known to be names (``[a-z][A-Za-z0-9_']*``, the
    constants of the stream syntax, keywords included), else False (not known)."""
    if column.physical in _INTS:
        return _int_array(data, count, column, pos).tolist(), False
    names = [False]
    found = _ascii_cells(data, pos, count, names)
    if found is not None:
        return found, names[0]
    return _utf8_cells(data, pos, count), False


def _utf8_cells(data: bytes, pos: int, count: int) -> list:
    """PLAIN byte arrays of UTF-8 text, one by one."""
    out = []
    try:
        for _ in range(count):
            size = int.from_bytes(data[pos : pos + 4], "little")
            end = pos + 4 + size
            if end > len(data):
                raise Corrupt("values past the end of their page")
            out.append(data[pos + 4 : end].decode())
            pos = end
    except UnicodeDecodeError:
        raise Corrupt("invalid UTF-8 in a string column") from None
    return out


_PRINTABLE = bytes(range(32, 128))
_CONTROL = bytes(range(32))
_CONTROL_AS_ZERO = bytes([0] * 32) + bytes(range(32, 256))


def _lengths_apart(data: bytes, count: int, zeroed: bool = True) -> tuple | None:
    """``(zeroed, sizes)`` if the only control characters of ``data`` (PLAIN byte arrays, ``count``
    of them) are ``(length, 0, 0, 0)`` for each cell in order, none of length 0: ``data`` with those
    turned to zeros (if ``zeroed``, else None), and the lengths (bytes); else None."""
    control = data.translate(None, _PRINTABLE)
    if len(control) != 4 * count:
        return None
    sizes = control[::4]
    if control.count(0) != 3 * count or 0 in sizes:
        return None
    return data.translate(_CONTROL_AS_ZERO) if zeroed else None, sizes


def _short_cells(data: bytes, count: int, names: list | None = None) -> list | None:
    """PLAIN byte arrays of ASCII text without control characters, each shorter than 32 bytes,
    split with bytes and string methods only (None if they are not such). Their lengths' bytes
    are then the only control characters (:func:`_lengths_apart`); splitting at them (turned to
    four zeros) gives the cells, each checked against its length, which makes the split exact."""
    found = _lengths_apart(data, count)
    if found is None:
        return None
    zeroed, sizes = found
    cells = zeroed.decode("ascii").split("\x00\x00\x00\x00")
    if len(cells) != count + 1 or cells[0]:
        return None
    del cells[0]
    if bytes(map(len, cells)) != sizes:
        return None
    if names is not None:  # every cell a name: name characters only, a lowercase letter first
        names[0] = not zeroed.translate(None, _TOKEN_BYTES + b"\x00") and names_apart(zeroed[4:], b"\x00" * 4)
    return cells


def _ascii_cells(data: bytes, pos: int, count: int, names: list | None = None) -> list | None:
    """PLAIN byte arrays (4-byte lengths) of ASCII text, each shorter than 255 bytes and without
    zero bytes, split with string methods only (None if they are not such): splitting at the
    zero bytes of the lengths leaves each length's low byte at the end of the cell before, and
    each cell must be exactly as long as its length says (which makes the split exact)."""
    data = data[pos:] if pos else data
    if not count or not data.isascii():
        return None
    found = _short_cells(data, count, names)
    if found is not None:
        return found
    pieces = data.decode("ascii").split("\x00\x00\x00")
    if len(pieces) != count + 1 or len(pieces[0]) != 1:
        return None
    try:
        sizes = "".join(map(_last, pieces[:-1])).encode("ascii")
        lengths = bytes(map(len, pieces[1:]))
    except (IndexError, ValueError):  # an empty piece, or one of 256 characters or more
        return None
    if sizes[:-1].translate(_PLUS_ONE) != lengths[:-1] or sizes[-1] != lengths[-1] or b"\xff" in sizes:
        return None
    cells = list(map(_but_last, pieces[1:-1]))
    cells.append(pieces[-1])
    return cells


def glued_cells(data: bytes, pos: int, count: int) -> bytes | None:
    """The ``count`` PLAIN byte arrays at ``data[pos:]`` glued together (``p(a)q(b,c)``) if each is
    ASCII text without control characters, shorter than 32 bytes, and has one ``)``, at its end;
    else None. Their lengths' bytes are then the only control characters (:func:`_lengths_apart`),
    and where each byte is a control character, a ``)`` or another is exactly what the lengths say."""
    data = data[pos:] if pos else data
    if not count or not data.isascii():
        return None
    found = _lengths_apart(data, count, False)
    if found is None or data.translate(_KINDS) != _kinds(found[1]):
        return None
    return data.translate(None, _CONTROL)


#: a page's bytes by kind: control characters 1, ``)`` 2, any other 0
_KINDS = bytes([1] * 32 + [0] * 9 + [2] + [0] * 214)
#: the kinds of a cell of each length with a ``)`` at its end only, after its length
_CELL_KINDS = [b"\x01" * 4 + b"\x00" * (n - 1) + b"\x02" for n in range(32)]


class _FourCells(dict):
    """The kinds of four cells in a row, by their lengths' bytes read as one 32-bit integer."""

    def __missing__(self, key: int) -> bytes:
        if len(self) > 1 << 12:
            self.clear()
        found = self[key] = b"".join(map(_CELL_KINDS.__getitem__, key.to_bytes(4, sys.byteorder)))
        return found


_FOUR_CELLS = _FourCells()


def _kinds(sizes: bytes) -> bytes:
    """The kinds (:data:`_KINDS`) of PLAIN cells of lengths ``sizes`` (1 to 31) that each have a ``)``
    at their end only: one cell's repeated if all have one length, else four cells' at a time."""
    if sizes.count(sizes[0]) == len(sizes):
        return _CELL_KINDS[sizes[0]] * len(sizes)
    whole = len(sizes) & ~3
    found = b"".join(map(_FOUR_CELLS.__getitem__, memoryview(sizes[:whole]).cast("I")))
    return found + b"".join(map(_CELL_KINDS.__getitem__, sizes[whole:])) if whole < len(sizes) else found
