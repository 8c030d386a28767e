"""``ticker compare``: engines side by side over one stream; exit 3 when they differ.

Exit 0 all agree, 3 they differ, 2 bad arguments. The comparison itself is
:mod:`ticker_py.compare`'s.
"""

from __future__ import annotations

import sys
from typing import Optional

from .. import compare as comparing
from ..consequences import MODES
from ..engines import ENGINE_NAMES
from ..errors import Diagnostic, UsageError
from ..streams.drive import Every
from .common import HelpFormatter, add_program_args, choices_metavar, load, name_list

__all__ = ["register", "cmd_compare", "add_stream_args", "check_stream_args", "EXIT_DIFFER", "TUPLE_ORDERS"]

EXIT_DIFFER = 3
TUPLE_ORDERS = ("arrival", "reverse")


def add_stream_args(p) -> None:
    """The program and stream arguments ``compare`` and ``enumerate`` share."""
    add_program_args(p)
    p.add_argument("--stream", required=True, help="stream file (.stream/.txt/.jsonl/.csv/.parquet) or -")
    p.add_argument("--every", default="time", metavar=choices_metavar(tuple(e.value for e in Every)),
                   help="time: once per time point; signal: after every atom")
    p.add_argument("--until", type=int, metavar="T", help="evaluate time points up to T")
    p.add_argument("--tuple-order", default="arrival", metavar=choices_metavar(TUPLE_ORDERS),
                   help="arrival (a tuple window keeps the last-arrived atoms of its oldest "
                        "time point) or reverse (the atoms of each time point are fed in reverse order, "
                        "so it keeps the first-arrived)")


def check_stream_args(args) -> None:
    """Refuse a bad ``--every``, ``--tuple-order`` or ``--consequences`` (status 2)."""
    Every.parse(args.every)
    if args.tuple_order not in TUPLE_ORDERS:
        raise UsageError(Diagnostic(f"unknown --tuple-order '{args.tuple_order}'",
                                    notes=("use arrival or reverse",)))
    if args.consequences not in (None,) + MODES:
        raise UsageError(Diagnostic(f"unknown --consequences '{args.consequences}'",
                                    notes=("use brave or cautious",)))


def register(sub) -> None:
    """Add ``compare`` to the ``ticker`` subcommands."""
    p = sub.add_parser("compare", help="run engines side by side; exit 3 when they differ",
                       formatter_class=HelpFormatter,
                       description="Feed one stream to several engines and report every tick where "
                                   "their answer streams (as sets of models) differ.")
    add_stream_args(p)
    p.add_argument("--engines", default="clingo,incremental,native",
                   help="comma-separated engines: " + ", ".join(ENGINE_NAMES))
    p.add_argument("--models", type=int, default=0, help="answer streams per tick (0 = all)")
    p.add_argument("--consequences", metavar=choices_metavar(MODES),
                   help="compare brave or cautious consequences instead of the answer streams")
    p.add_argument("--factorize", action="store_true",
                   help="compare factorized answers (factor by factor, expanded where the factors differ)")
    p.add_argument("--max-diffs", type=int, default=20, help="differing ticks to print")
    p.set_defaults(func=cmd_compare)


def cmd_compare(args, factories: Optional[dict] = None) -> int:
    """``ticker compare``; ``factories`` overrides the engines (tests inject stand-ins)."""
    check_stream_args(args)
    if args.models < 0:
        raise UsageError(Diagnostic(f"--models must be >= 0, not {args.models}"))
    names = name_list(args.engines, ENGINE_NAMES)
    analysis = load(args)
    factories = factories or {n: comparing.default_factory(n) for n in names}
    if args.consequences:
        return _compare_consequences(args, analysis, factories)
    cmp = comparing.compare_engines(analysis, args.stream, factories, models=args.models, every=args.every,
                                    until=args.until, tuple_order=args.tuple_order, keep_all=False,
                                    factorize=args.factorize)
    print(comparing.format_comparison(cmp, args.max_diffs))
    if len(cmp.engines) < 2:
        print("note: fewer than two engines ran; nothing was compared", file=sys.stderr)
    return 0 if cmp.agree else EXIT_DIFFER


def _compare_consequences(args, analysis, factories) -> int:
    """Compare per-tick counts of answer streams and brave/cautious consequences."""
    rows, unavailable = comparing.compare_consequences(analysis, args.stream, factories, args.consequences,
                                                       args.models, args.every, args.until, args.tuple_order)
    differ = 0
    for per in rows:
        row = list(per.values())
        first = row[0]
        if len({(r.answer_streams, tuple(r.atoms or ()), r.atoms is None) for r in row}) > 1:
            differ += 1
            if differ <= args.max_diffs:
                print(f"t={first.t} c={first.c}: engines differ")
                for n, r in per.items():
                    print(f"  {n}: {r.answer_streams} answer streams, {args.consequences} {r.atoms}")
        else:
            print(first.to_json(args.consequences))
    for n, reason in unavailable.items():
        print(f"{n}: n/a ({reason})")
    return EXIT_DIFFER if differ else 0
