"""The window encoder interface and naming conventions of the ASP encodings.

An atom ``p(args)`` at time point U is ``p(args,U)``, an input atom with count K also
``p(args,U,K)``; the incremental encoding pins it to a *slot* instead (docs/incremental.md).
Every name the encoding adds starts with ``_``, which LARS names cannot.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from ... import ast
from ...semantics import DEFAULT, Origin, Semantics
from ..asp import AspRule, NafLiteral, atom

__all__ = [
    "WindowEncoder",
    "Instances",
    "arg_vars",
    "now",
    "origin",
    "member",
    "N",
    "U",
    "C",
    "K",
    "S",
    "O",
    "NOW",
    "NOW_SLOT",
]

N, U, C, K, S, O = (ast.Variable(v) for v in "NUCKSO")

#: the incremental encoding's constant for the current time point, and ``_now(S)``: S is its slot
NOW, NOW_SLOT = ast.Constant("_n"), "_now"


def arg_vars(arity: int) -> tuple:
    """Placeholder variables ``A1..Ak`` for an atom's arguments in encoder rules."""
    return tuple(ast.Variable(f"A{i}") for i in range(1, arity + 1))


def now() -> NafLiteral:
    """``_now(N)``: the evaluation time."""
    return NafLiteral(atom("_now", N))


def member(n: int, slot=S) -> ast.Atom:
    """``_w{n}(S)``: slot S stands for a time point of the time window of reach n."""
    return atom(f"_w{n}", slot)


def origin(sem: Semantics, var: ast.Variable = O) -> tuple:
    """Where windows clip: ``(0, ())``, or under ``origin=first`` ``(O, (_origin(O),))`` with the
    literal that binds O."""
    if sem.origin is Origin.ZERO:
        return ast.Number(0), ()
    return var, (NafLiteral(atom("_origin", var)),)


class Instances:
    """The instances of one window atom over an input predicate (the paper's Alg. 2 increments):
    ``holding``, the keys (the atom's arguments, and a slot for @) that hold now; ``changed``, those
    switched since the engine last read it. The engine calls ``arrive``, ``leave`` (tuple windows),
    ``expire`` (time windows) and ``tick`` (boxes)."""

    def __init__(self, aux: str, n: int = 0, ring=None):
        self.aux, self.n, self.ring = aux, n, ring  # ring: the slots, for @ (the key ends with one)
        self.holding: dict = {}  # key -> occurrences in the window (or True)
        self.changed: dict = {}

    def _key(self, u: int, atom: tuple) -> tuple:
        return atom[1:] if self.ring is None else atom[1:] + (self.ring.slot(u),)

    def _recheck(self, candidates, holds) -> None:
        """Switch each key that holds now, or of ``candidates``, to whether ``holds(key)``."""
        holding = self.holding
        for key in [key for key in holding if not holds(key)]:
            del holding[key]
            self.changed[key] = False
        for key in candidates:
            if key not in holding and holds(key):
                holding[key] = self.changed[key] = True

    def _add(self, key) -> None:
        count = self.holding[key] = self.holding.get(key, 0) + 1
        if count == 1:
            self.changed[key] = True

    def _remove(self, key) -> None:
        count = self.holding[key] = self.holding[key] - 1
        if not count:
            del self.holding[key]
            self.changed[key] = False

    def remembered(self) -> set:
        """The arguments of the atoms that hold, or may hold later, in the window."""
        return set(self.holding) if self.ring is None else {key[:-1] for key in self.holding}


class WindowEncoder(ABC):
    """Encodes one window kind x modality: its static rules and its incremental form."""

    kind: ast.WindowKind
    modality: ast.Modality
    prefix: str  # of the auxiliary predicates: ``{prefix}{n}_{pred}``, a box's spoiler ``{prefix}s{n}_{pred}``
    instance_class = None  # the :class:`Instances` over an input predicate (None: none)
    expires = "{pred} at U holds at every later time"  # an input atom's instance (:meth:`expiry`)

    def aux(self, pred: str, n: int) -> str:
        """The auxiliary predicate standing for ``pred`` under this window of size n."""
        return f"{self.prefix}{n}_{pred}"

    def box_rules(self, pred: str, n: int, args: tuple, holds: tuple, gap: tuple, missing: ast.Atom) -> list:
        """A box: its atom over ``args`` holds where ``holds`` and its spoiler finds no time point
        of the window (``gap`` binds it) where ``missing`` does not hold."""
        head, spoil = ast.Atom(self.aux(pred, n), args), ast.Atom(f"{self.prefix}s{n}_{pred}", args)
        return [
            AspRule.of(head, *holds, NafLiteral(spoil, negated=True)),
            AspRule.of(spoil, *holds, *gap, NafLiteral(missing, negated=True)),
        ]

    @abstractmethod
    def static_rules(self, pred: str, arity: int, n: int, sem: Semantics = DEFAULT) -> list:
        """Rules defining the auxiliary atom at evaluation time ``_now(N)``, ``_cnt(C)``."""

    # ---------------------------------------------------------------- the incremental form

    at = False  # the window atom carries a time (a slot): @

    def slot_rules(self, pred: str, arity: int, n: int) -> list:
        """Rules defining the window atom over a *derived* predicate, over slots (``h(A..,S)``)."""
        raise NotImplementedError(f"{self.kind.value} windows read input predicates only")

    def background_rules(self, pred: str, arity: int, n: int) -> list:
        """The window atom over the background facts ``_bg_p(A..)`` of an input predicate (for @, at
        every slot of the window)."""
        a = arg_vars(arity)
        return [AspRule.of(self.head(pred, n, a, S), ast.Atom(f"_bg_{pred}", a), *((member(n),) if self.at else ()))]

    def instances(self, pred: str, n: int, ring) -> Instances:
        """The instances over the input atoms of ``pred`` (``ring.slot(u)``: the slot of time u)."""
        return self.instance_class(self.aux(pred, n), n, ring if self.at else None)

    def expiry(self, pred: str, n: int) -> str:
        """How long an input atom keeps its instance (the annotation of the incremental encoding)."""
        return self.expires.format(pred=pred, n=n, points=n + 1)

    def head(self, pred: str, n: int, args: tuple, time=None) -> ast.Atom:
        """The auxiliary atom over ``args``, and ``time`` if the window atom carries one (@)."""
        return ast.Atom(self.aux(pred, n), args + (time,) if self.at else args)
