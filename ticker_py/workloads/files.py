"""Writing a workload to a directory without Spark (pyarrow and plain files).

Layout of ``out`` (shared with :func:`ticker_py.spark.gen.generate_parquet`)::

    program.lars                       the program, background facts included
    stream.parquet/block=K/*.parquet   columns t, c (arrival count 1..N), atom (or predicate, a1 .. ak),
                                       hive-partitioned by block = t // block_size
    stream.jsonl                       {"t": 0, "atoms": ["p(a0,b0)", ...]} per time point
    stream.stream                      0: p(a0,b0), p(a1,b1)   per time point (empty: "5:")
    meta.json                          scenario, seed, parameters, block_size, atoms, time_points
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ..errors import Diagnostic, UsageError
from . import _ranges, block_size, layout, program, resolve, time_points

__all__ = [
    "SMALL",
    "write_stream",
    "write_block",
    "write_program",
    "write_meta",
    "write_jsonl",
    "write_text",
    "output_directory",
]

#: Up to this many atoms, a Parquet output also gets stream.jsonl and stream.stream.
SMALL = 10**5


def output_directory(out) -> Path:
    """``out`` as a directory, created if missing; UsageError if it is a file or cannot be made."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise UsageError(
            Diagnostic(
                f"output directory '{out}' exists and is not a directory",
                notes=("--out names the directory to write into",),
            )
        )
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UsageError(Diagnostic(f"cannot create output directory '{out}': {err.strerror or err}")) from None
    return out


def _remove(path: Path) -> None:
    """Remove ``path`` (a directory, a file or a link) if present: a new one replaces it whole."""
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()
    except OSError as err:
        raise UsageError(Diagnostic(f"cannot replace '{path}': {err.strerror or err}")) from None


def write_program(out: Path, name: str, **params) -> None:
    """Write program.lars."""
    (out / "program.lars").write_text(program(name, **params))


def write_meta(out: Path, name: str, seed: int, atoms: int, size: int | None = None, **params) -> dict:
    """Write meta.json (``size``: the block size used, default :func:`block_size`)."""
    w, p = resolve(name, **params)
    meta = {
        "scenario": name,
        "seed": seed,
        "params": p,
        "block_size": size or block_size(w, p),
        "atoms": atoms,
        "time_points": p["tp"],
    }
    (out / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    return meta


def write_jsonl(path: Path, points: Iterable[tuple[int, list]]) -> int:
    return _write(path, points, lambda t, atoms: json.dumps({"t": t, "atoms": atoms}) + "\n")


def write_text(path: Path, points: Iterable[tuple[int, list]]) -> int:
    return _write(path, points, lambda t, atoms: f"{t}: {', '.join(atoms)}\n" if atoms else f"{t}:\n")


def _write(path: Path, points, line) -> int:
    """Write a line per time point; returns the atoms written."""
    atoms = 0
    with open(path, "w") as f:
        for t, batch in points:
            f.write(line(t, batch))
            atoms += len(batch)
    return atoms


def _recurring(tab: pa.Table) -> list:
    """The columns to write with a dictionary: those whose values recur (at most half distinct);
    a dictionary of distinct values (the arrival count c, diamond's atoms) only costs."""
    return [n for n in tab.column_names if n != "c" and 2 * len(tab[n].unique()) <= len(tab)]


def write_block(stream: Path, block: int, t, atom_columns: dict, before: int) -> int:
    """Write one block to ``stream``/block=K/part-0.parquet, arrival counts from ``before`` + 1 on;
    returns its rows."""
    tab = pa.table({"t": t, "c": pa.array(np.arange(before + 1, before + len(t) + 1)), **atom_columns})
    folder = stream / f"block={block}"
    folder.mkdir(parents=True, exist_ok=True)
    pq.write_table(tab, folder / "part-0.parquet", use_dictionary=_recurring(tab))
    return len(tab)


def _write_parquet(out: Path, name: str, seed: int, parquet_layout: str = "atom", **params) -> int:
    w, p = resolve(name, **params)
    size, c = block_size(w, p), 0
    ranges = _ranges(w, p, None)
    # a shorter stream must not keep a longer one's later blocks (Spark's writer overwrites too)
    _remove(out / "stream.parquet")
    if parquet_layout == "args":  # one schema for all files: the shape of every block first
        stream_shape = layout.merge(
            layout.shape(layout.parsed(w.block(seed, t0, t1, p)["atom"].to_pylist())) for t0, t1 in ranges
        )
    for t0, t1 in ranges:
        tab = w.block(seed, t0, t1, p)
        if parquet_layout == "args":
            atoms = layout.parsed(tab["atom"].to_pylist())
            names = [n for n, _ in layout.schema(stream_shape)]
            atom_columns = dict(zip(names, layout.columns(atoms, stream_shape)))
        else:
            atom_columns = {"atom": tab["atom"]}
        c += write_block(out / "stream.parquet", t0 // size, tab["t"], atom_columns, c)
    return c


def write_stream(out, name: str, fmt: str = "parquet", seed: int = 0, parquet_layout: str = "atom", **params) -> dict:
    """Write ``name``'s stream to directory ``out`` in ``fmt`` (parquet, jsonl or text; Parquet in
    ``parquet_layout``, one of :data:`~ticker_py.workloads.layout.LAYOUTS`); returns meta."""
    resolve(name, **params)  # bad parameters are refused before anything is created or replaced
    out = output_directory(out)
    write_program(out, name, **params)
    if fmt == "parquet":
        atoms = _write_parquet(out, name, seed, parquet_layout, **params)
        if atoms <= SMALL:
            write_jsonl(out / "stream.jsonl", time_points(name, seed, **params))
            write_text(out / "stream.stream", time_points(name, seed, **params))
    else:
        writer, path = (write_jsonl, "stream.jsonl") if fmt == "jsonl" else (write_text, "stream.stream")
        atoms = writer(out / path, time_points(name, seed, **params))
    return write_meta(out, name, seed, atoms, **params)
