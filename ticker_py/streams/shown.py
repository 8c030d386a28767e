"""``#show p/n.``: a result with only the atoms of the shown predicates (and their pins).

Answer streams that differ only in hidden atoms are given once (the first, in the order they
came), as clingo's ``--project`` does; a factorized answer is rebuilt from its shown parts.
"""

from __future__ import annotations

from .factorized import Factorized, factorized_result
from .model import Model, Result

__all__ = ["ShownFilter"]


class ShownFilter:
    """Keeps the atoms whose ``(name, arity)`` is in ``signatures``."""

    def __init__(self, signatures):
        self.signatures = frozenset(signatures)
        self._kept: dict = {}  # (name, tuple length) -> shown?

    def shown(self, atom: tuple) -> bool:
        key = (atom[0], len(atom))
        kept = self._kept.get(key)
        if kept is None:
            kept = self._kept[key] = (atom[0], len(atom) - 1) in self.signatures
        return kept

    def model(self, model: Model) -> Model:
        shown = self.shown
        return Model(frozenset(a for a in model.atoms if shown(a)), frozenset(p for p in model.pinned if shown(p[0])))

    def _change(self, items) -> frozenset:
        shown = self.shown
        # an atom is a tuple starting with its name; a pin is (atom, T)
        return frozenset(x for x in items if shown(x[0] if type(x[0]) is tuple else x))

    def result(self, result: Result) -> Result:
        """``result`` with only the shown atoms."""
        changes = result.changes
        if changes is not None:
            changes = (self._change(changes[0]), self._change(changes[1]))
        factors = result.factors
        if factors is not None:
            if factors.count:  # no answer stream stays none
                factors = Factorized.build(
                    self.model(factors.common), [[self.model(m) for m in factor] for factor in factors.factors]
                )
            return factorized_result(result.t, result.c, factors)
        models = result.models
        if models is not None:
            models = tuple(dict.fromkeys(self.model(m) for m in models))
        return result.replace(models=models, changes=changes)
