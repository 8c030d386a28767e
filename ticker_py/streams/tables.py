"""Tables: rows of ``t`` and ``atom`` (and maybe an order column) grouped into records.

Consecutive rows with one ``t`` are one record (at the line of its first row), sorted by the order
column if there is one. CSV is read row by row, DataFrames and Parquet batches a column at a time
(:meth:`Grouper.block`), with the same records and errors.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Iterable, Iterator

from ..errors import StreamError
from ..syntax.ground_atoms import AtomReader, GroundSyntaxError
from .lines import from_path, stream_error, text_lines, time_value
from .model import Record

__all__ = [
    "ORDER_COLUMNS",
    "PREDICATE",
    "BAD",
    "Bad",
    "Grouper",
    "check_columns",
    "atom_columns",
    "table_records",
    "read_csv",
    "csv_rows",
    "read_dataframe",
    "frame_times",
]

#: Arrival-order columns of tables, by priority: the first one present orders the rows of a time point.
ORDER_COLUMNS = ("c", "order", "seq")

#: The predicate column of the predicate-and-arguments layout; its arguments are ``a1``, ``a2``, ...
PREDICATE = "predicate"


class Bad:
    """The atom of a row (or a cell) that does not convert: ``message`` says why (None:
    :meth:`Grouper.row` does); ``text``: the cell's text."""

    __slots__ = ("message", "text")

    def __init__(self, message: str | None = None, text: str = ""):
        self.message, self.text = message, text


#: the atom of a row whose cell does not parse (:meth:`Grouper.row` says why)
BAD = Bad()


def missing(cell) -> bool:
    """An empty atom cell (None, NaN or blank): the row is a heartbeat."""
    return (
        cell is None or (isinstance(cell, float) and math.isnan(cell)) or (isinstance(cell, str) and not cell.strip())
    )


def check_columns(columns, source: str, args: bool = False) -> str | None:
    """The order column, if any, of a table with ``t`` and ``atom`` (with ``args``: or ``predicate``),
    each once; else a StreamError."""
    for name in ("t", "atom"):
        if name not in columns and not (args and name == "atom" and PREDICATE in columns):
            found = ", ".join(map(str, columns)) or "none"
            raise stream_error(source, 1, 1, f"missing column '{name}' (columns: {found})")
    columns = list(columns)
    for name in ("t", "atom", PREDICATE, *ORDER_COLUMNS):
        if columns.count(name) > 1:
            raise stream_error(source, 1, 1, f"column '{name}' appears {columns.count(name)} times")
    return next((c for c in ORDER_COLUMNS if c in columns), None)


def atom_columns(columns) -> list:
    """The columns a table's atoms come from: ``["atom"]``, or without an ``atom`` column
    ``["predicate", "a1", ..., "ak"]`` (k: the longest run ``a1``, ``a2``, ... present)."""
    if "atom" in columns or PREDICATE not in columns:
        return ["atom"]
    k = 0
    while f"a{k + 1}" in columns:
        k += 1
    return [PREDICATE, *(f"a{i}" for i in range(1, k + 1))]


class Grouper:
    """Groups table rows into one Record per time point, one by one (:meth:`row`) or as a block of
    columns (:meth:`block`), the records through :meth:`records`."""

    def __init__(self, order: str | None, text: bool = False):
        self.order, self.reader, self.text = order, AtomReader(), text  # text: cells are text (CSV)
        self.t, self.where, self.atoms, self.keys = None, ("", 0), [], []
        self.last: tuple = ()  # the atoms of the record flushed last

    def _flush(self) -> Record:
        atoms, keys = self.atoms, self.keys
        if self.order and len(atoms) > 1 and keys != sorted(keys):  # mostly in order already: O(n)
            atoms = [atoms[i] for i in sorted(range(len(keys)), key=keys.__getitem__)]  # stable
        atoms = tuple(atoms)
        if atoms == self.last:  # a time point that repeats the one before: the same tuple again,
            atoms = self.last  # which the checker and the driver do not look at again
        self.last = atoms
        return Record(self.t, atoms, *self.where)

    def _start(self, t: int, source: str, line: int) -> Iterator[Record]:
        if self.t is not None:  # a time going back is the input stage's to refuse
            yield self._flush()
        self.t, self.where, self.atoms, self.keys = t, (source, line), [], []

    def records(self, fed: Iterator[Record]) -> Iterator[Record]:
        """What ``fed`` (a generator feeding this grouper) yields, then the last time point (on a
        StreamError, the one collected so far)."""
        try:
            yield from fed
        except StreamError:
            if self.atoms:
                yield self._flush()
            raise
        if self.t is not None:
            yield self._flush()

    def row(self, source: str, line: int, t, cell, key=None) -> Iterator[Record]:
        """One row of raw cells; a bad one raises a located StreamError."""
        try:
            t = time_value(t, text=self.text)
            key = time_value(key, f"column '{self.order}'", self.text) if self.order else None
        except ValueError as e:
            raise stream_error(source, line, 1, str(e)) from None
        if t != self.t:
            yield from self._start(t, source, line)
        if not missing(cell):
            text = str(cell).strip()
            try:
                atom = self.reader.atom(text)
            except GroundSyntaxError as e:
                raise stream_error(source, line, 1, f"atom '{text}': {e.message}") from None
            self.atoms.append(atom)
            self.keys.append(key)

    def converted(self, source: str, line: int, t, key, atom, cell) -> Iterator[Record]:
        """One row whose atom is converted already (None: a heartbeat; a :class:`Bad` raises)."""
        bad = type(atom) is Bad
        yield from self.row(source, line, t, cell if bad and atom.message is None else None, key)
        if bad:
            raise stream_error(source, line, 1, atom.message)
        if atom is not None:
            self.atoms.append(atom)
            self.keys.append(key)

    def block(
        self,
        source: str,
        first: int,
        times,
        atoms: list,
        keys,
        cell: Callable[[int], object],
        empty: bool = True,
        bad: bool = True,
    ) -> Iterator[Record]:
        """Rows ``first``, ... at once: ``times`` and ``keys`` (or None) integer numpy arrays, ``atoms``
        (None, a heartbeat, only if ``empty``; a :class:`Bad` only if ``bad``). The first bad row goes
        through :meth:`converted` with ``cell(i)``, which raises."""
        import numpy as np

        n = len(atoms)
        stop = next((i for i, a in enumerate(atoms) if type(a) is Bad), n) if bad else n  # the first row not accepted
        found = [np.flatnonzero(times < 0)]  # a time going back is the input stage's to refuse
        if keys is not None:
            found.append(np.flatnonzero(keys < 0))
        for rows in found:
            if len(rows):
                stop = min(stop, int(rows[0]))
        starts = [0, *(np.flatnonzero(times[1:stop] != times[: stop - 1]) + 1).tolist(), stop] if stop else [0]
        values = times[:stop].tolist()
        key_list = keys[:stop].tolist() if keys is not None else None
        for a, b in zip(starts, starts[1:]):
            if values[a] != self.t:
                yield from self._start(values[a], source, first + a)
            chunk = atoms[a:b]
            if empty and None in chunk:
                kept = [i for i in range(a, b) if atoms[i] is not None]
                chunk = [atoms[i] for i in kept]
                if key_list is not None:
                    self.keys.extend(key_list[i] for i in kept)
            elif key_list is not None:
                self.keys.extend(key_list[a:b])
            self.atoms.extend(chunk)
        if stop < n:
            key = None if keys is None else keys[stop].item()
            yield from self.converted(source, first + stop, times[stop].item(), key, atoms[stop], cell(stop))
            raise AssertionError(f"row {first + stop} was refused by block() but not by row()")  # pragma: no cover

    def convert(self, texts: list) -> tuple:
        """``(atoms, empty, bad)`` of distinct cell texts: an atom, None or :data:`BAD` for each; whether
        one is empty, one bad."""
        try:  # a few thousand texts at a time: joined, they stay in the processor's caches
            out = []
            for i in range(0, len(texts), 4096):
                out += self.reader.each(texts[i : i + 4096])
            return out, False, False
        except (GroundSyntaxError, TypeError):
            pass
        out = []
        for text in texts:
            if missing(text):
                out.append(None)
                continue
            try:
                out.append(self.reader.atom(str(text).strip()))
            except GroundSyntaxError:
                out.append(BAD)
        return out, None in out, any(a is BAD for a in out)


def table_records(rows: Iterable[tuple], order: str | None, text: bool = False) -> Iterator[Record]:
    """Group rows ``(source, line, t, atom text, order key)`` into one Record per time point (``text``:
    the t and order cells are text, as in CSV)."""
    grouper = Grouper(order, text=text)
    return grouper.records(record for row in rows for record in grouper.row(*row))


def read_csv(path_or_file, source: str | None = None) -> Iterator[Record]:
    """Read a CSV file (a path or a file object) with a header and columns ``t``, ``atom`` (and maybe
    an order column). An empty atom cell is a heartbeat; lines count from the header (1)."""
    default = "<stdin>" if hasattr(path_or_file, "readline") else str(path_or_file)
    return from_path(_read_csv, path_or_file, source or default)


def csv_rows(f, source: str) -> Iterator[tuple]:
    """``(line, row)`` for each row of a CSV file object (the header first)."""
    reader = csv.reader(text_lines(f, source))
    while True:
        try:
            row = next(reader, None)
        except csv.Error as e:
            raise stream_error(source, reader.line_num, 1, f"bad CSV: {e}") from None
        if row is None:
            return
        yield reader.line_num, row


def _read_csv(f, source: str) -> Iterator[Record]:
    rows = csv_rows(f, source)
    header = [h.strip() for h in next(rows, (0, []))[1]]
    order = check_columns(header, source)
    index = [header.index(c) for c in ("t", "atom", order or "t")]

    def cells():
        for line, row in rows:
            if not row:
                continue
            if len(row) != len(header):
                raise stream_error(source, line, 1, f"expected {len(header)} fields, found {len(row)}")
            yield (source, line, *(row[i] for i in index))

    yield from table_records(cells(), order, text=True)


def read_dataframe(df, source: str = "<DataFrame>") -> Iterator[Record]:
    """Read a pandas DataFrame with columns ``t`` and ``atom`` (rows in arrival order, or sorted by
    (t, the order column) if there is one). Lines are 1-based row positions."""
    import pandas as pd

    order = check_columns(list(df.columns), source)
    grouper = Grouper(order)

    def fed(frame):
        for column in ("t", order) if order else ("t",):
            frame_times(frame[column], source, "time" if column == "t" else f"column '{column}'")
        if order:
            for column in ("t", order):  # every cell a time before the rows are sorted by them
                _check_cells(frame[column], source, "time" if column == "t" else f"column '{column}'")
            frame = frame.sort_values(["t", order], kind="stable")
        times = None if order else _integers(frame["t"])
        if times is None:  # ordered, or times not integers (or some missing): row by row, each cell checked
            cells = [frame["t"].astype(object).tolist()]  # a missing time stays what it is, and is refused
            cells += [frame[c].astype(object).where(frame[c].notna(), None).tolist() for c in ("atom", order) if c]
            for n, row in zip((frame.index + 1).tolist(), zip(*cells)):
                yield from grouper.row(source, n, *row)
        else:
            cells = frame["atom"]
            codes, uniques = pd.factorize(cells)
            converted, empty, bad = grouper.convert(list(uniques))
            converted.append(None)  # code -1 (an empty cell): None
            atoms = list(map(converted.__getitem__, codes.tolist()))
            empty = empty or bool((codes < 0).any())
            yield from grouper.block(source, 1, times, atoms, None, cells.iloc.__getitem__, empty, bad)

    yield from grouper.records(fed(df.reset_index(drop=True)))


def _integers(column):
    """A DataFrame column of an integer type without missing cells as a numpy array, else None."""
    import pandas as pd

    if not pd.api.types.is_integer_dtype(column.dtype) or column.hasnans:
        return None
    return column.to_numpy(dtype=getattr(column.dtype, "numpy_dtype", column.dtype))


def _check_cells(column, source: str, what: str) -> None:
    """Every cell of a column that is not of an integer type checked as a time, in row order."""
    if _integers(column) is None:
        for n, value in enumerate(column.astype(object).tolist(), 1):
            try:
                time_value(value, what)
            except ValueError as e:
                raise stream_error(source, n, 1, str(e)) from None


def frame_times(column, source: str, what: str = "time") -> None:
    """Refuse a DataFrame column of floats as times, at its first missing cell (pandas stores an
    integer column with one as floats) or first row."""
    if column.dtype.kind != "f":
        return
    missing = column.isna().to_numpy().nonzero()[0]
    row = int(missing[0]) if len(missing) else 0
    name = column.name
    notes = (
        (f"column '{name}' holds floats, as pandas stores integers with a missing cell: every row needs a time",)
        if len(missing)
        else (f"column '{name}' holds floats: convert it, e.g. df['{name}'] = df['{name}'].astype('int64')",)
    )
    try:
        time_value(column.iloc[row], what)  # a float is no time: this says why, as for any cell
    except ValueError as e:
        raise stream_error(source, row + 1, 1, str(e), notes=notes) from None
