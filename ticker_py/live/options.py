"""Live input and output of a run: TCP producers, wall-clock time, a TCP result sink (docs/live.md).

The command line builds a :class:`LiveOptions` (``--input``, ``--output``, ``--wall-clock``,
``--grace``, ``--save-input``); a run then reads::

    records = live_records(options, analysis) or records_from(options.stream)
    out = live_output(options) or open_output(out_file)
    ...  # feed and write as usual; finally close ``out``
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from ..errors import Diagnostic, UsageError, file_error
from ..streams.drive import MAX_GAP

__all__ = ["LiveOptions", "live_records", "live_output"]


@dataclass(frozen=True)
class LiveOptions:
    """Where a run's records come from and its results go, when live.

    ``input``/``output``: ``tcp:HOST:PORT``; ``wall_clock``: time points advance with real
    time, one per ``clock``; ``grace``: seconds to wait after the last producer left;
    ``idle_timeout``: seconds after which a silent producer no longer holds the time back
    (None: never); ``max_gap``: TCP records further ahead are skipped (--max-gap);
    ``save_input``: a file for every accepted record. ``stream`` and ``out`` are the run's
    ``--stream`` and ``--out`` (they exclude ``input`` and ``output``).
    """

    input: str | None = None
    output: str | None = None
    wall_clock: bool = False
    grace: float = 1.0
    idle_timeout: float | None = 10.0
    max_gap: int | None = MAX_GAP
    save_input: str | None = None
    stream: str | None = "-"
    clock: str = "1s"
    out: str | None = None

    @property
    def live_input(self) -> bool:
        return bool(self.input or self.wall_clock or self.save_input)


def _announce(what: str):
    return lambda address: print(f"ticker: {what} {address}", file=sys.stderr, flush=True)


def live_records(options: LiveOptions | None, analysis=None, offline=None):
    """The Record iterator for the live options, or None when no live input is requested
    (``options`` None or without live input).

    ``analysis`` (the program's Analysis), if given, lets TCP input skip records the program
    refuses (intensional or clashing predicates) instead of stopping the run. ``offline``
    (a callable) gives the records of ``--stream`` when neither TCP nor the wall clock reads
    them (``--save-input`` alone), in the stream's own format; default: :func:`open_stream`.
    """
    if options is None or not options.live_input:
        return None
    from ..api import parse_clock
    from ..streams import StreamChecker, open_stream
    from .source import LiveInput, save_records

    tcp, wall, save = options.input, options.wall_clock, options.save_input
    if tcp and options.stream not in ("-", None):
        raise UsageError(Diagnostic("--input and --stream exclude each other"))
    clock = parse_clock(options.clock) if wall else None
    if tcp or wall:
        checker = None
        if analysis is not None:
            checker = StreamChecker.of(analysis)
        stream = None if tcp else _open_text(options.stream)
        records = LiveInput(
            listen_on=tcp,
            stream=stream,
            wall_clock=clock,
            grace=options.grace,
            checker=checker,
            handle_signals=True,
            on_listen=_announce("listening on"),
            idle_timeout=options.idle_timeout,
            max_gap=options.max_gap,
        )
    else:
        records = offline() if offline is not None else open_stream(options.stream)
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
    except OSError as err:
        raise file_error(err, "stream file", name, "open", "--wall-clock reads one text stream") from None


def live_output(options: LiveOptions | None):
    """A text sink for ``--output tcp:HOST:PORT`` (close it at the end), or None (also for None)."""
    if options is None or not options.output:
        return None
    from .net import TcpSink

    if options.out:
        raise UsageError(Diagnostic("--output and --out exclude each other"))
    sink = TcpSink(options.output)
    _announce("results on")(sink.address)
    return sink
