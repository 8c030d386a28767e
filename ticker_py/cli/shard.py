"""The sharding options of ``ticker run``: ``--spark``, ``--shards N``, ``--shard-by``, ``--master`` (docs/spark.md)."""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING

from ..errors import Diagnostic, UsageError
from ..streams.drive import Every

if TYPE_CHECKING:  # imported by a sharded run only
    from ..shard import ShardOptions

__all__ = ["add_shard_options", "shard_options", "run_sharded_command"]


def add_shard_options(run_parser) -> None:
    """Add ``--spark``, ``--shards N`` and ``--master`` to the ``ticker run`` parser."""
    g = run_parser.add_argument_group("sharded evaluation (see docs/spark.md)")
    g.add_argument(
        "--spark", action="store_true", help="evaluate in Spark tasks, one per shard of the stream (needs pyspark)"
    )
    g.add_argument(
        "--shards",
        type=int,
        metavar="N",
        help="number of shards (default with --spark: Spark's parallelism); without "
        "--spark the shards run one after another in this process",
    )
    g.add_argument(
        "--shard-by",
        choices=("auto", "key", "time", "both"),
        default="auto",
        help="cut the stream by key, by time ranges, or both (a key x time grid); auto: by key if the "
        "program allows it, else by time (`ticker check` prints the plan)",
    )
    g.add_argument("--master", default="local[2]", help="Spark master")


def shard_options(args) -> ShardOptions | None:
    """The sharding options of parsed ``ticker run`` arguments (None: the run is not sharded)."""
    if not args.spark and args.shards is None:
        return None
    from ..shard import ShardOptions

    out = getattr(args, "out", None)
    return ShardOptions(
        shards=args.shards,
        spark=args.spark,
        master=args.master,
        shard_by=args.shard_by,
        out=out if args.spark and out not in (None, "-") else None,
    )


def run_sharded_command(analysis, run, options: ShardOptions, writer) -> int:
    """``ticker run --spark/--shards``: evaluate, write every Result, close the writer; status 0.

    ``run``: the :class:`~ticker_py.cli.run.RunOptions` (``every`` must be ``time``). With
    ``options.out`` (``--spark --out DIR``) the executors write the answers to DIR as Parquet and
    ``writer`` is not used. Errors raise :class:`TickerError`.
    """
    from ..shard import check_shards, plan_for, run_sharded_local

    if Every.parse(run.every) is not Every.TIME:
        raise UsageError(
            Diagnostic(
                "--every signal cannot be sharded: a tick's count spans all shards",
                notes=("run it without --shards/--spark",),
            )
        )
    if options.shards is not None:
        check_shards(options.shards, "--shards")
    plan_for(analysis, options.shard_by, run.inertia)
    common = dict(
        engine=run.engine,
        models=run.models,
        show=run.show,
        until=run.until,
        inertia=run.inertia,
        max_gap=run.max_gap,
        shard_by=options.shard_by,
        factorize=run.factorize,
    )
    answers = run.format != "none"  # --format none: the shards send counts only
    start = time.perf_counter()
    if options.spark:
        try:
            from ..spark import run_sharded
            from ..spark.session import get_spark
        except ImportError:  # pragma: no cover
            raise UsageError(Diagnostic("--spark needs pyspark: pip install ticker_py[spark]")) from None
        # in local mode the executors share the driver's heap: Spark's default of 1 GB makes the
        # shuffle of a few million atoms collect garbage for minutes (measured: 3·10^6 join atoms)
        conf = {"spark.driver.memory": "2g"} if options.master.startswith("local") else {}
        spark = get_spark(options.master, **conf)
        print(f"[spark] session started in {time.perf_counter() - start:.1f}s", file=sys.stderr)
        if options.out is not None:
            from ..spark.shard import write_sharded

            info = write_sharded(analysis, run.stream, options.out, options.shards, spark=spark, **common)
            print(
                f"[spark] {info['time_points']} time points written to {options.out} ({info['plan']})", file=sys.stderr
            )
            return 0
        results = run_sharded(analysis, run.stream, options.shards, spark=spark, answers=answers, **common)
    else:
        results = run_sharded_local(analysis, run.stream, options.shards or 1, answers=answers, **common)
    points, begin = 0, time.perf_counter()
    last_c = 0
    try:
        for result in results:
            points += 1
            last_c = result.c
            writer.write(result)
    finally:
        writer.close({"time_points": points, "atoms": last_c, "seconds": time.perf_counter() - begin})
    return 0
