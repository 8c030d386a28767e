"""The ``ticker`` command line (SPEC §5).

Exit status: 0 done; 2 bad program, stream or arguments; 1 an internal error (a bug);
3 from ``ticker compare`` when engines differ.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
import time
from pathlib import Path

from . import __version__
from .errors import Diagnostic, TickerError, UsageError

__all__ = ["main", "build_parser"]

FORMATS = ("jsonl", "text", "csv", "none")


def _add_program_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("program", help="the LARS program (.lars)")
    p.add_argument("--background", metavar="FILE", help="background facts in program syntax")
    p.add_argument("--clock", default="1s", help="duration of one time point for window units (default 1s)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = argparse.ArgumentParser(prog="ticker", description="Stream reasoning with LARS programs.")
    parser.add_argument("--version", action="version", version=f"ticker_py {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log clingo's messages to stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    run = sub.add_parser("run", help="evaluate a program over a stream")
    _add_program_args(run)
    run.add_argument("--stream", default="-", help="stream file (.stream/.txt/.jsonl/.csv/.parquet, also"
                     " .gz/.bz2/.xz) or - for stdin")
    run.add_argument("--stream-format", choices=("text", "jsonl", "csv"),
                     help="format of stdin and of stream files with another suffix (default text)")
    run.add_argument("--engine", default="auto", help="auto, clingo, incremental or native")
    run.add_argument("--models", type=int, default=1, help="answer streams per tick (0 = all)")
    run.add_argument("--every", default="time", help="time: once per time point; signal: after every atom")
    run.add_argument("--format", default="jsonl", help="jsonl, text, csv or none")
    run.add_argument("--changes", action="store_true", help="print what changed since the previous tick")
    run.add_argument("--show-at", action="store_true", help="also print atoms pinned to other time points")
    run.add_argument("--show", default="derived", help="derived (default) or all (also input and background)")
    run.add_argument("--inertia", action="store_true", help="prefer the previous tick's answer stream")
    run.add_argument("--no-native-prefix", dest="native_prefix", action="store_false",
                     help="incremental engine: solve the whole program with clingo (the pure incremental"
                          " encoding) instead of evaluating its stratified lower part natively")
    run.add_argument("--consequences", choices=("brave", "cautious"),
                     help="print per tick the number of answer streams and their brave/cautious consequences"
                          " (enumerates all answer streams)")
    run.add_argument("--until", type=int, help="evaluate time points up to T")
    run.add_argument("--out", help="write results to FILE (default stdout; - is stdout)")
    from .live.cli import add_live_options

    add_live_options(run)
    from .spark.shard import add_spark_run_options

    add_spark_run_options(run)
    run.set_defaults(func=cmd_run)

    check = sub.add_parser("check", help="check a program: errors, fragment, engines")
    _add_program_args(check)
    check.set_defaults(func=cmd_check)

    enc = sub.add_parser("encode", help="print the ASP encoding")
    _add_program_args(enc)
    group = enc.add_mutually_exclusive_group()
    group.add_argument("--at", type=int, help="the static encoding for evaluation time T (facts included)")
    group.add_argument("--incremental", action="store_true", help="the incremental encoding with annotations")
    enc.set_defaults(func=cmd_encode)

    for module in ("ticker_py.spark.cli", "ticker_py.bench.cli", "ticker_py.compare"):
        try:
            mod = importlib.import_module(module)
        except ImportError as err:
            if err.name and err.name.startswith("ticker_py"):
                continue
            raise
        mod.register_cli(sub)
    return parser


def load(args):
    """The analysed program named on the command line (with --background facts)."""
    from .analysis import analyse
    from .api import parse_clock
    from .syntax import parse_file, parse_program

    program = parse_file(args.program)
    source = Path(args.program).read_text()
    if args.background:
        try:
            bg_text = Path(args.background).read_text()
        except OSError:
            raise UsageError(Diagnostic(f"background file '{args.background}' does not exist")) from None
        bg = parse_program(bg_text, args.background)
        not_facts = [r for r in bg.rules if not r.is_fact]
        if not_facts:
            raise UsageError(Diagnostic("background files hold facts only", not_facts[0].location))
        program = type(program)(program.rules + bg.rules, program.file)
    return analyse(program, parse_clock(args.clock), source=source)


def _check_choice(value: str, choices, what: str) -> None:
    if value not in choices:
        raise UsageError(Diagnostic(f"unknown {what} '{value}'", notes=(f"use one of: {', '.join(choices)}",)))


def cmd_run(args) -> int:
    from .api import Reasoner, records_from
    from .streams import make_writer

    _check_choice(args.format, FORMATS, "format")
    _check_choice(args.every, ("time", "signal"), "--every")
    analysis = load(args)
    if args.changes and args.models != 1:
        raise UsageError(Diagnostic("--changes needs a single answer stream", notes=("use --models 1",)))
    if args.consequences:
        if args.changes or args.format != "jsonl":
            raise UsageError(Diagnostic("--consequences prints JSON Lines of its own",
                                        notes=("drop --changes and --format",)))
        args.models = 0
    from .live.cli import live_output, live_records

    def output():
        out = live_output(args) or (open(args.out, "w") if args.out not in (None, "-") else sys.stdout)
        return out, make_writer(args.format, out, show_at=args.show_at, changes=args.changes)

    if args.spark or args.shards is not None:
        from .engines import check_engine
        from .spark.shard import run_sharded_cli

        check_engine(args.engine, analysis)  # refused here, not in the shards
        out, writer = output()
        try:
            return run_sharded_cli(args, analysis, writer)
        finally:
            if out is not sys.stdout:
                out.close()
    reasoner = Reasoner(analysis, engine=args.engine, models=args.models, show=args.show,
                        inertia=args.inertia, changes_only=args.changes or args.format == "none",
                        native_prefix=args.native_prefix)
    records = live_records(args, analysis)
    if records is None:
        records = records_from(args.stream, args.stream_format)
    out, writer = output()
    start = time.perf_counter()
    points = 0
    results = reasoner.feed(records, until=args.until, every=args.every)
    try:
        if args.consequences:
            from .compare import consequences

            for cons in consequences(results, args.consequences, show_at=args.show_at):
                points += 1
                out.write(cons.to_json(args.consequences) + "\n")
                out.flush()
            return 0
        for result in results:
            points += 1
            writer.write(result)
    finally:
        writer.close({"time_points": points, "atoms": reasoner.atoms_in,
                      "seconds": time.perf_counter() - start})
        if out is not sys.stdout:
            out.close()
    return 0


def cmd_check(args) -> int:
    analysis = load(args)
    sigs = analysis.signatures
    fmt = lambda preds: ", ".join(f"{p}/{sigs[p]}" for p in sorted(preds)) or "-"  # noqa: E731
    print(f"{args.program}: ok")
    print(f"fragment: {analysis.fragment}" + (" (with constraints)" if analysis.has_constraints else ""))
    print(f"engines: {', '.join(analysis.engines)}")
    if "native" not in analysis.engines:
        from .engines import unsupported_reasons

        for reason in unsupported_reasons(analysis):
            print(f"  native: {reason}")
    print(f"intensional: {fmt(analysis.intensional)}")
    print(f"extensional: {fmt(analysis.extensional)}")
    print(f"background facts: {len(analysis.background)}")
    look = "unbounded" if analysis.lookback is None else f"{analysis.lookback} time points"
    print(f"look-back: {look}; tuple windows up to {analysis.tuple_lookback} atoms")
    print("strata: " + " < ".join("{" + ", ".join(s) + "}" for s in analysis.strata))
    try:
        from .analysis.sharding import sharding_report
    except ImportError:
        return 0
    print(sharding_report(analysis))
    return 0


def cmd_encode(args) -> int:
    analysis = load(args)
    if args.incremental:
        from .encode.incremental import encode_incremental

        sys.stdout.write(str(encode_incremental(analysis)))
        return 0
    from .encode import encode_static

    enc = encode_static(analysis)
    sys.stdout.write(enc.rules)
    if args.at is not None:
        sys.stdout.write(f"% facts for tick ({args.at}, 0) with an empty stream\n")
        sys.stdout.write(enc.facts(args.at, 0, 0, ()) + "\n")
    return 0


def main(argv=None) -> int:
    """Entry point of the ``ticker`` command."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format="%(name)s: %(message)s", stream=sys.stderr)
    try:
        return args.func(args)
    except TickerError as err:
        sys.stdout.flush()
        print(err, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        sys.stderr.close()
        return 0
    except Exception:  # a bug: say so, with the traceback for the report
        import traceback

        sys.stdout.flush()
        print("ticker: internal error (a bug in ticker_py, please report it):", file=sys.stderr)
        traceback.print_exc()
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
