"""``p at T`` without a window: T ranges over the whole timeline [0, N]."""

from __future__ import annotations

from ... import ast
from ...semantics import DEFAULT
from ...windows import on_timeline
from ..asp import AspRule
from .base import N, U, WindowEncoder, arg_vars, now, origin


class UnwindowedAt(WindowEncoder):
    """``p at T``: 0 <= T <= N and p holds at T (predictions beyond N are not read)."""

    kind, modality, at = ast.WindowKind.NONE, ast.AT, True

    def aux(self, pred, n):
        return f"_at_{pred}"

    def static_rules(self, pred, arity, n, background, sem=DEFAULT):
        a = arg_vars(arity) + (U,)
        start, known = origin(sem)
        return [AspRule.of(ast.Atom(self.aux(pred, n), a), now(), ast.Atom(pred, a), *known, *on_timeline(U, N, start))]
