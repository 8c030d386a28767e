"""Differences explained: for two sides' answer streams at one tick, the why of each atom one side
has and the why-not of the side that lacks it. An atom an engine derives without a well-founded
support (or misses although a rule instance's body holds) has an explanation that cannot be built:
that side is reported as wrong, with the reason.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from ..analysis import Analysis
from ..errors import InternalError, TickerError
from ..streams.model import Model, in_printed_order
from ..values import format_atom
from . import TickAnswer, explain

__all__ = ["explain_differences", "stream_history"]


def stream_history(points, t: int, c: int) -> list:
    """``(u, k, atom)`` for the stream atoms up to tick (t, c) from grouped time points."""
    atoms = ((tp.t, atom) for tp in itertools.takewhile(lambda tp: tp.t <= t, points) for atom in tp.atoms)
    return [(u, k, atom) for k, (u, atom) in zip(range(1, c + 1), atoms)]


def _items(model: Model) -> set:
    """The atoms of an answer stream as printed: ``p(1)`` at t, ``p(1) at 3`` pinned elsewhere."""
    return {format_atom(a) for a in model.atoms} | {f"{format_atom(a)} at {u}" for a, u in model.pinned}


def _closest(model: Model, others: list):
    mine = _items(model)
    return min(others, key=lambda m: len(mine ^ _items(m))) if others else None


def _one(analysis, history, t, c, models, atom, index, why_not) -> list:
    """The explanation's lines, indented under the atom's."""
    try:
        text = str(explain(analysis, TickAnswer(history, t, c, models), atom, index, why_not))
    except InternalError as err:
        text = f"cannot be explained: {err}"
    except TickerError as err:
        text = str(err)
    return ["    " + line for line in text.splitlines()]


def explain_differences(
    analysis: Analysis, history: Sequence[tuple], t: int, c: int, sides: dict, max_atoms: int = 10
) -> str:
    """Text explaining every atom one side's answer stream has and the other's lacks.

    ``sides``: ``{name: models}`` for exactly two sides (empty: no answer stream). Answer streams
    present on one side only are paired with the closest answer stream of the other side."""
    lines, pair = [], list(sides.items())
    for (name, models), (other_name, other_models) in (pair, pair[::-1]):
        mine, theirs = in_printed_order(set(models)), in_printed_order(set(other_models))
        for model in mine:
            if model in theirs:
                continue
            k = mine.index(model) + 1
            partner = _closest(model, theirs)
            if partner is None:
                lines.append(f"{other_name} has no answer stream; {name} has answer stream {k}:")
                extra = _items(model)
            else:
                kk = theirs.index(partner) + 1
                extra = _items(model) - _items(partner)
                lines.append(f"{name} answer stream {k} vs {other_name} answer stream {kk}:")
            for shown in sorted(extra)[:max_atoms]:
                lines.append(f"  {shown}: {name} has it")
                lines += _one(analysis, history, t, c, mine, shown, k, False)
                if partner is not None:
                    lines.append(f"  {shown}: {other_name} lacks it")
                    lines += _one(analysis, history, t, c, theirs, shown, kk, True)
            if len(extra) > max_atoms:
                lines.append(f"  ... and {len(extra) - max_atoms} more atoms")
    return "\n".join(lines)
