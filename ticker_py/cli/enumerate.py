"""``ticker enumerate``: every answer stream of every tick into a JSON Lines file (clingo)."""

from __future__ import annotations

import json
import sys

from .common import HelpFormatter, add_spec_args, check_outputs_apart, load, note_stdin, spec_of
from .compare import add_stream_args

__all__ = ["register", "cmd_enumerate"]


def register(sub) -> None:
    """Add ``enumerate`` to the ``ticker`` subcommands."""
    e = sub.add_parser(
        "enumerate",
        help="write all answer streams to a file, numbered in printed order",
        formatter_class=HelpFormatter,
        description="Enumerate every answer stream of every tick (clingo, numbered in printed order) into a "
        "JSON Lines file; print per tick the count and, with "
        "--consequences, the brave or cautious consequences.",
    )
    add_stream_args(e)
    e.add_argument("--out", required=True, help="JSON Lines file for the answer streams")
    add_spec_args(e, "show_at")
    e.set_defaults(func=cmd_enumerate)


def cmd_enumerate(args) -> int:
    """``ticker enumerate``."""
    from ..enumeration import enumerate_answer_streams
    from ..stages.output import open_output

    spec = spec_of(args)
    check_outputs_apart(args, "out")
    analysis = load(args, spec)
    note_stdin(args.stream)
    with open_output(args.out) as out:
        for res in enumerate_answer_streams(analysis, args.stream, out, spec=spec):
            if args.consequences:
                print(res.to_json(args.consequences))
            else:
                print(json.dumps({"t": res.t, "c": res.c, "answer_streams": res.answer_streams}))
            sys.stdout.flush()
    return 0
