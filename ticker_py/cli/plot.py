"""``ticker plot``: a timeline of the answer streams of a program over a stream (docs/pictures.md)."""

from __future__ import annotations

from ..engines import ENGINE_NAMES
from ..errors import Diagnostic, UsageError
from ..streams.drive import Every, check_max_gap
from .common import (
    HelpFormatter,
    add_picture_args,
    add_program_args,
    add_semantics_args,
    check_outputs_apart,
    check_until,
    choices_metavar,
    command_title,
    load,
    note_stdin,
    picture_range,
    semantics_knobs,
)
from .compare import add_evaluation_args

__all__ = ["register", "cmd_plot"]


def register(sub) -> None:
    """Add ``plot`` to the ``ticker`` subcommands."""
    p = sub.add_parser(
        "plot",
        help="draw the answer streams as a timeline (SVG, PNG or an HTML report)",
        formatter_class=HelpFormatter,
        description="Run a program over a stream and draw a timeline of its answer streams: one row per "
        "derived atom, a bar for each interval of time points in which it holds, the input atoms per time "
        "point on top and, when there are several, the number of answer streams per time point.",
    )
    add_program_args(p)
    p.add_argument("--stream", required=True, help="stream file (.stream/.txt/.jsonl/.csv/.parquet) or -")
    p.add_argument(
        "--out", required=True, metavar="FILE", help="FILE.svg, FILE.png or FILE.html (a self-contained report)"
    )
    p.add_argument(
        "--engine",
        default="auto",
        metavar=choices_metavar(("auto",) + ENGINE_NAMES),
        help="the engine (auto: native if it can run the program, else incremental)",
    )
    p.add_argument("--models", type=int, default=0, help="answer streams per tick (0 = all)")
    add_evaluation_args(p)
    add_picture_args(p)
    add_semantics_args(p)
    p.set_defaults(func=cmd_plot)


def cmd_plot(args) -> int:
    """``ticker plot``."""
    from ..pictures import check_output, run_timeline, write
    from ..semantics import resolve

    check_output(args.out)
    Every.parse(args.every)
    check_max_gap(args.max_gap)
    check_until(args.until)
    if args.models < 0:
        raise UsageError(Diagnostic(f"--models must be >= 0, not {args.models}"))
    start, selection, max_atoms = picture_range(args)
    check_outputs_apart(args, "out")
    semantics = resolve(args.semantics, **semantics_knobs(args))
    analysis = load(args)
    note_stdin(args.stream)
    tl = run_timeline(
        analysis,
        args.stream,
        engine=args.engine,
        models=args.models,
        every=args.every,
        until=args.until,
        max_gap=args.max_gap,
        semantics=semantics,
        start=start,
        end=args.until,
        atoms=selection,
        max_atoms=max_atoms,
        title=command_title(args),
    )
    write(tl, args.out)
    return 0
