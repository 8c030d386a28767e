"""The window encoder interface and naming conventions of the ASP encoding.

A user atom ``p(t1,...,tk)`` holding at time point U is encoded as ``p(t1,...,tk,U)``
(time-pinned); an input atom with arrival count K also as ``p(t1,...,tk,U,K)``
(tick-pinned). Every name the encoding adds starts with ``_``, which LARS names cannot.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from ... import ast
from ...semantics import DEFAULT, Semantics
from ...windows import minus, origin_term
from ..asp import NafLiteral, atom

__all__ = ["WindowEncoder", "arg_vars", "now", "minus", "origin", "N", "U", "C", "K", "S", "O"]

N, U, C, K, S, O = (ast.Variable(v) for v in "NUCKSO")


def arg_vars(arity: int) -> tuple:
    """Placeholder variables ``A1..Ak`` for an atom's arguments in encoder rules."""
    return tuple(ast.Variable(f"A{i}") for i in range(1, arity + 1))


def now() -> NafLiteral:
    """``_now(N)``: the evaluation time."""
    return NafLiteral(atom("_now", N))


def origin(sem: Semantics, var: ast.Variable = O) -> tuple:
    """Where windows clip (:func:`ticker_py.windows.origin_term`): ``(0, ())``, or under
    ``origin=first`` ``(O, (_origin(O),))`` with the literal that binds O."""
    start, known = origin_term(sem, var)
    return start, tuple(NafLiteral(a) for a in known)


class WindowEncoder(ABC):
    """Encodes one window kind x modality."""

    kind: ast.WindowKind
    modality: ast.Modality

    @abstractmethod
    def aux(self, pred: str, n: int) -> str:
        """The auxiliary predicate standing for ``pred`` under this window of size n."""

    @abstractmethod
    def static_rules(self, pred: str, arity: int, n: int, background: bool, sem: Semantics = DEFAULT) -> list:
        """Rules (:class:`AspRule`) defining the auxiliary atom at evaluation time ``_now(N)``, ``_cnt(C)``
        under the semantics knobs ``sem``."""

    def expiry(self, pred: str, n: int) -> str:
        """How long an input atom stays relevant to this window (the rules' duration)."""
        if self.kind == ast.WindowKind.TUPLE:
            return f"{pred} atom with count K is read until count K+{n - 1}"
        if self.kind == ast.WindowKind.TIME:
            return f"{pred} at U is read until time U+{n}"
        return f"{pred} at U is read at every later time"

    def incremental_rules(self, pred: str, arity: int, n: int, background: bool, pin) -> list:
        """The static rules pinned to the evaluation tick by ``pin``, each with its duration."""
        note = f"window rule, duration 0; {self.expiry(pred, n)}"
        return [(pin(r), note) for r in self.static_rules(pred, arity, n, background)]

    def use(self, pred: str, n: int, args, time=None) -> ast.Atom:
        """The body atom for ``pred(args)`` under this window."""
        return ast.Atom(self.aux(pred, n), tuple(args) + (() if time is None else (time,)))
