"""The native engine's answer, maintained as deltas: what is added and removed at each tick."""

from __future__ import annotations

from ...streams.model import Model, Result
from ..base import EngineOptions
from .wiring import Wiring

__all__ = ["Changes", "Delta"]


class Delta(tuple):
    """``Result.changes``, ``(added, removed)``, that also carries ``atoms``: the same pair without
    the pins (frozensets of atoms at t). A writer that does not print pins takes ``atoms`` and
    never touches the pins, which can outnumber the atoms many times (cooling: 50 to 1). Made from
    the atoms (frozensets) and the pins (sets) that came and went; pickled as the plain pair."""

    atoms: tuple

    def __new__(cls, added: frozenset, added_pins: set, removed: frozenset, removed_pins: set) -> Delta:
        pair = (added | added_pins if added_pins else added, removed | removed_pins if removed_pins else removed)
        delta = super().__new__(cls, pair)
        delta.atoms = (added, removed)
        return delta

    def __reduce__(self):
        return tuple, (tuple(self),)


class Changes:
    """The atoms and pins added and removed at one evaluation, and (unless only changes are read)
    the answer they sum up to; reported by the now-views, :class:`~.views.DerivedViews` (pins) and,
    with ``show="all"``, the stream feed (``inputs_now``)."""

    def __init__(self, wiring: Wiring, options: EngineOptions):
        self.wiring = wiring
        self.changes_only = options.changes_only
        self.show_all = options.show == "all"
        self.out_now: set = set()
        self.out_pins: set = set()
        self.shown_inputs: set = set()
        self.reset()
        for q in wiring.intensional:
            self._track_now(wiring.now_view[q])

    def reset(self) -> None:
        """A new evaluation: nothing changed yet."""
        self.added_now, self.removed_now = set(), set()
        self.added_pins, self.removed_pins = set(), set()
        self.inputs_now = set()

    def _track_now(self, store) -> None:
        changes = self

        def fresh_now(atoms):
            rem = changes.removed_now
            if rem:
                atoms = set(atoms)
                back = atoms & rem  # removed earlier in this evaluation: no change
                rem -= back
                atoms -= back
            changes.added_now.update(atoms)

        def expired_now(atoms):
            changes.removed_now.update(atoms)

        store.on_fresh, store.on_expire = fresh_now, expired_now

    def show_inputs(self, prev_time: int, advance: bool) -> None:
        """With show=all: input atoms at t and background of extensional predicates."""
        ext_bg = self.wiring.ext_background
        if prev_time < 0 and advance:
            self.added_now |= ext_bg
        current = self.inputs_now if advance else self.shown_inputs | self.inputs_now
        self.removed_now |= (self.shown_inputs - current) - ext_bg
        self.added_now |= (current - self.shown_inputs) - ext_bg
        self.shown_inputs = current

    def result(self, t: int, count: int) -> Result:
        models = None
        if not self.changes_only:
            self.out_now -= self.removed_now
            self.out_now |= self.added_now
            self.out_pins -= self.removed_pins
            self.out_pins |= self.added_pins
            models = (Model(frozenset(self.out_now), frozenset(self.out_pins)),)
        delta = Delta(frozenset(self.added_now), self.added_pins, frozenset(self.removed_now), self.removed_pins)
        return Result(t, count, models, delta)
