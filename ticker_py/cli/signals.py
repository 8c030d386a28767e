"""SIGINT and SIGTERM during ``ticker run``: both stop the run the same way (docs/cli.md).

The first signal stops reading at once (the open time point is evaluated with the atoms accepted so
far), or lets the evaluation under way finish and then only the last time point read; what was
evaluated is written and the status is 128 + the signal's number. A second signal stops at once.
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
    """Handlers for SIGINT and SIGTERM while the run is under way (a context manager; off the main
    thread it does nothing: only the main thread receives signals)."""

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
        """``records`` until a signal arrives.

        The second record also sets glibc's heap for a long run (:func:`ticker_py.process.steady_heap`,
        before it is passed on: a time point is evaluated once a later record shows it complete); a
        stream of one record, such as a start-up check's, spares importing ctypes."""
        it = iter(records)
        count = 0
        while self.signum is None:
            self.reading = True
            try:
                rec = next(it)
            except (StopIteration, _EndOfInput):
                return
            finally:
                self.reading = False
            self.last = max(self.last, getattr(rec, "t", self.last))
            count += 1
            if count == 2:
                process.steady_heap()
            yield rec

    def results(self, results: Iterable) -> Iterator:
        """``results``; after a signal only the one under way and those of the last time point read,
        then :class:`Interrupted`."""
        since = 0  # results since the signal
        for result in results:
            if self.signum is not None:
                since += 1
                if since > 1 and result.t != self.last:
                    break
            yield result
        if self.signum is not None:
            raise Interrupted(self.signum)
