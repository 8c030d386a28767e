"""Time windows: diamond, box and @, over [max(0, N-n), N] (the origin O for 0 under
``origin=first``). ``n`` is the window's reach (:func:`ticker_py.windows.reach`: its size, or one
less under half-open bounds); the bounds are :mod:`ticker_py.windows`'."""

from __future__ import annotations

from ... import ast
from ...semantics import DEFAULT
from ...windows import before_now, covers, from_origin
from ..asp import AspRule, NafLiteral
from .base import N, U, WindowEncoder, arg_vars, now, origin

Cmp = ast.Comparison


def in_window(n: int) -> tuple:
    """``N-n <= U, U <= N``: U inside the window of reach n at N."""
    return covers(U, N, n)


class TimeDiamond(WindowEncoder):
    """``p in [n]``: p holds at some U in [N-n, N]."""

    kind, modality = ast.WindowKind.TIME, ast.DIAMOND

    def aux(self, pred, n):
        return f"_d{n}_{pred}"

    def static_rules(self, pred, arity, n, background, sem=DEFAULT):
        a = arg_vars(arity)
        return [AspRule.of(ast.Atom(self.aux(pred, n), a), now(), ast.Atom(pred, a + (U,)), *in_window(n))]


class TimeBox(WindowEncoder):
    """``p always [n]``: p holds at every U in [max(0, N-n), N]; the spoiler finds a gap."""

    kind, modality = ast.WindowKind.TIME, ast.BOX

    def aux(self, pred, n):
        return f"_b{n}_{pred}"

    def spoil(self, pred, n):
        return f"_bs{n}_{pred}"

    def static_rules(self, pred, arity, n, background, sem=DEFAULT):
        a = arg_vars(arity)
        head, spoil = ast.Atom(self.aux(pred, n), a), ast.Atom(self.spoil(pred, n), a)
        at_now = ast.Atom(pred, a + (N,))
        start, known = origin(sem)
        return [
            AspRule.of(head, now(), at_now, NafLiteral(spoil, negated=True)),
            AspRule.of(
                spoil,
                now(),
                at_now,
                Cmp("=", U, ast.Interval(*before_now(N, n))),
                *known,
                from_origin(U, start),
                NafLiteral(ast.Atom(pred, a + (U,)), negated=True),
            ),
        ]


class TimeAt(WindowEncoder):
    """``p at T in [n]``: T in [N-n, N] and p holds at T."""

    kind, modality = ast.WindowKind.TIME, ast.AT

    def aux(self, pred, n):
        return f"_a{n}_{pred}"

    def static_rules(self, pred, arity, n, background, sem=DEFAULT):
        a = arg_vars(arity) + (U,)
        return [AspRule.of(ast.Atom(self.aux(pred, n), a), now(), ast.Atom(pred, a), *in_window(n))]
