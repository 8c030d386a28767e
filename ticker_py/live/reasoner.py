"""A push API: push atoms as they arrive, receive each result as soon as its time point closes.

>>> from ticker_py.live import LiveReasoner
>>> seen = []
>>> live = LiveReasoner("x :- a [1].", engine="clingo", on_result=seen.append)
>>> live.push(0, ["a"])
[]
>>> [r.t for r in live.push(2, [])]            # time 2 has come: 0 and 1 are complete
[0, 1]
>>> [(r.t, r.models[0].sorted_atoms()) for r in live.close()]
[(2, [])]
>>> [r.t for r in seen]
[0, 1, 2]
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from types import SimpleNamespace

from ..analysis.unused import LIVE_WARN_AFTER
from ..api import Reasoner
from ..errors import Diagnostic, StreamError
from ..semantics import Duplicates, Origin
from ..spec import EVALUATION, PROGRAM, RunSpec, takes_spec, whole
from ..stages.drive import Driver
from ..stages.input import parse_atom
from ..streams import Record, Result

__all__ = ["LiveReasoner"]


class LiveReasoner:
    """A reasoner driven by pushes: ``push(t, atoms)``, ``close_time(t)``, ``close()``.

    Time point t is evaluated as soon as it is complete (a later time pushed, ``close_time(t')`` with
    t' >= t, ``close()``); each call returns the results it produced and passes each to ``on_result``
    (thread-safe). ``program`` and the keywords are as for :class:`~ticker_py.api.Reasoner`. A body
    predicate that nothing gave is a warning after ``warn_after`` time points (None: at ``close()``).
    """

    @takes_spec(PROGRAM, EVALUATION, also=("every",), loads=True)
    def __init__(
        self,
        program,
        on_result: Callable[[Result], None] | None = None,
        warn_after: int | None = LIVE_WARN_AFTER,
        *,
        spec: RunSpec,
    ):
        self.warn_after = warn_after
        self.first: int | None = None  # the first time point evaluated
        self.reasoner = program if isinstance(program, Reasoner) else Reasoner(program, spec=spec)
        self.on_result = on_result
        sem = self.reasoner.semantics
        # the reasoner as the driver sees it: records already checked, each result reported
        engine = SimpleNamespace(append=self.reasoner.evaluation.append, evaluate=self._evaluate)
        self.driver = Driver(engine, spec.every, self.reasoner.time, bag=sem.duplicates is Duplicates.BAG)
        self._origin_first = sem.origin is Origin.FIRST  # the stream starts at the first push
        self.closed = False
        self._lock = threading.RLock()

    @property
    def open(self) -> int:
        """The lowest time point not evaluated yet."""
        return self.driver.open

    def push(self, t: int, atoms: Iterable = ()) -> list[Result]:
        """Add atoms (strings or tuples) that arrived at time t (none: a heartbeat), after evaluating
        every time point before t; a closed t or a bad atom is a StreamError."""
        return self._push(t, atoms, True)

    def _push(self, t, atoms, parse: bool) -> list[Result]:
        with self._lock:
            t = self._time(t)
            if t < self.open:
                raise StreamError(Diagnostic(f"time {t} is already closed (open time point: {self.open})"))
            if parse:
                atoms = [parse_atom(a, t) for a in atoms]
            accepted = self.reasoner.input.accept(t, atoms, "<push>")
            if self._origin_first and not self.reasoner.started and not self.driver.touched:
                self.driver.open = t
            return self.driver.push(t, accepted)

    def close_time(self, t: int) -> list[Result]:
        """Declare every time point up to t complete and evaluate them (no-op if already closed)."""
        with self._lock:
            t = self._time(t)
            if t < self.open:
                return []
            return self.driver.close_before(t) + self.driver.close_open()

    def close(self) -> list[Result]:
        """End of stream: evaluate the open time point if anything reached it; then refuse pushes."""
        with self._lock:
            if self.closed:
                return []
            out = self.driver.close_open() if self.driver.touched or not self.driver.evaluated else []
            self.closed = True
            self.reasoner.input.warn_unused()
            return out

    def run(self, records: Iterable) -> Iterator[Result]:
        """Push records (or ``(t, atoms)`` pairs), yield results, close (also when ``records`` raises)."""
        try:
            for rec in records:
                # a reader's record: its atoms are parsed already
                yield from (self._push(rec.t, rec.atoms, False) if isinstance(rec, Record) else self.push(*rec))
        except Exception:
            yield from self.close()
            raise
        yield from self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _time(self, t) -> int:
        if self.closed:
            raise StreamError(Diagnostic("the live reasoner is closed"))
        return whole(t, "time", StreamError)

    def _evaluate(self, t: int) -> Result:
        if self.first is None:
            self.first = t
        result = self.reasoner.evaluate(t)
        if self.on_result is not None:
            self.on_result(result)
        after = self.warn_after
        if after is not None and not self.reasoner.input.warned and t - self.first + 1 >= after:
            self.reasoner.input.warn_unused(after)
        return result
