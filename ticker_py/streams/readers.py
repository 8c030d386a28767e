"""Stream readers: text, JSON Lines, CSV, Parquet and pandas DataFrames (docs/formats.md).

Every reader is a lazy generator of :class:`~ticker_py.streams.model.Record`: it yields a
record as soon as its input is complete and raises a located
:class:`~ticker_py.errors.StreamError` at the first bad record, after yielding every good
record before it. :func:`~ticker_py.streams.model.time_points` turns records into time points.
See ``docs/formats.md`` for the formats and the choices made where a format leaves room.
"""

from __future__ import annotations

import bisect
import csv
import json
import math
import operator
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..ast import Location
from ..errors import Diagnostic, StreamError, UsageError, with_excerpt
from ..syntax.ground_atoms import (
    _NAME,
    _RESERVED,
    _TOKEN_BYTES,
    AtomInterner,
    GroundSyntaxError,
    names_apart,
    parse_full,
    parse_ground_atom,
    parse_ground_term,
)
from ..values import SURROGATE, format_atom, format_term
from .model import Known, Record

__all__ = [
    "read_text",
    "read_jsonl",
    "read_csv",
    "read_parquet",
    "read_dataframe",
    "open_stream",
    "stream_format",
    "StreamChecker",
    "ORDER_COLUMNS",
    "STREAM_FORMATS",
    "MAX_LINE",
    "stream_error",
    "text_lines",
    "COMPRESSED",
]

#: Arrival-order columns of tables, by priority: the first one present orders the rows
#: of each time point.
ORDER_COLUMNS = ("c", "order", "seq")

_COMMENT = re.compile(r'"(?:\\.|[^"\\])*"|[%#]')
_TIME = re.compile(r"\s*(\S*?)\s*:")
_first = operator.itemgetter(0)


def stream_error(
    source: str, line: int, column: int, message: str, text: str | None = None, width: int = 1
) -> StreamError:
    """A StreamError at ``source:line:column`` (1-based), with a caret excerpt of ``text``."""
    diag = Diagnostic(message, Location(source, line, column, line, column + max(1, width)))
    if text is not None:
        diag = with_excerpt(diag, "\n" * (line - 1) + text)
    return StreamError(diag)


def _time_value(value, what: str = "time") -> int:
    """A time (or order key) from text, a table cell or a JSON value; ValueError if it is none."""
    if isinstance(value, str):
        text = value.strip()
        if re.fullmatch(r"-?[0-9]+", text):
            value = int(text)
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise ValueError(f"{what} must be a non-negative integer, found {value!r}")
    value = int(value)
    if value < 0:
        raise ValueError(f"negative {what} {value}")
    return value


def _parse_atom(text: str, source: str, line: int, interner: AtomInterner | None = None, column: int = 1) -> tuple:
    try:
        return interner.atom(text) if interner is not None else parse_ground_atom(text)
    except GroundSyntaxError as e:
        raise stream_error(source, line, column, f"atom '{text}': {e.message}") from None


def _parse_atoms(texts: list, source: str, line: int, interner: AtomInterner) -> tuple:
    """The atoms of ``texts`` (interned); the first bad one raises a located StreamError."""
    try:
        return interner.each(texts)
    except (GroundSyntaxError, TypeError):
        if not all(isinstance(x, str) for x in texts):
            raise stream_error(source, line, 1, "'atoms' must be a list of strings") from None
        return tuple(_parse_atom(x, source, line, interner) for x in texts)


def _known(interner: AtomInterner) -> Known | None:
    """What the interner learnt of the atoms it just split (for the checker and the driver)."""
    shape = interner.shape
    return Known(*shape) if shape is not None else None


#: The longest line (in bytes) a text, JSON Lines or CSV stream may have; see docs/formats.md.
MAX_LINE = 1 << 26


def _read_lines(f, source: str, limit: int | None = None) -> Iterator[str]:
    """Decoded lines of a binary (or text) file object, one ``readline`` at a time (pipes stay
    live). Invalid UTF-8, a line longer than ``limit`` bytes and a read error (a corrupt
    compressed file) raise a StreamError located at their line; a leading byte-order mark is dropped.
    """
    number, limit = 0, limit or MAX_LINE
    while True:
        try:
            raw = f.readline(limit + 1)
        except UnicodeDecodeError as e:  # a text-mode file object given by a caller
            raise stream_error(source, number + 1, 1, f"invalid UTF-8 ({e.reason}): not a text stream") from None
        except (OSError, EOFError) + _DECOMPRESS_ERRORS as e:
            raise stream_error(source, number + 1, 1, f"cannot read the stream: {e}") from None
        if not raw:
            return
        number += 1
        if len(raw) > limit and raw[-1:] not in (b"\n", "\n"):
            raise stream_error(source, number, 1, f"line longer than {limit} bytes (the limit for one line)")
        if type(raw) is bytes:
            try:
                raw = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                column = len(raw[: e.start].decode("utf-8")) + 1
                raise stream_error(
                    source, number, column, f"invalid UTF-8 (byte 0x{raw[e.start]:02x}): not a text stream"
                ) from None
        if number == 1 and raw.startswith("\ufeff"):
            raw = raw[1:]
        yield raw


def text_lines(lines_or_file, source: str) -> Iterable[str]:
    """Lines of a file object (binary or text; see :func:`_read_lines`), of a string, or of a list."""
    if isinstance(lines_or_file, str):
        return lines_or_file.splitlines()
    if hasattr(lines_or_file, "readline"):
        return _read_lines(getattr(lines_or_file, "buffer", lines_or_file), source)
    return lines_or_file


# ---------------------------------------------------------------- text and JSON Lines


def _strip_comment(line: str) -> str:
    """Cut a ``%`` or ``#`` comment, but not inside a quoted string."""
    if "%" not in line and "#" not in line:
        return line
    for m in _COMMENT.finditer(line):
        if m.group() in "%#":
            return line[: m.start()]
    return line


def read_text(lines_or_file, source: str = "<stdin>") -> Iterator[Record]:
    """Read the text format ``T: atom, atom; atom`` one line at a time.

    ``lines_or_file`` is a file object (read line by line, so pipes stay live), an
    iterable of lines, or a whole string. ``T:`` alone is a record without atoms.
    """
    last = None
    interner = AtomInterner()
    for number, raw in enumerate(text_lines(lines_or_file, source), 1):
        raw = raw.rstrip("\r\n")
        line = _strip_comment(raw)
        if not line.strip():
            continue
        m = _TIME.match(line)
        if m is None:
            col = len(line) - len(line.lstrip()) + 1
            raise stream_error(source, number, col, "expected 'T: atoms' (a time point, ':', then atoms)", raw)
        col = m.start(1) + 1
        try:
            t = _time_value(m.group(1))
        except ValueError as e:
            raise stream_error(source, number, col, str(e), raw, len(m.group(1))) from None
        if last is not None and t < last:
            raise stream_error(source, number, col, f"time {t} after time {last}", raw, len(m.group(1)))
        try:
            atoms = interner.atoms(line, m.end())
        except GroundSyntaxError as e:
            raise stream_error(source, number, e.column + 1, e.message, raw) from None
        last = t
        yield Record(t, atoms, source, number, _known(interner))


def read_jsonl(lines_or_file, source: str = "<stdin>") -> Iterator[Record]:
    """Read JSON Lines ``{"t": 12, "atoms": ["alpha(20)"]}``; ``{"t": 12}`` is a heartbeat.

    Blank lines are skipped; keys other than ``t`` and ``atoms`` are refused.
    """
    last = None
    interner = AtomInterner()
    for number, raw in enumerate(text_lines(lines_or_file, source), 1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as e:
            raise stream_error(source, number, e.colno, f"bad JSON: {e.msg}") from None
        if not isinstance(obj, dict) or "t" not in obj:
            raise stream_error(source, number, 1, 'expected an object {"t": T, "atoms": [...]}')
        if len(obj) > 2 or (len(obj) == 2 and "atoms" not in obj):
            unknown = sorted(set(obj) - {"t", "atoms"})
            raise stream_error(source, number, 1, f"unknown key '{unknown[0]}' (expected 't' and 'atoms')")
        try:
            t = _time_value(obj["t"])
        except ValueError as e:
            raise stream_error(source, number, 1, str(e)) from None
        if last is not None and t < last:
            raise stream_error(source, number, 1, f"time {t} after time {last}")
        texts = obj.get("atoms", [])
        if not isinstance(texts, list):
            raise stream_error(source, number, 1, "'atoms' must be a list of strings")
        if "\\u" in raw:  # an escape may stand for a lone surrogate, which no output can encode
            _refuse_surrogates(texts, source, number)
        atoms = _parse_atoms(texts, source, number, interner)
        last = t
        yield Record(t, atoms, source, number, _known(interner))


def _refuse_surrogates(texts: list, source: str, number: int) -> None:
    """A JSON escape such as ``\\ud800`` that leaves a lone surrogate in an atom text is refused
    (located): it is no character, and neither clingo nor any writer can encode it."""
    for text in texts:
        if isinstance(text, str) and SURROGATE.search(text):
            raise stream_error(
                source, number, 1, f"atom {ascii(text)}: a lone surrogate (\\ud800-\\udfff) is no character"
            )


# ---------------------------------------------------------------- tables


def _missing(value) -> bool:
    """An empty atom cell (None, NaN or blank): the row is a heartbeat."""
    return (
        value is None
        or (isinstance(value, float) and math.isnan(value))
        or (isinstance(value, str) and not value.strip())
    )


def _check_columns(columns, source: str, args: bool = False) -> str | None:
    """Refuse tables without ``t`` and ``atom`` (with ``args``, a ``predicate`` column may stand
    for ``atom``: :func:`_atom_columns`); return the order column, if any."""
    for name in ("t", "atom"):
        if name not in columns and not (args and name == "atom" and PREDICATE in columns):
            found = ", ".join(map(str, columns)) or "none"
            raise stream_error(source, 1, 1, f"missing column '{name}' (columns: {found})")
    columns = list(columns)
    for name in ("t", "atom", PREDICATE, *ORDER_COLUMNS):
        if columns.count(name) > 1:
            raise stream_error(source, 1, 1, f"column '{name}' appears {columns.count(name)} times")
    return next((c for c in ORDER_COLUMNS if c in columns), None)


#: The predicate column of the predicate-and-arguments layout; its arguments are ``a1``, ``a2``, ...
PREDICATE = "predicate"


def _atom_columns(columns) -> list:
    """The columns a table's atoms come from: ``["atom"]``, or without an ``atom`` column
    ``["predicate", "a1", ..., "ak"]`` (k: the longest run ``a1``, ``a2``, ... present)."""
    if "atom" in columns or PREDICATE not in columns:
        return ["atom"]
    k = 0
    while f"a{k + 1}" in columns:
        k += 1
    return [PREDICATE, *(f"a{i}" for i in range(1, k + 1))]


#: the shape of a time point without atoms yet: no pairs, distinct
_NO_ATOMS = (frozenset(), True)


class _Grouper:
    """Groups table rows into one Record per time point (t must not decrease).

    Rows come one by one (:meth:`row`, any cell types) or as columnar chunks (:meth:`chunk`,
    numpy arrays, the fast path); both give the same records and errors. With an ``order``
    column the rows of a time point are sorted by their key (stable). On an error the time
    point collected so far is yielded (if it has atoms) before the error is raised.
    """

    def __init__(self, order: str | None, interner: AtomInterner):
        self.order, self.interner = order, interner
        self.t, self.where, self.atoms, self.keys = None, ("", 0), [], []
        self.ranged: range | None = None  # the keys of the time point, while they are one run (keys empty)
        self.shape: tuple | None = _NO_ATOMS  # (pairs, distinct) of the time point's atoms; None: unknown
        self.last: tuple = ()  # the atoms of the record flushed last

    def _flush(self) -> Record:
        atoms, keys = self.atoms, self.keys
        if self.order and len(atoms) > 1 and keys != sorted(keys):  # mostly in order already: O(n)
            atoms = [atoms[i] for i in sorted(range(len(keys)), key=keys.__getitem__)]  # stable
        known = Known(self.shape[0], bool(self.shape[1])) if self.shape is not None and atoms else None
        atoms = tuple(atoms)
        if atoms == self.last:  # a time point that repeats the one before: the same tuple again,
            atoms = self.last  # which the checker and the driver do not look at again
        self.last = atoms
        return Record(self.t, atoms, *self.where, known)

    def _start(self, t, source, line):
        record = self._flush() if self.t is not None else None
        self.t, self.where, self.atoms, self.keys, self.shape = t, (source, line), [], [], _NO_ATOMS
        self.ranged = None
        return record

    def _keys(self, keys) -> None:
        """Add the order keys of rows about to join the time point: a ``range`` that starts the time
        point's keys or continues their run is kept as that run (sorted already); else a list."""
        if type(keys) is range:
            if not self.atoms:
                self.ranged = keys
                return
            if self.ranged is not None and self.ranged.stop == keys.start:
                self.ranged = range(self.ranged.start, keys.stop)
                return
        if self.ranged is not None:
            self.keys, self.ranged = list(self.ranged), None
        self.keys.extend(keys)

    def _learn(self, shape: tuple | None, first: bool) -> None:
        """Atoms of a chunk whose shape (covering pairs, distinct) is ``shape`` joined the time
        point (``first``: as its first atoms): pairs add up, distinct (True) holds for one chunk
        only; a distinct that is some other true object (the page the atoms came from, all of
        which differ) holds on while the time point's chunks all come with that same object."""
        if first or shape is None:
            self.shape = shape
        elif self.shape is not None:
            same = shape[1] is self.shape[1] and shape[1] is not True
            self.shape = (self.shape[0] | shape[0], shape[1] if same else False)

    def failed(self) -> Iterator[Record]:
        """What to yield before re-raising an error."""
        if self.atoms:
            yield self._flush()

    def close(self) -> Iterator[Record]:
        if self.t is not None:
            yield self._flush()

    def row(self, source, line, t, cell, key) -> Iterator[Record]:
        """One row; a bad one raises a located StreamError."""
        try:
            t = _time_value(t)
            key = _time_value(key, f"column '{self.order}'") if self.order else None
        except ValueError as e:
            raise stream_error(source, line, 1, str(e)) from None
        if t != self.t:
            if self.t is not None and t < self.t:
                raise stream_error(source, line, 1, f"time {t} after time {self.t}")
            record = self._start(t, source, line)
            if record is not None:
                yield record
        if not _missing(cell):
            atom = _parse_atom(str(cell).strip(), source, line, self.interner)
            self._keys([key])
            self.atoms.append(atom)
            self.shape = None

    def chunk(self, source, first_line, t, codes, keys, lookup) -> Iterator[Record]:
        """Rows ``first_line, first_line + 1, ...`` at once (the fast path): ``t``, ``codes``
        and ``keys`` are numpy arrays (keys None without an order column); ``codes`` index the
        distinct atom texts ``lookup`` (-1: an empty cell), so each text is parsed once."""
        import numpy as np

        if not _integers(t, keys):
            yield from self._rows(source, first_line, t, keys, [lookup[c] if c >= 0 else None for c in codes.tolist()])
            return
        converted, bad = self._convert(lookup)
        converted.append(None)  # code -1, an empty cell, takes the last one
        bad_rows = np.flatnonzero(np.isin(codes, bad)) if bad else ()
        yield from self._accept(
            source,
            first_line,
            t,
            keys,
            list(map(converted.__getitem__, codes.tolist())),
            bad_rows,
            lambda i: lookup[codes[i]] if codes[i] >= 0 else None,
        )

    def texts(self, source, first_line, t, texts: list, keys) -> Iterator[Record]:
        """Like :meth:`chunk`, for the atom cells ``texts`` themselves (strings or None): each
        distinct text of the chunk is converted once."""
        import numpy as np

        if not _integers(t, keys):
            yield from self._rows(source, first_line, t, keys, texts)
            return
        sample = texts[:: len(texts) // 1024 + 1]  # spread over the chunk: atoms recur across time points
        if len(set(sample)) * 4 > len(sample) * 3:  # mostly distinct texts: numbering them costs more than it saves
            atoms, bad = self._convert(texts)
            bad_rows = np.asarray(bad, dtype=np.int64)
        else:
            distinct = list(dict.fromkeys(texts))
            converted, bad = self._convert(distinct)
            atoms = list(map(dict(zip(distinct, converted)).__getitem__, texts))
            wrong = {distinct[i] for i in bad}
            bad_rows = np.asarray([i for i, x in enumerate(texts) if x in wrong] if wrong else (), dtype=np.int64)
        yield from self._accept(source, first_line, t, keys, atoms, bad_rows, texts.__getitem__)

    def parsed(self, source, first_line, t, keys, atoms: list, shape: tuple, cell) -> Iterator[Record]:
        """Like :meth:`chunk`, for rows whose atoms are parsed already (none empty, none bad):
        ``shape`` is theirs (covering pairs, distinct); ``cell(i)`` is row i's text."""
        if not _integers(t, keys):
            yield from self._rows(source, first_line, t, keys, [cell(i) for i in range(len(atoms))])
            return
        yield from self._accept(source, first_line, t, keys, atoms, (), cell, shape)

    def _rows(self, source, first_line, t, keys, cells: list) -> Iterator[Record]:
        """Row by row (times or keys that are not integer arrays: row() says what is wrong)."""
        key_list = keys.tolist() if keys is not None else [None] * len(cells)
        for i, (time, cell, key) in enumerate(zip(t.tolist(), cells, key_list)):
            yield from self.row(source, first_line + i, time, cell, key)

    def _accept(
        self, source, first_line, t, keys, atoms: list, bad_rows, cell, shape: tuple | None = None
    ) -> Iterator[Record]:
        """Group rows whose atoms are ``atoms`` (None: an empty cell) into records, up to the first
        bad row (a bad time or key, or a row of ``bad_rows``), which row() then reports with its
        cell ``cell(i)``. ``shape``: that of ``atoms`` (covering pairs, distinct), if known."""
        import numpy as np

        n = len(t)
        stop = n  # the first row that is not accepted: row() raises its error
        checks = [np.flatnonzero(t < 0), np.flatnonzero(t[1:] < t[:-1]) + 1, bad_rows]
        if keys is not None:
            checks.append(np.flatnonzero(keys < 0))
        if n and self.t is not None and t[0] < self.t:
            stop = 0
        for found in checks:
            if len(found):
                stop = min(stop, int(found[0]))
        if stop:
            cuts = [0, *(np.flatnonzero(t[1:stop] != t[: stop - 1]) + 1).tolist(), stop]
            yield from self._runs(
                source,
                first_line,
                cuts,
                t[:stop].tolist(),
                keys[:stop].tolist() if keys is not None else None,
                atoms,
                stop,
                shape,
            )
        if stop < n:
            yield from self.row(
                source, first_line + stop, t[stop].item(), cell(stop), None if keys is None else keys[stop].item()
            )

    def _runs(
        self,
        source,
        first_line,
        cuts: list,
        values: list,
        key_list,
        atoms: list,
        stop: int,
        shape: tuple | None,
        heartbeats: bool = True,
    ) -> Iterator[Record]:
        """Add rows ``0 .. stop - 1`` (times ``values``, keys ``key_list``, atoms ``atoms``, None for a
        heartbeat, if ``heartbeats``) to the time points, which start at the rows of ``cuts`` (ending
        with ``stop``)."""
        heartbeats = heartbeats and None in (atoms if stop == len(atoms) else atoms[:stop])
        for a, b in zip(cuts, cuts[1:]):
            if values[a] != self.t:
                record = self._start(values[a], source, first_line + a)
                if record is not None:
                    yield record
            before = len(self.atoms)
            if heartbeats:
                kept = [i for i in range(a, b) if atoms[i] is not None]
                if key_list is not None:
                    self._keys([key_list[i] for i in kept])
                self.atoms.extend(atoms[i] for i in kept)
            else:
                if key_list is not None:
                    self._keys(key_list[a:b])
                self.atoms.extend(atoms[a:b])
            if len(self.atoms) > before:
                self._learn(shape, not before)

    def lists(
        self,
        source,
        first_line,
        t: list,
        keys: list | None,
        atoms: list,
        shape: tuple | None,
        nulls: bool = True,
        empty: bool = True,
        bad: bool = True,
    ) -> Iterator[Record]:
        """Like :meth:`chunk`, for plain lists (the pyarrow-free Parquet reader): ``t`` and ``keys``
        hold integers or None (only if ``nulls``; ``keys`` may be a ``range``), ``atoms`` atoms, None
        (an empty cell; only if ``empty``) or :class:`_Bad` cells (only if ``bad``); ``shape`` is
        that of the atoms, if known."""
        n = len(t)
        if nulls and (None in t or (keys is not None and type(keys) is not range and None in keys)):
            for i in range(n):
                yield from self._cell_row(source, first_line + i, t[i], atoms[i], None if keys is None else keys[i])
            return
        stop = n
        if n and (t[0] < 0 or (self.t is not None and t[0] < self.t)):
            stop = 0
        elif t != sorted(t):
            stop = next(i for i in range(1, n) if t[i] < t[i - 1])
        if keys is not None and n and (keys[0] if type(keys) is range else min(keys)) < 0:
            stop = min(stop, next(i for i, k in enumerate(keys) if k < 0))
        if bad:
            stop = min(stop, next((i for i, a in enumerate(atoms) if type(a) is _Bad), n))
        if stop:
            cuts, a = [0], 0
            while a < stop:
                a = bisect.bisect_right(t, t[a], a, stop)
                cuts.append(a)
            yield from self._runs(source, first_line, cuts, t, keys, atoms, stop, shape, empty)
        if stop < n:
            yield from self._cell_row(
                source, first_line + stop, t[stop], atoms[stop], None if keys is None else keys[stop]
            )

    def _cell_row(self, source, line, t, atom, key) -> Iterator[Record]:
        """:meth:`row` for a cell of :meth:`lists`; a :class:`_Bad` cell with an ``error`` raises it."""
        error = atom.error if type(atom) is _Bad else None
        yield from self.row(source, line, t, None if error else _cell_text(atom), key)
        if error is not None:
            raise stream_error(source, line, 1, error)

    def _convert(self, texts) -> tuple:
        """Atoms of ``texts`` (None for an empty cell) and the indices of those that do not parse."""
        if texts:
            out, cells = [], self.interner.cells
            try:
                for i in range(0, len(texts), 4096):  # all of one shape: split a piece at once
                    found = cells(texts[i : i + 4096])
                    if found is None:
                        break
                    out += found
                else:
                    return out, []
            except TypeError:  # a cell that is not a string (None: an empty cell)
                pass
        out, bad = [], []
        atom = self.interner.atom
        for i, text in enumerate(texts):
            if _missing(text):
                out.append(None)
                continue
            try:
                out.append(atom(str(text).strip()))
            except GroundSyntaxError:
                out.append(None)
                bad.append(i)
        return out, bad


def _integers(t, keys) -> bool:
    """Whether the time (and order key) columns are integer arrays."""
    return t.dtype.kind in "iu" and (keys is None or keys.dtype.kind in "iu")


def _table_records(rows: Iterable[tuple], order: str | None) -> Iterator[Record]:
    """Group rows ``(source, line, t, atom text, order key)`` into one Record per time point
    (see :class:`_Grouper`)."""
    grouper = _Grouper(order, AtomInterner())
    try:
        for row in rows:
            yield from grouper.row(*row)
    except StreamError:
        yield from grouper.failed()
        raise
    yield from grouper.close()


def read_csv(path_or_file, source: str | None = None) -> Iterator[Record]:
    """Read a CSV file with a header and columns ``t``, ``atom`` (and maybe ``c``/``order``/``seq``).

    Streamed row by row: rows must come in non-decreasing t; an order column sorts the
    rows of each time point. An empty atom cell is a heartbeat. Lines count from the header (1).
    ``path_or_file`` is a path or a file object (stdin); a byte-order mark is skipped.
    """
    if hasattr(path_or_file, "readline"):
        yield from _read_csv(path_or_file, source or "<stdin>")
        return
    source = source or str(path_or_file)
    with open(path_or_file, "rb") as f:
        yield from _read_csv(f, source)


def _read_csv(f, source: str) -> Iterator[Record]:
    reader = csv.reader(text_lines(f, source))
    try:
        header = [h.strip() for h in next(reader, [])]
    except csv.Error as e:
        raise stream_error(source, reader.line_num, 1, f"bad CSV: {e}") from None
    order = _check_columns(header, source)
    index = [header.index(c) for c in ("t", "atom", order or "t")]

    def rows():
        while True:
            try:
                row = next(reader, None)
            except csv.Error as e:
                raise stream_error(source, reader.line_num, 1, f"bad CSV: {e}") from None
            if row is None:
                return
            if not row:
                continue
            if len(row) != len(header):
                raise stream_error(source, reader.line_num, 1, f"expected {len(header)} fields, found {len(row)}")
            yield (source, reader.line_num, *(row[i] for i in index))

    yield from _table_records(rows(), order)


def read_parquet(path, source: str | None = None, batch_size: int = 65536) -> Iterator[Record]:
    """Read a Parquet file or a (hive-partitioned) Parquet directory in batches.

    Memory stays bounded by one batch plus one time point. A directory is read fragment
    by fragment, ordered by each fragment's smallest t (from partition keys or row-group
    statistics; path order if some are unknown); t must not decrease across the whole
    stream. A record's line is its 1-based row number within its file, and its source is
    ``source`` (default: the path) for a single file, the file's path within a directory.
    Each distinct atom text of a dictionary (or of a batch) is parsed once (and interned
    across batches). A file that is not Parquet (also a stray
    file in a directory), a corrupt or truncated one, and columns of the wrong type are
    refused with an error located at that file.

    Files whose every part :mod:`~ticker_py.streams.parquet_pages` decodes are read without
    pyarrow; the others (and a file whose data turns out not to decode) with pyarrow.
    """
    where = source or str(path)
    plan = _pages_plan(path, where)
    if plan is None:
        yield from _read_parquet_arrow(path, where, batch_size)
        return
    order, atom_columns, files = plan
    columns = ["t", *atom_columns] + ([order] if order else [])
    grouper = _Grouper(order, AtomInterner())
    try:
        for name, pf, keys in files:
            yield from _pages_file(grouper, pf, name, keys, columns, atom_columns, batch_size)
    except StreamError:
        yield from grouper.failed()
        raise
    yield from grouper.close()


def _read_parquet_arrow(path, where: str, batch_size: int) -> Iterator[Record]:
    """:func:`read_parquet` with pyarrow."""
    if Path(path).is_file():
        order, atom_columns, parts = _parquet_file(path, where, batch_size)
    else:
        order, atom_columns, parts = _parquet_directory(path, where, batch_size)
    grouper = _Grouper(order, AtomInterner())
    try:
        for name, batches in parts:
            yield from _arrow_batches(grouper, batches, order, name, atom_columns)
    except StreamError:
        yield from grouper.failed()
        raise
    yield from grouper.close()


def _arrow_batches(
    grouper: _Grouper, batches, order: str | None, name: str, atom_columns: list, skip: int = 0
) -> Iterator[Record]:
    """The rows of one file's pyarrow batches (from row ``skip`` + 1 on) into ``grouper``, their atoms
    from ``atom_columns`` (:func:`_atom_columns`). A batch that does not decode is reported at its
    first row, or at row ``skip`` + 1 if that is later."""
    import pyarrow as pa

    number = 1
    while True:
        try:
            batch = next(batches, None)
        except (pa.ArrowException, OSError) as e:
            raise stream_error(name, max(number, skip + 1), 1, f"corrupt Parquet data ({e})") from None
        if batch is None:
            break
        rows = batch.num_rows
        if number + rows <= skip + 1:
            number += rows
            continue
        if number <= skip:
            batch, number = batch.slice(skip + 1 - number), skip + 1
        convert = _parquet_batch if atom_columns == ["atom"] else _args_batch
        invalid = [(row, c) for c in atom_columns for row in [_invalid_utf8_row(batch.column(c))] if row is not None]
        if invalid:
            bad, column = min(invalid)
            if bad:
                yield from convert(grouper, batch.slice(0, bad), order, name, number, atom_columns)
            what = "an atom cell" if column == "atom" else f"a cell of column '{column}'"
            raise stream_error(name, number + bad, 1, f"{what} that is not valid UTF-8")
        yield from convert(grouper, batch, order, name, number, atom_columns)
        number += batch.num_rows


def _invalid_utf8_row(column) -> int | None:
    """The index of the first cell of a string column that is not valid UTF-8 (pyarrow reads such
    bytes from a Parquet file, and fails only when it makes Python strings of them), else None."""
    import pyarrow as pa

    if not (
        pa.types.is_string(column.type) or pa.types.is_large_string(column.type) or pa.types.is_dictionary(column.type)
    ):
        return None
    try:
        column.validate(full=True)
        return None
    except pa.ArrowInvalid:
        pass
    for i in range(len(column)):
        try:
            column[i].as_py()
        except UnicodeDecodeError:
            return i
    return None


class _Bad:
    """An atom cell that does not parse (row() reports it), or in the predicate-and-arguments layout
    a predicate or argument cell that does not parse, or a row that is no atom (``error`` says why;
    ``text`` shows the cell or the row's cells)."""

    __slots__ = ("text", "error")

    def __init__(self, text: str, error: str | None = None):
        self.text, self.error = text, error


def _cell_text(cell):
    """The text of a cell of :meth:`_Grouper.lists` (an atom, None or :class:`_Bad`)."""
    if cell is None or type(cell) is _Bad:
        return cell if cell is None else cell.text
    return format_atom(cell)


def _pages_plan(path, where: str) -> tuple | None:
    """(order column, [(file name, ParquetFile, partition keys)] in time order) if every file is one
    :mod:`parquet_pages` reads and has the columns (of the types) the stream needs; else None (the
    pyarrow path then reads the stream, and reports what is wrong)."""
    from .parquet_pages import ParquetFile, Unsupported

    root = Path(path)
    try:
        if root.is_file():
            files = [(where, ParquetFile(root), {})]
        else:
            found = _parquet_files(root)
            files = [(str(p), ParquetFile(p), _partition_keys(p.relative_to(root))) for p in found]
        if not files:
            return None
        names = files[0][1].names + list(files[0][2])
        atom_columns = _atom_columns(names)
        if "t" not in names or atom_columns[0] not in names:
            return None
        order = _check_columns(names, where, args=True)
        for _, pf, keys in files:
            if _atom_columns(pf.names + list(keys)) != atom_columns:
                return None
            for column in ["t", *atom_columns] + ([order] if order else []):
                kind = _column_kind(column)
                if column not in keys:
                    if kind == "argument":
                        kind = "string" if pf.columns[column].kind == "string" else "int"
                    pf.check(column, kind)
                elif not (
                    type(keys[column]) is str
                    and kind != "int"
                    or type(keys[column]) is int
                    and kind != "string"
                    and -1 << 63 <= keys[column] < 1 << 63
                ):
                    return None
        starts = [keys["t"] if "t" in keys else pf.min_of("t") for _, pf, keys in files]
    except Unsupported:
        return None
    return order, atom_columns, _in_time_order(files, starts)


def _column_kind(column: str) -> str:
    """What a stream column holds: ``"string"`` (atom, predicate), ``"argument"`` (a1, a2, ...:
    integers or strings), ``"int"`` (t and the order columns)."""
    if column in ("atom", PREDICATE):
        return "string"
    return "argument" if column[:1] == "a" and column[1:].isdigit() else "int"


#: rows per batch of the pyarrow-free reader (records do not depend on it; fewer atoms wait in memory)
_PAGES_BATCH = 8192


def _pages_file(
    grouper: _Grouper, pf, name: str, keys: dict, columns: list, atom_columns: list, batch_size: int
) -> Iterator[Record]:
    """The rows of one file read by :mod:`parquet_pages` into ``grouper``; from a page that does
    not decode on, pyarrow reads the file (and reports what is wrong with it)."""
    from .parquet_pages import Corrupt

    wanted = [c for c in columns if c not in keys]
    glued = {}
    if atom_columns == ["atom"]:
        atoms = _AtomCells(grouper)
        convert, glued = {"atom": atoms.convert}, {"atom": atoms.glued}
    else:
        args = _ArgCells()
        convert = {
            c: args.predicates if c == PREDICATE else args.terms
            for c in atom_columns
            if c in wanted and pf.columns[c].kind == "string"
        }
        constants = {
            c: (args.predicates if c == PREDICATE else args.terms)([keys[c]])[0] if type(keys[c]) is str else keys[c]
            for c in atom_columns
            if c in keys
        }
    batches = pf.batches(wanted, convert, min(batch_size, _PAGES_BATCH), glued, "atom", (grouper.order,))
    number = 1
    while True:
        try:
            batch, nulls, pages = next(batches, (None, None, None))
        except (Corrupt, OSError):
            break
        if batch is None:
            return
        cells, nulls = dict(zip(wanted, batch)), dict(zip(wanted, nulls))
        n = len(batch[0])
        t, key_list = (None if c is None else cells[c] if c in cells else [keys[c]] * n for c in ("t", grouper.order))
        time_nulls = nulls.get("t", False) or nulls.get(grouper.order, False)
        if atom_columns == ["atom"]:
            page = pages[wanted.index("atom")] if "atom" in cells else None
            distinct = page if page is not None and page is atoms.distinct else False
            yield from grouper.lists(
                name,
                number,
                t,
                key_list,
                cells["atom"],
                (atoms.pairs, distinct),
                time_nulls,
                nulls["atom"] or atoms.empty,
                atoms.bad,
            )
        else:
            plain = not args.bad and not any(nulls.get(c, False) for c in atom_columns)
            found, pairs = _args_atoms(
                [cells[c] if c in cells else [constants[c]] * n for c in atom_columns],
                plain and None not in constants.values(),
            )
            yield from grouper.lists(name, number, t, key_list, found, (pairs, False), time_nulls, not plain, not plain)
        number += n
    pq_file = _open_parquet(pf.path, name)
    batches = pq_file.iter_batches(batch_size=batch_size, columns=wanted, use_threads=False)
    yield from _arrow_batches(
        grouper, _with_keys(batches, keys, columns), grouper.order, name, atom_columns, number - 1
    )


class _AtomCells:
    """Converts the atom texts of a dictionary or a page to atoms (None: an empty cell, :class:`_Bad`:
    one that does not parse), each distinct text once; ``pairs`` holds the (name, tuple length) pairs
    of all atoms converted so far, ``bad`` whether a cell did not parse, ``empty`` whether one was empty."""

    def __init__(self, grouper: _Grouper):
        self.grouper, self.pairs, self.bad, self.empty = grouper, frozenset(), False, False
        self.distinct = None  # the page converted last if its atoms all differ

    def glued(self, raw: bytes, count: int) -> tuple | None:
        """The atoms of ``count`` cells glued together as ``raw`` if :meth:`AtomInterner.glued`
        splits them (each one atom with constant arguments, all of one arity), else None."""
        interner = self.grouper.interner
        found = interner.glued(raw, count)
        if found is None:
            return None
        pairs, distinct = interner.shape
        if not pairs.issubset(self.pairs):
            self.pairs = self.pairs | pairs
        self.distinct = found if distinct else None
        return found

    def convert(self, texts: list, names: bool = False) -> list:
        sample = texts[:: len(texts) // 1024 + 1]
        if len(set(sample)) * 4 > len(sample) * 3:  # mostly distinct (a dictionary is): convert them all
            atoms = self._split(texts)
            if atoms is not None:
                return atoms
            atoms, bad = self.grouper._convert(texts)
        else:
            distinct = list(dict.fromkeys(texts))
            converted, wrong = self.grouper._convert(distinct)
            for i in wrong:
                converted[i] = _Bad(distinct[i])
            return self._learn(list(map(dict(zip(distinct, converted)).__getitem__, texts)), bool(wrong))
        for i in bad:
            atoms[i] = _Bad(texts[i])
        return self._learn(atoms, bool(bad))

    def _split(self, texts: list) -> list | None:
        """The atoms of ``texts`` if :meth:`AtomInterner.cells` splits them (4,096 at a time), which
        also finds their pairs; else None."""
        interner, out, pairs = self.grouper.interner, [], set()
        for i in range(0, len(texts), 4096):
            found = interner.cells(texts[i : i + 4096])
            if found is None:
                return None
            out += found
            if interner.shape is not None:
                pairs |= interner.shape[0]
            else:
                pairs |= _pairs(found)
        if not pairs.issubset(self.pairs):
            self.pairs = self.pairs | pairs
        return out

    def _learn(self, atoms: list, bad: bool) -> list:
        empty = None in atoms
        self.bad, self.empty = self.bad or bad, self.empty or empty
        pairs = _pairs([a for a in atoms if type(a) is tuple] if bad or empty else atoms)
        if not pairs.issubset(self.pairs):
            self.pairs = self.pairs | pairs
        return atoms


def _pairs(atoms) -> set:
    """The (name, tuple length) pairs of ``atoms``; when all have one length (the usual case),
    from their distinct names alone."""
    lengths = set(map(len, atoms))
    if len(lengths) == 1:
        length = lengths.pop()
        return {(name, length) for name in set(map(_first, atoms))}
    return set(zip(map(_first, atoms), map(len, atoms)))


def _all_names(values: list, names: bool = False) -> bool:
    """Whether every value is a plain name (a constant or a predicate as it stands), none a keyword
    (``names``: all are known to match ``[a-z][A-Za-z0-9_']*``): joined by newlines, only name
    characters and newlines remain, and after each newline (and first) comes a lower-case letter."""
    if names:
        return _RESERVED.isdisjoint(values)
    try:
        text = "\n".join(values)
    except TypeError:  # a null
        return False
    if not values:
        return True
    if not text or not text.isascii() or text.count("\n") != len(values) - 1:
        return False
    raw = text.encode()
    if raw.translate(None, _TOKEN_BYTES + b"\n") or not names_apart(raw, b"\n"):
        return False
    return _RESERVED.isdisjoint(values)


def _predicate(value):
    """A predicate cell's name (None: null or blank), or a :class:`_Bad`."""
    if value is None or not value.strip():
        return None
    try:
        atom = parse_full(value)
    except GroundSyntaxError as e:
        return _Bad(value, e.message)
    return atom[0] if len(atom) == 1 else _Bad(value, "a predicate cell holds an atom, not a name")


_PLAIN_STRING = re.compile(r'"[^"\\\n]*"')  # a string without escapes: the term is its text
_INTEGER = re.compile(r"-?[0-9]+")
_ends_in_parenthesis = operator.methodcaller("endswith", ")")


def _term(value):
    """An argument cell's term (None: null), or a :class:`_Bad`."""
    if value is None or type(value) is int:
        return value
    if _NAME.fullmatch(value) and value not in _RESERVED or _PLAIN_STRING.fullmatch(value):
        return value
    if _INTEGER.fullmatch(value):
        return int(value)
    try:
        return parse_ground_term(value)
    except GroundSyntaxError as e:
        return _Bad(value, e.message)


class _ArgCells:
    """Converts the cells of the predicate-and-arguments layout (a dictionary's or a page's values,
    each distinct one once): predicate cells to names, UTF-8 argument cells to terms; ``bad`` says
    whether a cell was a :class:`_Bad` or a blank predicate (None, as a null)."""

    def __init__(self):
        self.bad = False

    def predicates(self, values: list, names: bool = False) -> list:
        """``names``: the values are known to match ``[a-z][A-Za-z0-9_']*`` (keywords are looked for)."""
        return values if _all_names(values, names) else self._each(values, _predicate)

    def terms(self, values: list, names: bool = False) -> list:
        if _all_names(values, names):
            return values
        found = _uniform_terms(values)
        return found if found is not None else self._each(values, _term)

    def _each(self, values: list, convert) -> list:
        distinct = dict.fromkeys(values)
        for value in distinct:
            distinct[value] = found = convert(value)
            self.bad = self.bad or type(found) is _Bad or found is None is not value
        return list(map(distinct.__getitem__, values))


def _uniform_terms(values: list) -> list | None:
    """The terms of argument cells all of one kind, found at once (None if they are not): all strings
    without escapes (their texts), all integers, or all function terms of one shape with constant or
    integer arguments (split like atoms, which they look like: :meth:`AtomInterner.cells`)."""
    if not values or None in values:
        return None
    if all(map(_PLAIN_STRING.fullmatch, values)):
        return values
    if all(map(_INTEGER.fullmatch, values)):
        return list(map(int, values))
    if all(map(_ends_in_parenthesis, values)):
        found = AtomInterner().cells(values)
        return list(found) if found is not None else None
    return None


def _args_atoms(columns: list, plain: bool) -> tuple:
    """(atoms, their (name, tuple length) pairs) of rows whose converted predicate and argument
    cells are ``columns`` (:class:`_ArgCells`). ``plain``: no cell is null or bad, so every row is
    the atom of all its cells."""
    if plain:
        return list(zip(*columns)), frozenset([(name, len(columns)) for name in set(columns[0])])
    atoms = list(map(_args_atom, *columns))
    return atoms, frozenset(_pairs([a for a in atoms if type(a) is tuple]))


def _args_atom(predicate, *args):
    """The atom of one row of the predicate-and-arguments layout: None (no predicate, no argument:
    a heartbeat) or a :class:`_Bad` that says why it is none."""
    if None in args:
        arity = args.index(None)
        later = next((i for i in range(arity, len(args)) if args[i] is not None), None)
        if later is not None:
            return _Bad("", f"argument a{later + 1} after the empty a{arity + 1}")
        args = args[:arity]
    if predicate is None:
        return None if not args else _Bad("", "arguments without a predicate (an empty 'predicate' cell)")
    cells = (predicate, *args)
    first = next((x for x in cells if type(x) is _Bad), None)
    if first is None:
        return cells
    texts = [x.text if type(x) is _Bad else format_term(x) for x in cells]
    text = f"{texts[0]}({','.join(texts[1:])})" if args else texts[0]
    return _Bad(text, f"atom '{text}': {first.error}")


def _args_batch(
    grouper: _Grouper, batch, order: str | None, name: str, number: int, atom_columns: list
) -> Iterator[Record]:
    """A pyarrow batch of the predicate-and-arguments layout into ``grouper``."""
    import pyarrow as pa

    cells = _ArgCells()
    columns = []
    for c in atom_columns:
        column = batch.column(c)
        kind = column.type.value_type if pa.types.is_dictionary(column.type) else column.type
        values = column.to_pylist()
        if not pa.types.is_integer(kind):
            values = cells.predicates(values) if c == PREDICATE else cells.terms(values)
        columns.append(values)
    plain = not cells.bad and not any(batch.column(c).null_count for c in atom_columns)
    atoms, pairs = _args_atoms(columns, plain)
    yield from grouper.lists(
        name,
        number,
        batch.column("t").to_pylist(),
        batch.column(order).to_pylist() if order else None,
        atoms,
        (pairs, False),
    )


def _parquet_batch(
    grouper: _Grouper, batch, order: str | None, name: str, number: int, atom_columns: list | None = None
) -> Iterator[Record]:
    """A pyarrow batch of the atom layout into ``grouper`` (``atom_columns`` is always ``["atom"]``
    here: the parameter keeps :func:`_args_batch`'s signature, as :func:`_arrow_batches` picks either)."""
    import numpy as np
    import pyarrow as pa

    t, atom = batch.column("t"), batch.column("atom")
    keys = batch.column(order) if order else None
    if t.null_count or (keys is not None and keys.null_count):
        key_cells = keys.to_pylist() if keys is not None else [None] * batch.num_rows
        for i, row in enumerate(zip(t.to_pylist(), atom.to_pylist(), key_cells)):
            yield from grouper.row(name, number + i, *row)
        return
    t, keys = _integers_of(t), _integers_of(keys) if keys is not None else None
    if not pa.types.is_dictionary(atom.type):
        atoms = _glued(atom, grouper.interner) if not atom.null_count else None
        if atoms is not None:
            yield from grouper.parsed(name, number, t, keys, atoms, grouper.interner.shape, lambda i: atom[i].as_py())
        else:
            yield from grouper.texts(name, number, t, atom.to_pylist(), keys)
        return
    if atom.null_count:
        codes = atom.indices.to_numpy(zero_copy_only=False)
        codes = np.where(np.isnan(codes), -1, codes).astype(np.int64)
    else:
        codes = _integers_of(atom.indices)
    # the dictionary may be the row group's so far: convert only the part this batch uses
    used, codes = np.unique(codes, return_inverse=True)
    valid = used[used >= 0]
    texts = []
    if len(valid):
        lo, hi = int(valid[0]), int(valid[-1])
        part = atom.dictionary.slice(lo, hi - lo + 1).to_pylist()
        texts = part if len(valid) == len(part) else [part[i - lo] for i in valid.tolist()]
    if len(valid) < len(used):
        texts = [None, *texts]
    yield from grouper.chunk(name, number, t, codes.reshape(-1), keys, texts)


def _glued(column, interner: AtomInterner) -> list | None:
    """The atoms of a string column without nulls read straight from its buffer (no string object
    per cell, no joining) when every cell is one atom with constant arguments, all of one arity
    (:meth:`AtomInterner.glued`; the interner's shape is then theirs), else None."""
    import numpy as np
    import pyarrow as pa

    if pa.types.is_large_string(column.type):
        width = np.dtype(np.int64)
    elif pa.types.is_string(column.type):
        width = np.dtype(np.int32)
    else:
        return None
    n = len(column)
    offsets = np.frombuffer(column.buffers()[1], dtype=width, count=n + 1, offset=column.offset * width.itemsize)
    if not n or (offsets[1:] <= offsets[:-1]).any():  # an empty cell
        return None
    start, end = int(offsets[0]), int(offsets[-1])
    raw = memoryview(column.buffers()[2])[start:end].tobytes()
    if (np.frombuffer(raw, dtype=np.uint8)[offsets[1:] - (start + 1)] != 41).any():  # a cell not ending in ")"
        return None
    atoms = interner.glued(raw, n)
    return list(atoms) if atoms is not None else None


def _integers_of(column):
    """An integer column without nulls as a numpy array over its own buffer (pyarrow's
    ``to_numpy`` imports pandas, which costs more than reading a whole stream)."""
    import numpy as np

    dtype = np.dtype(str(column.type))
    return np.frombuffer(column.buffers()[1], dtype=dtype, count=len(column), offset=column.offset * dtype.itemsize)


def _open_parquet(path, name: str):
    """The Parquet file at ``path``; a file that is not Parquet is a StreamError at ``name:1:1``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return pq.ParquetFile(str(path))
    except (pa.ArrowException, OSError) as e:
        raise stream_error(name, 1, 1, f"not a readable Parquet file ({e})") from None


def _parquet_file(path, name: str, batch_size: int) -> tuple:
    """(order column, [(name, batches)]) of one Parquet file."""
    pf = _open_parquet(path, name)
    order = _check_columns(pf.schema_arrow.names, name, args=True)
    atom_columns = _atom_columns(pf.schema_arrow.names)
    columns = ["t", *atom_columns] + ([order] if order else [])
    _parquet_types(pf.schema_arrow, columns, {}, name)
    return order, atom_columns, [(name, pf.iter_batches(batch_size=batch_size, columns=columns, use_threads=False))]


def _partition_keys(relative: Path) -> dict:
    """Hive partition keys of a file's directories: ``t=5/x.parquet`` -> ``{"t": 5}``."""
    keys = {}
    for part in relative.parts[:-1]:
        key, eq, value = part.partition("=")
        if eq:
            keys[key] = int(value) if re.fullmatch(r"-?[0-9]+", value) else value
    return keys


def _min_t(pf, keys: dict) -> int | None:
    """The smallest t of a file from its partition key or row-group statistics, if known."""
    if "t" in keys:
        return keys["t"]
    index = pf.schema_arrow.get_field_index("t")
    md, found = pf.metadata, []
    for i in range(md.num_row_groups):
        stats = md.row_group(i).column(index).statistics
        if stats is None or not stats.has_min_max:
            return None
        found.append(stats.min)
    return min(found) if found else None


def _parquet_directory(path, where: str, batch_size: int) -> tuple:
    """(order column, [(file name, batches)]) of a (hive-partitioned) Parquet directory, files in
    time order. Names starting with ``.`` or ``_`` are skipped (``_SUCCESS``, ``.crc``), as Spark
    and pyarrow do; every other file must be Parquet."""
    root = Path(path)
    files = _parquet_files(root)
    if not files:
        raise UsageError.at(
            None, f"stream directory '{where}' holds no Parquet files (a directory is read as a Parquet dataset)"
        )
    opened = [(str(p), _open_parquet(p, str(p)), _partition_keys(p.relative_to(root))) for p in files]
    names = list(opened[0][1].schema_arrow.names) + list(opened[0][2]) if opened else []
    order = _check_columns(names, where, args=True)
    atom_columns = _atom_columns(names)
    columns = ["t", *atom_columns] + ([order] if order else [])
    for name, pf, keys in opened:
        found = _atom_columns(list(pf.schema_arrow.names) + list(keys))
        if found != atom_columns:
            raise stream_error(
                name,
                1,
                1,
                f"atom columns {', '.join(found)}, not {', '.join(atom_columns)} as in the first file (mixed schemas?)",
            )
        _parquet_types(pf.schema_arrow, columns, keys, name)
    opened = _in_time_order(opened, [_min_t(pf, keys) for _, pf, keys in opened])
    return (
        order,
        atom_columns,
        [
            (
                name,
                _with_keys(
                    pf.iter_batches(
                        batch_size=batch_size, use_threads=False, columns=[c for c in columns if c not in keys]
                    ),
                    keys,
                    columns,
                ),
            )
            for name, pf, keys in opened
        ],
    )


def _in_time_order(files: list, starts: list) -> list:
    """``files`` ordered by their smallest t ``starts`` (stable), or as they are if one is unknown."""
    if None in starts:
        return files
    return [f for _, _, f in sorted(zip(starts, range(len(files)), files))]


def _parquet_files(root: Path) -> list:
    """The files of a Parquet directory, in path order, without those whose names (or whose
    directories' names) start with ``.`` or ``_``."""
    return sorted(
        p for p in root.rglob("*") if p.is_file() and not any(part[0] in "._" for part in p.relative_to(root).parts)
    )


def _with_keys(batches, keys: dict, columns: list):
    """Batches with the partition-key columns among ``columns`` added as constants."""
    import pyarrow as pa

    wanted = [c for c in columns if c in keys]
    for batch in batches:
        for column in wanted:
            value = keys[column]
            batch = batch.append_column(
                column, pa.array([value] * batch.num_rows, pa.string() if type(value) is str else pa.int64())
            )
        yield batch


def _parquet_types(schema, columns, partition_keys: dict, name: str) -> None:
    """Refuse a file whose columns are missing or of the wrong type (mixed schemas)."""
    import pyarrow as pa

    for column in columns:
        if column in partition_keys:
            continue
        if column not in schema.names:
            found = ", ".join(schema.names) or "none"
            raise stream_error(name, 1, 1, f"missing column '{column}' (columns: {found})")
        kind = schema.field(column).type
        if pa.types.is_dictionary(kind):
            kind = kind.value_type
        want = _column_kind(column)
        string = pa.types.is_string(kind) or pa.types.is_large_string(kind)
        if not (string if want == "string" else pa.types.is_integer(kind) or want == "argument" and string):
            want = {"string": "strings", "int": "integers", "argument": "integers or strings"}[want]
            raise stream_error(name, 1, 1, f"column '{column}' holds {kind}, not {want} (mixed schemas?)")


def read_dataframe(df, source: str = "<DataFrame>") -> Iterator[Record]:
    """Read a pandas DataFrame with columns ``t`` and ``atom`` (rows in arrival order).

    With an order column (``c``, ``order`` or ``seq``) the rows are first sorted by
    (t, that column); without one, t must not decrease. Lines are 1-based row positions.
    """
    import pandas as pd

    order = _check_columns(list(df.columns), source)
    frame = df.reset_index(drop=True)
    grouper = _Grouper(order, AtomInterner())
    try:
        if order:
            frame = frame.sort_values(["t", order], kind="stable")
            cells = [frame[c].astype(object).where(frame[c].notna(), None).tolist() for c in ("t", "atom", order)]
            for n, row in zip((frame.index + 1).tolist(), zip(*cells)):
                yield from grouper.row(source, n, *row)
        else:
            codes, uniques = pd.factorize(frame["atom"])
            yield from grouper.chunk(source, 1, frame["t"].to_numpy(), codes, None, list(uniques))
    except StreamError:
        yield from grouper.failed()
        raise
    yield from grouper.close()


# ---------------------------------------------------------------- dispatch

#: ``--stream-format`` names and their line readers.
STREAM_FORMATS = {"text": read_text, "jsonl": read_jsonl, "csv": read_csv}

_SUFFIXES = {".stream": "text", ".txt": "text", ".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv"}
#: compression suffixes and the modules that decompress them
COMPRESSED = {".gz": "gzip", ".bz2": "bz2", ".xz": "lzma"}
_DECOMPRESS_ERRORS: tuple = ()


def _open_binary(path: Path):
    """The file opened for binary reading, decompressed by its suffix (.gz, .bz2, .xz)."""
    module = COMPRESSED.get(path.suffix.lower())
    if module is None:
        return open(path, "rb")
    global _DECOMPRESS_ERRORS
    import importlib
    import lzma
    import zlib

    _DECOMPRESS_ERRORS = (zlib.error, lzma.LZMAError)
    return importlib.import_module(module).open(path, "rb")


def _read_file(path: Path, fmt: str, source: str) -> Iterator[Record]:
    try:
        f = _open_binary(path)
    except OSError as e:
        raise UsageError.at(None, f"cannot open stream file '{source}': {e.strerror or e}") from None
    with f:
        yield from STREAM_FORMATS[fmt](f, source)


def stream_format(path: Path) -> str:
    """The format of a stream file by its suffix (after a compression suffix); '' if unknown."""
    suffixes = [s.lower() for s in path.suffixes]
    if path.is_dir() or suffixes[-1:] == [".parquet"]:
        return "parquet"
    if suffixes and suffixes[-1] in COMPRESSED:
        suffixes.pop()
    return _SUFFIXES.get(suffixes[-1], "") if suffixes else ""


def open_stream(path_or_dash, source: str | None = None, fmt: str | None = None) -> Iterator[Record]:
    """Open a stream: ``-`` is stdin, a directory is Parquet, a file goes by its suffix.

    ``fmt`` (``--stream-format``: text, jsonl or csv) is the format of stdin and of files
    whose suffix names none (default text); it never overrides a known suffix. ``.gz``,
    ``.bz2`` and ``.xz`` files are decompressed. A missing file raises :class:`UsageError`.
    """
    if fmt is not None and fmt not in STREAM_FORMATS:
        raise UsageError.at(None, f"unknown stream format '{fmt}' (known: {', '.join(STREAM_FORMATS)})")
    name = str(path_or_dash)
    if name == "-":
        return STREAM_FORMATS[fmt or "text"](sys.stdin.buffer, source or "<stdin>")
    path = Path(name)
    if not path.exists():
        raise UsageError.at(None, f"stream file '{name}' does not exist")
    known = stream_format(path)
    if known == "parquet":
        return read_parquet(path, source or name)
    return _read_file(path, known or fmt or "text", source or name)


# ---------------------------------------------------------------- checks against the program


class StreamChecker:
    """Checks stream atoms against the program: extensional predicates, consistent arities.

    ``signatures`` maps predicate names to arities from the program; ``intensional`` holds
    the names of intensional predicates. Names first seen in the stream are learned.
    """

    def __init__(self, signatures: dict, intensional: set):
        self.intensional = set(intensional)
        self.known = {name: (arity, "the program") for name, arity in signatures.items()}
        self.passed: set = set()  # (name, len(atom)) pairs that passed: a record of only those passes at once
        self.last: tuple = ()  # the atoms of the last record that passed (a reader may repeat them)

    def check(self, record: Record) -> Record:
        """Return ``record`` unchanged, or raise a StreamError located at its line."""
        atoms = record.atoms
        if atoms is self.last:
            return record
        known = record.known
        if known is not None and self.passed.issuperset(known.pairs):  # the reader found the pairs
            self.last = atoms
            return record
        if self.passed.issuperset(_pairs(atoms)):
            self.last = atoms
            return record
        for atom in record.atoms:  # in order: the first bad atom is reported, names are learned
            name, arity = atom[0], len(atom) - 1
            if (name, len(atom)) in self.passed:
                continue
            known = self.known.get(name)
            if name in self.intensional:
                shown = known[0] if known else arity
                raise stream_error(
                    record.source, record.line, 1, f"intensional predicate '{name}/{shown}' in the stream"
                )
            if known is None:
                self.known[name] = (arity, f"{record.source}:{record.line}")
            elif known[0] != arity:
                raise stream_error(
                    record.source,
                    record.line,
                    1,
                    f"predicate '{name}' with arity {arity} in '{format_atom(atom)}',"
                    f" but arity {known[0]} in {known[1]}",
                )
            self.passed.add((name, len(atom)))
        self.last = atoms
        return record

    def records(self, records: Iterable[Record], start: int = 0, until: int | None = None) -> Iterator[Record]:
        """The records, checked, up to time ``until``; raises StreamError at the first one that
        fails :meth:`check` or goes back in time (from ``start``)."""
        cur = start
        for rec in records:
            if until is not None and rec.t > until:
                return
            self.check(rec)
            if rec.t < cur:
                raise StreamError(Diagnostic(f"time {rec.t} after time {cur}: time must not decrease"))
            cur = rec.t
            yield rec
