"""The predicate-and-arguments Parquet layout of ``ticker gen --parquet-layout args`` (docs/formats.md).

Columns ``predicate`` and ``a1`` .. ``ak`` (k: the widest arity of the stream). Argument column i is
INT64 when every i-th argument of the stream is a 64-bit integer, else UTF-8 source text. The shape
(k and the integer columns) is merged over all blocks, so every file of a stream has one schema.
"""

from __future__ import annotations

from itertools import zip_longest

import pyarrow as pa

from ..syntax.ground_atoms import AtomReader
from ..values import format_term

__all__ = ["LAYOUTS", "parsed", "shape", "merge", "columns", "schema"]

#: ``--parquet-layout`` values: one ``atom`` text column, or ``predicate`` and ``a1`` .. ``ak``
LAYOUTS = ("atom", "args")

_INT64 = (-1 << 63, 1 << 63)


def parsed(texts: list) -> list:
    """The atoms (tuples) of atom texts, each distinct text parsed once."""
    return list(AtomReader().each(texts))


def shape(atoms: list) -> tuple:
    """(widest arity, for each argument position whether all its values are 64-bit integers)."""
    k = max(map(len, atoms), default=1) - 1
    return k, tuple(
        all(type(a[i]) is int and _INT64[0] <= a[i] < _INT64[1] for a in atoms if len(a) > i) for i in range(1, k + 1)
    )


def merge(shapes) -> tuple:
    """The shape that fits the atoms of all ``shapes``."""
    k, ints = 0, ()
    for width, found in shapes:
        ints = tuple(a and b for a, b in zip_longest(ints, found, fillvalue=True))
        k = max(k, width)
    return k, ints


def schema(stream_shape: tuple) -> list:
    """(name, pyarrow type) of the atom columns of a stream of ``stream_shape``."""
    k, ints = stream_shape
    return [("predicate", pa.string())] + [(f"a{i + 1}", pa.int64() if ints[i] else pa.string()) for i in range(k)]


def columns(atoms: list, stream_shape: tuple) -> list:
    """The atom columns (pyarrow arrays, :func:`schema` order) of ``atoms``."""
    k, ints = stream_shape
    out = [pa.array([a[0] for a in atoms], pa.string())]
    for i in range(1, k + 1):
        values = [a[i] if len(a) > i else None for a in atoms]
        if not ints[i - 1]:
            values = [None if v is None else v if type(v) is str else format_term(v) for v in values]
        out.append(pa.array(values, pa.int64() if ints[i - 1] else pa.string()))
    return out
