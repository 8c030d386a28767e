"""Generating a workload's stream with Spark: its blocks written as Parquet in Spark tasks.

Each task runs the workload's block generator (:mod:`ticker_py.workloads`: the draws vectorised
with numpy) for its share of the blocks and writes each block with pyarrow, file for file what the
pure-Python writer writes (:func:`~ticker_py.workloads.files.write_stream`). Spark schedules the
tasks and retries a failed one; no row passes through the JVM. The arrival count c of a block's
first row comes from the sizes of the blocks before it: known up front, or counted by a first job
(scenario B, the R4 streams). So the stream depends on neither the partition count nor the block
size.
"""

from __future__ import annotations

import shutil
import sys
import time

from ..workloads import block_size, resolve, time_points
from ..workloads.files import SMALL, output_directory, write_block, write_jsonl, write_meta, write_program, write_text

__all__ = ["generate_parquet"]


def _share(part: int, parts: int, blocks: int) -> range:
    """The blocks of task ``part`` of ``parts``: consecutive, as many as the others' within one."""
    return range(part * blocks // parts, (part + 1) * blocks // parts)


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
    size), one file per block; ``out/program.lars`` and ``out/meta.json`` are written next to it,
    and for at most :data:`~ticker_py.workloads.files.SMALL` atoms also ``stream.jsonl`` and
    ``stream.stream``. ``partitions`` (Spark tasks) defaults to one per block; ``size`` (time
    points per block) defaults to :func:`~ticker_py.workloads.block_size`. Neither changes the
    stream. With ``progress``, stderr gets a line per step.
    """
    w, p = resolve(name, **params)
    out = output_directory(out)
    size = size or block_size(w, p)
    ranges = [(t0, min(t0 + size, p["tp"])) for t0 in range(0, p["tp"], size)]
    partitions = max(1, min(partitions or len(ranges), len(ranges)))
    context = spark.sparkContext
    start = time.time()

    def say(message):
        if progress:
            print(f"[gen {time.time() - start:7.1f}s] {message}", file=sys.stderr, flush=True)

    say(f"{name}: {p['tp']} time points in {len(ranges)} blocks of {size}, {partitions} Spark tasks")
    if w.count is not None:
        counts = [w.count(t0, t1, p) for t0, t1 in ranges]
    else:  # the blocks' sizes from a first job (each task generates its blocks twice)

        def count(block):
            return resolve(name, **p)[0].block(seed, *ranges[block], p).num_rows

        counts = context.parallelize(range(len(ranges)), partitions).map(count).collect()
        say(f"counted the atoms of {len(ranges)} blocks")
    before = [0]
    for n in counts:
        before.append(before[-1] + n)
    stream = out.absolute() / "stream.parquet"  # the same path in every task, whatever its directory
    if stream.is_dir() and not stream.is_symlink():  # replaced whole: a shorter stream keeps no later block
        shutil.rmtree(stream)
    elif stream.exists() or stream.is_symlink():
        stream.unlink()

    def write(part):
        wl, _ = resolve(name, **p)
        for b in _share(part, partitions, len(ranges)):
            tab = wl.block(seed, *ranges[b], p)
            write_block(stream, b, tab["t"], {"atom": tab["atom"]}, before[b])
        return part

    context.parallelize(range(partitions), partitions).map(write).collect()
    say(f"wrote {before[-1]} atoms to {stream}")
    write_program(out, name, **p)
    if before[-1] <= SMALL:
        write_jsonl(out / "stream.jsonl", time_points(name, seed, **p))
        write_text(out / "stream.stream", time_points(name, seed, **p))
    return write_meta(out, name, seed, before[-1], size, **p)
