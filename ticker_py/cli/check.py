"""``ticker check``: a program's errors, fragment, engines, roles and shape."""

from __future__ import annotations

from .common import HelpFormatter, add_program_args, load

__all__ = ["register", "cmd_check"]


def register(sub) -> None:
    """Add ``check`` to the ``ticker`` subcommands."""
    check = sub.add_parser("check", help="check a program: errors, fragment, engines", formatter_class=HelpFormatter)
    add_program_args(check)
    check.set_defaults(func=cmd_check)


def cmd_check(args) -> int:
    """``ticker check``."""
    from ..analysis.sharding import sharding_report
    from ..engines import unsupported_reasons

    analysis = load(args)
    sigs = analysis.signatures
    fmt = lambda preds: ", ".join(f"{p}/{sigs[p]}" for p in sorted(preds)) or "-"  # noqa: E731
    print(f"{args.program}: ok")
    print(f"fragment: {analysis.fragment}" + (" (with constraints)" if analysis.has_constraints else ""))
    print(f"engines: {', '.join(analysis.engines)}")
    if "native" not in analysis.engines:
        for reason in unsupported_reasons(analysis):
            print(f"  native: {reason}")
    print(f"intensional: {fmt(analysis.intensional)}")
    print(f"extensional: {fmt(analysis.extensional)}")
    print(f"background facts: {len(analysis.background)}")
    look = "unbounded" if analysis.lookback is None else f"{analysis.lookback} time points"
    print(f"look-back: {look}; tuple windows up to {analysis.tuple_lookback} atoms")
    print("strata: " + " < ".join("{" + ", ".join(s) + "}" for s in analysis.strata))
    print(sharding_report(analysis))
    return 0
