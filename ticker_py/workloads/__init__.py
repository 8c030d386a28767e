"""The benchmark workloads (docs/benchmarks.md): programs and deterministic stream generators.

>>> from ticker_py.workloads import generate, program
>>> print(program("diamond", window=5), end="")
q(A,B) :- p(A,B) in [5].
>>> next(generate("diamond", tp=2, rate=2))
(0, [('p', 'a0', 'b0'), ('p', 'a1', 'b1')])

A stream is a pure function of (seed, parameters, t), generated in independent time blocks: the
Spark path (:mod:`ticker_py.spark.gen`) gives the same stream for any block size or partition count.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import pyarrow as pa

from ..errors import Diagnostic, UsageError
from ..syntax import parse_ground_atom
from . import laser, r4, scenario_a, scenario_b
from .base import Workload

__all__ = [
    "Workload",
    "WORKLOADS",
    "MAX_PARAMS",
    "TARGET_BLOCK_ATOMS",
    "resolve",
    "program",
    "block_size",
    "blocks",
    "time_points",
    "generate",
]

WORKLOADS: dict[str, Workload] = {
    w.name: w for w in scenario_a.WORKLOADS + scenario_b.WORKLOADS + laser.WORKLOADS + r4.WORKLOADS
}

#: A numeric name suffix sets this parameter: ``rules-50`` is ``rules`` with r = 50.
_SUFFIX = {"rules": "r", "box-chain": "w"}

#: The largest value of each parameter that sizes the program or one time point's atoms: beyond
#: these a run would not fit in memory.
MAX_PARAMS = {"r": 10**6, "w": 10**6, "rate": 10**7, "items": 10**7}

#: Blocks are sized to hold about this many atoms.
TARGET_BLOCK_ATOMS = 1 << 20


def resolve(name: str, **params) -> tuple[Workload, dict]:
    """The workload called ``name`` and its full parameters (defaults filled in, None ignored)."""
    params = {k: v for k, v in params.items() if v is not None}
    base, _, suffix = name.rpartition("-")
    if name not in WORKLOADS and base in _SUFFIX and suffix.isdigit():
        params.setdefault(_SUFFIX[base], int(suffix))
        name = base
    if name not in WORKLOADS:
        known = ", ".join(list(WORKLOADS) + [f"{b}-<{p}>" for b, p in _SUFFIX.items()])
        raise UsageError(Diagnostic(f"unknown scenario '{name}'; known: {known}"))
    w = WORKLOADS[name]
    unknown = sorted(set(params) - set(w.defaults))
    if unknown:
        raise UsageError(
            Diagnostic(
                f"scenario '{name}' has no parameter '{unknown[0]}'",
                notes=(f"its parameters: {', '.join(w.defaults)}",),
            )
        )
    full = {**w.defaults, **params}
    for key, value in full.items():
        if not isinstance(value, int) or value < (0 if key == "tp" else 1):
            raise UsageError(Diagnostic(f"{key} must be an integer >= {0 if key == 'tp' else 1}, got {value!r}"))
        if value > MAX_PARAMS.get(key, value):
            raise UsageError(
                Diagnostic(
                    f"{key} must be at most {MAX_PARAMS[key]}, got {value}",
                    notes=("a larger value would build a program or a time point too large for memory",),
                )
            )
    return w, full


def program(name: str, **params) -> str:
    """The LARS program text (background facts included) of a workload."""
    w, p = resolve(name, **params)
    return w.program(p["window"], **p)


def block_size(w: Workload, params: dict) -> int:
    """Time points per block: about :data:`TARGET_BLOCK_ATOMS` atoms (the Parquet partition key)."""
    return max(1, TARGET_BLOCK_ATOMS // max(1, math.ceil(w.rate(params))))


def _ranges(w: Workload, p: dict, size: int | None):
    size = size or block_size(w, p)
    return [(t0, min(t0 + size, p["tp"])) for t0 in range(0, p["tp"], size)]


def blocks(name: str, seed: int = 0, size: int | None = None, **params) -> Iterator[pa.Table]:
    """The stream as pyarrow tables (columns t, atom) of ``size`` time points each, in order."""
    w, p = resolve(name, **params)
    for t0, t1 in _ranges(w, p, size):
        yield w.block(seed, t0, t1, p)


def time_points(name: str, seed: int = 0, size: int | None = None, **params) -> Iterator[tuple[int, list]]:
    """``(t, [atom strings])`` for every time point 0 .. tp-1, atoms in arrival order."""
    w, p = resolve(name, **params)
    for t0, t1 in _ranges(w, p, size):
        tab = w.block(seed, t0, t1, p)
        cuts = np.searchsorted(tab["t"].to_numpy(), np.arange(t0, t1 + 1))
        atoms = tab["atom"].to_pylist()
        for t in range(t0, t1):
            yield t, atoms[cuts[t - t0] : cuts[t - t0 + 1]]


def generate(name: str, seed: int = 0, size: int | None = None, **params) -> Iterator[tuple[int, list]]:
    """``(t, [atom tuples])`` for every time point 0 .. tp-1, atoms in arrival order; ``params``:
    ``tp``, ``window`` and the workload's own, defaults filled in."""
    for t, atoms in time_points(name, seed, size, **params):
        yield t, [parse_ground_atom(a) for a in atoms]
