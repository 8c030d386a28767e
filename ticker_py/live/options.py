"""Live input and output of a run: TCP producers, wall-clock time, a TCP result sink (docs/live.md),
from the live fields of a :class:`~ticker_py.spec.RunSpec` (read by :func:`ticker_py.pipeline.write_run`).
"""

from __future__ import annotations

import sys

from ..errors import Diagnostic, UsageError, file_error

__all__ = ["live_records", "live_output"]


def _announce(what: str):
    return lambda address: print(f"ticker: {what} {address}", file=sys.stderr, flush=True)


def live_records(spec, stream, checker=None, offline=None):
    """The Record iterator of the spec's live input, or None when it has none (TCP producers, the
    wall clock, or a copy of the input saved).

    ``checker`` (the run's :class:`~ticker_py.streams.StreamChecker`), if given, lets TCP input skip
    records the program refuses (intensional or clashing predicates) instead of stopping the run.
    ``offline`` (a callable) gives the records of ``stream`` when neither TCP nor the wall clock reads
    them (``save_input`` alone), in the stream's own format; default: :func:`open_stream`.
    """
    tcp, wall, save = spec.input, spec.wall_clock, spec.save_input
    if not (tcp or wall or save):
        return None
    from ..streams import open_stream
    from .source import LiveInput, save_records

    if tcp and stream not in ("-", None):
        raise UsageError(Diagnostic("--input and --stream exclude each other"))
    if tcp or wall:
        _check_text_input(stream, spec.stream_format, "--input" if tcp else "--wall-clock")
        records = LiveInput(
            listen_on=tcp,
            stream=None if tcp else _open_text(stream),
            checker=checker,
            handle_signals=True,
            on_listen=_announce("listening on"),
            spec=spec,
        )
    else:
        records = offline() if offline is not None else open_stream(stream)
    if save:
        try:
            log = open(save, "w", encoding="utf-8")
        except OSError as err:
            raise UsageError(Diagnostic(f"cannot write '{save}': {err.strerror}")) from None
        return save_records(records, log, close=True)
    return records


def _check_text_input(stream: str | None, fmt: str | None, option: str) -> None:
    """Refuse a stream format (or a stream file suffix) other than text with ``option``: live input
    is read line by line as atoms, and other formats would only give bad lines."""
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


def _open_text(name):
    if name in ("-", None):
        return sys.stdin
    try:
        return open(name, encoding="utf-8")
    except OSError as err:
        raise file_error(err, "stream file", name, "open", "--wall-clock reads one text stream") from None


def live_output(spec):
    """A text sink for the spec's ``output`` (``tcp:HOST:PORT``; close it at the end), or None."""
    if not spec.output:
        return None
    from .net import TcpSink

    sink = TcpSink(spec.output)
    _announce("results on")(sink.address)
    return sink
