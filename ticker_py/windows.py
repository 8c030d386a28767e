"""Windows: which time points and atoms a window covers at tick (t, c), under the semantics knobs
(docs/semantics.md); every reader of windows takes them from here.

A time window's *reach* r is n under closed bounds and n − 1 under half-open ones: at t it covers
[max(o, t − r), t], o the origin. The bounds are written once, over integers (booleans) or ASP
terms (comparisons).

>>> from ticker_py.semantics import resolve
>>> covers(3, 5, 2), covers(2, 5, 2)
((True, True), (False, True))
>>> [str(c) for c in covers(ast.Variable("U"), ast.Variable("N"), 2)]
['N-2 <= U', 'U <= N']
>>> reach(3, resolve("r4")), reach(3, DEFAULT)
(2, 3)
"""

from __future__ import annotations

import math
import operator
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations
from operator import itemgetter

from . import ast
from .analysis import Analysis
from .semantics import DEFAULT, Semantics, TupleScope, TupleTies, WindowBounds

__all__ = [
    "reach",
    "minus",
    "first_point",
    "last_covering",
    "covers",
    "on_timeline",
    "from_origin",
    "before_now",
    "tuple_first",
    "tuple_full",
    "tuple_short",
    "tuple_holds",
    "tuple_start",
    "Span",
    "TupleWindow",
    "tuple_windows",
    "Windows",
    "WindowHistory",
]

_OPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def _cmp(op: str, a, b):
    """``a op b``: a boolean for two integers, else an ASP comparison."""
    if type(a) is int and type(b) is int:
        return _OPS[op](a, b)
    return ast.Comparison(op, *(ast.Number(x) if type(x) is int else x for x in (a, b)))


def minus(x, n: int):
    """``x - n`` (``x-n`` for a term)."""
    return x - n if type(x) is int else ast.BinOp("-", x, ast.Number(n))


# ---------------------------------------------------------------- time windows


def reach(size: int, semantics: Semantics = DEFAULT) -> int:
    """How many time points before t a time window of ``size`` points covers: ``size`` under
    closed bounds, ``size - 1`` under half-open ones."""
    return size - 1 if semantics.window_bounds is WindowBounds.HALF_OPEN else size


def first_point(t: int, r: int | None, origin: int = 0) -> int:
    """The first time point a window of reach r (None: no window, the timeline) covers at t."""
    return origin if r is None else max(origin, t - r)


def last_covering(u: int, r: int) -> int:
    """The last evaluation time whose time window of reach r still covers time point u."""
    return u + r


def covers(u, t, r: int) -> tuple:
    """``(t - r <= u, u <= t)``: time point u is inside the time window of reach r at t."""
    return _cmp("<=", minus(t, r), u), _cmp("<=", u, t)


def on_timeline(u, t, origin) -> tuple:
    """``(origin <= u, u <= t)``: time point u is on the timeline at t (an @-atom without window)."""
    return _cmp("<=", origin, u), _cmp("<=", u, t)


def from_origin(u, origin):
    """``u >= origin``: the clip of a box's points (and of @-head pins)."""
    return _cmp(">=", u, origin)


def before_now(t, r: int) -> tuple:
    """``(lo, hi)``: the points a box of reach r needs before t, ``t - r .. t - 1`` (unclipped)."""
    return minus(t, r), minus(t, 1)


# ---------------------------------------------------------------- tuple windows


def tuple_first(c, n: int):
    """The count of the oldest atom in a tuple window of n atoms at count c."""
    return c - n + 1 if type(c) is int else ast.BinOp("+", minus(c, n), ast.Number(1))


def tuple_full(c, n: int):
    """The window holds n atoms (its timeline starts at the time of atom ``c - n + 1``)."""
    return _cmp(">=", c, n)


def tuple_short(c, n: int):
    """Fewer than n atoms arrived (the window's timeline starts at the origin)."""
    return _cmp("<", c, n)


def tuple_holds(k, c, n: int):
    """The atom with count k is among the last n at count c: ``k > c - n``."""
    return _cmp(">", k, minus(c, n))


def tuple_start(c: int, n: int, time_of: Callable[[int], int], origin: int = 0) -> tuple:
    """``(first count, start time)`` of a tuple window of n atoms at count c; ``time_of(k)`` is
    the time of atom k. With fewer than n atoms: count 1, and the origin."""
    if tuple_full(c, n):
        first = tuple_first(c, n)
        return first, time_of(first)
    return 1, origin


# ---------------------------------------------------------------- concrete spans


@dataclass(frozen=True)
class Span:
    """The time points ``[lo, hi]`` an extended atom reads at t; for a tuple window also the counts
    ``first..last`` of its oldest and newest atom and, under ``tuple_ties=choice``, ``kept``: the
    counts of the atoms of time point ``lo`` that the chosen cut keeps."""

    lo: int
    hi: int
    first: int | None = None
    last: int | None = None
    kept: tuple | None = None

    def __contains__(self, u) -> bool:
        return type(u) is int and self.lo <= u <= self.hi

    def __str__(self) -> str:
        text = f"[{self.lo}, {self.hi}]"
        if self.first is None:
            return text
        if self.first > self.last:
            return text + " (no atoms)"
        if self.kept is None:
            return text + f" (atoms #{self.first}..#{self.last})"
        kept = ", ".join(f"#{k}" for k in self.kept) or "none"
        return text + f" (atoms up to #{self.last}; of time point {self.lo} the cut keeps {kept})"


@dataclass(frozen=True)
class TupleWindow:
    """One content of a tuple window at (t, c): its span and its ``(u, k, atom)`` entries (k: the
    stream's count of the atom, whatever the scope)."""

    span: Span
    entries: tuple


def tuple_windows(
    history: Sequence[tuple],
    n: int,
    t: int,
    c: int,
    origin: int = 0,
    semantics: Semantics = DEFAULT,
    predicate: str | None = None,
) -> list:
    """The windows ``[n #]`` over ``predicate`` can be at tick (t, c): one under
    ``tuple_ties=arrival``, every cut of the boundary time point under ``choice``. ``history``:
    ``(u, k, atom)`` stream atoms in arrival order, at least the last ones the window reads."""
    scoped = semantics.tuple_scope is TupleScope.PREDICATE
    entries = [e for e in history if e[1] <= c and (not scoped or e[2][0] == predicate)]
    # scoped: the predicate's own counts (all of its atoms are kept), else the stream's
    count = len(entries) if scoped else c
    number = {e[1]: i if scoped else e[1] for i, e in enumerate(entries, 1)}
    time_of = {number[e[1]]: e[0] for e in entries}
    first, start = tuple_start(count, n, time_of.__getitem__, origin)
    inside = [e for e in entries if tuple_holds(number[e[1]], count, n)]
    if semantics.tuple_ties is TupleTies.ARRIVAL or not tuple_full(count, n):
        return [TupleWindow(Span(start, t, first, count), tuple(inside))]
    later = [e for e in inside if e[0] > start]
    boundary = [e for e in entries if e[0] == start]
    keep = len(inside) - len(later)
    out = {}  # under duplicates=bag two cuts may keep the same atoms: one window
    for chosen in combinations(boundary, keep):
        kept = tuple(number[e[1]] for e in chosen)
        window = TupleWindow(
            Span(start, t, min(kept), count, kept), tuple(sorted(chosen + tuple(later), key=itemgetter(1)))
        )
        out.setdefault(frozenset((a, u) for u, _, a in window.entries), window)
    return list(out.values())


# ---------------------------------------------------------------- one program's windows


class Windows:
    """The windows of one analysed program under one semantics.

    >>> from ticker_py.api import load_program
    >>> from ticker_py.semantics import resolve
    >>> w = Windows(load_program("q :- p in [3]. r :- s always [2]."), resolve("r4"))
    >>> w.lookback, str(w.span(load_program("q :- p in [3].").program.rules[0].body[0].element, 7))
    (2, '[5, 7]')
    """

    def __init__(self, analysis: Analysis, semantics: Semantics = DEFAULT):
        self.analysis, self.semantics = analysis, semantics

    def size(self, window: ast.Window) -> int:
        """The window's size as written: time points (units converted with the clock) or atoms."""
        return self.analysis.size(window)

    def reach(self, window: ast.Window | None) -> int | None:
        """A time window's reach (:func:`reach`), a tuple window's number of atoms; None for no window."""
        if window is None:
            return None
        n = self.analysis.size(window)
        return n if window.is_tuple else reach(n, self.semantics)

    @cached_property
    def lookback(self) -> int | None:
        """How many time points before t a time window or @-atom reaches (None: an @-atom without
        window reaches the origin)."""
        if self.analysis.lookback is None:
            return None
        return max((self.reach(w) for w in self.analysis.window_sizes if not w.is_tuple), default=0)

    @property
    def tuple_lookback(self) -> int:
        """The largest tuple window, in atoms (0: none)."""
        return self.analysis.tuple_lookback

    def history(self) -> WindowHistory:
        """The window-covered stream the solver engines keep (every atom under
        ``tuple_scope=predicate``: a predicate's last n atoms may be old)."""
        scoped = self.semantics.tuple_scope is TupleScope.PREDICATE
        return WindowHistory(
            self.lookback,
            math.inf if scoped else self.tuple_lookback,
            whole_points=self.semantics.tuple_ties is TupleTies.CHOICE,
        )

    def tuple_scope(self, el: ast.ExtendedAtom) -> tuple:
        """The key of a tuple window's contents: ``(n, predicate)``, predicate None unless each
        predicate is counted apart."""
        scoped = self.semantics.tuple_scope is TupleScope.PREDICATE
        return self.size(el.window), el.atom.predicate if scoped else None

    def span(self, el: ast.ExtendedAtom, t: int, origin: int = 0) -> Span:
        """The time points ``el`` reads at t (a tuple window's span comes with its contents:
        :func:`tuple_windows`)."""
        if el.modality == ast.NOW:
            return Span(t, t)
        if el.window is not None and el.window.is_tuple:
            raise ValueError(f"the span of {el} depends on the stream: use tuple_windows")
        return Span(first_point(t, self.reach(el.window), origin), t)


# ---------------------------------------------------------------- the window-covered stream


class WindowHistory:
    """The stream's atoms as ``(t, count, atom)`` entries, minus those no window reads any more
    (``count`` numbers every atom appended, also those not kept). With ``whole_points``
    (``tuple_ties=choice``) the boundary time point of a tuple window is kept whole."""

    def __init__(self, lookback: int | None, tuple_lookback: int, whole_points: bool = False):
        self.lookback, self.tuple_lookback = lookback, tuple_lookback
        self.whole_points = whole_points
        self.entries: deque = deque()
        self.count = 0

    def __iter__(self) -> Iterator[tuple]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def extend(self, t: int, atoms: Sequence[tuple], keep: Callable[[tuple], bool] | None = None) -> None:
        """Count the atoms that arrived at t and keep those ``keep`` accepts (all by default)."""
        count, entries = self.count, self.entries
        for atom in atoms:
            count += 1
            if keep is None or keep(atom):
                entries.append((t, count, atom))
        self.count = count

    def trim(self, t: int) -> int:
        """Drop what no window reads at t; returns the first time point a time window or @-atom can
        read at t (origin 0)."""
        lo = drop = first_point(t, self.lookback, 0)
        entries, keep = self.entries, self.count - self.tuple_lookback
        if self.whole_points:
            boundary = next((u for u, k, _ in entries if k > keep), None)
            drop = lo if boundary is None else min(lo, boundary)
        while entries and entries[0][0] < drop and entries[0][1] <= keep:
            entries.popleft()
        return lo
