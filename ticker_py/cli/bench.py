"""``ticker bench SUITE``: run a suite, write results.json, report.md and plots (:mod:`ticker_py.bench`)."""

from __future__ import annotations

import shlex
from pathlib import Path

from ..bench.results import load_json, run_bench, write_reports
from ..bench.runner import Settings
from ..bench.suites import ENGINES, KNOWN_ENGINES, SUITES, Options, plan
from ..errors import Diagnostic, UsageError
from .common import HelpFormatter, name_list

__all__ = ["register", "cmd_bench"]


def _ints(text, what):
    try:
        values = tuple(int(x) for x in str(text).split(",") if x.strip())
    except ValueError:
        raise UsageError(Diagnostic(f"{what} takes comma-separated integers, not '{text}'")) from None
    if not values or min(values) < 1:
        raise UsageError(Diagnostic(f"{what} takes positive integers, not '{text}'"))
    return values


def register(sub) -> None:
    """Add ``bench`` to the ``ticker`` subcommands."""
    p = sub.add_parser(
        "bench",
        help="benchmark suites, report and plots",
        formatter_class=HelpFormatter,
        description="Run a benchmark suite (" + ", ".join(SUITES) + ", all) with every engine on the same "
        "streams; write results.json, report.md and PNG plots to --out.",
    )
    p.add_argument(
        "suite",
        nargs="?",
        default="all",
        metavar="SUITE",
        help=", ".join(SUITES) + ", all, or throughput (the whole ticker run process against its engine)",
    )
    p.add_argument("--engines", default=",".join(ENGINES), help="comma-separated engines: " + ", ".join(KNOWN_ENGINES))
    p.add_argument("--sizes", metavar="N,...", help="window sizes n (default: the suite's grid)")
    p.add_argument("--rates", metavar="K,...", help="atoms per time point k (laser, pruning)")
    p.add_argument("--tp", type=int, metavar="N", help="time points per run")
    p.add_argument(
        "--models", type=int, metavar="N", help="answer streams per tick (default 1; ticker-b: 0 = all, counted)"
    )
    p.add_argument("--workloads", metavar="W,...", help="only these workloads of the suite (e.g. diamond,box)")
    p.add_argument("--reps", type=int, default=1, metavar="R", help="repetitions per run; the median is reported")
    p.add_argument(
        "--warmup",
        type=int,
        default=0,
        metavar="W",
        help="unmeasured runs on the first tenth of the stream before each measured run",
    )
    p.add_argument(
        "--budget",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="time budget per run; over it the run stops and is reported as a timeout",
    )
    p.add_argument("--quick", action="store_true", help="tiny sizes (smoke test, CI)")
    p.add_argument("--seed", type=int, default=0, help="stream seed")
    p.add_argument("--out", metavar="DIR", help="output directory (default benchmarks/results/SUITE)")
    p.add_argument(
        "--docs",
        action="store_true",
        help="also write docs/benchmarks.md and docs/img/bench-*.png (run from the repository root)",
    )
    p.add_argument("--in-process", action="store_true", help="run engines in this process (no forked workers)")
    p.add_argument("--report-from", metavar="JSON", help="only re-render the report of an earlier results.json")
    p.set_defaults(func=cmd_bench)


def _command(args) -> str:
    """The command that reproduces the figures: options away from their defaults, without ``--out``
    (where the results go changes no figure)."""
    parts = ["ticker", "bench", args.suite, "--engines", args.engines]
    for flag in ("sizes", "rates", "tp", "models", "workloads"):
        value = getattr(args, flag)
        if value is not None:
            parts += [f"--{flag}", str(value)]
    for flag, default in (("reps", 1), ("warmup", 0), ("budget", 60.0), ("seed", 0)):
        value = getattr(args, flag)
        if value != default:
            parts += [f"--{flag}", f"{value:g}" if isinstance(value, float) else str(value)]
    parts += [f"--{f.replace('_', '-')}" for f in ("quick", "docs", "in_process") if getattr(args, f)]
    return shlex.join(parts)


def cmd_bench(args) -> int:
    """Run ``ticker bench``; returns the exit status."""
    if args.suite == "throughput":
        from ..bench.throughput import run_throughput
        from ..bench.throughput_report import load_throughput, write_throughput

        if args.report_from:
            doc = load_throughput(Path(args.report_from))
            return write_throughput(doc, Path(args.out or "benchmarks/results/throughput"), args.docs)

        workloads = tuple(w.strip() for w in args.workloads.split(",")) if args.workloads else None
        return run_throughput(
            workloads, args.reps, Path(args.out or "benchmarks/results/throughput"), args.docs, _command(args)
        )
    if args.suite not in SUITES + ("all",):
        raise UsageError(Diagnostic(f"unknown suite '{args.suite}'", notes=(f"suites: {', '.join(SUITES)}, all",)))
    engines = name_list(args.engines, KNOWN_ENGINES)
    for flag in ("reps", "tp"):
        if getattr(args, flag) is not None and getattr(args, flag) < 1:
            raise UsageError(Diagnostic(f"--{flag} must be >= 1"))
    if args.warmup < 0 or args.budget <= 0 or (args.models is not None and args.models < 0):
        raise UsageError(Diagnostic("--warmup and --models must be >= 0, --budget > 0"))
    out = Path(args.out or f"benchmarks/results/{args.suite}")
    if args.report_from:
        doc = load_json(Path(args.report_from))
        return write_reports(doc, out, args.docs)
    options = Options(
        engines=engines,
        sizes=_ints(args.sizes, "--sizes") if args.sizes else None,
        rates=_ints(args.rates, "--rates") if args.rates else None,
        tp=args.tp,
        quick=args.quick,
        models=args.models,
        workloads=tuple(w.strip() for w in args.workloads.split(",")) if args.workloads else None,
    )
    cases = plan(args.suite, options)
    if not cases:
        raise UsageError(Diagnostic(f"no workload of suite '{args.suite}' matches --workloads {args.workloads}"))
    settings = Settings(
        budget=args.budget, reps=args.reps, warmup=args.warmup, isolate=not args.in_process, seed=args.seed
    )
    doc = run_bench(cases, settings, _command(args), out)
    return write_reports(doc, out, args.docs)
