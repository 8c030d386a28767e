"""Live record sources: producers over TCP, merged in time order, and the wall clock.

:class:`LiveInput` is a generator driven by one ``selectors`` loop in the consumer's thread (no
threads, no locks); the merge rule, late records, idle producers and back-pressure: docs/live.md.
"""

from __future__ import annotations

import contextlib
import dataclasses
import heapq
import itertools
import os
import re
import selectors
import signal
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import TextIO

from ..errors import Diagnostic, StreamError, UsageError, with_excerpt
from ..spec import RunSpec, takes_spec
from ..streams import Record, StreamChecker, read_text
from ..streams.lines import stream_error
from ..values import format_atom
from .net import address_text, listen

__all__ = ["parse_line", "LiveInput", "save_records"]

MAX_LINE = 1 << 20  # a longer line is reported and skipped
MAX_BUFFERED = 100_000  # records waiting in the merge before the producers ahead are paused
MAX_WAIT = 3600.0  # the longest selector wait: a longer (or infinite) timeout just waits again
_PREFIX = re.compile(r"\s*\d+\s*:")


def _relocate(diag: Diagnostic, text: str, line: int, shift: int) -> Diagnostic:
    """Move a diagnostic of a one-line parse to ``line`` (columns moved left by ``shift``)."""
    loc = diag.location
    if loc is None:
        return diag
    col = max(1, loc.column - shift)
    end = max(col + 1, loc.end_column - shift)
    loc = loc.replace(line=1, end_line=1, column=col, end_column=end)
    diag = with_excerpt(dataclasses.replace(diag, location=loc, excerpt=""), text)
    return dataclasses.replace(diag, location=loc.replace(line=line, end_line=line))


def parse_line(text: str, source: str, number: int, stamp: int | None = None) -> Record | None:
    """One text-format line as a Record located at ``source:number`` (None for blank/comment).
    With ``stamp`` (wall clock) the line holds atoms, after an ignored ``T:`` if any, at time ``stamp``."""
    parsed, shift = text, 0
    if stamp is not None:
        m = _PREFIX.match(text)
        if m:
            parsed = " " * (m.end() - 2) + "0:" + text[m.end() :]
        else:
            parsed, shift = "0:" + text, 2
    try:
        rec = next(read_text([parsed], source), None)
    except StreamError as err:
        raise StreamError([_relocate(d, text, number, shift) for d in err.diagnostics]) from None
    except RecursionError:
        raise stream_error(source, number, 1, "atom nested too deeply") from None
    if rec is None:
        return None
    return Record(rec.t if stamp is None else stamp, rec.atoms, source, number)


def _report(err: BaseException) -> None:
    print(err, file=sys.stderr, flush=True)


def _note(message: str) -> None:
    print(f"ticker: {message}", file=sys.stderr, flush=True)


@dataclasses.dataclass(eq=False)
class _Input:
    """One line-oriented input: a TCP producer or a file descriptor."""

    name: str
    fileobj: object
    tcp: bool
    buffer: bytes = b""
    line: int = 0
    last_t: int | None = None  # latest accepted time (TCP merge)
    seen: float = 0.0  # time.monotonic() of the last data received
    idle: bool = False  # silent for idle_timeout: not part of the watermark
    paused: bool = False  # ahead of a full merge buffer: not read
    skipping: bool = False  # inside an over-long line: discard up to the next newline

    def read(self) -> bytes:
        if self.tcp:
            try:
                return self.fileobj.recv(65536)
            except (BlockingIOError, InterruptedError):
                return None
            except OSError:
                return b""
        return os.read(self.fileobj, 65536)


class LiveInput:
    """Records from live inputs, as a generator (iterate once).

    ``listen_on``: a ``tcp:HOST:PORT`` address to accept producers on; ``stream``: a file object
    read line by line (with ``wall_clock``). ``handle_signals``: stop cleanly on SIGINT/SIGTERM (a
    second one raises KeyboardInterrupt). The keywords are those of ``ticker run`` (docs/live.md).
    """

    @takes_spec(also=("wall_clock", "clock", "grace", "idle_timeout", "max_gap"))
    def __init__(
        self,
        listen_on: str | None = None,
        stream: TextIO | None = None,
        checker: StreamChecker | None = None,
        handle_signals: bool = False,
        report: Callable[[BaseException], None] = _report,
        on_listen: Callable[[str], None] | None = None,
        max_buffered: int = MAX_BUFFERED,
        log: Callable[[str], None] = _note,
        *,
        spec: RunSpec,
    ):
        if (listen_on is None) == (stream is None):
            raise UsageError.at(None, "give exactly one of listen_on and stream")
        if isinstance(max_buffered, bool) or not isinstance(max_buffered, int) or max_buffered < 1:
            raise UsageError.at(None, f"max_buffered must be a positive integer, not {max_buffered!r}")
        self.listener = listen(listen_on) if listen_on else None
        self.address = address_text(self.listener.getsockname()) if self.listener else None
        if self.address and on_listen:
            on_listen(self.address)
        self.stream = stream
        self.spec = spec  # its grace, idle_timeout and max_gap
        self.wall_clock = spec.clock_ms if spec.wall_clock else None
        self.checker = checker
        self.handle_signals = handle_signals
        self.report = report
        self.log = log
        self.max_buffered = max_buffered
        self.accepted = 0  # records passed on
        self.rejected = 0  # lines reported and skipped
        self._stop = False
        self._seen_producer = False
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)

    def stop(self) -> None:
        """Ask the generator to end (thread- and signal-safe): buffered records are still passed on."""
        self._stop = True
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")

    def __iter__(self) -> Iterator[Record]:
        return self._run()

    def _run(self) -> Iterator[Record]:
        sel = _selector(self.stream)
        sel.register(self._wake_r, selectors.EVENT_READ, None)
        if self.listener:
            sel.register(self.listener, selectors.EVENT_READ, "listen")
        producers: list = []
        if self.stream is not None:
            inp = _Input(str(getattr(self.stream, "name", "<stream>")), self.stream.fileno(), False)
            sel.register(inp.fileobj, selectors.EVENT_READ, inp)
            producers.append(inp)
        self._heap: list = []
        self._seq = itertools.count()  # ties in time: arrival order
        self._cur = 0  # the time of the last record passed on
        self._start = time.monotonic()
        deadline = None  # end of the grace period
        restore = self._install_signals()
        try:
            while not self._stop:
                wakeups = [deadline] if deadline is not None else []
                if self.wall_clock:
                    wakeups.append(self._start + (self._cur + 1) * self.wall_clock / 1000)
                elif self.spec.idle_timeout is not None:
                    wakeups += [
                        p.seen + self.spec.idle_timeout for p in producers if p.tcp and not p.idle and not p.paused
                    ]
                timeout = min(MAX_WAIT, max(0.0, min(wakeups) - time.monotonic())) if wakeups else None
                for key, _ in sel.select(timeout):
                    if key.data is None:
                        os.read(self._wake_r, 4096)
                    elif key.data == "listen":
                        self._accept(sel, producers)
                        deadline = None
                    else:
                        yield from self._read(sel, producers, key.data)
                yield from self._tick()
                if not self.wall_clock:
                    self._mark_idle(producers)
                    yield from self._release(producers)
                    self._pace(sel, producers)
                if not producers:
                    if self.listener is None:
                        break
                    if deadline is None and self._seen_producer:
                        deadline = time.monotonic() + self.spec.grace
                    elif deadline is not None and time.monotonic() >= deadline:
                        break
            yield from self._release(())  # no producer left to wait for: every record
        finally:
            restore()
            for inp in producers:
                if inp.tcp:
                    inp.fileobj.close()
            sel.close()
            if self.listener:
                self.listener.close()
            os.close(self._wake_r)
            os.close(self._wake_w)

    def _accept(self, sel, producers) -> None:
        while True:
            try:
                sock, peer = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            sock.setblocking(False)
            inp = _Input(address_text(peer), sock, True, seen=time.monotonic())
            sel.register(sock, selectors.EVENT_READ, inp)
            producers.append(inp)
            self._seen_producer = True

    def _read(self, sel, producers, inp: _Input) -> Iterator[Record]:
        data = inp.read()
        if data is None:
            return
        inp.seen = time.monotonic()
        if inp.idle:
            inp.idle = False
            self.log(f"{inp.name}: sending again; records for closed time points are late")
        if not data:  # end of this input
            if not inp.paused:
                sel.unregister(inp.fileobj)
            producers.remove(inp)
            if inp.tcp:
                inp.fileobj.close()
            if inp.buffer.strip() and not inp.skipping:
                if inp.tcp:
                    self._error(inp.name, inp.line + 1, "connection closed in the middle of a line; line skipped")
                else:
                    yield from self._line(inp, inp.buffer)
            return
        if inp.skipping:  # the rest of an over-long line
            end = data.find(b"\n")
            if end < 0:
                return
            inp.skipping, inp.line, data = False, inp.line + 1, data[end + 1 :]
        inp.buffer += data
        *lines, inp.buffer = inp.buffer.split(b"\n")
        for raw in lines:
            yield from self._line(inp, raw)
        if len(inp.buffer) > MAX_LINE:
            self._error(inp.name, inp.line + 1, f"line longer than {MAX_LINE} bytes; line skipped")
            inp.buffer, inp.skipping = b"", True

    def _line(self, inp: _Input, raw: bytes) -> Iterator[Record]:
        inp.line += 1
        try:
            text = raw.decode("utf-8").rstrip("\r")
        except UnicodeDecodeError as err:
            column = len(raw[: err.start].decode("utf-8", errors="replace")) + 1
            self._error(inp.name, inp.line, f"invalid UTF-8 (byte 0x{raw[err.start]:02x}); line skipped", column)
            return
        stamp = None
        if self.wall_clock:
            yield from self._tick()
            stamp = self._cur
        rec = self.handle_line(text, inp.name, inp.line, stamp)
        if rec is None:
            return
        if stamp is not None:
            self.accepted += 1
            yield rec
            return
        if inp.last_t is not None and rec.t < inp.last_t:
            problem = f"time {rec.t} after time {inp.last_t} from this producer"
        elif rec.t < self._cur:
            problem = f"time {rec.t} is already closed (current time {self._cur})"
        elif self.spec.max_gap is not None and rec.t - self._cur > self.spec.max_gap:
            gap = f"more than --max-gap {self.spec.max_gap} time points after the current time {self._cur}"
            problem = f"time {rec.t} is {gap}"
        else:
            inp.last_t = rec.t
            heapq.heappush(self._heap, (rec.t, next(self._seq), rec))
            return
        self._error(inp.name, inp.line, f"{problem}; record skipped")

    def handle_line(self, text: str, source: str, number: int, stamp: int | None = None) -> Record | None:
        """One decoded line as a checked Record, or None (blank, comment, or bad: reported, never raised)."""
        try:
            rec = parse_line(text, source, number, stamp)
            if rec is not None and self.checker is not None:
                self.checker.check(rec)
            return rec
        except StreamError as err:
            self.rejected += 1
            self.report(err)
        except (MemoryError, ValueError, OverflowError) as err:
            self._error(source, number, f"cannot read this line ({type(err).__name__}: {err})")
        return None

    def _error(self, source: str, line: int, message: str, column: int = 1) -> None:
        self.rejected += 1
        self.report(stream_error(source, line, column, message))

    def _bound(self, producers) -> int | None:
        """The watermark: the least position of a producer that still holds time back."""
        return min((self._cur if p.last_t is None else p.last_t for p in producers if not p.idle), default=None)

    def _release(self, producers) -> Iterator[Record]:
        """Pass on every buffered record no connected producer can still precede."""
        bound = self._bound(producers)
        while self._heap and (bound is None or self._heap[0][0] <= bound):
            rec = heapq.heappop(self._heap)[2]
            self._cur = max(self._cur, rec.t)
            self.accepted += 1
            yield rec

    def _mark_idle(self, producers) -> None:
        if self.spec.idle_timeout is None:
            return
        now = time.monotonic()
        for p in producers:
            if p.tcp and not p.idle and not p.paused and now - p.seen >= self.spec.idle_timeout:
                p.idle = True
                silent = f"nothing received for {self.spec.idle_timeout:g} s"
                self.log(f"{p.name}: {silent}: no longer holds the time back (--idle-timeout)")

    def _pace(self, sel, producers) -> None:
        """Back-pressure: while the merge is full, read only the producers at the watermark."""
        full = len(self._heap) >= self.max_buffered
        bound = self._bound(producers)
        for p in producers:
            ahead = full and bound is not None and p.last_t is not None and p.last_t > bound
            if ahead and not p.paused:
                sel.unregister(p.fileobj)
                p.paused = True
            elif not ahead and p.paused:
                sel.register(p.fileobj, selectors.EVENT_READ, p)
                p.paused, p.seen = False, time.monotonic()

    def _tick(self) -> Iterator[Record]:
        """Wall clock: a heartbeat when real time has entered a later time point."""
        if self.wall_clock:
            now = int((time.monotonic() - self._start) * 1000 // self.wall_clock)
            if now > self._cur:
                self._cur = now
                yield Record(now, (), "<clock>", 0)

    def _install_signals(self):
        if not self.handle_signals or threading.current_thread() is not threading.main_thread():
            return lambda: None

        def handler(signum, frame):
            if self._stop:
                raise KeyboardInterrupt
            self.stop()

        old = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
        return lambda: [signal.signal(s, h) for s, h in old.items()]


def save_records(records, out: TextIO, close: bool = False) -> Iterator[Record]:
    """Pass records through, writing each to ``out`` in text format (flushed): a replayable log."""
    try:
        for rec in records:
            try:
                atoms = ", ".join(map(format_atom, rec.atoms))
                out.write(f"{rec.t}: {atoms}\n" if atoms else f"{rec.t}:\n")
                out.flush()
            except OSError as err:
                name = getattr(out, "name", out)
                raise UsageError.at(None, f"cannot write '{name}': {err.strerror or err}") from None
            yield rec
    finally:
        if close:
            with contextlib.suppress(OSError):  # a failed write was reported
                out.close()


def _selector(stream) -> selectors.BaseSelector:
    """The default selector, or ``poll`` for a file or a non-terminal device (epoll refuses those)."""
    if stream is not None and hasattr(selectors, "PollSelector"):
        try:
            mode = os.fstat(stream.fileno()).st_mode
            plain = stat.S_ISREG(mode) or stat.S_ISBLK(mode) or (stat.S_ISCHR(mode) and not stream.isatty())
        except (OSError, ValueError):
            plain = False
        if plain:
            return selectors.PollSelector()
    return selectors.DefaultSelector()
