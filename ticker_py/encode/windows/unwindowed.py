"""``p at T`` without a window: T ranges over the whole timeline [0, N]."""

from __future__ import annotations

from ... import ast
from .base import WindowEncoder, arg_vars, args_with


class UnwindowedAt(WindowEncoder):
    """``p at T``: 0 <= T <= N and p holds at T (predictions beyond N are not read)."""

    kind, modality = "none", ast.AT

    def aux(self, pred, n):
        return f"_at_{pred}"

    def static_rules(self, pred, arity, n, background):
        a = arg_vars(arity)
        return [f"{self.aux(pred, n)}{args_with(a, 'U')} :- _now(N), {pred}{args_with(a, 'U')}, 0 <= U, U <= N."]
