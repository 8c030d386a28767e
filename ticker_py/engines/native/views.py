"""How derived predicates feed their views (the windows rules read them through): from their
*moving* facts (derived now, with a horizon) and, with an @-head, their pins ``(atom, U)``, which
become readable once the clock reaches U."""

from __future__ import annotations

from heapq import heappop, heappush
from itertools import count

from ... import ast
from ...windows import first_point
from .store import INF, Clock, end_of, window_end
from .wiring import Wiring

__all__ = ["DerivedViews", "background_at"]


def background_at(bg, n, prev: int, t: int) -> list:
    """Background atoms under an @-window of size n (``None``: unbounded) at the time points
    after ``prev`` up to t, as ``((atom, u), horizon)`` pairs."""
    ends = {u: window_end(u, n) for u in range(max(prev + 1, first_point(t, n)), t + 1)}
    return [((a, u), h) for u, h in ends.items() for a in bg]


class DerivedViews:
    """The listeners that keep derived predicates' views current, and the pins not yet readable."""

    def __init__(self, wiring: Wiring, clock: Clock, changes):
        self.wiring, self.clock, self.changes = wiring, clock, changes
        self.future: list = []  # heap of (U, seq, q, atom): pins not yet readable
        self.pin_seq = count()  # breaks ties in the heap: atoms of mixed types do not compare
        self.pins_now: list = []  # (q, atom) pinned at the current time point
        for q in wiring.intensional:
            self._wire(q)
            if q in wiring.pins:
                self._track_pins(q)

    def _wire(self, q: str) -> None:
        """Feed the views of q from its moving facts and its pins."""
        w, clock = self.wiring, self.clock
        moving, views = w.moving[q], w.views[q]
        pinned = q in w.pins
        nowv = w.now_view[q]
        diamonds = views[ast.DIAMOND]
        ats = views[ast.AT]
        lim = w.horizon_cap[q]
        windows = [(n, store, False) for n, store in diamonds] + [(n, store, True) for n, store in ats]

        if pinned or ats:

            def from_moving(new):
                if pinned:
                    nowv.insert(new)
                    for _n, store in diamonds:
                        store.insert(new)
                if ats:
                    cap = end_of(clock.time)
                    at_pairs = [((a, clock.time), lim(h, cap)) for a, h in new]
                    for _n, store in ats:
                        store.insert(at_pairs)

            moving.listeners.append(from_moving)

        if pinned:

            def from_pins(new):
                """Pins up to now into the now-view (at t) and the windows that cover them."""
                t = clock.time
                cap = end_of(t)
                nowv.insert([(key[0], lim(h, cap)) for key, h in new if key[1] == t])
                for n, store, at in windows:
                    lo = first_point(t, n)
                    pairs = [
                        (key if at else key[0], lim(h, window_end(key[1], n))) for key, h in new if lo <= key[1] <= t
                    ]
                    store.insert(pairs)

            w.pins[q].listeners.append(from_pins)

    def _track_pins(self, q: str) -> None:
        """Pins of q as they appear and expire: the box covers, the pins to read later, the answer."""
        w, clock, changes, views = self.wiring, self.clock, self.changes, self
        bgq = w.background_sets.get(q, frozenset())
        covers = w.covers[q]

        def fresh_pin(keys):
            t = clock.time
            for key in keys:
                u = key[1]
                if covers and key[0] not in bgq:
                    for cover in covers:
                        cover.pinned(key[0], u)
                if u > t:
                    heappush(views.future, (u, next(views.pin_seq), q, key[0]))
                elif u == t:
                    views.pins_now.append((q, key[0]))
                if u != t and key[0] not in bgq:
                    if key in changes.removed_pins:
                        changes.removed_pins.discard(key)
                    else:
                        changes.added_pins.add(key)

        def expired_pin(keys):
            prev = clock.prev_time
            for key in keys:
                if covers and key[0] not in bgq:
                    for cover in covers:
                        cover.pinned(key[0], key[1], -1)
                if key[1] != prev and key[0] not in bgq:
                    changes.removed_pins.add(key)

        pins = w.pins[q]
        pins.on_fresh, pins.on_expire = fresh_pin, expired_pin

    def start(self) -> None:
        """Background atoms of derived predicates hold for ever."""
        w = self.wiring
        for q in w.intensional:
            bg = w.background.get(q)
            if bg:
                w.moving[q].insert([(a, INF) for a in bg])

    def advance(self, t: int) -> None:
        """The clock moved to t: pins become readable, @-views see a new time point, box
        covers slide."""
        w, changes = self.wiring, self.changes
        prev = self.clock.prev_time
        for q, a in self.pins_now:
            if (a, prev) in w.pins[q].facts and a not in w.background_sets.get(q, ()):
                changes.added_pins.add((a, prev))
        self.pins_now = []
        future = self.future
        while future and future[0][0] <= t:
            u, _, q, a = heappop(future)
            store = w.pins[q]
            h = store.facts.get((a, u))
            if h is None:
                continue
            if u == t:
                self.pins_now.append((q, a))
                if a not in w.background_sets.get(q, ()):
                    changes.removed_pins.add((a, u))
            for listener in store.listeners:
                listener([((a, u), h)])
        for q, views in w.views.items():
            if views[ast.AT]:
                cap = end_of(t)
                lim = w.horizon_cap[q]
                pairs = [((a, t), lim(h, cap)) for a, h in w.moving[q].facts.items()]
                bg = w.background.get(q, ())
                for n, store in views[ast.AT]:
                    store.insert(pairs)
                    if bg:
                        store.insert(background_at(bg, n, prev, t))
        for covers in w.covers.values():
            for cover in covers:
                cover.move(t)

    def feed_boxes(self, component: int, now: int) -> None:
        """``q always [n]`` for the derived q of a component just evaluated: q now, and
        pinned at every earlier point of the window."""
        w = self.wiring
        for q, store, cover in w.boxes_of_component.get(component, ()):
            facts = w.now_view[q].facts
            if cover.hi < cover.lo:
                held = facts
            else:
                held = cover.holding(facts)
                bgq = w.background.get(q)
                if bgq:
                    held += [a for a in bgq if a in facts]
            store.insert([(a, now) for a in held])
