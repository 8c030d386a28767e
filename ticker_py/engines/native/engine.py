"""The native engine: Laser-style annotated, semi-naive evaluation of positive and stratified LARS
programs (docs/native.md); this module evaluates the rules, component by component."""

from __future__ import annotations

from collections.abc import Sequence

from ...analysis import Analysis
from ...errors import EngineUnsupported
from ...streams.model import Result
from ...windows import Windows
from ..base import Engine, EngineOptions
from .feed import StreamFeed
from .output import Changes
from .store import Clock
from .views import DerivedViews
from .wiring import Wiring, counted_predicates

__all__ = ["NativeEngine", "counted_predicates"]


class NativeEngine(Engine):
    """Annotation-based incremental evaluation (positive and stratified programs)."""

    name = "native"

    def __init__(self, analysis: Analysis, options: EngineOptions = EngineOptions()):
        self.analysis, self.options = analysis, options
        self.stats = {"rule_evaluations": 0, "pruned": 0, "delta_facts": 0, "derived": 0}
        try:
            self.wiring = Wiring(analysis, Windows(analysis, options.semantics))
        except EngineUnsupported as err:  # it shows a rule: in the program's names
            raise EngineUnsupported([analysis.named(d) for d in err.diagnostics]) from None
        self.clock = Clock()
        self.changes = Changes(self.wiring, options)
        self.views = DerivedViews(self.wiring, self.clock, self.changes)
        self.feed = StreamFeed(self.wiring, self.clock, self.changes)
        self.started = False

    def append(self, t: int, atoms: Sequence[tuple]) -> None:
        if atoms:
            self.feed.append(t, atoms)

    def evaluate(self, t: int) -> Result:
        clock = self.clock
        advance = clock.tick(t)
        now = clock.now
        self.changes.reset()
        stores = self.wiring.stores
        for s in stores:
            s.delta = []
            if s.before:
                s.before.clear()
        # only then expire: a counted fact that falls back on an alternative pair is emitted
        # again as a delta, into its own store and the views it feeds
        count = clock.count
        for s in stores:
            s.expire(now, count)
        if not self.started:
            self.started = True
            self.feed.start()
            self.views.start()
        if advance:
            self.views.advance(t)
            self.feed.advance(t)
        self.feed.feed(t, now)
        if self.changes.show_all:
            self.changes.show_inputs(clock.prev_time, advance)
        self.feed.feed_tuples(t, advance)
        for i, plans in enumerate(self.wiring.plans):
            self._run_component(i, plans, now)
            self.views.feed_boxes(i, now)
        return self.changes.result(t, clock.count)

    def _run_component(self, i: int, plans: list, now: int):
        """Evaluate component i to its semi-naive fixpoint."""
        if not plans:
            return
        prune = self.options.pruning
        internal = self.wiring.component_stores[i]
        initial = {id(s): s.delta[:] for s in internal}
        for s in internal:
            s.round = []
        fire = self._fire
        for plan in plans:
            if plan.transient:
                if not (prune and self._pruned(plan, None)):
                    full = plan.full_store
                    fire(plan, plan.full, full.facts.items() if full is not None else ((None, now),), now)
                continue
            for store, fn in plan.drivers:
                d = initial[id(store)] if store.scc == i else store.delta
                if d and not (prune and self._pruned(plan, store)):
                    fire(plan, fn, d, now)
        while True:
            rounds = {id(s): s.round for s in internal if s.round}
            if not rounds:
                break
            for s in internal:
                s.round = []
            for plan in plans:
                for store, fn in plan.drivers:
                    d = rounds.get(id(store))
                    if d:
                        fire(plan, fn, d, now)
        for s in internal:
            s.round = None

    def _fire(self, plan, fn, delta, now: int) -> None:
        """Run one plan function over a delta, count it, insert the heads it derives."""
        out: list = []
        fn(delta, out, now)
        stats = self.stats
        stats["rule_evaluations"] += 1
        stats["delta_facts"] += len(delta)
        stats["derived"] += len(out)
        if out:
            plan.head_store.insert(out)

    def _pruned(self, plan, driver) -> bool:
        """Laser2's pruning: a box atom of the rule holds for no atom: skip the rule."""
        if any(store is not driver and not store.facts for store in plan.box_stores):
            self.stats["pruned"] += 1
            return True
        return False
