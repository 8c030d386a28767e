"""Spark Structured Streaming driving a reasoner through ``foreachBatch`` (imports pyspark).

Micro-batches (columns ``t``, ``atom``, optionally ``seq``; or raw JSON Lines) are pushed into a
:class:`~ticker_py.live.LiveReasoner` in the driver; late rows are reported and skipped (docs/live.md).
"""

from __future__ import annotations

import itertools
import tempfile
import threading
from collections.abc import Callable
from dataclasses import replace

from ..errors import StreamError, UsageError
from ..streams import Result, read_jsonl
from .reasoner import LiveReasoner
from .source import _report

__all__ = ["rate_atoms", "folder_atoms", "drive", "run_stream"]

COOLING_ATOM = "concat('temp(', CAST(pmod(value * 7919, 201) AS STRING), ')')"


def rate_atoms(
    spark, rows_per_second: int = 100, atoms_per_time_point: int = 10, atom: str = COOLING_ATOM, partitions: int = 1
):
    """The ``rate`` source as atoms: row ``value`` v goes to time point v div k; ``atom`` is a
    SQL expression over ``value`` (default: the cooling stream's ``temp(V)``)."""
    return (
        spark.readStream.format("rate")
        .option("rowsPerSecond", rows_per_second)
        .option("numPartitions", partitions)
        .load()
        .selectExpr(f"CAST(value DIV {int(atoms_per_time_point)} AS BIGINT) AS t", f"{atom} AS atom", "value AS seq")
    )


def folder_atoms(spark, path: str, fmt: str = "jsonl", max_files_per_trigger: int | None = None):
    """Files arriving in ``path``: ``jsonl`` (docs/formats.md; read as text and parsed in the driver
    by the reader of ``--stream FILE.jsonl``, so a bad line is reported and skipped) or ``csv``
    (a header and columns ``t``, ``atom`` and optionally ``seq``)."""
    if fmt not in ("jsonl", "csv"):
        raise UsageError.at(None, f"unknown folder format '{fmt}'", "use jsonl or csv")
    reader = spark.readStream
    if max_files_per_trigger:
        reader = reader.option("maxFilesPerTrigger", max_files_per_trigger)
    if fmt == "csv":
        return reader.schema("t BIGINT, atom STRING, seq BIGINT").option("header", "true").csv(path)
    return reader.text(path).selectExpr("input_file_name() AS file", "value AS jsonl")


def _jsonl_rows(rows, report) -> list:
    """``(t, atom, seq)`` rows from raw JSON Lines rows (seq: row order); bad lines are reported."""
    out = []
    for seq, row in enumerate(rows):
        try:
            for rec in read_jsonl([row.jsonl], row.file or "<folder>"):
                out += [(rec.t, a, seq) for a in rec.atoms] or [(rec.t, None, seq)]
        except StreamError as err:
            report(err)
    return out


def drive(
    frame,
    live: LiveReasoner,
    checkpoint: str | None = None,
    trigger: dict | None = None,
    report: Callable[[BaseException], None] = _report,
):
    """The started streaming query pushing each micro-batch into ``live`` (``trigger``: its keywords);
    batches run one at a time in the driver, so pushes arrive in batch order."""
    has_seq = "seq" in frame.columns
    raw = "jsonl" in frame.columns

    def push_batch(batch, batch_id):
        if raw:
            rows = _jsonl_rows(batch.select("file", "jsonl").collect(), report)
        else:
            rows = [
                (r.t, r.atom, r.seq if has_seq else 0)
                for r in batch.select("t", "atom", *(["seq"] if has_seq else [])).collect()
            ]
        rows.sort(key=lambda r: (r[0], r[2]))
        for t, group in itertools.groupby(rows, key=lambda r: r[0]):
            try:
                live.push(int(t), [r[1] for r in group if r[1] is not None])
            except StreamError as err:
                report(StreamError([replace(d, message=f"batch {batch_id}: {d.message}") for d in err.diagnostics]))

    checkpoint = checkpoint or tempfile.mkdtemp(prefix="ticker_py-checkpoint-")
    writer = frame.writeStream.foreachBatch(push_batch).option("checkpointLocation", checkpoint)
    return writer.trigger(**(trigger or {"availableNow": True})).start()


def run_stream(
    frame,
    program,
    engine: str = "auto",
    timeout: float = 120.0,
    until_time: int | None = None,
    checkpoint: str | None = None,
    on_result: Callable[[Result], None] | None = None,
    report: Callable[[BaseException], None] = _report,
    **options,
) -> list[Result]:
    """Run a bounded streaming query to the end and return every result (bad rows go to ``report``):
    a folder ends by itself, an endless source (``rate``) runs until ``until_time`` (later ones dropped);
    ``timeout`` bounds the run in seconds either way."""
    results: list[Result] = []
    reached = threading.Event()

    def collect(result: Result) -> None:
        if until_time is None or result.t <= until_time:
            results.append(result)
            if on_result:
                on_result(result)
        if until_time is not None and result.t >= until_time:
            reached.set()

    live = LiveReasoner(program, engine=engine, on_result=collect, **options)
    trigger = None if until_time is None else {"processingTime": "100 milliseconds"}
    query = drive(frame, live, checkpoint, trigger, report)
    try:
        if until_time is None:
            query.awaitTermination(timeout)
        else:
            reached.wait(timeout)
    finally:
        query.stop()
    if until_time is None or not reached.is_set():
        live.close()
    return results
