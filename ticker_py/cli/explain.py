"""``ticker explain``: why an atom holds at time T, or with ``--why-not`` why it does not
(:mod:`ticker_py.explain`; docs/explain.md), as text, JSON, DOT or a picture (docs/pictures.md)."""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import Diagnostic, UsageError
from .common import (
    HelpFormatter,
    add_program_args,
    add_spec_args,
    check_choice,
    check_outputs_apart,
    check_until,
    choices_metavar,
    command_title,
    load,
    note_stdin,
    spec_of,
)

__all__ = ["register", "cmd_explain", "FORMATS", "PICTURES"]

#: svg, png: the derivation tree (graphviz, or matplotlib without it); html: a self-contained report
PICTURES = ("svg", "png", "html")
FORMATS = ("text", "json", "dot") + PICTURES


def register(sub) -> None:
    """Add ``explain`` to the ``ticker`` subcommands."""
    p = sub.add_parser(
        "explain",
        help="why an atom holds at time T (or, with --why-not, why it does not)",
        formatter_class=HelpFormatter,
    )
    add_program_args(p)
    p.add_argument("atom", help="a ground atom, e.g. 'need(1,3)'; 'ATOM at T2' for an atom pinned to T2")
    p.add_argument("--stream", default="-", help="stream file or - for stdin")
    p.add_argument("--at", type=int, required=True, help="the evaluation time point")
    p.add_argument("--why-not", action="store_true", help="explain why the atom does not hold")
    p.add_argument("--model", type=int, default=1, help="which answer stream, 1-based in printed order")
    add_spec_args(p, "models", "engine", "every", "semantics", purpose="explain")
    p.add_argument(
        "--format",
        default=None,
        metavar=choices_metavar(FORMATS),
        help="output format; svg, png: the derivation tree as a picture; html: a self-contained report"
        " (default: the suffix of --out, else text)",
    )
    p.add_argument("--out", metavar="FILE", help="write to FILE (default stdout; - is stdout)")
    p.set_defaults(func=cmd_explain)


def _format(args) -> str:
    """``--format``, else the picture format of ``--out``'s suffix, else text."""
    suffix = Path(args.out).suffix.lstrip(".").lower() if args.out not in (None, "-") else ""
    if args.format is None:
        return suffix if suffix in PICTURES else "text"
    check_choice(args.format, FORMATS, "format")
    if suffix in PICTURES and args.format != suffix:
        raise UsageError(
            Diagnostic(f"--format {args.format} does not match --out '{args.out}'", notes=(f"write --format {suffix}",))
        )
    return args.format


def cmd_explain(args) -> int:
    """``ticker explain``."""
    from ..api import explain_at

    spec = spec_of(args)
    fmt = _format(args)
    check_outputs_apart(args, "out")
    check_until(args.at, "--at")
    if args.model < 1 or (spec.models and args.model > spec.models):
        raise UsageError(
            Diagnostic(
                f"--model must be an integer >= 1 (answer streams count from 1), not {args.model}"
                if args.model < 1
                else f"--model {args.model} is beyond --models {spec.models} (the answer streams computed)"
            )
        )
    results: list | None = [] if fmt == "html" else None
    analysis = load(args, spec)
    note_stdin(args.stream)
    e = explain_at(analysis, args.stream, args.at, args.atom, args.why_not, args.model, results, spec=spec)
    heading = command_title(args)
    if fmt in PICTURES:
        data, note = _picture(e, fmt, heading, results)
        from ..pictures import write_bytes

        if note:
            print(f"note: {note}", file=sys.stderr)
        write_bytes(args.out or "-", data)
        return 0
    text = {"text": lambda: str(e) + "\n", "json": lambda: e.to_json() + "\n", "dot": e.to_dot}[fmt]()
    from ..stages.output import open_output

    with open_output(args.out) as out:
        out.write(text)
    return 0


def _picture(e, fmt: str, heading: str, results) -> tuple:
    from ..explain import render

    if fmt != "html":
        return render.picture(e, fmt, heading)
    from ..plot.timeline import from_results

    timeline = from_results(results, f"the run up to t = {e.t}", heading) if results else None
    page, note = render.report(e, heading, timeline)
    return page.encode("utf-8"), note
