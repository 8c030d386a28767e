"""``ticker plot``: a timeline of the answer streams of a program over a stream (docs/pictures.md)."""

from __future__ import annotations

from .common import (
    HelpFormatter,
    add_picture_args,
    add_program_args,
    add_spec_args,
    check_outputs_apart,
    command_title,
    load,
    note_stdin,
    picture_range,
    spec_of,
)

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
    add_spec_args(p, "engine", "models", "every", "until", "max_gap", "semantics", purpose="plot")
    add_picture_args(p)
    p.set_defaults(func=cmd_plot)


def cmd_plot(args) -> int:
    """``ticker plot``."""
    from ..pictures import check_output, run_timeline, write

    check_output(args.out)
    spec = spec_of(args)
    start, selection, max_atoms = picture_range(args)
    check_outputs_apart(args, "out")
    analysis = load(args, spec)
    note_stdin(args.stream)
    tl = run_timeline(analysis, args.stream, start, spec.until, selection, max_atoms, command_title(args), spec=spec)
    write(tl, args.out)
    return 0
