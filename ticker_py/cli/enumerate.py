"""``ticker enumerate``: every answer stream of every tick into a JSON Lines file (clingo)."""

from __future__ import annotations

import json
import sys

from ..consequences import MODES
from .common import HelpFormatter, check_outputs_apart, choices_metavar, load
from .compare import add_stream_args, check_stream_args, stream_records

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
    e.add_argument("--consequences", metavar=choices_metavar(MODES), help="also print these consequences per tick")
    e.add_argument("--show-at", action="store_true", help="include atoms pinned to other time points")
    e.set_defaults(func=cmd_enumerate)


def cmd_enumerate(args) -> int:
    """``ticker enumerate``."""
    from ..enumeration import enumerate_answer_streams
    from ..streams.output import open_output

    check_stream_args(args)
    check_outputs_apart(args, "out")
    analysis = load(args)
    with open_output(args.out) as out:
        for res in enumerate_answer_streams(
            analysis,
            stream_records(args),
            out,
            args.consequences,
            args.until,
            args.every,
            args.show_at,
            args.tuple_order,
        ):
            if args.consequences:
                print(res.to_json(args.consequences))
            else:
                print(json.dumps({"t": res.t, "c": res.c, "answer_streams": res.answer_streams}))
            sys.stdout.flush()
    return 0
