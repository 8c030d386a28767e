"""Sharded evaluation: the stream cut by key, by time or both (a grid of *cells*), every cell
evaluated by its own reasoner (one after another in-process here, or in Spark tasks by
:mod:`ticker_py.spark.shard`), the cells' answers merged per time point.

The pipeline (see docs/spark.md, "Sharded evaluation"):

0. **Source** (:func:`prepare`). The cells read a Parquet stream: a Parquet file or directory is
   scanned once (:func:`scan_parquet`): the row groups' ``t`` statistics where they suffice, else
   its ``t`` column (time order, the gaps, the atoms per time point); any other stream is read and
   checked by the input stage and written to Parquet once. With Spark this runs while the session
   starts.
1. **Plan** (:func:`make_grid`). *Key* sharding (:func:`~ticker_py.analysis.sharding.shard_plan`):
   by time if the program allows it (``auto``: a time cell's answers need no other cell's), else
   by key. A stream atom of a keyed predicate goes to key shard ``shard_of(atom, key, K)``, any other atom
   to every key shard. *Time* sharding (:func:`~ticker_py.analysis.sharding.time_plan`): the time
   points 0..last are cut into ranges [T0, T1) of about equal work (atoms + time points, so a burst
   does not land in one range); the cell of a range reads the stream from its *start*: T0 - lookback,
   or the time of global atom c(T0) - tuple lookback when that is earlier (c(T0): the atoms before
   T0). Both compose: K key shards x R time ranges. Without time sharding one evaluation span covers
   all ranges, which then only cut the output.
2. **Evaluate** (:func:`run_cell`). A cell reads its slice (:func:`read_slice`: the files and row
   groups of its span, its key shard's atoms selected per distinct atom text), appends its atoms
   from its start on and evaluates
   every time point of its ranges (empty ones included: a box or time window must see time pass).
   It reports, per time point, the number of distinct stream atoms it *owns* (keyed atoms of the
   key shard; other atoms count in key shard 0 only), and its answer restricted to what it owns:
   a derived atom of a keyed predicate is kept only by the key shard its key value hashes to. It
   writes these rows (atoms as texts) to its own Parquet part and returns its counts per range.
3. **Merge** (:func:`merge_shards`, per time range, with the range's base count c(T0)). With one
   answer stream per shard (``models=1``) the cells send changes (added/removed atoms, from
   nothing at each range's first time point) and the merged answer stream at t is the union of the
   key shards' current ones; otherwise they send whole models and the merged answer streams are
   the distinct unions of one answer stream per key shard (the product), the first ``models``
   of them when ``models > 0``. If some key shard has no answer stream at t, neither has the whole
   stream. The count c of tick (t, c) is c(T0) (the sum of the cells' counts of the ranges before)
   plus the owned counts since T0: the global count. Nothing but answers moves between cells.

For a shardable program the merged answers equal the single-process run's for ``models=0``; with
``models=1`` they are equal when the program has one answer stream per time point, and otherwise
one of the correct answer streams.

This package is the pure part (no Spark; :class:`ShardedRun` holds a run's plan); :mod:`ticker_py.spark.shard`
runs the same cells and merges in Spark tasks.
"""

from __future__ import annotations

from .cell import ERROR, FACTORS, MODEL, NONE, STATE, evaluate_cell, needs_owner_filter, read_slice, run_cell
from .merge import merge_range, merge_shards
from .plan import Grid, Source, check_sharded, cut_ranges, make_grid, plan_for, prepare, scan_parquet
from .run import ShardedRun, merged, read_results, run_sharded_local

__all__ = [
    "Grid",
    "Source",
    "plan_for",
    "check_sharded",
    "make_grid",
    "cut_ranges",
    "prepare",
    "scan_parquet",
    "needs_owner_filter",
    "read_slice",
    "evaluate_cell",
    "run_cell",
    "merge_shards",
    "merge_range",
    "ShardedRun",
    "merged",
    "run_sharded_local",
    "read_results",
    "STATE",
    "MODEL",
    "NONE",
    "ERROR",
    "FACTORS",
]
