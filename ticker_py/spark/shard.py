"""Sharded evaluation in Spark tasks: the only part of sharding that imports pyspark.

Split, shard evaluation and merge are :mod:`ticker_py.shard`'s (see there and docs/spark.md);
this module runs the shards as Spark tasks. pyspark is imported inside the functions, so the
module imports without a JVM.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from pathlib import Path

from ..api import records_from
from ..engines import resolve_engine
from ..shard import (
    analysis_of,
    check_run,
    check_shards,
    evaluate_shard,
    merge_shards,
    plan_for,
    shard_targets,
    split_stream,
)
from ..streams.drive import MAX_GAP, check_max_gap
from ..streams.model import Result
from ..streams.spark_frame import order_column
from ..syntax.ground_atoms import GroundSyntaxError, parse_ground_atom
from ..values import format_atom

__all__ = ["run_sharded", "OUTPUT_SCHEMA", "INPUT_SCHEMA"]

# the rows of ticker_py.shard.evaluate_shard with their shard, as Spark sees them
OUTPUT_SCHEMA = (
    "shard int, t long, model int, kind int, n long, added array<binary>, "
    "removed array<binary>, pins_added array<binary>, pins_removed array<binary>, "
    "message string"
)
INPUT_SCHEMA = "shard int, part long, t long, c long, atom string"


def _labels(spark, shards: int) -> list:
    """Values whose Spark hash lands in partitions 0..shards-1, one each (``repartition(n, col)``
    uses ``pmod(hash(col), n)``), so that every shard gets its own task."""
    from pyspark.sql import functions as F

    got: dict = {}
    for row in spark.range(64 * shards).select("id", F.expr(f"pmod(hash(id), {shards})").alias("p")).collect():
        got.setdefault(row.p, row.id)
    if len(got) < shards:  # pragma: no cover - would need a degenerate hash
        return list(range(shards))
    return [got[s] for s in range(shards)]


def _spark_input(spark, stream, analysis, key, shards, labels, until, max_gap=MAX_GAP):
    """The stream as a Spark DataFrame ``shard, part, t, c, atom`` and the last time point.

    A Spark DataFrame (columns t, atom and maybe an order column) or a Parquet path is split
    in Spark; any other stream is read and split on the driver.
    """
    import pandas as pd
    from pyspark.sql import functions as F

    sdf = None
    if hasattr(stream, "toLocalIterator") and hasattr(stream, "columns"):
        sdf = stream
    elif (
        isinstance(stream, (str, Path))
        and str(stream) != "-"
        and (Path(stream).is_dir() or str(stream).lower().endswith(".parquet"))
    ):
        sdf = spark.read.parquet(str(stream))
    if sdf is None:
        rows, last, error = split_stream(records_from(stream), analysis, key, shards, until, max_gap)
        frame = pd.DataFrame(
            [(s, labels[s], t, c, format_atom(a)) for s in range(shards) for t, c, a in rows[s]],
            columns=["shard", "part", "t", "c", "atom"],
        )
        frame = frame.astype({"shard": "int32", "part": "int64", "t": "int64", "c": "int64"})
        from .gen import _conf

        with _conf(spark, {"spark.sql.execution.arrow.pyspark.enabled": "true"}):
            df = spark.createDataFrame(frame, INPUT_SCHEMA) if len(frame) else spark.createDataFrame([], INPUT_SCHEMA)
        return df, last, error

    order = order_column(list(sdf.columns), "<Spark DataFrame>")
    sdf = sdf.select(
        F.col("t").cast("long").alias("t"),
        F.col("atom").cast("string").alias("atom"),
        F.col(order).cast("long").alias("c") if order else F.monotonically_increasing_id().alias("c"),
    )
    if until is not None:
        sdf = sdf.filter(F.col("t") <= until)
    top = sdf.agg(F.max("t")).first()[0]
    last = until if until is not None else max(0, top if top is not None else 0)
    assign = _assigner(key, shards, labels)
    return sdf.mapInArrow(assign, INPUT_SCHEMA), last, None


def _assigner(key: dict, shards: int, labels: list):
    """The mapInArrow function that gives each input row its shard (broadcast: every shard)."""

    def assign(batches):
        import pyarrow as pa

        for batch in batches:
            out_shard, out_t, out_c, out_atom = [], [], [], []
            cols = (batch.column(c).to_pylist() for c in ("t", "c", "atom"))
            for t, c, text in zip(*cols):
                if text is None or not text.strip():
                    continue  # a heartbeat: the last time point is known anyway
                try:
                    targets = shard_targets(parse_ground_atom(text), key, shards)
                except GroundSyntaxError:
                    targets = (0,)  # shard 0 reports the error
                for s in targets:
                    out_shard.append(s)
                    out_t.append(t)
                    out_c.append(c)
                    out_atom.append(text)
            yield pa.RecordBatch.from_arrays(
                [
                    pa.array(out_shard, pa.int32()),
                    pa.array([labels[s] for s in out_shard], pa.int64()),
                    pa.array(out_t, pa.int64()),
                    pa.array(out_c, pa.int64()),
                    pa.array(out_atom, pa.string()),
                ],
                ["shard", "part", "t", "c", "atom"],
            )

    return assign


def _evaluator(analysis, key, shards, last, engine, models, show, inertia, batch_rows=64):
    """The mapInArrow function of the shard tasks: rows sorted by (shard, t, c) in, reports out."""

    def evaluate(batches):
        import pyarrow as pa

        schema = _output_arrow_schema()

        def rows():
            for batch in batches:
                yield from zip(*(batch.column(c).to_pylist() for c in ("shard", "t", "c", "atom")))

        def batch_of(buf):
            return pa.RecordBatch.from_arrays(
                [pa.array(col, type=f.type) for col, f in zip(zip(*buf), schema)], schema=schema
            )

        buf = []
        for shard, group in itertools.groupby(rows(), key=lambda r: r[0]):
            shard_rows = ((t, c, a) for _, t, c, a in group)
            for out in evaluate_shard(analysis, key, shard, shards, shard_rows, last, engine, models, show, inertia):
                buf.append((shard, *out))
                if len(buf) >= batch_rows:
                    yield batch_of(buf)
                    buf = []
        if buf:
            yield batch_of(buf)

    return evaluate


def _output_arrow_schema():
    import pyarrow as pa

    blobs = pa.list_(pa.binary())
    return pa.schema(
        [
            ("shard", pa.int32()),
            ("t", pa.int64()),
            ("model", pa.int32()),
            ("kind", pa.int32()),
            ("n", pa.int64()),
            ("added", blobs),
            ("removed", blobs),
            ("pins_added", blobs),
            ("pins_removed", blobs),
            ("message", pa.string()),
        ]
    )


def run_sharded(
    program,
    stream,
    shards: int | None = None,
    engine: str = "auto",
    models: int = 1,
    spark=None,
    show: str = "derived",
    until: int | None = None,
    clock="1s",
    inertia: bool = False,
    timings: dict | None = None,
    max_gap: int | None = MAX_GAP,
) -> Iterator[Result]:
    """Evaluate ``program`` over ``stream`` in ``shards`` Spark tasks; yields the merged Results.

    ``stream``: a Spark DataFrame (``t``, ``atom``, optional order column ``c``/``order``/
    ``seq``), a Parquet file or directory (read by Spark), or anything
    :func:`~ticker_py.records_from` reads (read and split on the driver). ``spark`` defaults
    to :func:`~ticker_py.spark.session.get_spark`; ``shards`` to its default parallelism.
    A program that cannot be sharded raises :class:`UsageError` with the plan's reason.
    ``timings``, if a dict, receives ``evaluate`` (seconds of the Spark job) and ``merge``.
    The Spark job runs when the first Result is asked for.
    """
    analysis = analysis_of(program, clock)
    key = plan_for(analysis).key
    check_run(models, until)
    if shards is not None:
        check_shards(shards)
    engine = resolve_engine(engine, analysis)
    max_gap = check_max_gap(max_gap)
    return _spark_run(analysis, key, stream, shards, engine, models, spark, show, until, inertia, timings, max_gap)


def _spark_run(analysis, key, stream, shards, engine, models, spark, show, until, inertia, timings, max_gap=MAX_GAP):
    if spark is None:
        from .session import get_spark

        spark = get_spark()
    shards = shards or spark.sparkContext.defaultParallelism
    start = time.perf_counter()
    labels = _labels(spark, shards)
    df, last, error = _spark_input(spark, stream, analysis, key, shards, labels, until, max_gap)
    sentinels = spark.createDataFrame([(s, labels[s], -1, 0, None) for s in range(shards)], INPUT_SCHEMA)
    evaluate = _evaluator(analysis, key, shards, last, engine, models, show, inertia)
    out = (
        df.unionByName(sentinels)
        .repartition(shards, "part")
        .sortWithinPartitions("shard", "t", "c")
        .mapInArrow(evaluate, OUTPUT_SCHEMA)
    )
    table = out.toArrow()
    evaluated = time.perf_counter()
    table = table.sort_by([("t", "ascending")])
    cols = [table.column(c).to_pylist() for c in _output_arrow_schema().names]
    yield from merge_shards(zip(*cols), shards, last, models)
    if timings is not None:
        timings.update(evaluate=evaluated - start, merge=time.perf_counter() - evaluated)
    if error is not None:
        raise error
