"""Parquet streams (a file or a hive-partitioned directory), read with pyarrow in batches; each
distinct atom text of a batch converted once. pyarrow and numpy are imported only here."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from ..errors import UsageError
from . import args_layout
from .lines import stream_error
from .model import Record
from .tables import Grouper, atom_columns, check_columns

__all__ = ["read_parquet", "open_parquet", "batches"]


def open_parquet(path, name: str, metadata=None, read_dictionary: tuple = ()):
    """The ``pyarrow.parquet.ParquetFile`` at ``path``, else a StreamError at ``name:1:1``. Its metadata
    is read through the reader only: pyarrow's column-chunk accessors abort on some corrupt footers."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return pq.ParquetFile(str(path), metadata=metadata, read_dictionary=list(read_dictionary) or None)
    except (pa.ArrowException, OSError, ValueError) as e:
        raise stream_error(name, 1, 1, f"not a readable Parquet file ({e})") from None


def read_parquet(path, source: str | None = None, batch_size: int = 65536) -> Iterator[Record]:
    """Read a Parquet file or a (hive-partitioned) Parquet directory in batches (memory: one batch
    plus one time point). A directory is read file by file, ordered by each file's smallest t (path
    order if some are unknown). A record's line is its 1-based row number within its file, its
    source ``source`` (default: the path) or, in a directory, the file's path."""
    where = source or str(path)
    files, order, columns = _files(Path(path), where)
    grouper = Grouper(order)
    fed = (r for name, path, pf, keys in files for r in _file(grouper, name, path, pf, keys, columns, batch_size))
    yield from grouper.records(fed)


def _files(root: Path, where: str) -> tuple:
    """([(file name, path, ParquetFile, partition keys)] in time order, order column, atom columns)."""
    if root.is_file():
        found = [(where, root, {})]
    else:
        paths = sorted(
            p for p in root.rglob("*") if p.is_file() and not any(x[0] in "._" for x in p.relative_to(root).parts)
        )  # Spark's _SUCCESS, .crc files
        if not paths:
            raise UsageError.at(
                None, f"stream directory '{where}' holds no Parquet files (a directory is read as a Parquet dataset)"
            )
        found = [(str(p), p, _partition_keys(p.relative_to(root))) for p in paths]
    opened = [(name, p, open_parquet(p, name), keys) for name, p, keys in found]
    names = list(opened[0][2].schema_arrow.names) + list(opened[0][3])
    order = check_columns(names, where, args=True)
    columns = atom_columns(names)
    for name, _, pf, keys in opened:
        these = atom_columns(list(pf.schema_arrow.names) + list(keys))
        if these != columns:
            raise stream_error(
                name,
                1,
                1,
                f"atom columns {', '.join(these)}, not {', '.join(columns)} as in the first file (mixed schemas?)",
            )
        _check_types(pf.schema_arrow, ["t", *columns] + ([order] if order else []), keys, name)
    starts = [_min_t(pf, keys) for _, _, pf, keys in opened]
    if None not in starts:
        opened = [f for _, _, f in sorted(zip(starts, range(len(opened)), opened))]
    return opened, order, columns


def _partition_keys(relative: Path) -> dict:
    """Hive partition keys of a file's directories: ``t=5/x.parquet`` -> ``{"t": 5}``."""
    keys = {}
    for part in relative.parts[:-1]:
        key, eq, value = part.partition("=")
        if eq:
            keys[key] = int(value) if re.fullmatch(r"-?[0-9]+", value) else value
    return keys


def _min_t(pf, keys: dict) -> int | None:
    """The smallest t of a file (its partition key's or its first row's), if known."""
    if "t" in keys:
        return keys["t"]
    cells = _first_cells(pf, "t", 1)
    return cells[0] if cells else None


def _first_cells(pf, column: str, n: int) -> list | None:
    """The first ``n`` cells of a column; None if they do not read (a corrupt file, or text that
    is not UTF-8: reading the file reports what is wrong, located)."""
    try:
        first = next(pf.iter_batches(batch_size=n, columns=[column], use_threads=False), None)
        return first.column(0).to_pylist() if first is not None else []
    except Exception:
        return None


def _check_types(schema, columns: list, keys: dict, name: str) -> None:
    """Refuse a file whose columns are missing or of the wrong type (mixed schemas): the atom and
    predicate columns hold strings, the arguments ``a1``, ``a2``, ... integers or strings, the
    others (t, the order column) integers."""
    import pyarrow as pa

    for column in columns:
        if column in keys:
            continue
        if column not in schema.names:
            found = ", ".join(schema.names) or "none"
            raise stream_error(name, 1, 1, f"missing column '{column}' (columns: {found})")
        kind = schema.field(column).type
        if pa.types.is_dictionary(kind):
            kind = kind.value_type
        string, integer = pa.types.is_string(kind) or pa.types.is_large_string(kind), pa.types.is_integer(kind)
        if column in ("atom", args_layout.PREDICATE):
            fits, want = string, "strings"
        elif column[:1] == "a" and column[1:].isdigit():
            fits, want = integer or string, "integers or strings"
        else:
            fits, want = integer, "integers"
        if not fits:
            raise stream_error(name, 1, 1, f"column '{column}' holds {kind}, not {want} (mixed schemas?)")


def _file(grouper: Grouper, name: str, path, pf, keys: dict, columns: list, batch_size: int) -> Iterator[Record]:
    """The rows of one file into ``grouper``, a batch at a time; partition keys stand for columns."""
    import pyarrow as pa

    wanted = [c for c in ["t", *columns] + ([grouper.order] if grouper.order else []) if c not in keys]
    memo = _Converted(grouper)
    if "atom" in wanted and _repetitive(pf):
        pf = open_parquet(path, name, pf.metadata, ("atom",))
    for number, batch in batches(pf, name, wanted, batch_size):
        n = batch.num_rows
        cells = {c: batch.column(c) for c in wanted}
        cells.update({c: pa.array([value] * n) for c, value in keys.items() if c in ("t", grouper.order, *columns)})
        bad = min(((row, c) for c in columns for row in [_invalid_utf8(cells[c])] if row is not None), default=None)
        if bad is not None:
            yield from _batch(grouper, memo, name, number, cells, columns, bad[0])
            what = "an atom cell" if bad[1] == "atom" else f"a cell of column '{bad[1]}'"
            raise stream_error(name, number + bad[0], 1, f"{what} that is not valid UTF-8")
        yield from _batch(grouper, memo, name, number, cells, columns, n)


def batches(pf, name: str, columns: list, batch_size: int) -> Iterator[tuple]:
    """``(row number of its first row, batch)`` for the batches of a Parquet file (rows count from 1);
    corrupt data is a located StreamError."""
    import pyarrow as pa

    found = pf.iter_batches(batch_size=batch_size, columns=columns, use_threads=False)
    number = 1
    while True:
        try:
            batch = next(found, None)
        except (pa.ArrowException, OSError, ValueError) as e:
            raise stream_error(name, number, 1, f"corrupt Parquet data ({e})") from None
        if batch is None:
            return
        yield number, batch
        number += batch.num_rows


def _batch(
    grouper: Grouper, memo: _Converted, name: str, number: int, cells: dict, columns: list, n: int
) -> Iterator[Record]:
    """The first ``n`` rows of a batch's columns ``cells`` (rows ``number``, ... of the file)."""
    cells = {c: column.slice(0, n) for c, column in cells.items()}
    t, keys = cells["t"], cells[grouper.order] if grouper.order else None
    if columns == ["atom"]:
        atoms, cell, empty, bad = memo.atoms(cells["atom"])
    else:
        atoms, cell, empty, bad = args_layout.atoms([cells[c] for c in columns])
    times, key_array = _integers(t), _integers(keys) if keys is not None else None
    if times is None or (keys is not None and key_array is None):  # not integers, or nulls: row by row
        key_cells = keys.to_pylist() if keys is not None else [None] * n
        for i, (time, key) in enumerate(zip(t.to_pylist(), key_cells)):
            yield from grouper.converted(name, number + i, time, key, atoms[i], cell(i))
        return
    yield from grouper.block(name, number, times, atoms, key_array, cell, empty, bad)


def _repetitive(pf) -> bool:
    """Whether the first rows of the atom column repeat texts: then it is read dictionary-encoded
    (for mostly distinct texts the dictionary would only cost its hashing)."""
    texts = _first_cells(pf, "atom", 4096)
    return texts is not None and len(set(texts)) * 4 <= len(texts) * 3


#: the most dictionary entries whose atoms a file's reader keeps; a larger dictionary (a column
#: stored without one, whose texts stop recurring) is decoded batch by batch, so memory stays bounded
MIRRORED = 1 << 18


class _Converted:
    """The atoms of a file's atom column. A dictionary-encoded column has each distinct text converted
    once: pyarrow hands every batch the same dictionary or one that grows, so only texts new to it
    are converted. Other columns, and dictionaries past :data:`MIRRORED` entries, are converted as
    they come."""

    def __init__(self, grouper: Grouper):
        self.grouper = grouper
        self._forget()

    def _forget(self) -> None:
        self.dictionary = None  # the previous batch's dictionary, its texts and their atoms
        self.texts: list = []
        self.objects = None  # the atoms, as a numpy object array
        self.empty = self.bad = False

    def atoms(self, column) -> tuple:
        """(atoms, cell text of row i, whether a cell is empty, whether one is bad) of a batch."""
        import pyarrow as pa

        if not pa.types.is_dictionary(column.type) or len(column.dictionary) > MIRRORED:
            self._forget()
            texts = column.to_pylist()
            atoms, empty, bad = self.grouper.convert(texts)
            return atoms, texts.__getitem__, empty or column.null_count > 0, bad
        self._extend(column.dictionary)
        texts, objects = self.texts, self.objects
        indices = _integers(column.indices)
        if indices is None:  # null cells: heartbeats
            rows = column.indices.to_pylist()
            atoms = [None if i is None else objects[i] for i in rows]
            return atoms, lambda i: None if rows[i] is None else texts[rows[i]], True, self.bad
        return objects[indices].tolist(), lambda i: texts[indices[i]], self.empty, self.bad

    def _extend(self, dictionary) -> None:
        import numpy as np

        known = self.dictionary
        if known is None or len(dictionary) < len(known) or not dictionary.slice(0, len(known)).equals(known):
            self._forget()
            known = dictionary.slice(0, 0)
        if len(dictionary) > len(known) or self.objects is None:
            new = dictionary.slice(len(known)).to_pylist()
            converted, empty, bad = self.grouper.convert(new)
            # an object array built item by item: numpy would make a tuple of a sequence into a row
            added = np.fromiter(converted, dtype=object, count=len(converted))
            self.objects = added if self.objects is None else np.concatenate([self.objects, added])
            self.texts += new
            self.empty, self.bad = self.empty or empty, self.bad or bad
        self.dictionary = dictionary


def _integers(column):
    """An integer column without nulls as a numpy array over its buffer (pyarrow's ``to_numpy`` imports
    pandas), else None."""
    import numpy as np
    import pyarrow as pa

    if not pa.types.is_integer(column.type) or column.null_count:
        return None
    dtype = np.dtype(str(column.type))
    return np.frombuffer(column.buffers()[1], dtype=dtype, count=len(column), offset=column.offset * dtype.itemsize)


def _invalid_utf8(column) -> int | None:
    """The first row of a string column whose cell is not valid UTF-8 (pyarrow fails only when it
    makes Python strings of them), else None."""
    import pyarrow as pa

    values = column.dictionary if pa.types.is_dictionary(column.type) else column
    if not pa.types.is_string(values.type) and not pa.types.is_large_string(values.type):
        return None
    try:
        values.validate(full=True)
        return None
    except pa.ArrowInvalid:
        pass
    for i in range(len(column)):
        try:
            column[i].as_py()
        except UnicodeDecodeError:
            return i
    return None
