"""Generating a workload's stream with Spark and writing it as partitioned Parquet.

The stream is cut into time blocks of :func:`~ticker_py.workloads.block_size` time points.
``spark.range(n_blocks)`` is distributed over the partitions and ``mapInArrow`` calls the
workload's pure-Python block generator for each block id, so the content never depends on
the partition count. The arrival count ``c`` is a global row number computed without a sort:
the number of atoms per block is known up front (exactly from ``Workload.count``, or by a first
Spark job that generates and counts each block), the driver takes the prefix sums, and each
block numbers its rows from its offset.
"""

from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager

import numpy as np
import pyarrow as pa

from ..workloads import block_size, layout, resolve, time_points
from ..workloads.files import SMALL, output_directory, write_jsonl, write_meta, write_program, write_text

__all__ = ["generate_parquet"]

SCHEMA = "t long, c long, atom string, block long"

#: Each task writes whole blocks: concurrent writers instead of the sort by ``block`` that Spark
#: would otherwise plan before a partitioned write (about 20 % faster here).
WRITE_CONF = {"spark.sql.optimizer.plannedWrite.enabled": "false", "spark.sql.maxConcurrentOutputFileWriters": "4"}
#: Writer options: the arrival count c is written without a dictionary (its values are distinct:
#: PLAIN is smaller, and faster to read)
WRITE_OPTIONS = {"parquet.enable.dictionary#c": "false"}


@contextmanager
def _conf(spark, settings: dict):
    """Session settings inside the with-statement, restored afterwards."""
    old = {k: spark.conf.get(k, None) for k in settings}
    for k, v in settings.items():
        spark.conf.set(k, v)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                spark.conf.unset(k)
            else:
                spark.conf.set(k, v)


class _Progress:
    """Prints one stderr line per change of the running stages' task counts (polls each second)."""

    def __init__(self, spark, enabled: bool):
        self.tracker = spark.sparkContext.statusTracker()
        self.enabled, self.stop, self.start = enabled, threading.Event(), time.time()

    def say(self, message: str) -> None:
        if self.enabled:
            print(f"[gen {time.time() - self.start:7.1f}s] {message}", file=sys.stderr, flush=True)

    def _poll(self) -> None:
        last = None
        while not self.stop.wait(1.0):
            infos = [self.tracker.getStageInfo(s) for s in self.tracker.getActiveStageIds()]
            now = ", ".join(
                f"stage {i.stageId}: {i.numCompletedTasks}/{i.numTasks} tasks" for i in infos if i is not None
            )
            if now and now != last:
                self.say(now)
                last = now

    def __enter__(self):
        if self.enabled:
            threading.Thread(target=self._poll, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.stop.set()


def _block_counts(spark, name, seed, p, ranges, partitions) -> list[int]:
    def count(batches):
        w, _ = resolve(name, **p)
        for batch in batches:
            ids = batch.column(0).to_pylist()
            n = [w.block(seed, *ranges[b], p).num_rows for b in ids]
            yield pa.RecordBatch.from_arrays([pa.array(ids, pa.int64()), pa.array(n, pa.int64())], ["block", "n"])

    rows = spark.range(len(ranges), numPartitions=partitions).mapInArrow(count, "block long, n long")
    return [r.n for r in sorted(rows.collect())]


def _block_shapes(spark, name, seed, p, ranges, partitions) -> tuple:
    """(atoms per block, the stream's :func:`~ticker_py.workloads.layout.shape`) by a Spark job that
    generates each block."""

    def shapes(batches):
        w, _ = resolve(name, **p)
        for batch in batches:
            ids = batch.column(0).to_pylist()
            atoms = [layout.parsed(w.block(seed, *ranges[b], p)["atom"].to_pylist()) for b in ids]
            found = [layout.shape(a) for a in atoms]
            yield pa.RecordBatch.from_arrays(
                [
                    pa.array(ids, pa.int64()),
                    pa.array(list(map(len, atoms)), pa.int64()),
                    pa.array([k for k, _ in found], pa.int64()),
                    pa.array(["".join("1" if i else "0" for i in ints) for _, ints in found]),
                ],
                ["block", "n", "k", "ints"],
            )

    rows = sorted(
        spark.range(len(ranges), numPartitions=partitions)
        .mapInArrow(shapes, "block long, n long, k long, ints string")
        .collect()
    )
    return [r.n for r in rows], layout.merge((r.k, tuple(c == "1" for c in r.ints)) for r in rows)


def generate_parquet(
    spark,
    name: str,
    out,
    seed: int = 0,
    partitions: int | None = None,
    progress: bool = False,
    size: int | None = None,
    parquet_layout: str = "atom",
    **params,
) -> dict:
    """Write workload ``name`` to directory ``out`` with Spark; returns the meta data written.
    ``params``: the workload's (``tp``, ``window``, ...), as :func:`~ticker_py.workloads.resolve` takes them.

    ``out/stream.parquet`` holds columns t, c, atom, hive-partitioned by ``block`` (t // block
    size); ``out/program.lars`` and ``out/meta.json`` are written next to it, and for at most
    :data:`~ticker_py.workloads.files.SMALL` atoms also ``stream.jsonl`` and ``stream.stream``.
    ``partitions`` defaults to one per block; ``size`` (time points per block) defaults to
    :func:`~ticker_py.workloads.block_size`. Neither changes the stream. With ``progress``,
    stderr gets a line per step and per change of the task counts. ``parquet_layout`` ``"args"``
    writes columns predicate, a1 .. ak instead of atom (:mod:`ticker_py.workloads.layout`; a first
    Spark job finds the stream's shape).
    """
    w, p = resolve(name, **params)
    out = output_directory(out)
    size = size or block_size(w, p)
    ranges = [(t0, min(t0 + size, p["tp"])) for t0 in range(0, p["tp"], size)]
    partitions = max(1, min(partitions or len(ranges), len(ranges)))
    with _Progress(spark, progress) as show:
        show.say(f"{name}: {p['tp']} time points in {len(ranges)} blocks of {size}, {partitions} partitions")
        stream_shape = None
        if parquet_layout == "args":
            counts, stream_shape = _block_shapes(spark, name, seed, p, ranges, partitions)
            show.say(f"counted {sum(counts)} atoms, arity up to {stream_shape[0]}")
        elif w.count is not None:
            counts = [w.count(t0, t1, p) for t0, t1 in ranges]
        else:
            counts = _block_counts(spark, name, seed, p, ranges, partitions)
            show.say(f"counted {sum(counts)} atoms")
        offsets = np.concatenate([[0], np.cumsum(counts, dtype=np.int64)]).tolist()

        def gen(batches):
            wl, _ = resolve(name, **p)
            for batch in batches:
                for b in batch.column(0).to_pylist():
                    tab = wl.block(seed, *ranges[b], p)
                    c = np.arange(offsets[b] + 1, offsets[b] + tab.num_rows + 1, dtype=np.int64)
                    atoms = (
                        [tab["atom"].combine_chunks()]
                        if stream_shape is None
                        else layout.columns(layout.parsed(tab["atom"].to_pylist()), stream_shape)
                    )
                    yield pa.RecordBatch.from_arrays(
                        [
                            tab["t"].combine_chunks(),
                            pa.array(c),
                            *atoms,
                            pa.array(np.full(tab.num_rows, b, dtype=np.int64)),
                        ],
                        ["t", "c", *atom_names, "block"],
                    )

        atom_names = ["atom"] if stream_shape is None else [n for n, _ in layout.schema(stream_shape)]
        schema = (
            SCHEMA
            if stream_shape is None
            else ", ".join(
                ["t long, c long"]
                + [f"{n} {'long' if k == pa.int64() else 'string'}" for n, k in layout.schema(stream_shape)]
                + ["block long"]
            )
        )
        df = spark.range(len(ranges), numPartitions=partitions).mapInArrow(gen, schema)
        with _conf(spark, WRITE_CONF):
            df.write.mode("overwrite").options(**WRITE_OPTIONS).partitionBy("block").parquet(
                str(out / "stream.parquet")
            )
        show.say(f"wrote {offsets[-1]} atoms to {out / 'stream.parquet'}")
    write_program(out, name, **p)
    if offsets[-1] <= SMALL:
        write_jsonl(out / "stream.jsonl", time_points(name, seed, **p))
        write_text(out / "stream.stream", time_points(name, seed, **p))
    return write_meta(out, name, seed, offsets[-1], size, **p)
