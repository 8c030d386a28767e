"""``ticker explain``: why an atom holds at time T, or with ``--why-not`` why it does not
(:mod:`ticker_py.explain`; docs/explain.md)."""

from __future__ import annotations

import sys

from ..engines import ENGINE_NAMES
from ..streams.drive import Every
from .common import (
    HelpFormatter,
    add_program_args,
    add_semantics_args,
    check_choice,
    choices_metavar,
    load,
    semantics_knobs,
)

__all__ = ["register", "cmd_explain", "FORMATS"]

FORMATS = ("text", "json", "dot")


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
    p.add_argument(
        "--models", type=int, default=0, help="answer streams computed per tick (0 = all); --model counts among them"
    )
    p.add_argument("--format", default="text", metavar=choices_metavar(FORMATS), help="output format")
    p.add_argument(
        "--engine", default="auto", help="the engine computing the answer streams: auto, " + ", ".join(ENGINE_NAMES)
    )
    p.add_argument(
        "--every",
        default="time",
        metavar=choices_metavar(tuple(e.value for e in Every)),
        help="time, or signal: the tick after the last atom of T (the same tick)",
    )
    add_semantics_args(p)
    p.set_defaults(func=cmd_explain)


def cmd_explain(args) -> int:
    """``ticker explain``."""
    from ..api import explain_at

    check_choice(args.format, FORMATS, "format")
    e = explain_at(
        load(args),
        args.stream,
        args.at,
        args.atom,
        why_not=args.why_not,
        model=args.model,
        engine=args.engine,
        every=args.every,
        models=args.models,
        semantics=args.semantics,
        **semantics_knobs(args),
    )
    text = {"text": lambda: str(e) + "\n", "json": lambda: e.to_json() + "\n", "dot": e.to_dot}[args.format]()
    sys.stdout.write(text)
    return 0
