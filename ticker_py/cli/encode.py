"""``ticker encode``: the ASP encoding of a program as text."""

from __future__ import annotations

import sys

from .common import HelpFormatter, add_program_args, check_until, load

__all__ = ["register", "cmd_encode"]


def register(sub) -> None:
    """Add ``encode`` to the ``ticker`` subcommands."""
    enc = sub.add_parser("encode", help="print the ASP encoding", formatter_class=HelpFormatter)
    add_program_args(enc)
    group = enc.add_mutually_exclusive_group()
    group.add_argument("--at", type=int, help="the static encoding for evaluation time T (facts included)")
    group.add_argument("--incremental", action="store_true", help="the incremental encoding with annotations")
    enc.set_defaults(func=cmd_encode)


def cmd_encode(args) -> int:
    """``ticker encode``."""
    check_until(args.at, "--at")
    analysis = load(args)
    if args.incremental:
        from ..encode.incremental import encode_incremental

        sys.stdout.write(str(encode_incremental(analysis)))
        return 0
    from ..encode import encode_static

    enc = encode_static(analysis)
    sys.stdout.write(enc.rules)
    if args.at is not None:
        sys.stdout.write(f"% facts for tick ({args.at}, 0) with an empty stream\n")
        sys.stdout.write(enc.facts(args.at, 0, 0, ()) + "\n")
    return 0
