"""Time windows: diamond, box and @ over [max(0, N-n), N], n the window's reach, and @ without a
window over the whole timeline; the bounds are :mod:`ticker_py.windows`'."""

from __future__ import annotations

from collections import deque

from ... import ast
from ...semantics import DEFAULT
from ...windows import before_now, covers, first_point, from_origin, last_covering, on_timeline
from ..asp import AspRule
from .base import NOW, Instances, N, S, U, WindowEncoder, arg_vars, member, now, origin

Cmp = ast.Comparison


class Arrivals(Instances):
    """Diamond and @ over an input predicate: an atom (at u's slot for @) holds while one of its
    arrivals is in the window."""

    def __init__(self, aux: str, n: int, ring=None):
        super().__init__(aux, n, ring)
        self.queue: deque = deque()  # (u, key) in arrival order

    def arrive(self, u, k, atom):
        key = self._key(u, atom)
        self.queue.append((u, key))
        self._add(key)

    def expire(self, t):
        queue, n = self.queue, self.n
        while queue and last_covering(queue[0][0], n) < t:
            self._remove(queue.popleft()[1])


class Runs(Instances):
    """Box over an input predicate: an atom holds at t if it arrived at every time point of the
    window; each atom's current run of consecutive time points is kept."""

    def __init__(self, aux: str, n: int, ring=None):
        super().__init__(aux, n)
        self.runs: dict = {}  # args -> [first, last] time point of its run
        self.fresh: set = set()  # args that arrived at the current time point
        self.time = None
        self.queue: deque = deque()  # (u, args): forget runs that ended

    def arrive(self, u, k, atom):
        if u != self.time:
            self.fresh, self.time = set(), u
        args = atom[1:]
        run = self.runs.get(args)
        if run is None or run[1] < u - 1:
            self.runs[args] = [u, u]
        else:
            run[1] = u
        self.fresh.add(args)
        self.queue.append((u, args))

    def expire(self, t):
        queue, runs = self.queue, self.runs
        while queue and queue[0][0] < t - 1:
            u, args = queue.popleft()
            run = runs.get(args)
            if run is not None and run[1] == u:
                del runs[args]

    def remembered(self):
        return set(self.runs)

    def tick(self, t, start):
        lo, runs = first_point(t, self.n), self.runs

        def holds(args):
            run = runs.get(args)
            return run is not None and run[1] == t and run[0] <= lo

        self._recheck(self.fresh if self.time == t else (), holds)


class TimeDiamond(WindowEncoder):
    """``p in [n]``: p holds at some U in [N-n, N]."""

    kind, modality, prefix, instance_class = ast.WindowKind.TIME, ast.DIAMOND, "_d", Arrivals
    expires = "{pred}: an atom at U until time U+{n}"

    def static_rules(self, pred, arity, n, sem=DEFAULT):
        a = arg_vars(arity)
        return [AspRule.of(self.head(pred, n, a, U), now(), ast.Atom(pred, a + (U,)), *covers(U, N, n))]

    def slot_rules(self, pred, arity, n):
        a = arg_vars(arity)
        return [AspRule.of(self.head(pred, n, a, S), ast.Atom(pred, a + (S,)), member(n))]


class TimeBox(WindowEncoder):
    """``p always [n]``: p holds at every U in [max(0, N-n), N]; the spoiler finds a gap."""

    kind, modality, prefix, instance_class = ast.WindowKind.TIME, ast.BOX, "_b", Runs
    expires = "{pred}: while the atom arrived at each of the last {points} time points"

    def static_rules(self, pred, arity, n, sem=DEFAULT):
        a = arg_vars(arity)
        start, known = origin(sem)
        gap = (Cmp("=", U, ast.Interval(*before_now(N, n))), *known, from_origin(U, start))
        return self.box_rules(pred, n, a, (now(), ast.Atom(pred, a + (N,))), gap, ast.Atom(pred, a + (U,)))

    def slot_rules(self, pred, arity, n):
        a = arg_vars(arity)
        return self.box_rules(pred, n, a, (ast.Atom(pred, a + (NOW,)),), (member(n),), ast.Atom(pred, a + (S,)))


class TimeAt(TimeDiamond):
    """``p at T in [n]``: T in [N-n, N] and p holds at T."""

    modality, prefix, at = ast.AT, "_a", True


class UnwindowedAt(WindowEncoder):
    """``p at T``: 0 <= T <= N and p holds at T (predictions beyond N are not read)."""

    kind, modality, at = ast.WindowKind.NONE, ast.AT, True

    def aux(self, pred, n):
        return f"_at_{pred}"

    def static_rules(self, pred, arity, n, sem=DEFAULT):
        a = arg_vars(arity) + (U,)
        start, known = origin(sem)
        return [AspRule.of(ast.Atom(self.aux(pred, n), a), now(), ast.Atom(pred, a), *known, *on_timeline(U, N, start))]
