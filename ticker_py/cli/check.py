"""``ticker check``: a program's errors, fragment, engines, roles and shape."""

from __future__ import annotations

from .common import HelpFormatter, add_program_args, add_semantics_args, load, semantics_knobs

__all__ = ["register", "cmd_check"]


def register(sub) -> None:
    """Add ``check`` to the ``ticker`` subcommands."""
    check = sub.add_parser("check", help="check a program: errors, fragment, engines", formatter_class=HelpFormatter)
    add_program_args(check)
    add_semantics_args(check)
    check.set_defaults(func=cmd_check)


def cmd_check(args) -> int:
    """``ticker check``."""
    from ..analysis.sharding import sharding_report
    from ..engines import unsupported_reasons

    analysis = load(args)
    semantics = None
    if args.semantics is not None or semantics_knobs(args):
        from ..semantics import check_program, resolve

        semantics = resolve(args.semantics, **semantics_knobs(args))
        check_program(semantics, analysis)  # outside the profile's fragment: located errors, status 2
    _warn_typos(analysis)
    sigs, name = analysis.signatures, analysis.renamed.get  # p'2 (p/2 of a name of several arities): p
    fmt = lambda preds: ", ".join(sorted(f"{name(p, p)}/{sigs[p]}" for p in preds)) or "-"  # noqa: E731
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
    print("strata: " + " < ".join("{" + fmt(s) + "}" for s in analysis.strata))
    print(sharding_report(analysis))
    if semantics is not None:
        _report_semantics(semantics, analysis)
    return 0


def _warn_typos(analysis) -> None:
    """The "did you mean" warnings of ``ticker run`` that need no stream: a body predicate or a
    ``#show`` in no rule head and no fact, with a close name of one (any other may come from the
    stream, docs/cli.md)."""
    import warnings

    from ..analysis.unused import never_given
    from ..errors import TickerWarning

    for diag in never_given(analysis, None):
        warnings.warn(TickerWarning(diag), stacklevel=2)


def _report_semantics(semantics, analysis) -> None:
    """The profile, its citation, and which engines run the program under it."""
    from ..engines import ENGINES, check_semantics, semantics_engines
    from ..errors import EngineUnsupported
    from ..semantics import PROFILES

    print(f"semantics: {semantics} ({PROFILES[semantics.profile].citation})")
    print("  knobs: " + ", ".join(f"{k}={v}" for k, v in semantics.knobs.items()))
    usable = semantics_engines(analysis, semantics)
    print(f"engines under {semantics}: {', '.join(usable) or 'none'}")
    for name in ENGINES:
        if name in usable:
            continue
        try:
            check_semantics(name, semantics)
            print(f"  {name}: cannot run this program's fragment")
        except EngineUnsupported as err:
            print(f"  {name}: {err.diagnostics[0].message}")
