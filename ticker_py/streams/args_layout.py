"""The predicate-and-arguments layout of Parquet streams: columns ``predicate``, ``a1`` .. ``ak``.

A row's atom is its predicate with its arguments up to the first null; a string cell means what the
same text means inside an atom (docs/formats.md).
"""

from __future__ import annotations

from ..syntax.ground_atoms import GroundSyntaxError, parse_ground_atom, parse_ground_term
from ..values import format_term
from .tables import PREDICATE, Bad

__all__ = ["PREDICATE", "atoms", "cell_term", "cell_predicate"]


def cell_predicate(value):
    """A predicate cell's name (None: null or blank), or a :class:`~.tables.Bad` that says why it is none."""
    if value is None or not value.strip():
        return None
    try:
        atom = parse_ground_atom(value)
    except GroundSyntaxError as e:
        return Bad(e.message, value)
    return atom[0] if len(atom) == 1 else Bad("a predicate cell holds an atom, not a name", value)


def cell_term(value):
    """An argument cell's term (None: null; an integer cell as it is), or a :class:`~.tables.Bad`."""
    if value is None or type(value) is int:
        return value
    try:
        return parse_ground_term(value)
    except GroundSyntaxError as e:
        return Bad(e.message, value)


def _values(column, convert) -> list:
    """The converted cells of a pyarrow column (each distinct string once; integers as they are)."""
    import pyarrow as pa

    if pa.types.is_dictionary(column.type):
        converted = [convert(v) for v in column.dictionary.to_pylist()] + [None]
        return list(map(converted.__getitem__, [-1 if c is None else c for c in column.indices.to_pylist()]))
    values = column.to_pylist()
    if pa.types.is_integer(column.type):
        return values
    distinct = {value: convert(value) for value in set(values)}
    return list(map(distinct.__getitem__, values))


def atoms(columns: list) -> tuple:
    """(atoms, cell of row i, whether a row is a heartbeat, whether one is bad) of a batch's columns
    (pyarrow arrays), as :meth:`~.tables.Grouper.block` takes them."""
    values = [_values(columns[0], cell_predicate)] + [_values(c, cell_term) for c in columns[1:]]
    plain = not any(c.null_count for c in columns) and not any(
        type(v) is Bad or v is None for column in values for v in column
    )
    if plain:
        return list(zip(*values)), _no_cell, False, False
    rows = list(map(_row, *values))
    return rows, _no_cell, None in rows, any(type(r) is Bad for r in rows)


def _no_cell(i: int):
    """Rows of this layout carry their errors (:class:`~.tables.Bad`): no cell to parse again."""
    return None


def _row(predicate, *args):
    """The atom of one row, None (a heartbeat) or a Bad that says why it is none."""
    if None in args:
        arity = args.index(None)
        later = next((i for i in range(arity, len(args)) if args[i] is not None), None)
        if later is not None:
            return Bad(f"argument a{later + 1} after the empty a{arity + 1}")
        args = args[:arity]
    if predicate is None:
        return None if not args else Bad("arguments without a predicate (an empty 'predicate' cell)")
    cells = (predicate, *args)
    first = next((x for x in cells if type(x) is Bad), None)
    if first is None:
        return cells
    texts = [x.text if type(x) is Bad else format_term(x) for x in cells]
    text = f"{texts[0]}({','.join(texts[1:])})" if args else texts[0]
    return Bad(f"atom '{text}': {first.message}")
