"""``ticker gen``: write a benchmark workload's stream (and program) to a directory."""

from __future__ import annotations

import sys
import time

from ..errors import Diagnostic, UsageError
from ..workloads import WORKLOADS, resolve
from ..workloads.draws import MAX_SEED
from ..workloads.files import output_directory, write_stream
from ..workloads.layout import LAYOUTS
from .common import HelpFormatter

__all__ = ["register", "run_gen"]


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
        help="parquet (Spark unless --no-spark); jsonl and text are written without Spark",
    )
    p.add_argument("--no-spark", action="store_true", help="pure-Python generator, pyarrow writer")
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
    resolve(args.scenario, **params)
    if not 0 <= args.seed <= MAX_SEED:
        raise UsageError(Diagnostic(f"--seed must be an integer from 0 to {MAX_SEED}, not {args.seed}"))
    spark = not args.no_spark and args.format == "parquet"
    if args.partitions is not None and (args.partitions < 1 or not spark):
        raise UsageError(
            Diagnostic(
                f"--partitions must be an integer >= 1, not {args.partitions}"
                if args.partitions < 1
                else "--partitions sets Spark's partitions, and this stream is written without Spark",
                notes=()
                if args.partitions < 1
                else ("drop --partitions, or write Parquet with Spark (--format parquet)",),
            )
        )
    if args.parquet_layout != "atom" and args.format != "parquet":
        raise UsageError(Diagnostic(f"--parquet-layout {args.parquet_layout} needs --format parquet"))
    output_directory(args.out)
    start = time.time()
    if not spark:
        meta = write_stream(args.out, args.scenario, args.format, args.seed, args.parquet_layout, **params)
    else:
        from ..spark.gen import generate_parquet
        from ..spark.session import get_spark

        spark = get_spark()
        print(f"[gen] spark session started in {time.time() - start:.1f}s", file=sys.stderr)
        meta = generate_parquet(
            spark,
            args.scenario,
            args.out,
            args.seed,
            partitions=args.partitions,
            progress=True,
            parquet_layout=args.parquet_layout,
            **params,
        )
    print(
        f"{args.scenario}: {meta['atoms']} atoms, {meta['time_points']} time points -> {args.out} "
        f"({time.time() - start:.1f}s)"
    )
    return 0
