"""Time windows ``[n]``: diamond, box and @, over [max(0, N-n), N]."""

from __future__ import annotations

from ... import ast
from .base import WindowEncoder, arg_vars, args_with


class TimeDiamond(WindowEncoder):
    """``p in [n]``: p holds at some U in [N-n, N]."""

    kind, modality = "time", ast.DIAMOND

    def aux(self, pred, n):
        return f"_d{n}_{pred}"

    def static_rules(self, pred, arity, n, background):
        a = arg_vars(arity)
        return [f"{self.aux(pred, n)}{args_with(a)} :- _now(N), {pred}{args_with(a, 'U')}, N-{n} <= U, U <= N."]


class TimeBox(WindowEncoder):
    """``p always [n]``: p holds at every U in [max(0, N-n), N]; the spoiler finds a gap."""

    kind, modality = "time", ast.BOX

    def aux(self, pred, n):
        return f"_b{n}_{pred}"

    def spoil(self, pred, n):
        return f"_bs{n}_{pred}"

    def static_rules(self, pred, arity, n, background):
        a = arg_vars(arity)
        head, spoil = self.aux(pred, n), self.spoil(pred, n)
        return [
            f"{head}{args_with(a)} :- _now(N), {pred}{args_with(a, 'N')}, not {spoil}{args_with(a)}.",
            f"{spoil}{args_with(a)} :- _now(N), {pred}{args_with(a, 'N')}, U = N-{n}..N-1, U >= 0,"
            f" not {pred}{args_with(a, 'U')}.",
        ]


class TimeAt(WindowEncoder):
    """``p at T in [n]``: T in [N-n, N] and p holds at T."""

    kind, modality = "time", ast.AT

    def aux(self, pred, n):
        return f"_a{n}_{pred}"

    def static_rules(self, pred, arity, n, background):
        a = arg_vars(arity)
        return [f"{self.aux(pred, n)}{args_with(a, 'U')} :- _now(N), {pred}{args_with(a, 'U')},"
                f" N-{n} <= U, U <= N."]
