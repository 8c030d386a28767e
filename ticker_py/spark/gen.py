"""Generating a workload's stream in the JVM and writing it as partitioned Parquet.

The rows are Spark SQL expressions over ``spark.range``: the row id is the arrival count c - 1
(a closed form of the time point t and the atom's index i in it), the draws are those of the
pure-Python generator (:mod:`ticker_py.workloads.draws`: splitmix64 over (seed, stream, keys),
here as 64-bit column arithmetic) and the atoms are built with string functions. No row passes
through Python, and the stream equals the pure-Python one for the same seed whatever the
partition count. A workload without expressions here (scenario B, the R4 streams) runs its
Python block generator in the Spark tasks instead (:func:`_python_blocks`).
"""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager

import numpy as np
import pyarrow as pa

from ..workloads import block_size, resolve, time_points
from ..workloads.draws import hash64
from ..workloads.files import SMALL, output_directory, write_jsonl, write_meta, write_program, write_text

__all__ = ["generate_parquet", "expressed"]

#: Each task writes its blocks one after another (its rows come in block order): no sort by
#: ``block`` before the partitioned write; 64-bit arithmetic wraps (the draws rely on it).
WRITE_CONF = {
    "spark.sql.optimizer.plannedWrite.enabled": "false",
    "spark.sql.maxConcurrentOutputFileWriters": "4",
    "spark.sql.ansi.enabled": "false",
}
#: the arrival count c is written without a dictionary (its values are distinct)
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


def _signed(x: int) -> int:
    return x - (1 << 64) if x >= 1 << 63 else x


_GAMMA, _M1, _M2 = (_signed(x) for x in (0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB))


def _mix(F, z):
    """splitmix64's finaliser on a long column (wrapping arithmetic, logical shifts)."""
    z = z + F.lit(_GAMMA)
    z = z.bitwiseXOR(F.shiftrightunsigned(z, 30)) * F.lit(_M1)
    z = z.bitwiseXOR(F.shiftrightunsigned(z, 27)) * F.lit(_M2)
    return z.bitwiseXOR(F.shiftrightunsigned(z, 31))


def _randint(F, n: int, seed: int, stream: str, *keys):
    """:func:`ticker_py.workloads.draws.randint` as a column: the same number for the same keys."""
    return F.floor(_uniform(F, seed, stream, *keys) * n).cast("long")


def _uniform(F, seed: int, stream: str, *keys):
    h = F.lit(_signed(int(hash64(seed, stream))))
    for key in keys:
        h = _mix(F, h.bitwiseXOR(key))
    return F.shiftrightunsigned(h, 11).cast("double") * 2.0**-53


def _text(F, *parts):
    """The concatenation of literal strings and long columns."""
    return F.concat(*(F.lit(p) if isinstance(p, str) else p.cast("string") for p in parts))


def _fixed(F, ids, k: int, atom):
    """k atoms per time point: row id = c - 1 = t * k + i; ``atom(t, i, id)`` builds the atom."""
    t, i = F.floor(F.col("id") / k).cast("long"), F.col("id") % k
    return ids.select(t.alias("t"), (F.col("id") + 1).alias("c"), atom(t, i, F.col("id")).alias("atom"))


def _caching(F, ids, seed, p):
    t = F.col("id")
    mode = _randint(F, 4, seed, "A/mode", F.floor(t / (2 * p["window"])).cast("long"))
    u = _uniform(F, seed, "A/value", t)
    v = F.when(mode == 0, 18 + F.floor(13 * u)).when(mode == 1, 12 + F.floor(6 * u)).otherwise(F.floor(12 * u))
    return ids.select(t.alias("t"), (t + 1).alias("c"), _text(F, "alpha(", v.cast("long"), ")").alias("atom"))


def _box_chain(F, ids, seed, p):
    """2k rows per time point: p(a_i,a_i), then q(a_i,a_i) where present ((t+1) % n != 0)."""
    k, n = p["rate"], p["window"]
    t, i = F.floor(F.col("id") / (2 * k)).cast("long"), F.col("id") % (2 * k)
    before = k * t + k * (t - F.floor(t / n).cast("long"))  # atoms before t
    q = i - k
    atom = F.when(i < k, _text(F, "p(a", i, ",a", i, ")")).otherwise(_text(F, "q(a", q, ",a", q, ")"))
    rows = ids.filter((i < k) | ((t + 1) % n != 0))
    return rows.select(t.alias("t"), (before + i + 1).alias("c"), atom.alias("atom"))


#: workload name -> (rows of spark.range per time point, builder(F, ids, seed, params) -> t, c, atom)
EXPRESSIONS = {
    "diamond": (1, lambda F, ids, s, p: _fixed(F, ids, p["rate"], lambda t, i, j: _text(F, "p(a", j, ",b", j, ")"))),
    "box": (1, lambda F, ids, s, p: _fixed(F, ids, p["rate"], lambda t, i, j: _text(F, "p(a", i, ",b", i, ")"))),
    "join": (1, lambda F, ids, s, p: _fixed(F, ids, p["rate"], lambda t, i, j: _text(F, "p(c", j, ",c", j + 1, ")"))),
    "cooling": (
        1,
        lambda F, ids, s, p: _fixed(
            F, ids, p["rate"], lambda t, i, j: _text(F, "temp(", _randint(F, 201, s, "cooling", t, i), ")")
        ),
    ),
    "caching-time": (None, _caching),
    "caching-tuple": (None, _caching),
    "box-chain": (2, _box_chain),
}
EXPRESSIONS["rules"] = EXPRESSIONS["join"]


def expressed(name: str) -> bool:
    """Whether workload ``name`` is generated by Spark SQL expressions (else by its Python blocks in tasks)."""
    return resolve(name)[0].name in EXPRESSIONS


def _python_blocks(spark, w, name, seed, p, ranges, partitions):
    """The stream as a DataFrame (t, c, atom, block) from the Python block generator in the tasks;
    the arrival counts from each block's size (known up front, or counted by a first job)."""
    if w.count is not None:
        counts = [w.count(t0, t1, p) for t0, t1 in ranges]
    else:

        def count(batches):
            wl, _ = resolve(name, **p)
            for batch in batches:
                ids = batch.column(0).to_pylist()
                n = [wl.block(seed, *ranges[b], p).num_rows for b in ids]
                yield pa.RecordBatch.from_arrays([pa.array(ids, pa.int64()), pa.array(n, pa.int64())], ["block", "n"])

        rows = spark.range(len(ranges), numPartitions=partitions).mapInArrow(count, "block long, n long")
        counts = [r.n for r in sorted(rows.collect())]
    offsets = np.concatenate([[0], np.cumsum(counts, dtype=np.int64)]).tolist()

    def gen(batches):
        wl, _ = resolve(name, **p)
        for batch in batches:
            for b in batch.column(0).to_pylist():
                tab = wl.block(seed, *ranges[b], p)
                c = np.arange(offsets[b] + 1, offsets[b] + tab.num_rows + 1, dtype=np.int64)
                block = np.full(tab.num_rows, b, dtype=np.int64)
                columns = [tab["t"].combine_chunks(), pa.array(c), tab["atom"].combine_chunks(), pa.array(block)]
                yield pa.RecordBatch.from_arrays(columns, ["t", "c", "atom", "block"])

    schema = "t long, c long, atom string, block long"
    return spark.range(len(ranges), numPartitions=partitions).mapInArrow(gen, schema), offsets[-1]


def generate_parquet(
    spark,
    name: str,
    out,
    seed: int = 0,
    partitions: int | None = None,
    progress: bool = False,
    size: int | None = None,
    **params,
) -> dict:
    """Write workload ``name`` to directory ``out`` with Spark; returns the meta data written.
    ``params``: the workload's (``tp``, ``window``, ...), as :func:`~ticker_py.workloads.resolve` takes them.

    ``out/stream.parquet`` holds columns t, c, atom, hive-partitioned by ``block`` (t // block
    size); ``out/program.lars`` and ``out/meta.json`` are written next to it, and for at most
    :data:`~ticker_py.workloads.files.SMALL` atoms also ``stream.jsonl`` and ``stream.stream``.
    ``partitions`` defaults to one per block; ``size`` (time points per block) defaults to
    :func:`~ticker_py.workloads.block_size`. Neither changes the stream. With ``progress``,
    stderr gets a line per step.
    """
    from pyspark.sql import functions as F

    w, p = resolve(name, **params)
    out = output_directory(out)
    size = size or block_size(w, p)
    ranges = [(t0, min(t0 + size, p["tp"])) for t0 in range(0, p["tp"], size)]
    partitions = max(1, min(partitions or len(ranges), len(ranges)))
    start = time.time()

    def say(message):
        if progress:
            print(f"[gen {time.time() - start:7.1f}s] {message}", file=sys.stderr, flush=True)

    with _conf(spark, WRITE_CONF):
        if w.name in EXPRESSIONS:
            per_t, build = EXPRESSIONS[w.name]
            rows = p["tp"] * (per_t * p["rate"] if per_t else 1)
            df = build(F, spark.range(rows, numPartitions=partitions), seed, p)
            df = df.withColumn("block", F.floor(F.col("t") / size).cast("long"))
            atoms = w.count(0, p["tp"], p)
            how = "Spark SQL expressions in the JVM"
        else:
            df, atoms = _python_blocks(spark, w, name, seed, p, ranges, partitions)
            how = "the Python block generator in Spark tasks"
        say(f"{name}: {p['tp']} time points in {len(ranges)} blocks of {size}, {partitions} partitions, by {how}")
        df.write.mode("overwrite").options(**WRITE_OPTIONS).partitionBy("block").parquet(str(out / "stream.parquet"))
    say(f"wrote {atoms} atoms to {out / 'stream.parquet'}")
    write_program(out, name, **p)
    if atoms <= SMALL:
        write_jsonl(out / "stream.jsonl", time_points(name, seed, **p))
        write_text(out / "stream.stream", time_points(name, seed, **p))
    return write_meta(out, name, seed, atoms, size, **p)
