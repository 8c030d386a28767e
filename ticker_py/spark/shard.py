"""Sharded evaluation in Spark tasks: the only part of sharding that imports pyspark.

Planning, cells and merging are :mod:`ticker_py.shard`'s (see there and docs/spark.md); Spark
schedules them, retries a failed task and tracks progress. One task per cell reads its own slice
of the Parquet stream and writes its own part (:meth:`~ticker_py.shard.ShardedRun.cell`); nothing
of the stream is shuffled or collected. Then the driver merges the parts one time range at a time
(:func:`run_sharded`), or one task per time range merges and writes the answers as Parquet
(:func:`write_sharded`). pyspark is imported inside the functions, so the module imports without a JVM.
"""

from __future__ import annotations

import contextlib
import dataclasses
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..api import analysed
from ..errors import Diagnostic, StreamError, UsageError
from ..shard import ShardedRun, check_sharded, merged
from ..shard.plan import prepare
from ..spec import EVALUATION, INPUT, PROGRAM, SHARDS, RunSpec, takes_spec
from ..streams.model import Result
from ..streams.tables import check_columns

__all__ = ["run_sharded", "write_sharded"]


def _tasks(session, n: int, work) -> list:
    """``work(i)`` for i in 0..n-1, one Spark task each; their results in order."""
    if n == 0:
        return []
    return session.sparkContext.parallelize(range(n), n).map(work).collect()


def _parquet(session, stream, scratch: Path):
    """``stream``, or a Spark DataFrame written by Spark as Parquet in time order (files of disjoint
    time ranges, rows sorted by t and the order column)."""
    if not (hasattr(stream, "toLocalIterator") and hasattr(stream, "columns")):
        return stream
    from pyspark.sql import functions as F

    order = check_columns(list(stream.columns), "<Spark DataFrame>")
    keys = ["t"] + ([order] if order else [])
    columns = [F.col("t").cast("long").alias("t"), F.col("atom").cast("string").alias("atom")]
    frame = stream.select(*columns, *([F.col(order).cast("long").alias(order)] if order else []))
    path = scratch / "frame"
    frame.repartitionByRange(*keys).sortWithinPartitions(*keys).write.mode("overwrite").parquet(str(path))
    return path


def _begun(analysis, stream, session, spec: RunSpec, scratch: Path) -> tuple:
    """``(session, the run planned)``: the stream is prepared on the driver (a Parquet stream
    scanned, any other read, checked and written as Parquet) while the session starts; a Spark
    DataFrame is written as Parquet by Spark first."""
    frame = hasattr(stream, "toLocalIterator") and hasattr(stream, "columns")
    with ThreadPoolExecutor(1) as pool:
        prepared = None if frame else pool.submit(prepare, stream, analysis, spec, scratch / "stream")
        session = _session(session, spec)
        source = prepared.result() if prepared is not None else None
    shards = spec.shards or session.sparkContext.defaultParallelism
    stream = _parquet(session, stream, scratch)
    return session, ShardedRun(analysis, stream, spec, shards, scratch, source)


def _evaluated(session, run: ShardedRun) -> ShardedRun:
    """The cells of ``run`` evaluated, one Spark task each."""
    with _progress(session, f"sharded run ({run.grid.describe()})"):
        run.counted(_tasks(session, run.grid.cells, run.cell))
    return run


def _session(session, spec: RunSpec):
    """``session``, or the session of ``spec.master`` started (its Python workers too) and said on stderr."""
    if session is not None:
        return session
    from .session import start_spark

    return start_spark(spec.master)


@takes_spec(
    PROGRAM, INPUT, EVALUATION, SHARDS, also=("format",), loads=True, exclude=("tuple_order", "spark", "explainable")
)
def run_sharded(program, stream, session=None, timings: dict | None = None, *, spec: RunSpec) -> Iterator[Result]:
    """Evaluate ``program`` over ``stream`` in Spark tasks; yields the merged Results in time order.

    ``stream``: a Parquet file or directory (each task reads its own slice), a Spark DataFrame
    (``t``, ``atom``, optional order column ``c``/``order``/``seq``: written as Parquet by Spark
    first), or anything :func:`~ticker_py.records_from` reads (read and checked on the driver and
    written as Parquet once). ``session`` (a SparkSession) defaults to a session on ``master``,
    started and its start time said on stderr; ``shards`` (cells) to its default
    parallelism; ``shard_by``: ``auto``, ``key``, ``time`` or ``both``. A program that cannot be
    sharded so raises :class:`UsageError` with the reason. The cells run when the first Result is
    asked for; the driver then merges their answers one time range at a time. ``timings``, if a
    dict, receives ``evaluate`` (seconds of the cells' job) and ``merge`` (the rest).
    ``format="none"``: the Results carry the counts and whether there is an answer stream, but no
    atoms (the cells write none). ``factorize``: Results carrying their factorization.
    """
    return _spark_run(_checked(program, spec), stream, session, timings, spec)


def _checked(program, spec: RunSpec):
    """The program analysed, refused here (not in the tasks) if it cannot be sharded as ``spec`` says
    or its engine cannot run it; "auto" stays: each cell's Reasoner picks as the single run does."""
    analysis = analysed(program, spec)
    check_sharded(analysis, spec)
    return analysis


def _spark_run(analysis, stream, session, timings, spec: RunSpec):
    scratch = Path(tempfile.mkdtemp(prefix="ticker-shards-"))
    try:
        session, run = _begun(analysis, stream, session, spec, scratch)
        start = time.perf_counter()
        _evaluated(session, run)
        middle = time.perf_counter()
        yield from merged(run)
        if timings is not None:
            timings.update(evaluate=middle - start, merge=time.perf_counter() - middle)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


@takes_spec(
    PROGRAM, INPUT, EVALUATION, SHARDS, also=("show_at",), loads=True, exclude=("tuple_order", "spark", "explainable")
)
def write_sharded(program, stream, out, session=None, *, spec: RunSpec) -> dict:
    """As :func:`run_sharded`, but one task per time range merges and writes the answers to the
    directory ``out`` as Parquet (``range=r/part-0.parquet``, one row per time point and answer
    stream, atoms as text; read it with :func:`ticker_py.read_results`); the driver collects none.

    ``factorize``: the factors instead of the answer streams: per time point a row with ``factor`` 0
    (the common part), then one per alternative ``alternative`` k of factor i (both from 1);
    ``model`` is null there. Pins are written with ``show_at`` or several answer streams. ``out`` is
    replaced; ``_SUCCESS`` is written when the run is complete. After a stream error the ranges
    before it are written, no ``_SUCCESS``, and the error raised. Returns ``{"time_points", "plan", "task_cpu"}`` (the CPU seconds of all tasks).
    """
    analysis = _checked(program, spec)
    if spec.format != "jsonl" or spec.changes or spec.consequences:
        raise UsageError(
            Diagnostic(
                "--spark --out DIR writes the answer streams as Parquet rows (what --format jsonl prints)",
                notes=("drop --format, --changes and --consequences, or write to standard output without --out",),
            )
        )
    out = Path(out)
    spec = dataclasses.replace(spec, out=str(out))  # the cells write: pins only where printed
    if out.exists():
        shutil.rmtree(out)
    scratch = out / "_cells"
    try:
        session, run = _begun(analysis, stream, session, spec, scratch)
        _evaluated(session, run)
        with _progress(session, f"writing ({run.grid.describe()})"):
            written = _tasks(session, len(run.grid.ranges), lambda r: run.write(r, out))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    bad = next((e for e, _ in written if e is not None), None)
    if bad is not None:
        raise StreamError(Diagnostic(bad))
    if run.error is not None:
        raise run.error
    (out / "_SUCCESS").write_text("")
    last = run.grid.ranges[-1][1] if run.grid.ranges else 0
    cpu = run.cpu + sum(c for _, c in written)
    return {"time_points": last, "plan": run.grid.describe(), "task_cpu": cpu}


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
