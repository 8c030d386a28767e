"""The one stream driver: feeds an engine time point after time point and evaluates it.

:class:`Driver` is the state machine (push atoms of time t, close time points);
:func:`drive` runs it over an iterable of records. The API, compare, enumeration and the
live reasoner all drive their engines with it.

>>> class Echo:
...     def append(self, t, atoms): self.last = atoms
...     def evaluate(self, t): return (t, list(self.last))
>>> list(drive(Echo(), [(0, [("a",), ("a",)]), (2, [("b",), ("c",)])]))
[(0, [('a',)]), (1, []), (2, [('b',), ('c',)])]
>>> list(drive(Echo(), [(0, [("a",), ("b",)])], every="signal"))
[(0, [('a',)]), (0, [('b',)])]
"""

from __future__ import annotations

import enum
from typing import Iterable, Iterator, List, Optional, Union

from ..errors import Diagnostic, TickerError, UsageError
from .model import Record, TimePoint

__all__ = ["Every", "Driver", "drive"]


class Every(str, enum.Enum):
    """When an engine is evaluated: once per time point, or after every atom (SPEC §3.4)."""

    TIME = "time"
    SIGNAL = "signal"

    @classmethod
    def parse(cls, value: Union[str, "Every"]) -> "Every":
        """``Every.parse("signal") is Every.SIGNAL``; anything else raises UsageError."""
        try:
            return cls(value)
        except ValueError:
            raise UsageError(Diagnostic(f"unknown --every '{value}'", notes=("use time or signal",))) from None


class Driver:
    """Drives ``engine`` (``append(t, atoms)``, ``evaluate(t)``) from pushed atoms.

    ``push(t, atoms)`` closes every time point before t, then takes the atoms (duplicates
    within a time point count once, unless ``bag``); ``close_open()`` evaluates the open time point. With
    ``every=time`` a time point's atoms are appended in one call when it closes; with
    ``signal`` each new atom is appended and evaluated at once, and a time point without
    atoms is evaluated once when it closes. Each call returns what ``evaluate`` returned.
    """

    def __init__(self, engine, every: Union[str, Every] = Every.TIME, start: int = 0, bag: bool = False):
        self.engine = engine
        self.signal = Every.parse(every) is Every.SIGNAL
        self.open = start          # the lowest time point not evaluated yet
        self.touched = False       # something was pushed at the open time point
        self.evaluated = 0         # evaluations so far
        self._pending: list = []   # time mode: atoms of the open time point
        self._seen: set = set()
        self.bag = bag

    def push(self, t: int, atoms: Iterable = ()) -> List:
        """Close the time points before t, then add ``atoms`` arriving at t."""
        out = self.close_before(t)
        self.touched = True
        for atom in atoms:
            if atom in self._seen and not self.bag:
                continue
            self._seen.add(atom)
            if self.signal:
                self.engine.append(t, [atom])
                out.append(self._evaluate(t))
            else:
                self._pending.append(atom)
        return out

    def close_before(self, t: int) -> List:
        """Evaluate every open time point before t."""
        out = []
        while self.open < t:
            out += self.close_open()
        return out

    def close_open(self) -> List:
        """Evaluate the open time point (unless signal mode did after each atom) and move on."""
        t = self.open
        if self.signal and self._seen:
            out = []
        else:
            if not self.signal:
                self.engine.append(t, self._pending)
            out = [self._evaluate(t)]
        self.open, self._pending, self._seen, self.touched = t + 1, [], set(), False
        return out

    def _evaluate(self, t: int):
        self.evaluated += 1
        return self.engine.evaluate(t)


def drive(engine, records: Iterable, every: Union[str, Every] = Every.TIME, until: Optional[int] = None,
          start: int = 0, bag: bool = False) -> Iterator:
    """Evaluate ``engine`` over ``records`` from time ``start`` up to the last record's time
    point or ``until``; yields what ``engine.evaluate`` returns.

    ``records``: Records or ``(t, atoms)`` pairs (t never decreases; a time point is evaluated
    as soon as a later record shows it is complete), or :class:`TimePoint` s (complete: each
    is evaluated at once). If the records raise a :class:`TickerError`, the time point open
    then is evaluated first (when a record reached it), then the error is raised.
    """
    driver = Driver(engine, every, start, bag)
    accepted = closed = False
    try:
        for rec in records:
            if isinstance(rec, (Record, TimePoint)):
                t, atoms = rec.t, rec.atoms
            else:
                t, atoms = rec
            accepted = True
            yield from driver.push(t, atoms)
            closed = isinstance(rec, TimePoint)
            if closed:
                yield from driver.close_open()
    except TickerError:
        if accepted and not closed:
            yield from driver.close_open()
        raise
    last = until if until is not None else driver.open - 1 if closed else driver.open
    while driver.open <= last:
        yield from driver.close_open()
