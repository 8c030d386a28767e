"""Whole runs from one :class:`~ticker_py.spec.RunSpec`: what ``ticker run`` does, as a library call.

:func:`write_run` reads a stream (or live input), evaluates it (one :class:`~ticker_py.api.Reasoner`,
or shards one after another or in Spark tasks) and writes the results (a file, standard output, the
TCP clients of a live run, or with Spark a directory of Parquet answers), all as the spec says.
:func:`run_sharded` is the sharded evaluation whose Results come back to the caller.

Each record passes the reader, the input stage, and the driver of the evaluation stage; a ``stop``
(the command's signal handling) may stand between the reader and the input stage, where it ends
the input, and after the evaluation, where it ends the results.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator

from .api import Reasoner, analysed
from .spec import EVALUATION, INERTIA_ENGINES, INPUT, PROGRAM, SHARDS, RunSpec, takes_spec
from .stages.output import Output
from .streams.model import Result

__all__ = ["write_run", "run_sharded"]


def write_run(program, stream, spec: RunSpec, stop=None) -> None:
    """Evaluate ``program`` over ``stream`` and write the results, as ``spec`` says (``ticker run``).

    ``stream``: what :func:`~ticker_py.records_from` reads (``-``: standard input); with live input
    (``spec.input``, ``spec.wall_clock``) the producers or the wall clock. ``stop``: an object whose
    ``records(records)`` ends the input and ``results(results)`` the output early (on a signal).
    Errors raise :class:`~ticker_py.errors.TickerError`; everything accepted before one is written.
    """
    analysis = analysed(program, spec)
    output = Output(spec, analysis)  # checked against the program before anything runs
    if spec.sharded:
        _write_sharded(analysis, stream, spec, output)
        return
    reasoner = Reasoner(analysis, spec=spec, output=output)
    if spec.inertia and reasoner.engine_name not in INERTIA_ENGINES:
        print(
            f"note: --inertia has no effect with the {reasoner.engine_name} engine (only the incremental "
            "engines prefer the previous answer stream)",
            file=sys.stderr,
        )
    records = warn_after = sink = None
    if spec.live:  # the results' listener first: consumers may connect before the producers come
        from .live.options import live_output, live_records

        sink = live_output(spec)
        records = live_records(spec, stream, reasoner.checker, lambda: reasoner.input.open(stream))
        if spec.input or spec.wall_clock:  # a live stream may not end: its warnings come after its first time points
            from .analysis.unused import LIVE_WARN_AFTER as warn_after
    if records is None:
        records = reasoner.input.open(stream)
    output.open(sink)
    if stop is not None:
        records = stop.records(records)
    results = reasoner.feed(records, warn_after, spec=spec)
    _write(stop.results(results) if stop is not None else results, output, lambda: reasoner.atoms_in)


def _write(results, output: Output, atoms) -> None:
    """Write every result, then the summary (``atoms()``: the atoms read), then close the output."""
    start, points = time.perf_counter(), 0
    try:
        for result in results:
            points += 1
            output.write(result)
    finally:
        output.close({"time_points": points, "atoms": atoms(), "seconds": time.perf_counter() - start})


def _write_sharded(analysis, stream, spec: RunSpec, output: Output) -> None:
    """``ticker run --spark/--shards``: evaluate in shards, write every Result. With ``--spark --out
    DIR`` the executors write the answers to DIR as Parquet."""
    if spec.spark and spec.out not in (None, "-"):
        from .spark.shard import write_sharded

        info = write_sharded(analysis, stream, spec.out, spec=spec)
        print(
            f"[spark] {info['time_points']} time points written to {spec.out} ({info['plan']}; "
            f"tasks {info['task_cpu']:.1f} s CPU)",
            file=sys.stderr,
        )
        return
    results = run_sharded(analysis, stream, spec=spec)
    output.open()
    last = [Result(0, 0, ())]

    def counted(results):  # the last Result's count is the atoms read
        for result in results:
            last[0] = result
            yield result

    _write(counted(results), output, lambda: last[0].c)


@takes_spec(PROGRAM, INPUT, EVALUATION, SHARDS, also=("format",), loads=True, exclude=("tuple_order", "explainable"))
def run_sharded(program, stream, session=None, timings: dict | None = None, *, spec: RunSpec) -> Iterator[Result]:
    """Evaluate ``program`` over ``stream`` in shards of the stream, cut by key, by time or both.

    Parameters
    ----------
    program, stream
        As for :func:`ticker_py.run`; with Spark, ``stream`` may also be a Spark DataFrame or a
        Parquet path that Spark reads itself.
    shards, shard_by, spark, master
        The shards (:class:`~ticker_py.spec.RunSpec`): how many (1 by default in this process; with
        Spark, its parallelism), cut ``auto`` (by key if the program allows it, else by time),
        ``key``, ``time`` or ``both``; ``spark=True`` runs the cells in Spark tasks on ``master``.
    session : SparkSession, optional
        The Spark session to run in (implies ``spark=True``).
    timings : dict, optional
        With Spark: receives ``evaluate`` and ``merge`` seconds.
    engine, models, factorize, show, inertia, semantics, strict
        The evaluation, as for :func:`ticker_py.run` (the default semantics only; ``strict`` is refused).
    until, every, max_gap, stream_format
        The input, as for :func:`ticker_py.run` (``every="time"`` only).
    format : str
        ``"none"``: Results with the counts but no atoms (the shards send none).
    clock, const, background, background_rdf, rdf_mapping, owl2rl
        How the program is loaded, as for :func:`ticker_py.load_program`.

    Returns
    -------
    iterator of Result
        The merged Results in time order: for a program that can be sharded, the single run's.

    See Also
    --------
    ticker_py.run, ticker_py.read_results, ticker_py.shard, ticker_py.spark.shard
    """
    if spec.spark or session is not None:
        from .spark.shard import run_sharded as in_spark

        return in_spark(program, stream, session, timings, spec=spec)
    from .shard import run_sharded_local

    return run_sharded_local(program, stream, spec=spec)
