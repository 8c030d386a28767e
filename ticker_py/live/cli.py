"""Live options of ``ticker run``: ``--input tcp:…``, ``--output tcp:…``, ``--wall-clock``.

``cmd_run`` wires them in (see docs/live.md)::

    records = live_records(args, analysis) or records_from(args.stream)
    out = live_output(args) or (open(args.out, "w") if args.out else sys.stdout)
    ...  # feed and write as usual; finally close ``out`` unless it is sys.stdout
"""

from __future__ import annotations

import sys

from ..errors import Diagnostic, UsageError

__all__ = ["add_live_options", "live_records", "live_output"]


def add_live_options(run_parser) -> None:
    """Add the live options to the ``ticker run`` parser."""
    g = run_parser.add_argument_group("live streams (docs/live.md)")
    g.add_argument("--input", metavar="tcp:HOST:PORT",
                   help="accept producers on a TCP port (host defaults to 127.0.0.1; port 0 = any free "
                        "port, announced on stderr) instead of --stream")
    g.add_argument("--output", metavar="tcp:HOST:PORT",
                   help="send the result lines to every client connected to this TCP port")
    g.add_argument("--wall-clock", action="store_true",
                   help="time points advance with real time (one per --clock); atoms are stamped on arrival")
    g.add_argument("--grace", type=float, default=1.0, metavar="SECONDS",
                   help="with --input: end this long after the last producer left (default 1)")
    g.add_argument("--idle-timeout", type=float, default=10.0, metavar="SECONDS",
                   help="with --input: a producer silent this long no longer holds the time back "
                        "(0 = wait for it forever; default 10)")
    g.add_argument("--save-input", metavar="FILE",
                   help="write every accepted record to FILE (text format) for an offline replay")


def _announce(what: str):
    return lambda address: print(f"ticker: {what} {address}", file=sys.stderr, flush=True)


def live_records(args, analysis=None):
    """The Record iterator for the live options, or None when no live input is requested.

    ``analysis`` (the program's Analysis), if given, lets TCP input skip records the program
    refuses (intensional or clashing predicates) instead of stopping the run.
    """
    from ..api import parse_clock
    from ..streams import StreamChecker, open_stream
    from .source import LiveInput, save_records

    tcp = getattr(args, "input", None)
    wall = getattr(args, "wall_clock", False)
    save = getattr(args, "save_input", None)
    if not (tcp or wall or save):
        return None
    if tcp and getattr(args, "stream", "-") not in ("-", None):
        raise UsageError(Diagnostic("--input and --stream exclude each other"))
    clock = parse_clock(args.clock) if wall else None
    if tcp or wall:
        checker = None
        if analysis is not None:
            checker = StreamChecker(dict(analysis.signatures), set(analysis.intensional))
        stream = None if tcp else _open_text(args.stream)
        idle = getattr(args, "idle_timeout", 10.0)
        if idle < 0:
            raise UsageError(Diagnostic(f"--idle-timeout must not be negative, not {idle:g}"))
        records = LiveInput(listen_on=tcp, stream=stream, wall_clock=clock, grace=getattr(args, "grace", 1.0),
                            checker=checker, handle_signals=True, on_listen=_announce("listening on"),
                            idle_timeout=idle or None)
    else:
        records = open_stream(args.stream)
    if save:
        try:
            log = open(save, "w", encoding="utf-8")
        except OSError as err:
            raise UsageError(Diagnostic(f"cannot write '{save}': {err.strerror}")) from None
        return save_records(records, log, close=True)
    return records


def _open_text(name):
    if name in ("-", None):
        return sys.stdin
    try:
        return open(name, encoding="utf-8")
    except OSError:
        raise UsageError(Diagnostic(f"stream file '{name}' not found")) from None


def live_output(args):
    """A text sink for ``--output tcp:HOST:PORT`` (close it at the end), or None."""
    from .net import TcpSink

    address = getattr(args, "output", None)
    if not address:
        return None
    if getattr(args, "out", None):
        raise UsageError(Diagnostic("--output and --out exclude each other"))
    sink = TcpSink(address)
    _announce("results on")(sink.address)
    return sink
