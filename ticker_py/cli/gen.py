"""``ticker gen``: write a benchmark workload's stream (and program) to a directory."""

from __future__ import annotations

import math
import sys
import time

from ..errors import Diagnostic, UsageError
from ..workloads import WORKLOADS, resolve
from ..workloads.draws import MAX_SEED
from ..workloads.files import output_directory, write_stream
from ..workloads.layout import LAYOUTS
from .common import HelpFormatter

__all__ = ["register", "run_gen", "SPARK_ATOMS"]

#: from this many atoms on, Parquet is generated with Spark unless --no-spark: below it the
#: pure-Python generator is faster than a local Spark session (docs/spark.md, measured up to 10^8)
SPARK_ATOMS = 10**9


def register(sub) -> None:
    """Add ``gen`` to the ``ticker`` subcommands."""
    p = sub.add_parser(
        "gen",
        help="synthetic streams of the benchmark workloads (Spark)",
        formatter_class=HelpFormatter,
        description="Write SCENARIO's program.lars and stream to the directory PATH. Scenarios: "
        + ", ".join(WORKLOADS)
        + " (rules-R and box-chain-W set r and w).",
    )
    p.add_argument("scenario", metavar="SCENARIO")
    p.add_argument("--out", required=True, metavar="PATH", help="output directory")
    p.add_argument("--seed", type=int, default=0, metavar="S", help=f"stream seed, 0 to {MAX_SEED}")
    p.add_argument("--tp", type=int, metavar="N", help="number of time points")
    p.add_argument("--window", type=int, metavar="n", help="window size n")
    p.add_argument("--items", type=int, metavar="k", help="items (scenario B)")
    p.add_argument("--rate", type=int, metavar="k", help="atoms per time point (Laser workloads)")
    p.add_argument(
        "--partitions", type=int, metavar="p", help="Spark partitions (default: one per block; Parquet with Spark only)"
    )
    p.add_argument(
        "--format",
        choices=["parquet", "jsonl", "text"],
        default="parquet",
        help=f"parquet (with Spark from {SPARK_ATOMS:,} atoms on, or with --spark); jsonl and text are "
        "written without Spark",
    )
    use = p.add_mutually_exclusive_group()
    use.add_argument("--spark", action="store_true", default=None, help="Parquet through Spark, whatever the size")
    use.add_argument(
        "--no-spark",
        dest="spark",
        action="store_false",
        help="pure-Python generator, pyarrow writer, whatever the size",
    )
    p.add_argument(
        "--parquet-layout",
        choices=LAYOUTS,
        default="atom",
        help="Parquet columns: atom (one atom text per row) or args (predicate, a1 .. ak: "
        "no atom parsing when read; docs/formats.md)",
    )
    p.set_defaults(func=run_gen)


def run_gen(args) -> int:
    """Run ``ticker gen``; returns the exit status. Bad arguments raise UsageError."""
    params = {"tp": args.tp, "window": args.window, "items": args.items, "rate": args.rate}
    if not 0 <= args.seed <= MAX_SEED:
        raise UsageError(Diagnostic(f"--seed must be an integer from 0 to {MAX_SEED}, not {args.seed}"))
    w, p = resolve(args.scenario, **params)
    if args.spark and (args.format != "parquet" or args.parquet_layout != "atom"):
        raise UsageError(
            Diagnostic(
                "--spark writes Parquet in the atom layout",
                notes=("drop --spark: other formats and layouts are written without Spark",),
            )
        )
    big = math.ceil(w.rate(p)) * p["tp"] >= SPARK_ATOMS
    spark = args.format == "parquet" and args.parquet_layout == "atom" and (args.spark or args.spark is None and big)
    if args.partitions is not None and args.partitions < 1:
        raise UsageError(Diagnostic(f"--partitions must be an integer >= 1, not {args.partitions}"))
    if args.partitions is not None and not spark:
        raise UsageError(
            Diagnostic(
                "--partitions sets Spark's partitions, and this stream is written without Spark",
                notes=("drop --partitions, or write Parquet with Spark (--format parquet --spark)",),
            )
        )
    if args.parquet_layout != "atom" and args.format != "parquet":
        raise UsageError(Diagnostic(f"--parquet-layout {args.parquet_layout} needs --format parquet"))
    output_directory(args.out)
    start = time.time()
    if not spark:
        meta = write_stream(args.out, args.scenario, args.format, args.seed, args.parquet_layout, **params)
        why = f": below {SPARK_ATOMS:,} atoms, --spark to use it" if not big else ""
        if args.format != "parquet" or args.parquet_layout != "atom":
            why = ": Spark writes only Parquet in the atom layout"
        how = "without Spark" + (why if args.spark is None else "")
    else:
        from ..spark.gen import generate_parquet
        from ..spark.session import get_spark

        spark = get_spark()
        print(f"[gen] spark session started in {time.time() - start:.1f}s", file=sys.stderr)
        meta = generate_parquet(
            spark, args.scenario, args.out, args.seed, partitions=args.partitions, progress=True, **params
        )
        how = "with Spark: the block generator in its tasks"
    print(
        f"{args.scenario}: {meta['atoms']} atoms, {meta['time_points']} time points -> {args.out} "
        f"({time.time() - start:.1f}s; {how})"
    )
    return 0
