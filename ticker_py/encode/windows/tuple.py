"""Tuple windows ``[n #]``: the last n input atoms of the tick stream.

At tick (N, C) the window holds the atoms with count C-n+1 .. C; its timeline starts at the time
of atom C-n+1 when C >= n, else at 0 (``_cstart{n}``). ``_cin{n}_p(A..,U)``: p(A..) is in the
window's contents at U.
"""

from __future__ import annotations

from ... import ast
from ...semantics import DEFAULT, Semantics, TupleScope, TupleTies
from ...windows import minus, tuple_first, tuple_full, tuple_holds, tuple_short
from ..asp import AspRule, ChoiceRule, Count, NafLiteral, atom
from .base import C, Instances, K, N, S, U, WindowEncoder, arg_vars, now, origin

Cmp = ast.Comparison
X = ast.Variable("X")


def _names(n: int, pred: str | None, sem: Semantics) -> tuple:
    """The count, tick, start and cut-selection names of the size-n window over ``pred``."""
    if sem.tuple_scope is TupleScope.PREDICATE:
        return f"_cnt_{pred}", f"_tick_{pred}", f"_cstart{n}_{pred}", f"_csel{n}_{pred}"
    return "_cnt", "_tick", f"_cstart{n}", f"_csel{n}"


def start_rules(n: int, sem: Semantics = DEFAULT, pred: str | None = None) -> list:
    """The timeline start of the size-n tuple window (the cut-off of the paper's tuple box);
    under ``tuple_ties=choice`` also the choice of the boundary time point's atoms."""
    cnt_name, tick_name, start, sel = _names(n, pred, sem)
    cnt = atom(cnt_name, C)
    zero, known = origin(sem)
    rules = [
        AspRule.of(atom(start, S), cnt, tuple_full(C, n), atom(tick_name, S, tuple_first(C, n))),
        AspRule.of(atom(start, zero), cnt, tuple_short(C, n), *known),
    ]
    if sem.tuple_ties is TupleTies.CHOICE:
        keep = atom(sel.replace("_csel", "_ckeep"), X)
        rules += [
            AspRule.of(
                keep,
                atom(start, S),
                cnt,
                tuple_full(C, n),
                Cmp("=", X, Count(K, (NafLiteral(atom(tick_name, S, K)), tuple_holds(K, C, n)))),
            ),
            ChoiceRule(
                X, atom(sel, K), (NafLiteral(atom(tick_name, S, K)),), (NafLiteral(keep), NafLiteral(atom(start, S)))
            ),
        ]
    return rules


def scope_rules(pred: str, arity: int) -> list:
    """``tuple_scope=predicate``: p's ticks and count, from its tick-pinned atoms."""
    a = arg_vars(arity)
    return [
        AspRule.of(atom(f"_tick_{pred}", U, K), ast.Atom(pred, a + (U, K))),
        AspRule.of(atom(f"_cnt_{pred}", X), Cmp("=", X, Count(K, (NafLiteral(atom(f"_tick_{pred}", U, K)),)))),
    ]


def contents(pred: str, n: int) -> str:
    return f"_cin{n}_{pred}"


def contents_rules(pred: str, arity: int, n: int, background: bool, sem: Semantics = DEFAULT) -> list:
    a = arg_vars(arity)
    cnt_name, _, start, sel = _names(n, pred, sem)
    head = ast.Atom(contents(pred, n), a + (U,))
    counted = ast.Atom(pred, a + (U, K))
    if sem.tuple_ties is TupleTies.ARRIVAL:
        rules = [AspRule.of(head, atom(cnt_name, C), counted, tuple_holds(K, C, n))]
    else:
        rules = [
            AspRule.of(head, atom(cnt_name, C), counted, tuple_holds(K, C, n), atom(start, S), Cmp(">", U, S)),
            AspRule.of(head, atom(cnt_name, C), tuple_short(C, n), counted),
            AspRule.of(ast.Atom(contents(pred, n), a + (S,)), ast.Atom(pred, a + (S, K)), atom(start, S), atom(sel, K)),
        ]
    if background:
        rules.append(
            AspRule.of(head, ast.Atom(f"_bg_{pred}", a), atom(start, S), now(), Cmp("=", U, ast.Interval(S, N)))
        )
    return rules


class Counted(Instances):
    """Diamond and @ over an input predicate: an atom (at its time's slot for @, which it keeps)
    holds while it is among the last n atoms."""

    def arrive(self, u, k, atom):
        if self.ring is not None:
            self.ring.hold(u)
        self._add(self._key(u, atom))

    def leave(self, u, k, atom):
        self._remove(self._key(u, atom))
        if self.ring is not None:
            self.ring.release(u)


class CountedRuns(Instances):
    """Box over an input predicate: an atom holds if it is in the window's contents at as many
    distinct time points as the window's timeline [start, t] has."""

    def __init__(self, aux: str, n: int, ring=None):
        super().__init__(aux, n)
        self.times: dict = {}  # args -> {u: atoms of args at u in the window}

    def arrive(self, u, k, atom):
        at = self.times.setdefault(atom[1:], {})
        at[u] = at.get(u, 0) + 1

    def leave(self, u, k, atom):
        args = atom[1:]
        at = self.times[args]
        if at[u] == 1:
            del at[u]
            if not at:
                del self.times[args]
        else:
            at[u] -= 1

    def remembered(self):
        return set(self.times)

    def tick(self, t, start):
        points, times = t - start + 1, self.times
        self._recheck(times, lambda args: len(times.get(args, ())) == points)


class TupleDiamond(WindowEncoder):
    """``p in [n #]``: p is among the last n atoms (or background)."""

    kind, modality, prefix, instance_class = ast.WindowKind.TUPLE, ast.DIAMOND, "_cd", Counted
    expires = "{pred}: while the atom is among the last {n} atoms"

    def static_rules(self, pred, arity, n, sem=DEFAULT):
        a = arg_vars(arity)
        return [AspRule.of(self.head(pred, n, a, U), ast.Atom(contents(pred, n), a + (U,)))]


class TupleBox(WindowEncoder):
    """``p always [n #]``: p is in the window's contents at every point of its timeline."""

    kind, modality, prefix, instance_class = ast.WindowKind.TUPLE, ast.BOX, "_cb", CountedRuns
    expires = "{pred}: while the atom is among the last {n} atoms at every time point of their timeline"

    def static_rules(self, pred, arity, n, sem=DEFAULT):
        a = arg_vars(arity)
        holds = (now(), ast.Atom(contents(pred, n), a + (N,)))
        gap = (atom(_names(n, pred, sem)[2], S), Cmp("=", U, ast.Interval(S, minus(N, 1))))
        return self.box_rules(pred, n, a, holds, gap, ast.Atom(contents(pred, n), a + (U,)))


class TupleAt(TupleDiamond):
    """``p at T in [n #]``: p is in the window's contents at T."""

    modality, prefix, at = ast.AT, "_ca", True
