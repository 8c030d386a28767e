"""The :class:`Workload` record and helpers shared by the scenario modules."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["Workload", "table", "numbers", "joined"]


@dataclass(frozen=True)
class Workload:
    """One benchmark scenario.

    ``program(n, **params)``: the program text for window n; ``block(seed, t0, t1, params)``: a
    table (``t`` int64, ``atom`` string) of time points t0..t1-1 in arrival order, a function of
    its arguments only; ``rate(params)``: expected atoms per time point; ``count(t0, t1, params)``,
    if given: the exact number of atoms in [t0, t1).
    """

    name: str
    description: str
    program: Callable[..., str]
    block: Callable[[int, int, int, dict], pa.Table]
    defaults: dict = field(default_factory=dict)
    rate: Callable[[dict], float] = lambda p: 1.0
    count: Callable[[int, int, dict], int] | None = None


def table(t, atoms) -> pa.Table:
    """A block table from time points and atom strings."""
    return pa.table(
        {
            "t": pa.array(np.asarray(t, dtype=np.int64)),
            "atom": atoms if isinstance(atoms, pa.Array) else pa.array(atoms, pa.string()),
        }
    )


def numbers(values) -> pa.Array:
    """Integers as decimal strings."""
    return pc.cast(pa.array(np.asarray(values, dtype=np.int64)), pa.string())


def joined(*parts) -> pa.Array:
    """The element-wise concatenation of strings and string arrays."""
    return pc.binary_join_element_wise(*parts, "")
