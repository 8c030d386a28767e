"""What a result shows: the program's names for its atoms (a name used with several arities is
analysed under one internal name per arity) and, with ``#show p/n.``, only the shown predicates.

Answer streams that differ only in hidden atoms are given once (the first, in the order they
came), as clingo's ``--project`` does; a factorized answer is rebuilt from its shown parts.
"""

from __future__ import annotations

from collections.abc import Callable

from ..streams.model import Model, Result

__all__ = ["ShownAtoms"]


class ShownAtoms:
    """Maps results: each atom renamed by ``rename`` (internal -> program name; None: as is), and
    kept only if its ``(name, arity)`` is in ``signatures`` (None: every atom)."""

    @classmethod
    def of(cls, analysis, show: str = "derived") -> tuple:
        """``(shown or None, what the engine shows)`` of a program: ``#show`` picks the named
        predicates, whatever their kind (the engine then shows every atom; ``show="all"`` shows every
        atom anyway), and a name of several arities goes back to the program's name
        (:mod:`ticker_py.analysis.arities`). None: the engine's results are shown as they are."""
        shows = analysis.program.shows if show != "all" else None
        if shows is None and not analysis.renamed:
            return None, show
        from ..analysis.arities import Renaming

        rename = Renaming(analysis.renamed, analysis.signatures).atom_out if analysis.renamed else None
        return cls(shows, rename), "all" if shows is not None else show

    def __init__(self, signatures=None, rename: Callable | None = None):
        self.signatures = None if signatures is None else frozenset(signatures)
        self.rename = rename
        self._kept: dict = {}  # (name, tuple length) -> shown?

    def _shown(self, atom: tuple) -> bool:
        if self.signatures is None:
            return True
        key = (atom[0], len(atom))
        kept = self._kept.get(key)
        if kept is None:
            kept = self._kept[key] = (atom[0], len(atom) - 1) in self.signatures
        return kept

    def _atoms(self, atoms) -> frozenset:
        if self.rename is not None:
            atoms = map(self.rename, atoms)
        return frozenset(a for a in atoms if self._shown(a))

    def _pins(self, pins) -> frozenset:
        rename = self.rename
        if rename is not None:
            pins = ((rename(a), t) for a, t in pins)
        return frozenset(p for p in pins if self._shown(p[0]))

    def model(self, model: Model) -> Model:
        return Model(self._atoms(model.atoms), self._pins(model.pinned) if model.pinned else frozenset())

    def _change(self, items) -> frozenset:
        # an atom is a tuple starting with its name; a pin is (atom, T)
        pins = [x for x in items if type(x[0]) is tuple]
        if not pins:
            return self._atoms(items)
        return self._atoms(x for x in items if type(x[0]) is not tuple) | self._pins(pins)

    def result(self, result: Result) -> Result:
        """``result`` with the shown atoms, renamed."""
        changes = result.changes
        atoms = getattr(changes, "atoms", None)
        if atoms is not None:  # the native engine's Delta: the atoms also apart from the pins
            pins = [[x for x in part if type(x[0]) is tuple] for part in changes]
            changes = type(changes)(
                self._atoms(atoms[0]), set(self._pins(pins[0])), self._atoms(atoms[1]), set(self._pins(pins[1]))
            )
        elif changes is not None:
            changes = (self._change(changes[0]), self._change(changes[1]))
        factors = result.factors
        if factors is not None:
            from ..streams.factorized import Factorized, factorized_result

            if factors.count:  # no answer stream stays none
                factors = Factorized.build(
                    self.model(factors.common), [[self.model(m) for m in factor] for factor in factors.factors]
                )
            return factorized_result(result.t, result.c, factors)
        models = result.models
        if models is not None:
            models = tuple(dict.fromkeys(self.model(m) for m in models))
        return result.replace(models=models, changes=changes)
