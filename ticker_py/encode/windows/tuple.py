"""Tuple windows ``[n #]``: the last n input atoms of the tick stream.

At tick (N, C) the window holds the atoms with count C-n+1 .. C; its timeline starts at
the time of atom C-n+1 when C >= n, else at 0 (``_cstart{n}``). ``_cin{n}_p(A..,U)``:
p(A..) is in the window's contents at U (background atoms at every U of the timeline).
"""

from __future__ import annotations

from ... import ast
from .base import WindowEncoder, arg_vars, args_with


def start_rules(n: int) -> list:
    """The timeline start of the size-n tuple window (the cut-off of the paper's tuple box)."""
    return [f"_cstart{n}(S) :- _cnt(C), C >= {n}, _tick(S, C-{n}+1).",
            f"_cstart{n}(0) :- _cnt(C), C < {n}."]


def contents(pred: str, n: int) -> str:
    return f"_cin{n}_{pred}"


def contents_rules(pred: str, arity: int, n: int, background: bool) -> list:
    a = arg_vars(arity)
    rules = [f"{contents(pred, n)}{args_with(a, 'U')} :- _cnt(C), {pred}{args_with(a, 'U', 'K')}, K > C-{n}."]
    if background:
        rules.append(f"{contents(pred, n)}{args_with(a, 'U')} :- _bg_{pred}{args_with(a)}, _cstart{n}(S),"
                     f" _now(N), U = S..N.")
    return rules


class TupleDiamond(WindowEncoder):
    """``p in [n #]``: p is among the last n atoms (or background)."""

    kind, modality = "tuple", ast.DIAMOND

    def aux(self, pred, n):
        return f"_cd{n}_{pred}"

    def static_rules(self, pred, arity, n, background):
        a = arg_vars(arity)
        return [f"{self.aux(pred, n)}{args_with(a)} :- {contents(pred, n)}{args_with(a, 'U')}."]


class TupleBox(WindowEncoder):
    """``p always [n #]``: p is in the window's contents at every point of its timeline."""

    kind, modality = "tuple", ast.BOX

    def aux(self, pred, n):
        return f"_cb{n}_{pred}"

    def spoil(self, pred, n):
        return f"_cbs{n}_{pred}"

    def static_rules(self, pred, arity, n, background):
        a = arg_vars(arity)
        head, spoil, cin = self.aux(pred, n), self.spoil(pred, n), contents(pred, n)
        return [
            f"{head}{args_with(a)} :- _now(N), {cin}{args_with(a, 'N')}, not {spoil}{args_with(a)}.",
            f"{spoil}{args_with(a)} :- _now(N), {cin}{args_with(a, 'N')}, _cstart{n}(S), U = S..N-1,"
            f" not {cin}{args_with(a, 'U')}.",
        ]


class TupleAt(WindowEncoder):
    """``p at T in [n #]``: p is in the window's contents at T."""

    kind, modality = "tuple", ast.AT

    def aux(self, pred, n):
        return f"_ca{n}_{pred}"

    def static_rules(self, pred, arity, n, background):
        a = arg_vars(arity)
        return [f"{self.aux(pred, n)}{args_with(a, 'U')} :- {contents(pred, n)}{args_with(a, 'U')}."]
