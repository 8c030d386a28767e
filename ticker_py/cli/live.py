"""The live options of ``ticker run``: ``--input tcp:…``, ``--output tcp:…``, ``--wall-clock`` (docs/live.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import Diagnostic, UsageError
from ..streams.drive import MAX_GAP

if TYPE_CHECKING:  # imported when a live option is given: a run on files needs none of it
    from ..live.options import LiveOptions

__all__ = ["add_live_options", "live_options"]


def add_live_options(run_parser) -> None:
    """Add the live options to the ``ticker run`` parser."""
    g = run_parser.add_argument_group("live streams (docs/live.md)")
    g.add_argument(
        "--input",
        metavar="tcp:HOST:PORT",
        help="accept producers on a TCP port (host defaults to 127.0.0.1; port 0 = any free "
        "port, announced on stderr) instead of --stream",
    )
    g.add_argument(
        "--output", metavar="tcp:HOST:PORT", help="send the result lines to every client connected to this TCP port"
    )
    g.add_argument(
        "--wall-clock",
        action="store_true",
        help="time points advance with real time (one per --clock); atoms are stamped on arrival",
    )
    g.add_argument(
        "--grace",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help="with --input: end this long after the last producer left",
    )
    g.add_argument(
        "--idle-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="with --input: a producer silent this long no longer holds the time back (0 = wait for it forever)",
    )
    g.add_argument(
        "--save-input", metavar="FILE", help="write every accepted record to FILE (text format) for an offline replay"
    )


def live_options(args) -> LiveOptions | None:
    """The live options of parsed ``ticker run`` arguments, or None when none of ``--input``,
    ``--output``, ``--wall-clock`` and ``--save-input`` is given (a run on files)."""
    if not args.idle_timeout >= 0:
        raise UsageError(Diagnostic(f"--idle-timeout must be 0 or more seconds, not {args.idle_timeout:g}"))
    if not args.grace >= 0:
        raise UsageError(Diagnostic(f"--grace must be 0 or more seconds, not {args.grace:g}"))
    if not (args.input or args.output or args.wall_clock or args.save_input):
        return None
    if args.input or args.wall_clock:
        _check_text_input(
            args.stream, getattr(args, "stream_format", None), "--input" if args.input else "--wall-clock"
        )
    from ..live.options import LiveOptions

    return LiveOptions(
        input=args.input,
        output=args.output,
        wall_clock=args.wall_clock,
        grace=args.grace,
        idle_timeout=args.idle_timeout or None,
        max_gap=getattr(args, "max_gap", MAX_GAP) or None,
        save_input=args.save_input,
        stream=args.stream,
        clock=args.clock,
        out=args.out,
    )


def _check_text_input(stream: str | None, fmt: str | None, option: str) -> None:
    """Refuse a ``--stream-format`` (or a stream file suffix) other than text with ``option``: live
    input is read line by line as atoms, and other formats would only give bad lines."""
    if fmt in (None, "auto") and stream not in (None, "-"):
        from pathlib import Path

        from ..rdf import rdf_format
        from ..streams.readers import COMPRESSED, stream_format

        path = Path(stream)
        fmt = None if path.is_dir() else rdf_format(stream) or stream_format(path)
        if path.suffix.lower() in COMPRESSED:
            fmt = f"{fmt or 'text'} compressed by {path.suffix.lower()}"
    if fmt not in (None, "", "auto", "text"):
        raise UsageError(
            Diagnostic(
                f"{option} reads the stream as text lines of atoms, not as {fmt}",
                notes=("convert the stream to the text format, or run without " + option,),
            )
        )
