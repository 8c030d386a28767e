"""``ticker compare``: engines side by side over one stream; exit 3 when they differ.

Exit 0 all agree, 3 they differ, 2 bad arguments. The comparison itself is
:mod:`ticker_py.compare`'s.
"""

from __future__ import annotations

import json
import sys

from .. import compare as comparing
from ..engines import ENGINE_NAMES
from ..errors import Diagnostic, UsageError
from ..plot.timeline import MAX_ATOMS
from .common import (
    HelpFormatter,
    add_picture_args,
    add_program_args,
    add_semantics_args,
    add_spec_args,
    check_choice,
    check_outputs_apart,
    choices_metavar,
    command_title,
    load,
    name_list,
    note_stdin,
    picture_range,
    semantics_knobs,
    spec_of,
)

__all__ = ["register", "cmd_compare", "add_stream_args", "EXIT_DIFFER"]

EXIT_DIFFER = 3


def add_stream_args(p, purpose: str = "run") -> None:
    """The program and stream arguments ``compare`` and ``enumerate`` share."""
    add_program_args(p)
    p.add_argument("--stream", required=True, help="stream file (.stream/.txt/.jsonl/.csv/.parquet) or -")
    add_spec_args(p, "every", "until", "max_gap", "tuple_order", "consequences", purpose=purpose)


def register(sub) -> None:
    """Add ``compare`` to the ``ticker`` subcommands."""
    p = sub.add_parser(
        "compare",
        help="run engines side by side; exit 3 when they differ",
        formatter_class=HelpFormatter,
        description="Feed one stream to several engines and report every tick where "
        "their answer streams (as sets of models) differ.",
    )
    add_stream_args(p, "compare")
    p.add_argument(
        "--engines",
        default=None,
        help="comma-separated engines: "
        + ", ".join(ENGINE_NAMES)
        + " (default: clingo,incremental,native; with --semantics: auto)",
    )
    add_spec_args(p, "models", "factorize", purpose="compare")
    p.add_argument("--max-diffs", type=int, default=20, help="differing ticks to print")
    p.add_argument(
        "--changes",
        action="store_true",
        help="run the engines as for run --changes and compare their --changes lines too",
    )
    p.add_argument(
        "--explain",
        action="store_true",
        help="for each differing atom, the why of the engine that has it and the why-not of the one that lacks it",
    )
    p.add_argument(
        "--format",
        default="text",
        metavar=choices_metavar(("text", "json")),
        help="text, or json: JSON Lines (per differing tick, with --semantics per time point, with "
        "--consequences per tick), then a summary",
    )
    p.add_argument(
        "--plot",
        "--out",
        dest="plot",
        metavar="FILE",
        help="also draw the runs side by side: FILE.svg, FILE.png or FILE.html (a report, the differences "
        "first); --out FILE is the same, as in ticker plot and ticker explain",
    )
    add_picture_args(p)
    add_semantics_args(p, several=True)
    p.set_defaults(func=cmd_compare)


def cmd_compare(args, factories: dict | None = None) -> int:
    """``ticker compare``; ``factories`` overrides the engines (tests inject stand-ins)."""
    spec = spec_of(args)
    if args.max_diffs < 0:
        raise UsageError(Diagnostic(f"--max-diffs must be >= 0, not {args.max_diffs}"))
    check_choice(args.format, ("text", "json"), "--format")
    picture = _picture(args)
    if args.semantics is not None or semantics_knobs(args):
        return _compare_semantics(args, spec, picture)
    names = name_list(args.engines or "clingo,incremental,native", ENGINE_NAMES)
    analysis = load(args, spec)
    _check_atoms(picture, analysis)
    factories = factories or {n: comparing.default_factory(n) for n in names}
    note_stdin(args.stream)
    if spec.consequences:
        return _compare_consequences(args, analysis, factories, spec)
    stream = args.stream
    if args.explain:  # read twice
        from ..stages.input import records_from

        stream = list(records_from(stream))
    cmp = comparing.compare_engines(
        analysis, stream, factories, keep_all=picture is not None, changes=args.changes, spec=spec
    )
    explained = comparing.explain_comparison(analysis, stream, cmp, spec, args.max_diffs) if args.explain else None
    if args.format == "json":
        if explained is not None:
            print(json.dumps({"explain": explained}))
        print(comparing.format_comparison_json(cmp, args.max_diffs))
    else:
        print(comparing.format_comparison(cmp, args.max_diffs))
        if explained is not None:
            print(explained)
    if picture is not None:
        _draw(args, picture, cmp)
    if len(cmp.engines) < 2:
        print("note: fewer than two engines ran; nothing was compared", file=sys.stderr)
    return 0 if cmp.agree else EXIT_DIFFER


def _compare_consequences(args, analysis, factories, spec) -> int:
    """Compare per-tick counts of answer streams and brave/cautious consequences."""
    rows, unavailable = comparing.compare_consequences(analysis, args.stream, factories, spec=spec)
    differ, mode, ticks = 0, spec.consequences, 0
    for per in rows:
        ticks += 1
        first = next(iter(per.values()))
        if len({(r.answer_streams, tuple(r.atoms or ()), r.atoms is None) for r in per.values()}) > 1:
            differ += 1
            if differ > args.max_diffs:
                continue
            if args.format == "json":
                engines = {n: {"answer_streams": r.answer_streams, mode: r.atoms} for n, r in per.items()}
                print(json.dumps({"t": first.t, "c": first.c, "differs": True, "engines": engines}))
                continue
            print(f"t={first.t} c={first.c}: engines differ")
            for n, r in per.items():
                print(f"  {n}: {r.answer_streams} answer streams, {mode} {r.atoms}")
        else:
            print(first.to_json(mode))
    if args.format == "json":
        reasons = {n: str(getattr(r, "message", r)) for n, r in unavailable.items()}
        ran = [n for n in factories if n not in unavailable]
        summary = {"engines": ran, "unavailable": reasons, "ticks": ticks, "differing": differ}
        print(json.dumps({"summary": summary}))
    else:
        for n, reason in unavailable.items():
            print(f"{n}: n/a ({reason})")
    return EXIT_DIFFER if differ else 0


def _picture(args):
    """``(start, selection, max_atoms)`` of ``--plot`` (checked before anything runs), or None."""
    if args.plot is None:
        given = [o for o, v in (("--from", args.start), ("--atoms", args.atoms)) if v is not None]
        if given or args.max_atoms != MAX_ATOMS:
            raise UsageError(
                Diagnostic(
                    f"{(given or ['--max-atoms'])[0]} chooses what --plot draws, and there is no --plot",
                    notes=("add --plot FILE.svg (or .png, .html), or drop --from, --atoms and --max-atoms",),
                )
            )
        return None
    from ..pictures import check_output

    check_output(args.plot, "--plot")
    check_outputs_apart(args, "plot")
    if args.consequences or args.changes or args.factorize:
        raise UsageError(
            Diagnostic("--plot draws answer streams", notes=("drop --consequences, --changes and --factorize",))
        )
    return picture_range(args)


def _check_atoms(picture, analysis) -> None:
    if picture is not None:
        from ..plot.select import check_selection

        check_selection(picture[1], analysis.predicates)


def _draw(args, picture, cmp) -> None:
    from ..pictures import write

    start, selection, max_atoms = picture
    write(cmp.timeline(command_title(args), start, args.until, selection, max_atoms), args.plot)


def _compare_semantics(args, spec, picture) -> int:
    """``--semantics default,r4``: the program under each profile, per time point which differ."""
    from .. import semantics_compare
    from ..semantics import parse_semantics_list

    if spec.consequences or spec.tuple_order != "arrival":
        raise UsageError(
            Diagnostic(
                "--semantics compares answer streams in arrival order", notes=("drop --consequences and --tuple-order",)
            )
        )
    semantics = parse_semantics_list(args.semantics or "default", **semantics_knobs(args))
    engines = name_list(args.engines, ENGINE_NAMES) if args.engines else ("auto",)
    analysis = load(args, spec)
    _check_atoms(picture, analysis)
    note_stdin(args.stream)
    cmp = semantics_compare.compare_semantics(analysis, args.stream, semantics, engines, spec=spec)
    print(
        semantics_compare.format_json(cmp)
        if args.format == "json"
        else semantics_compare.format_text(cmp, args.max_diffs)
    )
    if picture is not None:
        _draw(args, picture, cmp)
    if len(cmp.runs) < 2 and cmp.unavailable:
        print("note: fewer than two runs could read the program; nothing was compared", file=sys.stderr)
    elif len(cmp.runs) < 2:
        print(
            "note: fewer than two runs; nothing was compared (write e.g. --semantics default,r4 or "
            "default,default+origin=first)",
            file=sys.stderr,
        )
    return 0 if cmp.agree else EXIT_DIFFER
