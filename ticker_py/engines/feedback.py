"""``persistence=feedback``: conclusions of earlier time points fed back into the stream.

Once time point u is complete (the next call is at a later time), the intensional atoms of its one
answer stream are added to the stream at u as time-pinned facts (``feed_back``); several answer
streams at u are a :class:`StreamError`. Fed atoms are stream atoms: not reported again as pins.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..analysis import Analysis
from ..errors import Diagnostic, StreamError
from ..streams.model import Model, Result
from .base import Engine, EngineOptions, ModelDiffer

__all__ = ["FeedbackEngine", "inner_options"]


def inner_options(options: EngineOptions) -> EngineOptions:
    """What the wrapped engine computes: at least two answer streams (to see a second one)."""
    models = 0 if options.models == 0 else max(2, options.models)
    return replace(options, models=models, changes_only=False)


class FeedbackEngine(Engine):
    """Wraps an engine that has ``feed_back(u, atoms)``; same protocol as any engine."""

    def __init__(self, inner: Engine, analysis: Analysis, options: EngineOptions):
        self.inner, self.options = inner, options
        self.name = inner.name
        self.intensional = analysis.intensional
        self.background = frozenset(analysis.background)
        self.last = None  # the latest Result, fed back once its time point is complete
        self.fed: set = set()  # (atom, u) pairs fed back
        self.differ = ModelDiffer(options)

    def _close(self, t: int) -> None:
        last = self.last
        if last is None or t <= last.t:
            return
        self.last = None
        if len(last.models) > 1:
            many = f"{len(last.models)}{'' if self.options.models == 0 else ' or more'}"
            message = f"persistence=feedback (--persistence feedback) needs one answer stream per time point; at t={last.t} there are {many}"
            notes = ("use persistence=recompute, or constraints that leave one answer stream",)
            raise StreamError(Diagnostic(message, notes=notes))
        for m in last.models:
            atoms = [a for a in sorted(m.atoms, key=repr) if a[0] in self.intensional and a not in self.background]
            self.fed |= {(a, last.t) for a in atoms}
            self.inner.feed_back(last.t, atoms)

    def append(self, t: int, atoms: Sequence[tuple]) -> None:
        self._close(t)
        self.inner.append(t, atoms)

    def evaluate(self, t: int) -> Result:
        self._close(t)
        raw = self.inner.evaluate(t)
        self.last = raw
        models = tuple(Model(m.atoms, frozenset(p for p in m.pinned if p not in self.fed)) for m in raw.models)
        if self.options.models:
            models = models[: self.options.models]
        return self.differ.result(t, raw.c, models)
