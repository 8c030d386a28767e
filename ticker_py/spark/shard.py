"""Sharded evaluation in Spark tasks: the only part of sharding that imports pyspark.

Planning, cell evaluation and merging are :mod:`ticker_py.shard`'s (see there and docs/spark.md);
this module runs them as Spark stages: the stream is assigned to its cells (one task per cell,
:func:`~ticker_py.shard.evaluate_cell`), the cells' reports are shuffled to their time range (one
task per range, :func:`~ticker_py.shard.merge_range`), and the merged answers either come to the
driver one time range at a time (:func:`run_sharded`) or are written by the executors as Parquet
(:func:`write_sharded`). pyspark is imported inside the functions, so the module imports without a JVM.
"""

from __future__ import annotations

import contextlib
import itertools
import pickle
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from ..api import analysed
from ..engines import resolve_engine
from ..errors import Diagnostic, StreamError
from ..shard import cell_rows, evaluate_cell, make_grid, merge_range, plan_for, read_stream, shard_targets
from ..spec import EVALUATION, INPUT, PROGRAM, SHARDS, RunSpec, takes_spec
from ..streams.factorized import factorized_result
from ..streams.model import Model, Result
from ..streams.spark_frame import order_column
from ..syntax.ground_atoms import GroundSyntaxError, parse_ground_atom
from ..values import format_atom

__all__ = ["run_sharded", "write_sharded", "REPORT_SCHEMA", "INPUT_SCHEMA", "RESULT_SCHEMA"]

INPUT_SCHEMA = "cell int, part long, t long, c long, atom string"
# the rows of ticker_py.shard.evaluate_cell with their key shard and the range's partition label
REPORT_SCHEMA = (
    "rpart long, range int, shard int, t long, model int, kind int, n long, added array<binary>, "
    "removed array<binary>, pins_added array<binary>, pins_removed array<binary>, message string"
)
# merged answers, one row per (t, answer stream); model null: no answer stream at t
# factorize: one row per t with the pickled Factorized in `factors` (to the driver), or the factors
# as text (--out): `model` null, `factor` 0 for the common part, then `factor` i, `alternative` k
RESULT_SCHEMA = (
    "range int, t long, c long, model int, atoms array<{0}>, pins array<{0}>, message string, "
    "factor int, alternative int, factors binary"
)


def _labels(spark, n: int) -> list:
    """Values whose Spark hash lands in partitions 0..n-1, one each (``repartition(n, col)``
    uses ``pmod(hash(col), n)``), so that cell (or range) i gets task i."""
    from pyspark.sql import functions as F

    got: dict = {}
    for row in spark.range(64 * n).select("id", F.expr(f"pmod(hash(id), {n})").alias("p")).collect():
        got.setdefault(row.p, row.id)
    if len(got) < n:  # pragma: no cover - would need a degenerate hash
        return list(range(n))
    return [got[s] for s in range(n)]


def _spark_frame(spark, stream):
    """``stream`` as a Spark DataFrame if it is one or a Parquet path Spark reads, else None."""
    if hasattr(stream, "toLocalIterator") and hasattr(stream, "columns"):
        return stream
    if (
        isinstance(stream, (str, Path))
        and str(stream) != "-"
        and (Path(stream).is_dir() or str(stream).lower().endswith(".parquet"))
    ):
        return spark.read.parquet(str(stream))
    return None


def _prepare(spark, analysis, stream, shards, spec: RunSpec):
    """``(grid, cells, counts, error)``: the plan and the stream as a Spark DataFrame of cell rows.

    A Spark DataFrame or Parquet path is counted (distinct atoms per time point: one aggregation
    whose per-time-point counts come to the driver) and assigned to cells in Spark; any other
    stream is read, checked and assigned on the driver. ``counts`` (Spark input only) lets the
    merge check that the tasks parsed as many distinct atoms as the aggregation counted.
    """
    import pandas as pd
    from pyspark.sql import functions as F

    until, shard_by, inertia = spec.until, spec.shard_by, spec.inertia
    sdf = _spark_frame(spark, stream)
    if sdf is None:
        points, last, error = read_stream(stream, analysis, spec)
        counts = {t: len(a) for t, a in points}
        grid = make_grid(analysis, shards, counts, last, shard_by, inertia)
        labels = _labels(spark, grid.cells)
        rows = cell_rows(points, grid)
        frame = pd.DataFrame(
            [(cell, labels[cell], t, i, format_atom(a)) for cell, got in rows.items() for i, (t, a) in enumerate(got)],
            columns=["cell", "part", "t", "c", "atom"],
        ).astype({"cell": "int32", "part": "int64", "t": "int64", "c": "int64"})
        from .gen import _conf

        with _conf(spark, {"spark.sql.execution.arrow.pyspark.enabled": "true"}):
            df = spark.createDataFrame(frame, INPUT_SCHEMA) if len(frame) else spark.createDataFrame([], INPUT_SCHEMA)
        return grid, df, labels, None, error

    order = order_column(list(sdf.columns), "<Spark DataFrame>")
    sdf = sdf.select(
        F.col("t").cast("long").alias("t"),
        F.col("atom").cast("string").alias("atom"),
        F.col(order).cast("long").alias("c") if order else F.monotonically_increasing_id().alias("c"),
    )
    if until is not None:
        sdf = sdf.filter(F.col("t") <= until)
    atoms = sdf.filter(F.col("atom").isNotNull() & (F.trim(F.col("atom")) != ""))
    per_t = atoms.groupBy("t").agg(F.countDistinct(F.trim(F.col("atom"))).alias("n")).collect()
    counts = {row.t: row.n for row in per_t}
    top = sdf.agg(F.max("t")).first()[0]
    last = until if until is not None else max(0, top if top is not None else 0)
    grid = make_grid(analysis, shards, counts, last, shard_by, inertia)
    labels = _labels(spark, grid.cells)
    return grid, sdf.mapInArrow(_assigner(grid, labels), INPUT_SCHEMA), labels, counts, None


def _assigner(grid, labels: list):
    """The mapInArrow function that gives each input row its cells (a row in an overlap, or of a
    broadcast predicate, goes to several)."""
    spans = [(start, grid.ranges[r1][1], s) for s, (start, _, r1) in enumerate(grid.spans)]

    def assign(batches):
        import pyarrow as pa

        for batch in batches:
            cells, ts, cs, texts = [], [], [], []
            cols = (batch.column(c).to_pylist() for c in ("t", "c", "atom"))
            for t, c, text in zip(*cols):
                if text is None or not text.strip():
                    continue  # a heartbeat: the last time point is known anyway
                keys = (0,)
                if grid.key is not None:
                    try:
                        keys = shard_targets(parse_ground_atom(text), grid.key, grid.key_shards)
                    except GroundSyntaxError:
                        keys = (0,)  # key shard 0 reports the error
                for start, end, s in spans:
                    if start <= t < end:
                        for k in keys:
                            cells.append(grid.cell(k, s))
                            ts.append(t)
                            cs.append(c)
                            texts.append(text)
            yield pa.RecordBatch.from_arrays(
                [
                    pa.array(cells, pa.int32()),
                    pa.array([labels[x] for x in cells], pa.int64()),
                    pa.array(ts, pa.int64()),
                    pa.array(cs, pa.int64()),
                    pa.array(texts, pa.string()),
                ],
                ["cell", "part", "t", "c", "atom"],
            )

    return assign


def _batches(rows, schema, size=256):
    """Rows (tuples in ``schema``'s order) as Arrow record batches of ``size`` rows."""
    import pyarrow as pa

    buf = []
    for row in rows:
        buf.append(row)
        if len(buf) >= size:
            yield pa.RecordBatch.from_arrays(
                [pa.array(c, type=f.type) for c, f in zip(zip(*buf), schema)], schema=schema
            )
            buf = []
    if buf:
        yield pa.RecordBatch.from_arrays([pa.array(c, type=f.type) for c, f in zip(zip(*buf), schema)], schema=schema)


def _evaluator(analysis, grid, range_labels, spec: RunSpec):
    """The mapInArrow function of the cell tasks: rows sorted by (cell, t, c) in, reports out."""
    spans = len(grid.spans)

    def evaluate(batches):
        import pyarrow as pa

        blobs = pa.list_(pa.binary())
        schema = pa.schema(
            [("rpart", pa.int64()), ("range", pa.int32()), ("shard", pa.int32()), ("t", pa.int64())]
            + [("model", pa.int32()), ("kind", pa.int32()), ("n", pa.int64())]
            + [(c, blobs) for c in ("added", "removed", "pins_added", "pins_removed")]
            + [("message", pa.string())]
        )

        def rows():
            for batch in batches:
                yield from zip(*(batch.column(c).to_pylist() for c in ("cell", "t", "atom")))

        def reports():
            for cell, group in itertools.groupby(rows(), key=lambda r: r[0]):
                k = cell // spans
                cell_input = ((t, a) for _, t, a in group)
                for r, *rest in evaluate_cell(analysis, grid, cell, cell_input, spec):
                    yield (range_labels[r], r, k, *rest)

        yield from _batches(reports(), schema, 64)

    return evaluate


def _merger(grid, models, counts, text):
    """The mapInArrow function of the range tasks: reports sorted by (range, t, shard, model) in,
    result rows out (atoms pickled, or as text with ``text``). A range that meets an error row
    reports the error at its time point and stops."""

    def merge(batches):
        import pyarrow as pa

        item = pa.string() if text else pa.binary()
        schema = pa.schema(
            [("range", pa.int32()), ("t", pa.int64()), ("c", pa.int64()), ("model", pa.int32())]
            + [("atoms", pa.list_(item)), ("pins", pa.list_(item)), ("message", pa.string())]
            + [("factor", pa.int32()), ("alternative", pa.int32()), ("factors", pa.binary())]
        )
        names = ("range", "shard", "t", "model", "kind", "n", "added", "removed", "pins_added", "pins_removed")

        def rows():
            for batch in batches:
                yield from zip(*(batch.column(c).to_pylist() for c in names + ("message",)))

        def out():
            for r, group in itertools.groupby(rows(), key=lambda row: row[0]):
                reports = (row[1:] for row in group)
                t = grid.ranges[r][0]
                before = grid.bases[r]
                try:
                    for res in merge_range(grid, r, reports, models):
                        t = res.t
                        if counts is not None and res.c - before != counts.get(res.t, 0):
                            raise StreamError(
                                Diagnostic(
                                    f"time point {res.t} holds {counts.get(res.t, 0)} distinct atom texts but "
                                    f"{res.c - before} distinct atoms: write each atom in one way (as ticker gen does)"
                                )
                            )
                        before = res.c
                        f = res.factors
                        if f is not None and not text:  # the factorization whole, expanded on the driver
                            yield r, res.t, res.c, None, None, None, None, None, None, pickle.dumps(f)
                            continue
                        if f is not None:  # the common part (factor 0), then each alternative
                            if not f.count:
                                yield r, res.t, res.c, None, None, None, None, None, None, None
                                continue
                            m = f.common
                            yield r, res.t, res.c, None, m.sorted_atoms(), m.sorted_pinned(), None, 0, 0, None
                            for i, alternatives in enumerate(f.factors, 1):
                                for k, m in enumerate(alternatives, 1):
                                    yield r, res.t, res.c, None, m.sorted_atoms(), m.sorted_pinned(), None, i, k, None
                            continue
                        if not res.models:
                            yield r, res.t, res.c, None, None, None, None, None, None, None
                        for i, m in enumerate(res.models):
                            if text:
                                yield r, res.t, res.c, i, m.sorted_atoms(), m.sorted_pinned(), None, None, None, None
                            else:
                                atoms = [pickle.dumps(a) for a in m.atoms]
                                pins = [pickle.dumps(p) for p in m.pinned]
                                yield r, res.t, res.c, i, atoms, pins, None, None, None, None
                except StreamError as err:
                    yield r, t, before, None, None, None, err.diagnostics[0].message, None, None, None

        yield from _batches(out(), schema)

    return merge


def _merged(spark, analysis, stream, spec: RunSpec, text: bool):
    """``(grid, merged DataFrame, error)``: the whole pipeline as one lazy DataFrame whose
    partition r holds time range r."""
    shards = spec.shards or spark.sparkContext.defaultParallelism
    grid, df, labels, counts, error = _prepare(spark, analysis, stream, shards, spec)
    ranges = max(1, len(grid.ranges))
    range_labels = _labels(spark, ranges)
    sentinels = spark.createDataFrame([(c, labels[c], -1, 0, None) for c in range(grid.cells)], INPUT_SCHEMA)
    reports = (
        df.unionByName(sentinels)
        .repartition(grid.cells or 1, "part")
        .sortWithinPartitions("cell", "t", "c")
        .mapInArrow(_evaluator(analysis, grid, range_labels, spec), REPORT_SCHEMA)
    )
    item = "string" if text else "binary"
    merged = (
        reports.repartition(ranges, "rpart")
        .sortWithinPartitions("range", "t", "shard", "model")
        .mapInArrow(_merger(grid, spec.models_per_tick, counts, text), RESULT_SCHEMA.format(item))
    )
    return grid, merged, error


def _checked(program, spec: RunSpec):
    """The program analysed, refused here (not in the tasks) if it cannot be sharded as ``spec`` says
    or its engine cannot run it; "auto" stays: each cell's Reasoner picks as the single run does."""
    analysis = analysed(program, spec)
    plan_for(analysis, spec.shard_by, spec.inertia)
    resolve_engine(spec.engine, analysis)
    return analysis


@takes_spec(
    PROGRAM, INPUT, EVALUATION, SHARDS, also=("format",), loads=True, exclude=("tuple_order", "spark", "explainable")
)
def run_sharded(program, stream, session=None, timings: dict | None = None, *, spec: RunSpec) -> Iterator[Result]:
    """Evaluate ``program`` over ``stream`` in Spark tasks; yields the merged Results in time order.

    ``stream``: a Spark DataFrame (``t``, ``atom``, optional order column ``c``/``order``/``seq``),
    a Parquet file or directory (read by Spark), or anything :func:`~ticker_py.records_from` reads
    (read and assigned on the driver). ``session`` (a SparkSession) defaults to
    :func:`~ticker_py.spark.session.get_spark` on ``master``; ``shards`` (cells) to its default parallelism;
    ``shard_by``: ``auto``, ``key``, ``time`` or ``both``. A program that cannot be sharded so
    raises :class:`UsageError` with the reason. The answers come to the driver one time range at a
    time. ``timings``, if a dict, receives ``evaluate`` (seconds until the first Result) and
    ``merge`` (the rest). The Spark job runs when the first Result is asked for. ``format="none"``:
    the Results carry the counts and whether there is an answer stream, but no atoms (the executors
    ship none). ``factorize``: Results carrying their factorization.
    """
    return _spark_run(_checked(program, spec), stream, session, timings, spec)


def _spark_run(analysis, stream, session, timings, spec: RunSpec):
    if session is None:
        from .session import get_spark

        session = get_spark(spec.master)
    start = time.perf_counter()
    grid, merged, error = _merged(session, analysis, stream, spec, False)
    models = spec.models_per_tick
    first = None
    with _progress(session, f"sharded run ({grid.describe()})"):
        rows = merged.toLocalIterator(prefetchPartitions=False)  # one time range at a time
        for t, group in itertools.groupby(rows, key=lambda row: row.t):
            group = list(group)
            if group[0].message is not None:
                raise StreamError(Diagnostic(group[0].message))
            if group[0].factors is not None:
                yield factorized_result(t, group[0].c, pickle.loads(group[0].factors), models)
                continue
            models_at = tuple(
                Model(frozenset(map(pickle.loads, row.atoms)), frozenset(map(pickle.loads, row.pins)))
                for row in group
                if row.model is not None
            )
            if first is None:
                first = time.perf_counter()
            yield Result(t, group[0].c, models_at)
    if timings is not None:
        end = time.perf_counter()
        timings.update(evaluate=(first or end) - start, merge=end - (first or end))
    if error is not None:
        raise error


@takes_spec(PROGRAM, INPUT, EVALUATION, SHARDS, loads=True, exclude=("tuple_order", "spark", "explainable"))
def write_sharded(program, stream, out, session=None, *, spec: RunSpec) -> dict:
    """As :func:`run_sharded`, but the executors write the answers to the directory ``out`` as
    Parquet (partitioned by ``range``, one row per time point and answer stream, atoms as text;
    read it with :func:`ticker_py.read_results`), and the driver collects none of them.

    ``factorize``: the factors instead of the answer streams: per time point a row with ``factor`` 0
    (the common part), then one per alternative ``alternative`` k of factor i (both from 1);
    ``model`` is null there. ``out`` is replaced. Spark writes ``_SUCCESS`` when the run is complete; after a stream error
    it is removed and the error raised. Returns ``{"time_points", "plan"}``.
    """
    analysis = _checked(program, spec)
    if session is None:
        from .session import get_spark

        session = get_spark(spec.master)
    grid, merged, error = _merged(session, analysis, stream, spec, True)
    out = Path(out)
    with _progress(session, f"sharded run ({grid.describe()})"):
        merged.write.mode("overwrite").partitionBy("range").parquet(str(out))
    from pyspark.sql import functions as F

    written = session.read.schema(RESULT_SCHEMA.format("string")).parquet(str(out))
    bad = written.filter(F.col("message").isNotNull()).orderBy("t").select("message").first()
    if bad is not None or error is not None:
        (out / "_SUCCESS").unlink(missing_ok=True)
        raise StreamError(Diagnostic(bad.message)) if bad is not None else error
    last = grid.ranges[-1][1] if grid.ranges else 0
    return {"time_points": last, "plan": grid.describe()}


@contextlib.contextmanager
def _progress(spark, desc: str, after: float = 3.0):
    """A tqdm bar on stderr (tasks done of the running stages, from Spark's status tracker) for
    jobs that run longer than ``after`` seconds; nothing without tqdm or a terminal."""
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm comes with the spark extra
        yield
        return
    if not sys.stderr.isatty():
        yield
        return
    stop = threading.Event()

    def poll():
        tracker, bar, began = spark.sparkContext.statusTracker(), None, time.monotonic()
        while not stop.wait(0.5):
            if time.monotonic() - began < after:
                continue
            total = done = 0
            for sid in tracker.getActiveStageIds():
                info = tracker.getStageInfo(sid)
                if info is not None:
                    total += info.numTasks
                    done += info.numCompletedTasks
            if total:
                if bar is None:
                    bar = tqdm(total=total, desc=desc, unit="task", leave=False, file=sys.stderr)
                bar.total, bar.n = total, done
                bar.refresh()
        if bar is not None:
            bar.close()

    thread = threading.Thread(target=poll, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
