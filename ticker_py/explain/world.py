"""One answer stream at one tick, as the explainer reads it, and body-literal matching over it.

An explanation reads nothing but a :class:`World`, so it does not depend on the engine that computed
the answer stream.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from .. import ast
from ..analysis import Analysis
from ..values import compare as order_compare
from ..values import computed, from_ast_term, term_key
from ..windows import Span, TupleWindow, Windows, tuple_windows

__all__ = ["World", "Occurrence", "Span", "UNDEF", "value", "match", "is_bound", "compare"]

UNDEF = object()  # an undefined term (arithmetic on non-numbers, division by zero)


@dataclass(frozen=True)
class Occurrence:
    """Where an atom holds: ``source`` is ``"fact"``, ``"input"`` (``count``: its arrival) or ``"derived"``."""

    atom: tuple
    time: int | None
    source: str
    count: int | None = None


def value(term, sigma: dict):
    """The ground value of a term whose variables ``sigma`` binds, or UNDEF."""
    if isinstance(term, ast.Variable):
        return sigma.get(term.name, UNDEF)
    if isinstance(term, ast.Function):
        args = [value(a, sigma) for a in term.args]
        return UNDEF if any(a is UNDEF for a in args) else (term.name, *args)
    if isinstance(term, ast.BinOp):
        a, b = value(term.left, sigma), value(term.right, sigma)
        if a is UNDEF or b is UNDEF:
            return UNDEF
        out = computed(term.op, a, b, term)
        return UNDEF if out is None else out
    return from_ast_term(term)


def is_bound(term, sigma: dict) -> bool:
    return ast.term_variables(term) <= sigma.keys()


def bindable(term, sigma: dict) -> bool:
    """Can matching a ground value bind this term's variables (no arithmetic over unbound ones)?"""
    if isinstance(term, ast.Variable):
        return True
    if isinstance(term, ast.Function):
        return all(bindable(a, sigma) for a in term.args)
    return is_bound(term, sigma)


def match(term, ground, sigma: dict) -> dict | None:
    """``sigma`` extended so that ``term`` equals ``ground``, or None."""
    if isinstance(term, ast.Variable):
        if term.name in sigma:
            return sigma if same(sigma[term.name], ground) else None
        return {**sigma, term.name: ground}
    if isinstance(term, ast.Function) and not is_bound(term, sigma):
        if type(ground) is not tuple or ground[0] != term.name or len(ground) != len(term.args) + 1:
            return None
        for arg, g in zip(term.args, ground[1:]):
            sigma = match(arg, g, sigma)
            if sigma is None:
                return None
        return sigma
    mine = value(term, sigma)
    return sigma if mine is not UNDEF and same(mine, ground) else None


def same(a, b) -> bool:
    return type(a) is type(b) and a == b


def compare(op: str, a, b) -> bool:
    """A comparison in clingo's total order of terms."""
    if op in ("=", "!="):
        return (term_key(a) == term_key(b)) == (op == "=")
    return order_compare(op, a, b)


class World:
    """The stream up to tick (t, c), the background and one answer stream's ``derived`` (atom, u) pairs
    (u > t: predictions, read by no rule); ``cut``: the contents chosen for tuple windows (by key)."""

    def __init__(self, analysis: Analysis, history, t: int, c: int, derived, windows: Windows, origin: int, cut=None):
        self.analysis = analysis
        self.windows = windows
        self.origin = origin
        self.t, self.c = t, c
        self.background = frozenset(analysis.background)
        self.intensional = analysis.intensional
        self.derived = frozenset(derived)
        self.history = tuple(history)
        self.occ = defaultdict(list)  # atom -> [Occurrence], input and derived at u <= t
        self.by_pred = defaultdict(dict)  # pred -> {atom: None} (ordered set)
        self.bg_by_pred = defaultdict(list)
        for atom in self.background:
            self.bg_by_pred[atom[0]].append(atom)
        for u, k, atom in self.history:
            self.occ[atom].append(Occurrence(atom, u, "input", k))
            self.by_pred[atom[0]][atom] = None
        for atom, u in sorted(self.derived, key=lambda au: au[1]):
            if u <= t and atom not in self.background:
                self.occ[atom].append(Occurrence(atom, u, "derived"))
                self.by_pred[atom[0]][atom] = None
        self.cut = {} if cut is None else dict(cut)
        self._contents: dict = {}

    def with_cut(self, cut: dict) -> World:
        return World(self.analysis, self.history, self.t, self.c, self.derived, self.windows, self.origin, cut)

    def tuple_keys(self) -> list:
        """The program's tuple windows as :meth:`Windows.tuple_scope` keys."""
        atoms = (lit.element for rule in self.analysis.program.rules for lit in rule.body if not lit.is_comparison)
        return list(
            dict.fromkeys(self.windows.tuple_scope(el) for el in atoms if el.window is not None and el.window.is_tuple)
        )

    def tuple_alternatives(self, key: tuple) -> list:
        """The contents the tuple window ``key`` can have at (t, c) (one unless ties are a choice)."""
        n, pred = key
        return tuple_windows(self.history, n, self.t, self.c, self.origin, self.windows.semantics, pred)

    def tuple_window(self, el: ast.ExtendedAtom) -> tuple:
        """el's tuple window at (t, c): (its :class:`TupleWindow`, {atom: [Occurrence]} of its contents)."""
        key = self.windows.tuple_scope(el)
        if key not in self._contents:
            window: TupleWindow = self.cut.get(key) or self.tuple_alternatives(key)[0]
            contents = defaultdict(list)
            for u, k, atom in window.entries:
                contents[atom].append(Occurrence(atom, u, "input", k))
            self._contents[key] = (window, contents)
        return self._contents[key]

    def span(self, el: ast.ExtendedAtom) -> Span:
        """The time points an extended atom reads at t."""
        if el.window is not None and el.window.is_tuple and el.modality != ast.NOW:
            return self.tuple_window(el)[0].span
        return self.windows.span(el, self.t, self.origin)

    def occurrences(self, atom: tuple, el: ast.ExtendedAtom, span: Span) -> list:
        """Where ``atom`` holds inside the span, as read through el's window (facts aside)."""
        if el.window is not None and el.window.is_tuple:
            occ = self.tuple_window(el)[1].get(atom, ())
        else:
            occ = self.occ.get(atom, ())
        return [o for o in occ if span.lo <= o.time <= span.hi]

    def candidates(self, el: ast.ExtendedAtom) -> list:
        """The ground atoms of el's predicate that hold anywhere el can read (facts included)."""
        pred = el.atom.predicate
        if el.window is not None and el.window.is_tuple:
            own = [a for a in self.tuple_window(el)[1] if a[0] == pred]
        else:
            own = list(self.by_pred.get(pred, ()))
        return list(dict.fromkeys(own + self.bg_by_pred.get(pred, [])))

    def witnesses(self, el: ast.ExtendedAtom, atom: tuple, time=None):
        """``(holds, span, occurrences)`` of the ground element ``el`` (atom ``atom``, @-time ``time``):
        every occurrence in the span (□: holds iff they cover it), for @ and now at its time point."""
        span = self.span(el)
        if el.modality == ast.AT:
            if time not in span:
                return False, span, []
            lo = hi = time
        elif el.modality == ast.NOW:
            lo = hi = self.t
        else:
            lo, hi = span.lo, span.hi
        if atom in self.background:
            return True, span, [Occurrence(atom, None, "fact")]
        occ = self.occurrences(atom, el, Span(lo, hi))
        if el.modality == ast.BOX:
            covered = {o.time for o in occ}
            return len(covered) == hi - lo + 1, span, occ
        return bool(occ), span, occ

    def last_seen(self, atom: tuple) -> Occurrence | None:
        """The latest occurrence of ``atom`` in the kept stream or answer stream (any time)."""
        occ = self.occ.get(atom, ())
        return occ[-1] if occ else None
