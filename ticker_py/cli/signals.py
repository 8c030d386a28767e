"""SIGINT and SIGTERM during ``ticker run``: both stop the run the same way (docs/cli.md).

The first signal stops the run at the next safe point: while the stream is being read (a run
on standard input waits there for the producer), reading stops at once and the open time point
is evaluated with the atoms accepted so far; during an evaluation, that evaluation finishes, and
then only the last time point read (never the empty ones of a gap). What was evaluated is written, then the command ends with 128 + the signal's number (130 for
SIGINT, 143 for SIGTERM). A second signal stops at once.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterable, Iterator

from .. import process

__all__ = ["Interrupted", "Stopping"]

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(KeyboardInterrupt):
    """The run was stopped by ``signum``; the exit status is 128 + signum."""

    def __init__(self, signum: int = signal.SIGINT):
        super().__init__(signum)
        self.signum = signum


class _EndOfInput(BaseException):
    """Raised by the handler inside a blocking read: ends the input (not an ``Exception``, so no
    reader mistakes it for a bad record)."""


class Stopping:
    """Handlers for SIGINT and SIGTERM while the run is under way (a context manager; in another
    thread than the main one it does nothing: only the main thread receives signals).

    ``records(rs)`` passes the input through and ends it at the first signal; ``results(rs)``
    passes the results through and raises :class:`Interrupted` after the one under way when a
    signal came."""

    def __init__(self):
        self.signum: int | None = None
        self.reading = False
        self.last = -1  # the latest time point read
        self.previous: dict = {}

    def __enter__(self) -> Stopping:
        if threading.current_thread() is threading.main_thread():
            self.previous = {s: signal.signal(s, self._handler) for s in SIGNALS}
        return self

    def __exit__(self, *exc) -> None:
        for s, handler in self.previous.items():
            signal.signal(s, handler)
        self.previous = {}

    def _handler(self, signum, frame):
        if self.signum is not None:  # the second signal: at once
            raise Interrupted(signum)
        self.signum = signum
        if self.reading:
            raise _EndOfInput

    def records(self, records: Iterable) -> Iterator:
        """``records`` until a signal arrives (what was read before it goes on to be evaluated).

        The second record also sets glibc's heap for a long run (:func:`ticker_py.process.steady_heap`,
        before it is passed on: a time point is evaluated once a later record shows it complete); a
        stream of one record, such as a start-up check's, leaves it alone and spares importing ctypes."""
        it = iter(records)
        second = False
        while self.signum is None:
            self.reading = True
            try:
                rec = next(it)
            except (StopIteration, _EndOfInput):
                return
            finally:
                self.reading = False
            self.last = max(self.last, getattr(rec, "t", self.last))
            if second is not None:
                if second:
                    process.steady_heap()
                    second = None
                else:
                    second = True
            yield rec

    def results(self, results: Iterable) -> Iterator:
        """``results``; after a signal only the one under way and those of the last time point read
        (its atoms, read before the signal), then :class:`Interrupted`: no empty time point of a gap
        or up to ``--until`` is evaluated after it."""
        since = 0  # results since the signal
        for result in results:
            if self.signum is not None:
                since += 1
                if since > 1 and result.t != self.last:
                    break
            yield result
        if self.signum is not None:
            raise Interrupted(self.signum)
