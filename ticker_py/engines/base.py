"""The engine protocol: every engine consumes the same stream model and returns Results."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

from ..semantics import DEFAULT, Semantics
from ..streams.model import Model, Result

__all__ = ["EngineOptions", "Engine", "ModelDiffer"]


@dataclass(frozen=True)
class EngineOptions:
    """Options shared by all engines.

    models: how many answer streams to compute (0 = all).
    show: ``"derived"`` (intensional atoms) or ``"all"`` (also input and background atoms at t).
    inertia: prefer the previous tick's answer stream (incremental engine).
    changes_only: the caller reads only ``Result.changes`` (see :class:`Result`).
    pruning: native engine: disable box rules that cannot fire (Laser2); off for comparison.
    factorize: return :class:`~ticker_py.streams.factorized.Factorized` answers in
        ``Result.factors`` (``models`` then expands them; the first ``models`` if > 0).
    semantics: the knobs (:mod:`ticker_py.semantics`); the registry refuses knobs an engine cannot run.
    """

    models: int = 1
    show: str = "derived"
    inertia: bool = False
    changes_only: bool = False
    pruning: bool = True
    factorize: bool = False
    semantics: Semantics = DEFAULT


class Engine(ABC):
    """Evaluates a program over a stream, tick by tick.

    Usage: ``append(t, atoms)`` for the atoms arriving at time t (t never decreases), then
    ``evaluate(t)`` for the answer at tick ``(t, c)`` where c counts all atoms appended so far.
    ``evaluate`` may be called for a t later than the last append (empty time points).
    """

    name: str = "?"

    @abstractmethod
    def append(self, t: int, atoms: Sequence[tuple]) -> None:
        """Add atoms (ground tuples) that arrived at time t, in arrival order."""

    @abstractmethod
    def evaluate(self, t: int) -> Result:
        """Compute the answer streams at time t after everything appended so far."""


class ModelDiffer:
    """For solver engines: ``Result.changes`` from the difference between each single model and
    the one before (no changes when a tick has several models or none)."""

    def __init__(self, options: EngineOptions):
        self.options = options
        self.previous = None  # the previous single model

    def result(self, t: int, count: int, models: tuple) -> Result:
        """The result at tick ``(t, count)``: models and their changes (changes only, if asked)."""
        changes = None
        if self.options.models == 1 and len(models) == 1:
            new = models[0]
            old = self.previous or Model(frozenset())
            changes = (
                (new.atoms - old.atoms) | (new.pinned - old.pinned),
                (old.atoms - new.atoms) | (old.pinned - new.pinned),
            )
            self.previous = new
        else:
            self.previous = None
        if self.options.changes_only and changes is not None:
            return Result(t, count, None, changes)
        return Result(t, count, models, changes)
