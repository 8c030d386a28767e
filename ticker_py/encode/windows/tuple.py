"""Tuple windows ``[n #]``: the last n input atoms of the tick stream.

At tick (N, C) the window holds the atoms with count C-n+1 .. C; its timeline starts at
the time of atom C-n+1 when C >= n, else at 0 (``_cstart{n}``). ``_cin{n}_p(A..,U)``:
p(A..) is in the window's contents at U (background atoms at every U of the timeline).
"""

from __future__ import annotations

from ... import ast
from ..asp import AspRule, NafLiteral, atom
from .base import C, K, N, S, U, WindowEncoder, arg_vars, minus, now

Cmp = ast.Comparison


def start_rules(n: int) -> list:
    """The timeline start of the size-n tuple window (the cut-off of the paper's tuple box)."""
    cnt, start = atom("_cnt", C), f"_cstart{n}"
    return [AspRule.of(atom(start, S), cnt, Cmp(">=", C, ast.Number(n)),
                 atom("_tick", S, ast.BinOp("+", minus(C, n), ast.Number(1)))),
            AspRule.of(atom(start, ast.Number(0)), cnt, Cmp("<", C, ast.Number(n)))]


def contents(pred: str, n: int) -> str:
    return f"_cin{n}_{pred}"


def contents_rules(pred: str, arity: int, n: int, background: bool) -> list:
    a = arg_vars(arity)
    head = ast.Atom(contents(pred, n), a + (U,))
    rules = [AspRule.of(head, atom("_cnt", C), ast.Atom(pred, a + (U, K)), Cmp(">", K, minus(C, n)))]
    if background:
        rules.append(AspRule.of(head, ast.Atom(f"_bg_{pred}", a), atom(f"_cstart{n}", S), now(),
                          Cmp("=", U, ast.Interval(S, N))))
    return rules


class TupleDiamond(WindowEncoder):
    """``p in [n #]``: p is among the last n atoms (or background)."""

    kind, modality = ast.WindowKind.TUPLE, ast.DIAMOND

    def aux(self, pred, n):
        return f"_cd{n}_{pred}"

    def static_rules(self, pred, arity, n, background):
        a = arg_vars(arity)
        return [AspRule.of(ast.Atom(self.aux(pred, n), a), ast.Atom(contents(pred, n), a + (U,)))]


class TupleBox(WindowEncoder):
    """``p always [n #]``: p is in the window's contents at every point of its timeline."""

    kind, modality = ast.WindowKind.TUPLE, ast.BOX

    def aux(self, pred, n):
        return f"_cb{n}_{pred}"

    def spoil(self, pred, n):
        return f"_cbs{n}_{pred}"

    def static_rules(self, pred, arity, n, background):
        a = arg_vars(arity)
        head, spoil = ast.Atom(self.aux(pred, n), a), ast.Atom(self.spoil(pred, n), a)
        cin_now = ast.Atom(contents(pred, n), a + (N,))
        return [
            AspRule.of(head, now(), cin_now, NafLiteral(spoil, negated=True)),
            AspRule.of(spoil, now(), cin_now, atom(f"_cstart{n}", S), Cmp("=", U, ast.Interval(S, minus(N, 1))),
                 NafLiteral(ast.Atom(contents(pred, n), a + (U,)), negated=True)),
        ]


class TupleAt(WindowEncoder):
    """``p at T in [n #]``: p is in the window's contents at T."""

    kind, modality = ast.WindowKind.TUPLE, ast.AT

    def aux(self, pred, n):
        return f"_ca{n}_{pred}"

    def static_rules(self, pred, arity, n, background):
        a = arg_vars(arity) + (U,)
        return [AspRule.of(ast.Atom(self.aux(pred, n), a), ast.Atom(contents(pred, n), a))]
