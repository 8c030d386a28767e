"""``ticker bench SUITE``: run a suite, write results.json, report.md and plots (:mod:`ticker_py.bench`)."""

from __future__ import annotations

import math
import shlex
from pathlib import Path

from ..bench.results import load_json, run_bench, write_reports
from ..bench.runner import Settings
from ..bench.suites import ENGINES, KNOWN_ENGINES, SUITES, Options, plan
from ..errors import Diagnostic, UsageError
from ..workloads.draws import MAX_SEED
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
    p.add_argument(
        "--engines", help="comma-separated engines: " + ", ".join(KNOWN_ENGINES) + f" (default: {','.join(ENGINES)})"
    )
    p.add_argument("--sizes", metavar="N,...", help="window sizes n (default: the suite's grid)")
    p.add_argument("--rates", metavar="K,...", help="atoms per time point k (laser, pruning)")
    p.add_argument("--tp", type=int, metavar="N", help="time points per run")
    p.add_argument(
        "--models", type=int, metavar="N", help="answer streams per tick (default 1; ticker-b: 0 = all, counted)"
    )
    p.add_argument("--workloads", metavar="W,...", help="only these workloads of the suite (e.g. diamond,box)")
    p.add_argument(
        "--reps", type=int, metavar="R", help=f"repetitions per run; the median is reported (default: {REPS})"
    )
    p.add_argument(
        "--warmup",
        type=int,
        metavar="W",
        help="unmeasured runs on the first tenth of the stream before each measured run (default: 0)",
    )
    p.add_argument(
        "--budget",
        type=float,
        metavar="SECONDS",
        help=f"time budget per run; over it the run stops and is reported as a timeout (default: {BUDGET:g})",
    )
    p.add_argument("--quick", action="store_true", help="tiny sizes (smoke test, CI)")
    p.add_argument("--seed", type=int, help=f"stream seed, 0 to {MAX_SEED} (default: 0)")
    p.add_argument("--out", metavar="DIR", help="output directory (default benchmarks/results/SUITE)")
    p.add_argument(
        "--docs",
        action="store_true",
        help="also write docs/benchmarks.md and docs/img/bench-*.png (run from the repository root)",
    )
    p.add_argument("--in-process", action="store_true", help="run engines in this process (no forked workers)")
    p.add_argument("--report-from", metavar="JSON", help="only re-render the report of an earlier results.json")
    p.set_defaults(func=cmd_bench)


#: the repetitions and the time budget of a run when not given
REPS, BUDGET = 1, 60.0
#: the options that choose what is measured without a default, and those with one
_CHOOSING = ("sizes", "rates", "tp", "models", "workloads")
_DEFAULTS = {"reps": REPS, "warmup": 0, "budget": BUDGET, "seed": 0}
#: every option that chooses what is measured: given, each must act (a suite or --report-from that
#: does not use one refuses it rather than ignore it)
MEASURING = ("engines", *_CHOOSING, *_DEFAULTS, "quick", "in_process")


def _command(args) -> str:
    """The command that reproduces the figures: options away from their defaults, without ``--out``
    (where the results go changes no figure)."""
    parts = ["ticker", "bench", args.suite, "--engines", args.engines or ",".join(ENGINES)]
    for flag in _CHOOSING:
        value = getattr(args, flag)
        if value is not None:
            parts += [f"--{flag}", str(value)]
    for flag, default in _DEFAULTS.items():
        value = getattr(args, flag)
        if value not in (None, default):
            parts += [f"--{flag}", f"{value:g}" if isinstance(value, float) else str(value)]
    parts += [f"--{f.replace('_', '-')}" for f in ("quick", "docs", "in_process") if getattr(args, f)]
    return shlex.join(parts)


def _check_numbers(args) -> None:
    """Every numeric option in its range, whatever the suite (checked before anything runs)."""
    for flag, low in (("tp", 1), ("reps", 1), ("warmup", 0), ("models", 0)):
        value = getattr(args, flag)
        if value is not None and value < low:
            raise UsageError(Diagnostic(f"--{flag} must be an integer >= {low}, not {value}"))
    if args.budget is not None and not (math.isfinite(args.budget) and args.budget > 0):
        raise UsageError(Diagnostic(f"--budget must be a number of seconds > 0, not {args.budget:g}"))
    if args.seed is not None and not 0 <= args.seed <= MAX_SEED:
        raise UsageError(Diagnostic(f"--seed must be an integer from 0 to {MAX_SEED}, not {args.seed}"))


def _refuse_unused(args, used: tuple, what: str) -> None:
    """Refuse a measuring option given to ``what`` (throughput, --report-from), which does not use it."""
    for flag in MEASURING:
        if flag not in used and getattr(args, flag) not in (None, False):
            takes = ", ".join("--" + f for f in used) if used else "none"
            raise UsageError(
                Diagnostic(
                    f"--{flag.replace('_', '-')} does not apply to {what}",
                    notes=(f"of the options that choose what is measured it takes {takes}",),
                )
            )


def cmd_bench(args) -> int:
    """Run ``ticker bench``; returns the exit status."""
    _check_numbers(args)
    workloads = tuple(w.strip() for w in args.workloads.split(",")) if args.workloads else None
    if args.report_from:
        _refuse_unused(args, (), "--report-from (the report of results measured already)")
    out = Path(args.out or f"benchmarks/results/{args.suite}")
    if args.suite == "throughput":
        from ..bench.results import THROUGHPUT_KEYS
        from ..bench.throughput import run_throughput, write_throughput

        if args.report_from:
            doc = load_json(Path(args.report_from), THROUGHPUT_KEYS, "ticker bench throughput")
            return write_throughput(doc, out, args.docs)
        _refuse_unused(args, ("workloads", "reps"), "the throughput suite")
        return run_throughput(workloads, args.reps or REPS, out, args.docs, _command(args))
    if args.suite not in SUITES + ("all",):
        raise UsageError(Diagnostic(f"unknown suite '{args.suite}'", notes=(f"suites: {', '.join(SUITES)}, all",)))
    engines = name_list(args.engines or ",".join(ENGINES), KNOWN_ENGINES)
    if args.report_from:
        doc = load_json(Path(args.report_from))
        return write_reports(doc, out, args.docs)
    rates = _ints(args.rates, "--rates") if args.rates else None
    if rates and args.suite in ("ticker-a", "ticker-b"):
        raise UsageError(Diagnostic(f"--rates does not apply to the {args.suite} suite (its streams set no rate)"))
    if rates and len(rates) > 1 and args.suite == "r4":
        raise UsageError(Diagnostic(f"the r4 suite takes one rate, not --rates {args.rates}"))
    options = Options(
        engines=engines,
        sizes=_ints(args.sizes, "--sizes") if args.sizes else None,
        rates=rates,
        tp=args.tp,
        quick=args.quick,
        models=args.models,
        workloads=workloads,
    )
    cases = plan(args.suite, options)
    if not cases:
        raise UsageError(Diagnostic(f"no workload of suite '{args.suite}' matches --workloads {args.workloads}"))
    chosen = {k: default if getattr(args, k) is None else getattr(args, k) for k, default in _DEFAULTS.items()}
    settings = Settings(isolate=not args.in_process, **chosen)
    doc = run_bench(cases, settings, _command(args), out)
    return write_reports(doc, out, args.docs)
