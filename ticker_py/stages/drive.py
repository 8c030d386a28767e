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

from collections.abc import Iterable, Iterator

from ..errors import TickerError
from ..spec import Every
from ..streams.model import Record, TimePoint

__all__ = ["Every", "Driver", "drive"]


class Driver:
    """Drives ``engine`` (``append(t, atoms)``, ``evaluate(t)``) from pushed atoms.

    ``push(t, atoms)`` closes every time point before t, then takes the atoms (duplicates
    within a time point count once, unless ``bag``); ``close_open()`` evaluates the open time point. With
    ``every=time`` a time point's atoms are appended in one call when it closes; with
    ``signal`` each new atom is appended and evaluated at once, and a time point without
    atoms is evaluated once when it closes. Each call returns what ``evaluate`` returned.
    """

    def __init__(self, engine, every: str | Every = Every.TIME, start: int = 0, bag: bool = False):
        self.engine = engine
        self.signal = Every.parse(every) is Every.SIGNAL
        self.open = start  # the lowest time point not evaluated yet
        self.touched = False  # something was pushed at the open time point
        self.evaluated = 0  # evaluations so far
        self._pending: list = []  # time mode: atoms of the open time point
        self._seen: set = set()
        self._single: tuple | None = None  # the open time point's atoms if pushed as one tuple
        self._known_distinct = False  # ... and known to hold no atom twice
        self._repeated: tuple = (None, [])  # a tuple of atoms and its atoms, each once
        self.bag = bag

    def push(self, t: int, atoms: Iterable = (), distinct: bool = False) -> list:
        """Close the time points before t, then add ``atoms`` arriving at t. ``distinct``: no atom
        occurs twice in ``atoms`` (a reader knows it), so a time point of these atoms alone is
        not deduplicated again."""
        out = self.close_before(t)
        self.touched = True
        if not self.signal:
            # duplicates are dropped when the time point closes (unless bag)
            first = not self._pending
            self._single = atoms if first and type(atoms) is tuple else None
            self._known_distinct = distinct and first
            self._pending.extend(atoms)
            return out
        for atom in atoms:
            if atom in self._seen and not self.bag:
                continue
            self._seen.add(atom)
            self.engine.append(t, [atom])
            out.append(self._evaluate(t))
        return out

    def close_before(self, t: int) -> list:
        """Evaluate every open time point before t."""
        out = []
        while self.open < t:
            out += self.close_open()
        return out

    def close_open(self) -> list:
        """Evaluate the open time point (unless signal mode did after each atom) and move on."""
        t = self.open
        if self.signal and self._seen:
            out = []
        else:
            if not self.signal:
                self.engine.append(t, self._pending if self.bag else self._distinct())
            out = [self._evaluate(t)]
        self.open, self._pending, self._single, self._seen, self.touched = t + 1, [], None, set(), False
        self._known_distinct = False
        return out

    def _distinct(self) -> list:
        """The open time point's atoms, each once (first arrivals, in order): a new list. A time
        point that is one tuple of atoms, the same object as the last such one (a reader that
        repeats its time points), is not looked at again, nor is one push known to be distinct."""
        pending, single = self._pending, self._single
        if single is not None and single is self._repeated[0]:
            return self._repeated[1][:]
        if self._known_distinct:
            return pending
        distinct = dict.fromkeys(pending)
        atoms = pending if len(distinct) == len(pending) else list(distinct)
        if single is not None:
            self._repeated = (single, atoms[:])
        return atoms

    def _evaluate(self, t: int):
        self.evaluated += 1
        return self.engine.evaluate(t)


def drive(
    engine,
    records: Iterable,
    every: str | Every = Every.TIME,
    until: int | None = None,
    start: int = 0,
    bag: bool = False,
) -> Iterator:
    """Evaluate ``engine`` over ``records`` from time ``start`` up to the last record's time
    point or ``until``; yields what ``engine.evaluate`` returns.

    ``records``: Records or ``(t, atoms)`` pairs (t never decreases; a time point is evaluated
    as soon as a later record shows it is complete), or :class:`TimePoint` s (complete: each
    is evaluated at once). If the records raise a :class:`TickerError`, the time point open
    then is evaluated first (when a record reached it), then the error is raised (the input stage
    refuses a record too far ahead, :class:`~ticker_py.stages.input.Input`).
    """
    driver = Driver(engine, every, start, bag)
    accepted = closed = False
    try:
        for rec in records:
            known = None
            if isinstance(rec, (Record, TimePoint)):
                t, atoms = rec.t, rec.atoms
                known = getattr(rec, "known", None)
            else:
                t, atoms = rec
            accepted = True
            while driver.open < t:  # one at a time: each result goes out at once
                yield from driver.close_open()
            yield from driver.push(t, atoms, known is not None and known.distinct)
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
