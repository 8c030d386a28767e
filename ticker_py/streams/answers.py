"""The answer state: one answer stream followed through a run's results, whole or as changes.

:class:`AnswerState` is the one place that applies ``Result.changes`` and diffs two answers.

>>> from ticker_py.streams.model import Model
>>> state = AnswerState()
>>> state.apply((frozenset({("a",), (("p",), 3)}), frozenset()))
({('a',)}, set(), {(('p',), 3)}, set())
>>> state.apply((frozenset({("b",)}), frozenset({("a",)})))[:2], state.model()
(({('b',)}, {('a',)}), Model({b}, pinned={p at 3}))
>>> AnswerState.diff(Model(frozenset({("a",)})), Model(frozenset({("b",)})))
(frozenset({('b',)}), frozenset({('a',)}), frozenset(), frozenset())
"""

from __future__ import annotations

from operator import itemgetter

from .model import Model, Result

__all__ = ["AnswerState"]

EMPTY = Model(frozenset())


class AnswerState:
    """The single answer stream of a run: :meth:`set` takes a whole answer, :meth:`apply` applies
    changes in place. With ``pins=False`` the pins of changes are not applied (they can outnumber
    the atoms many times; the native engine's changes carry ``atoms``, the pair without pins)."""

    def __init__(self, pins: bool = True):
        self.pins_kept = pins
        self.given = ()  # the answer streams given last (the state while no change was applied)
        self.atoms: set | None = None  # the state's atoms and pins as sets, once changes came
        self.pins: set | None = None

    def set(self, models) -> None:
        """The state becomes the single answer stream of ``models`` (empty for none or several)."""
        self.given = models
        self.atoms = self.pins = None

    def apply(self, changes) -> tuple:
        """Apply ``Result.changes`` (``(added, removed)``); returns ``(atoms that came, atoms that
        left, pins that came, pins that left)`` (pins empty unless kept)."""
        if self.atoms is None:
            given = self.model()
            self.atoms = set(given.atoms)
            self.pins = set(given.pinned) if self.pins_kept else set()
        added, removed = changes
        split = getattr(changes, "atoms", None)
        if split is not None:
            added_atoms, removed_atoms = split
        elif _only_atoms(added) and _only_atoms(removed):
            added_atoms, removed_atoms = added, removed
        else:
            added_atoms = [x for x in added if type(x[0]) is str]
            removed_atoms = [x for x in removed if type(x[0]) is str]
        came, left = _net(self.atoms, added_atoms, removed_atoms)
        if not self.pins_kept:
            return came, left, (), ()
        return (came, left, *_net(self.pins, _rest(added, added_atoms), _rest(removed, removed_atoms)))

    def model(self) -> Model:
        """The state as a :class:`Model`."""
        if self.atoms is None:
            return self.given[0] if len(self.given) == 1 else EMPTY
        return Model(frozenset(self.atoms), frozenset(self.pins))

    def models(self, result: Result) -> tuple | None:
        """``result.models``, or the single answer stream rebuilt from ``result.changes`` (or None)."""
        if result.models is not None:
            self.set(result.models)
            return result.models
        if result.changes is None:
            return None
        self.apply(result.changes)
        return (self.model(),)

    def __len__(self) -> int:
        """The number of atoms at t in the state."""
        return len(self.model().atoms) if self.atoms is None else len(self.atoms)

    @staticmethod
    def diff(old: Model, new: Model) -> tuple:
        """``(atoms added, atoms removed, pins added, pins removed)`` from ``old`` to ``new``."""
        return new.atoms - old.atoms, old.atoms - new.atoms, new.pinned - old.pinned, old.pinned - new.pinned


def _net(state: set, added, removed) -> tuple:
    """Make ``state`` itself without ``removed``, with ``added``; returns what came and what left."""
    left = state.intersection(removed)
    if left and added:
        left = left.difference(added)
    came = set(added).difference(state)
    state.difference_update(left)
    state.update(came)
    return came, left


def _rest(items, atoms) -> set | tuple:
    """The pins among ``items`` whose atoms are ``atoms``."""
    return () if len(items) == len(atoms) else items.difference(atoms)


def _only_atoms(items) -> bool:
    """Whether the changes ``items`` hold atoms only (no ``(atom, T)`` pins)."""
    return _STR_ONLY.issuperset(map(type, map(_first, items)))


_STR_ONLY = frozenset([str])
_first = itemgetter(0)
