"""The plan of a sharded run: key, time or both (:func:`plan_for`), the grid of cells
(:func:`make_grid`, time ranges cut by atom count) and the stream read and split into the cells' rows."""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass

from ..analysis import Analysis
from ..analysis.sharding import ShardPlan, TimePlan, shard_of, shard_plan, time_plan
from ..errors import Diagnostic, TickerError, UsageError
from ..stages.input import Input
from ..streams.model import Record, time_points

#: without time sharding the output is still cut into as many ranges as shards, or ranges of about
#: this many atoms if that makes more (the driver holds one range of answers at a time)
OUTPUT_RANGE_ATOMS = 1_000_000


def _refuse(reason: str) -> UsageError:
    return UsageError(
        Diagnostic(
            f"this program cannot be evaluated in shards: {reason}",
            notes=("run it unsharded: run or Reasoner, without shards= and spark= (--shards/--spark)",),
        )
    )


def plan_for(analysis: Analysis, shard_by: str = "auto", inertia: bool = False) -> tuple:
    """``(key plan or None, time plan or None)`` for ``shard_by`` (see :data:`~ticker_py.spec.SHARD_BY`), or
    :class:`UsageError` with the reason the program cannot be sharded that way."""
    keys: ShardPlan = shard_plan(analysis)
    times: TimePlan = time_plan(analysis, inertia)
    if inertia and shard_by != "time":  # the key shards would each keep their own earlier answers
        keys = ShardPlan(None, "inertia=True (--inertia) keeps answers from earlier time points")
    if shard_by == "auto":
        if keys.shardable:
            return keys, None
        if times.shardable:
            return None, times
        raise _refuse(f"{keys.reason}; and not by time: {times.reason}")
    if shard_by in ("key", "both") and not keys.shardable:
        raise _refuse(keys.reason)
    if shard_by in ("time", "both") and not times.shardable:
        raise _refuse(f"not by time: {times.reason}")
    return (keys if shard_by != "time" else None), (times if shard_by != "key" else None)


@dataclass(frozen=True)
class Grid:
    """The cells of a sharded run.

    ``key`` (None: not cut by key) and ``key_shards``; ``ranges``: the time ranges (T0, T1)
    covering 0..last, in order, each with ``bases[r]`` = c(T0), the number of atoms before T0;
    ``spans``: the evaluation spans (start, first range, last range) (one per range when cut
    by time, else one over all ranges). Cell ``k * len(spans) + s`` is key shard k, span s.
    """

    key: dict | None
    key_shards: int
    ranges: tuple
    bases: tuple
    spans: tuple

    @property
    def cells(self) -> int:
        return self.key_shards * len(self.spans)

    def cell(self, k: int, s: int) -> int:
        return k * len(self.spans) + s

    def describe(self) -> str:
        how = []
        if self.key is not None:
            how.append(f"{self.key_shards} key shards")
        if len(self.spans) > 1 or self.key is None:
            how.append(f"{len(self.spans)} time ranges")
        return " x ".join(how)


def cut_ranges(counts: dict, last: int, parts: int) -> list:
    """Cut 0..last into at most ``parts`` ranges (T0, T1) of about equal work: atoms (``counts``:
    t -> atoms at t) plus one per time point, so that a burst of atoms is spread over ranges."""
    if last < 0:
        return []
    parts = max(1, min(parts, last + 1))
    left = last + 1 + sum(counts.values())  # work not yet in a closed range
    ranges, start, acc = [], 0, 0

    def close(end):
        nonlocal start, acc, left, parts
        ranges.append((start, end))
        start, left, parts, acc = end, left - acc, parts - 1, 0

    for t in range(last + 1):
        w = 1 + counts.get(t, 0)
        target = left / parts
        if parts > 1 and acc and acc + w - target > target - acc:  # t alone fits the next range better
            close(t)
            target = left / parts
        acc += w
        if parts > 1 and acc >= target and t < last:
            close(t + 1)
    ranges.append((start, last + 1))
    return ranges


def make_grid(
    analysis: Analysis, shards: int, counts: dict, last: int, shard_by: str = "auto", inertia: bool = False
) -> Grid:
    """The grid for ``shards`` cells over a stream with ``counts`` (t -> distinct atoms at t) on 0..last.

    ``both``: K key shards x R time ranges with K * R = shards, K the largest divisor with K <= R.
    """
    keys, times = plan_for(analysis, shard_by, inertia)
    total = sum(counts.values())
    if keys is not None and times is not None:
        k = max(d for d in range(1, shards + 1) if shards % d == 0 and d * d <= shards)
        key_shards, parts = k, shards // k
    elif keys is not None:
        # the output is still cut: one range per shard at least (the merge runs in parallel too)
        key_shards, parts = shards, max(shards, -(-total // OUTPUT_RANGE_ATOMS))
    else:
        key_shards, parts = 1, shards
    ranges = cut_ranges(counts, last, parts)
    ends, acc = [], 0  # ends[t] = c at the end of t
    for t in range(last + 1):
        acc += counts.get(t, 0)
        ends.append(acc)
    bases = tuple(ends[t0 - 1] if t0 else 0 for t0, _ in ranges)
    if times is None:
        spans = ((0, 0, len(ranges) - 1),) if ranges else ()
    else:
        spans = tuple((_start(t0, base, times, ends), r, r) for r, ((t0, _), base) in enumerate(zip(ranges, bases)))
    return Grid(keys.key if keys is not None else None, key_shards, tuple(ranges), bases, spans)


def _start(t0: int, base: int, times: TimePlan, ends: list) -> int:
    """Where a range starting at t0 must read from: t0 - lookback, or the time of global atom
    base - tuple lookback + 1 if earlier (then the cell's own count at t0 is at least the tuple
    lookback, so its tuple windows hold the same atoms as the single run's)."""
    start = max(0, t0 - times.lookback)
    first = base - times.tuple_lookback + 1  # the oldest atom a tuple window at t0 can hold
    if times.tuple_lookback and first >= 1:
        start = min(start, bisect.bisect_left(ends, first))
    elif times.tuple_lookback:
        start = 0
    return start


def shard_targets(atom: tuple, key: dict | None, shards: int):
    """The key shards an atom goes to: its key's shard, or every shard (broadcast)."""
    s = shard_of(atom, key, shards) if key is not None else None
    return range(shards) if s is None else (s,)


def read_stream(records: Iterable[Record], analysis: Analysis, spec):
    """Read and check a stream on the driver: ``(points, last, error)``.

    ``points``: ``(t, atoms)`` of the non-empty time points (duplicates within a time point
    dropped); ``last``: the last time point to evaluate. The records are checked by the input stage
    as in the single run (the cells give the engines' names); on a refused record ``error`` is the
    StreamError and ``last`` the time point of the last accepted record: as in
    :meth:`~ticker_py.api.Reasoner.feed`, everything accepted is evaluated, then the error raised.
    """
    until = spec.until
    stage = Input(analysis, spec, rename=False)
    points, last, error = [], -1, None
    try:
        records = stage.records(stage.open(records), until)
        for point in time_points(records, until):
            last = point.t
            if point.atoms:
                points.append((point.t, point.atoms))
    except TickerError as err:
        error = err
    return points, last, error


def cell_rows(points: list, grid: Grid) -> dict:
    """Each cell's ``(t, atom)`` rows in stream order, from ``points`` (``(t, atoms)`` in time order)."""
    out = {c: [] for c in range(grid.cells)}
    times = [t for t, _ in points]
    for s, (start, _, r1) in enumerate(grid.spans):
        end = grid.ranges[r1][1]
        for t, atoms in points[bisect.bisect_left(times, start) : bisect.bisect_left(times, end)]:
            for atom in atoms:
                for k in shard_targets(atom, grid.key, grid.key_shards):
                    out[grid.cell(k, s)].append((t, atom))
    return out
