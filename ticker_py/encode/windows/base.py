"""The window encoder interface and naming conventions of the ASP encoding.

A user atom ``p(t1,...,tk)`` holding at time point U is encoded as ``p(t1,...,tk,U)``
(time-pinned); an input atom with arrival count K also as ``p(t1,...,tk,U,K)``
(tick-pinned). Every name the encoding adds starts with ``_``, which LARS names cannot.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

__all__ = ["WindowEncoder", "arg_vars", "args_with"]


def arg_vars(arity: int) -> list:
    """Placeholder variables ``A1..Ak`` for an atom's arguments in encoder rules."""
    return [f"A{i}" for i in range(1, arity + 1)]


def args_with(args, *extra) -> str:
    """``p``'s argument list with extra arguments appended: ``args_with(['A1'], 'U') == '(A1,U)'``."""
    items = [str(a) for a in args] + [str(e) for e in extra]
    return f"({','.join(items)})" if items else ""


class WindowEncoder(ABC):
    """Encodes one window kind x modality."""

    kind: str = ""
    modality: str = ""

    @abstractmethod
    def aux(self, pred: str, n: int) -> str:
        """The auxiliary predicate standing for ``pred`` under this window of size n."""

    @abstractmethod
    def static_rules(self, pred: str, arity: int, n: int, background: bool) -> list:
        """Rules defining the auxiliary atom at evaluation time ``_now(N)``, ``_cnt(C)``."""

    def expiry(self, pred: str, n: int) -> str:
        """How long an input atom stays relevant to this window (the rules' duration)."""
        if self.kind == "tuple":
            return f"{pred} atom with count K is read until count K+{n - 1}"
        if self.kind == "time":
            return f"{pred} at U is read until time U+{n}"
        return f"{pred} at U is read at every later time"

    def incremental_rules(self, pred: str, arity: int, n: int, background: bool, pin) -> list:
        """The static rules pinned to the evaluation tick by ``pin``, each with its duration."""
        note = f"window rule, duration 0; {self.expiry(pred, n)}"
        return [(r, note) for r in pin("\n".join(self.static_rules(pred, arity, n, background)))]

    def use(self, pred: str, n: int, args, time=None) -> str:
        """The body literal (without 'not') for ``pred(args)`` under this window."""
        extra = () if time is None else (time,)
        return f"{self.aux(pred, n)}{args_with(args, *extra)}"
