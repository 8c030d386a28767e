"""Stream readers: text, JSON Lines, CSV, Parquet and pandas DataFrames (SPEC §2).

Every reader is a lazy generator of :class:`~ticker_py.streams.model.Record`: it yields a
record as soon as its input is complete and raises a located
:class:`~ticker_py.errors.StreamError` at the first bad record, after yielding every good
record before it. :func:`~ticker_py.streams.model.time_points` turns records into time points.
See ``docs/formats.md`` for the formats and the choices made where SPEC is silent.
"""

from __future__ import annotations

import csv
import json
import math
import re
import sys
from pathlib import Path
from typing import Iterable, Iterator, Optional

from ..ast import Location
from ..errors import Diagnostic, StreamError, UsageError, with_excerpt
from ..values import format_atom
from ..syntax.ground_atoms import GroundSyntaxError, parse_ground_atom, split_atoms
from .model import Record

__all__ = ["read_text", "read_jsonl", "read_csv", "read_parquet", "read_dataframe",
           "open_stream", "StreamChecker", "ORDER_COLUMNS"]

#: Arrival-order columns of tables, by priority: the first one present orders the rows
#: of each time point.
ORDER_COLUMNS = ("c", "order", "seq")

_COMMENT = re.compile(r'"(?:\\.|[^"\\])*"|[%#]')
_TIME = re.compile(r"\s*(\S*?)\s*:")


def _error(source: str, line: int, column: int, message: str, text: Optional[str] = None,
           width: int = 1) -> StreamError:
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


def _parse_atom(text: str, source: str, line: int, column: int = 1) -> tuple:
    try:
        return parse_ground_atom(text)
    except GroundSyntaxError as e:
        raise _error(source, line, column, f"atom '{text}': {e.message}") from None


def _lines(lines_or_file) -> Iterable[str]:
    """Lines of a file object without read-ahead (live pipes), of a string, or of a list."""
    if isinstance(lines_or_file, str):
        return lines_or_file.splitlines()
    if hasattr(lines_or_file, "readline"):
        return iter(lines_or_file.readline, "")
    return lines_or_file


# ---------------------------------------------------------------- text and JSON Lines

def _strip_comment(line: str) -> str:
    """Cut a ``%`` or ``#`` comment, but not inside a quoted string."""
    for m in _COMMENT.finditer(line):
        if m.group() in "%#":
            return line[:m.start()]
    return line


def read_text(lines_or_file, source: str = "<stdin>") -> Iterator[Record]:
    """Read the text format ``T: atom, atom; atom`` one line at a time.

    ``lines_or_file`` is a file object (read line by line, so pipes stay live), an
    iterable of lines, or a whole string. ``T:`` alone is a record without atoms.
    """
    last = None
    for number, raw in enumerate(_lines(lines_or_file), 1):
        raw = raw.rstrip("\r\n")
        line = _strip_comment(raw)
        if not line.strip():
            continue
        m = _TIME.match(line)
        if m is None:
            col = len(line) - len(line.lstrip()) + 1
            raise _error(source, number, col, "expected 'T: atoms' (a time point, ':', then atoms)", raw)
        col = m.start(1) + 1
        try:
            t = _time_value(m.group(1))
        except ValueError as e:
            raise _error(source, number, col, str(e), raw, len(m.group(1))) from None
        if last is not None and t < last:
            raise _error(source, number, col, f"time {t} after time {last}", raw, len(m.group(1)))
        try:
            atoms = tuple(a for _, a in split_atoms(line, m.end()))
        except GroundSyntaxError as e:
            raise _error(source, number, e.column + 1, e.message, raw) from None
        last = t
        yield Record(t, atoms, source, number)


def read_jsonl(lines_or_file, source: str = "<stdin>") -> Iterator[Record]:
    """Read JSON Lines ``{"t": 12, "atoms": ["alpha(20)"]}``; ``{"t": 12}`` is a heartbeat.

    Blank lines are skipped; keys other than ``t`` and ``atoms`` are refused.
    """
    last = None
    for number, raw in enumerate(_lines(lines_or_file), 1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as e:
            raise _error(source, number, e.colno, f"bad JSON: {e.msg}") from None
        if not isinstance(obj, dict) or "t" not in obj:
            raise _error(source, number, 1, 'expected an object {"t": T, "atoms": [...]}')
        unknown = sorted(set(obj) - {"t", "atoms"})
        if unknown:
            raise _error(source, number, 1, f"unknown key '{unknown[0]}' (expected 't' and 'atoms')")
        try:
            t = _time_value(obj["t"])
        except ValueError as e:
            raise _error(source, number, 1, str(e)) from None
        if last is not None and t < last:
            raise _error(source, number, 1, f"time {t} after time {last}")
        texts = obj.get("atoms", [])
        if not isinstance(texts, list) or not all(isinstance(a, str) for a in texts):
            raise _error(source, number, 1, "'atoms' must be a list of strings")
        last = t
        yield Record(t, tuple(_parse_atom(a, source, number) for a in texts), source, number)


# ---------------------------------------------------------------- tables

def _missing(value) -> bool:
    """An empty atom cell (None, NaN or blank): the row is a heartbeat."""
    return value is None or (isinstance(value, float) and math.isnan(value)) \
        or (isinstance(value, str) and not value.strip())


def _check_columns(columns, source: str) -> Optional[str]:
    """Refuse tables without ``t`` and ``atom``; return the order column, if any."""
    for name in ("t", "atom"):
        if name not in columns:
            found = ", ".join(map(str, columns)) or "none"
            raise _error(source, 1, 1, f"missing column '{name}' (columns: {found})")
    return next((c for c in ORDER_COLUMNS if c in columns), None)


def _table_records(rows: Iterable[tuple], order: Optional[str]) -> Iterator[Record]:
    """Group rows ``(source, line, t, atom text, order key)`` into one Record per time point.

    t must not decrease from row to row; with an ``order`` column the rows of a time point
    are sorted by their key (stable). On an error the rows already read are yielded first.
    """
    t_prev, where, group = None, ("", 0), []

    def flush():
        if order:
            group.sort(key=lambda entry: entry[0])
        return Record(t_prev, tuple(atom for _, atom in group), *where)

    try:
        for source, line, t, text, key in rows:
            try:
                t = _time_value(t)
                key = _time_value(key, f"column '{order}'") if order else None
            except ValueError as e:
                raise _error(source, line, 1, str(e)) from None
            if t != t_prev:
                if t_prev is not None:
                    if t < t_prev:
                        raise _error(source, line, 1, f"time {t} after time {t_prev}")
                    yield flush()
                t_prev, where, group = t, (source, line), []
            if not _missing(text):
                group.append((key, _parse_atom(str(text).strip(), source, line)))
    except StreamError:
        if group:
            yield flush()
        raise
    if t_prev is not None:
        yield flush()


def read_csv(path, source: Optional[str] = None) -> Iterator[Record]:
    """Read a CSV file with a header and columns ``t``, ``atom`` (and maybe ``c``/``order``/``seq``).

    Streamed row by row: rows must come in non-decreasing t; an order column sorts the
    rows of each time point. An empty atom cell is a heartbeat. Lines count from the header (1).
    """
    source = source or str(path)
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = [h.strip() for h in next(reader, [])]
        order = _check_columns(header, source)
        index = [header.index(c) for c in ("t", "atom", order or "t")]

        def rows():
            for row in reader:
                if not row:
                    continue
                if len(row) != len(header):
                    raise _error(source, reader.line_num, 1,
                                 f"expected {len(header)} fields, found {len(row)}")
                yield (source, reader.line_num, *(row[i] for i in index))

        yield from _table_records(rows(), order)


def _fragment_min_t(fragment) -> Optional[int]:
    """The smallest t of a Parquet fragment from its partition key or statistics, if known."""
    import pyarrow.dataset as ds

    keys = ds.get_partition_keys(fragment.partition_expression)
    if "t" in keys:
        return keys["t"]
    stats = [(rg.statistics or {}).get("t") for rg in fragment.row_groups]
    if not stats or any(s is None or s.get("min") is None for s in stats):
        return None
    return min(s["min"] for s in stats)


def read_parquet(path, source: Optional[str] = None, batch_size: int = 65536) -> Iterator[Record]:
    """Read a Parquet file or a (hive-partitioned) Parquet directory in batches.

    Memory stays bounded by one batch plus one time point. A directory is read fragment
    by fragment, ordered by each fragment's smallest t (from partition keys or row-group
    statistics; path order if some are unknown); t must not decrease across the whole
    stream. A record's line is its 1-based row number within its file, and its source is
    ``source`` (default: the path) for a single file, the file's path within a directory.
    """
    import pyarrow.dataset as ds

    single = Path(path).is_file()
    dataset = ds.dataset(str(path), format="parquet", partitioning="hive")
    order = _check_columns(dataset.schema.names, source or str(path))
    columns = ["t", "atom"] + ([order] if order else [])
    fragments = list(dataset.get_fragments())
    starts = [_fragment_min_t(f) for f in fragments]
    if None not in starts:
        fragments = [f for _, _, f in sorted(zip(starts, range(len(fragments)), fragments))]

    def rows():
        for fragment in fragments:
            name = (source or str(path)) if single else fragment.path
            number = 0
            for batch in fragment.to_batches(schema=dataset.schema, columns=columns,
                                             batch_size=batch_size):
                cells = [batch.column(c).to_pylist() for c in columns]
                keys = cells[2] if order else [None] * batch.num_rows
                for t, text, key in zip(cells[0], cells[1], keys):
                    number += 1
                    yield name, number, t, text, key

    yield from _table_records(rows(), order)


def read_dataframe(df, source: str = "<DataFrame>") -> Iterator[Record]:
    """Read a pandas DataFrame with columns ``t`` and ``atom`` (rows in arrival order).

    With an order column (``c``, ``order`` or ``seq``) the rows are first sorted by
    (t, that column); without one, t must not decrease. Lines are 1-based row positions.
    """
    order = _check_columns(list(df.columns), source)
    columns = ["t", "atom", order or "t"]
    frame = df.reset_index(drop=True)
    if order:
        frame = frame.sort_values(["t", order], kind="stable")
    cells = [frame[c].astype(object).where(frame[c].notna(), None).tolist() for c in columns]
    lines = (frame.index + 1).tolist()
    yield from _table_records(((source, n, *row) for n, row in zip(lines, zip(*cells))), order)


# ---------------------------------------------------------------- dispatch

def _text_file(reader):
    """A file reader from a line reader: opens the file, closes it when done."""
    def read(path, source):
        with open(path, encoding="utf-8") as f:
            yield from reader(f, source)
    return read


_READERS = {
    ".stream": _text_file(read_text),
    ".txt": _text_file(read_text),
    ".jsonl": _text_file(read_jsonl),
    ".ndjson": _text_file(read_jsonl),
    ".csv": read_csv,
    ".parquet": read_parquet,
}


def open_stream(path_or_dash, source: Optional[str] = None) -> Iterator[Record]:
    """Open a stream by its suffix (see ``_READERS``); a directory is Parquet, ``-`` is stdin text.

    Unknown suffixes are read as text. A missing file raises :class:`UsageError` at once.
    """
    name = str(path_or_dash)
    if name == "-":
        return read_text(sys.stdin, source or "<stdin>")
    path = Path(name)
    if not path.exists():
        raise UsageError.at(None, f"stream file '{name}' does not exist")
    suffix = ".parquet" if path.is_dir() else path.suffix.lower()
    return _READERS.get(suffix, _READERS[".txt"])(path, source or name)


# ---------------------------------------------------------------- checks against the program

class StreamChecker:
    """Checks stream atoms against the program: extensional predicates, consistent arities.

    ``signatures`` maps predicate names to arities from the program; ``intensional`` holds
    the names of intensional predicates. Names first seen in the stream are learned.
    """

    def __init__(self, signatures: dict, intensional: set):
        self.intensional = set(intensional)
        self.known = {name: (arity, "the program") for name, arity in signatures.items()}

    def check(self, record: Record) -> Record:
        """Return ``record`` unchanged, or raise a StreamError located at its line."""
        for atom in record.atoms:
            name, arity = atom[0], len(atom) - 1
            known = self.known.get(name)
            if name in self.intensional:
                shown = known[0] if known else arity
                raise _error(record.source, record.line, 1,
                             f"intensional predicate '{name}/{shown}' in the stream")
            if known is None:
                self.known[name] = (arity, f"{record.source}:{record.line}")
            elif known[0] != arity:
                raise _error(record.source, record.line, 1,
                             f"predicate '{name}' with arity {arity} in '{format_atom(atom)}',"
                             f" but arity {known[0]} in {known[1]}")
        return record

    def records(self, records: Iterable[Record], start: int = 0,
                until: Optional[int] = None) -> Iterator[Record]:
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
