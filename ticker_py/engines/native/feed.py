"""Feeding the input stores from the stream: atoms appended, counted for tuple windows, and
given horizons by the windows that read them.

A time-window atom arriving at u holds until ``end_of(u + n)``; a tuple-window atom until
``n - 1`` more atoms arrived (a count horizon); an atom read through a box holds while its
run of consecutive time points covers the window. Background atoms hold for ever, and under
@-windows at every time point (see docs/native.md).
"""

from __future__ import annotations

from itertools import repeat
from typing import Sequence

from ... import ast
from .store import INF, Clock, end_of
from .views import background_at
from .wiring import Wiring

__all__ = ["StreamFeed"]

NOW, DIAMOND, BOX, AT = ast.NOW, ast.DIAMOND, ast.BOX, ast.AT


class StreamFeed:
    """The atoms not yet fed, the recent atoms tuple windows read, and the runs boxes read."""

    def __init__(self, wiring: Wiring, clock: Clock, changes):
        self.wiring, self.clock, self.changes = wiring, clock, changes
        self.pending: list = []        # (t, atoms, index of the first) appended since the last evaluation
        self.recent: list = []         # (t, atom) of the last atoms (tuple windows), from index base
        self.recent_base = 1
        self.runs = {p: ({}, {}, {}) for p in wiring.box_preds}   # last seen, run start, seen at

    def append(self, t: int, atoms: Sequence[tuple]) -> None:
        clock = self.clock
        if t < clock.time:
            raise ValueError(f"time {t} is before the last evaluation time {clock.time}")
        atoms = list(atoms)
        first = clock.count + 1
        clock.count += len(atoms)
        self.pending.append((t, atoms, first))
        if self.wiring.tuple_sources:
            recent = self.recent
            recent.extend(zip(repeat(t), atoms))
            keep = self.wiring.analysis.tuple_lookback
            if len(recent) > 2 * keep + 64:
                drop = len(recent) - keep
                del recent[:drop]
                self.recent_base += drop

    def start(self) -> None:
        """Background atoms of input predicates hold for ever (not under @-windows: see advance)."""
        w = self.wiring
        for p, feeds in w.ext_feeds.items():
            bg = w.background.get(p)
            if bg:
                for mod, n, store in feeds:
                    if mod is not AT:
                        store.insert([(a, INF) for a in (bg if store.accept is None else store.accept(bg))])
        for mod, p, n, store in w.tuple_sources:
            bg = w.background.get(p)
            if bg and mod is not AT:
                store.insert([(a, INF) for a in bg])

    def advance(self, t: int) -> None:
        """The clock moved to t: background atoms under @-windows at the new time points; runs
        that ended before t-1 are forgotten."""
        w = self.wiring
        prev = self.clock.prev_time
        for p, feeds in w.ext_feeds.items():
            bg = w.background.get(p)
            if bg:
                for mod, n, store in feeds:
                    if mod is AT:
                        store.insert(background_at(bg if store.accept is None else store.accept(bg), n, prev, t))
        for p, (last, start, seen) in self.runs.items():
            while seen:
                u = next(iter(seen))
                if u >= t - 1:
                    break
                for a in seen.pop(u):
                    if last.get(a) == u:
                        del last[a]
                        del start[a]

    def feed(self, t: int, now: int) -> None:
        """The atoms appended since the last evaluation, into the stores that read them."""
        pending, self.pending = self.pending, []
        w = self.wiring
        feeds, tfeeds = w.ext_feeds, w.tuple_feeds
        show_all = self.changes.show_all
        for u, atoms, first in pending:
            if tfeeds:
                self._feed_tuple_atoms(u, atoms, first)
            preds = {a[0] for a in atoms}
            if len(preds) == 1:
                groups = ((atoms[0][0], atoms),)
            else:
                by = {}
                for a in atoms:
                    by.setdefault(a[0], []).append(a)
                groups = by.items()
            for p, group in groups:
                for mod, n, store in feeds.get(p, ()):
                    if mod is NOW:
                        h = end_of(t) if u == t else -1
                    elif mod is DIAMOND:
                        h = end_of(u + n)
                    elif mod is AT:
                        h = INF if n is None else end_of(u + n)
                    else:
                        continue
                    if h < now:
                        continue
                    mine = group if store.accept is None else store.accept(group)
                    if mod is AT:
                        store.insert([((a, u), h) for a in mine])
                    else:
                        store.insert(list(zip(mine, repeat(h))))
                if p in self.runs:
                    self._feed_box(p, u, t, group)
            if show_all and u == t:
                self.changes.inputs_now.update(a for a in atoms if a[0] not in w.intensional)

    def _feed_box(self, p, u, t, atoms):
        last, start, seen = self.runs[p]
        arrived = []
        for a in atoms:
            lu = last.get(a)
            if lu == u:
                continue
            if lu != u - 1:
                start[a] = u
            last[a] = u
            arrived.append(a)
        seen.setdefault(u, []).extend(arrived)
        if u != t:
            return
        h = end_of(t)
        for mod, n, store in self.wiring.ext_feeds.get(p, ()):
            if mod is BOX:
                lo = max(0, t - n)
                store.insert([(a, h) for a in arrived if start[a] <= lo])

    def _feed_tuple_atoms(self, u, atoms, first):
        """Atoms entering tuple windows: each holds until ``n - 1`` more atoms arrived."""
        count, tfeeds = self.clock.count, self.wiring.tuple_feeds
        out: dict = {}
        for i, a in enumerate(atoms, first):
            feeds = tfeeds.get(a[0])
            if feeds:
                for mod, n, store in feeds:
                    hc = i + n - 1
                    if hc >= count:
                        out.setdefault(id(store), (store, []))[1].append(
                            ((a, u) if mod is AT else a, (INF, hc)))
        for store, pairs in out.values():
            store.insert(pairs)

    def _window_start(self, n: int) -> tuple:
        """``(index, time)``: the stream index of the oldest atom in a tuple window of n atoms
        and the time its timeline starts at (index 1 and time 0 while fewer atoms arrived)."""
        count = self.clock.count
        if count < n:
            return 1, 0
        f = count - n + 1
        return f, self.recent[f - self.recent_base][0]

    def feed_tuples(self, t: int, advance: bool) -> None:
        """Background atoms under tuple @-windows, and tuple boxes (see docs/native.md)."""
        w, clock = self.wiring, self.clock
        recent, base = self.recent, self.recent_base
        for mod, p, n, store in w.tuple_sources:
            if mod is DIAMOND:
                continue
            f, start = self._window_start(n)
            if mod is AT:
                bg = w.background.get(p)
                if not bg:
                    continue
                lo = max(start, clock.prev_time if advance and clock.prev_time >= 0 else t)
                pairs, j = [], len(recent)
                for u in range(t, lo - 1, -1):
                    while j > 0 and recent[j - 1][0] > u:
                        j -= 1
                    hc = base - 1 + j + n - 1
                    pairs.extend(((a, u), (INF, hc)) for a in bg)
                store.insert(pairs)
                continue
            last, run_start, seen = self.runs[p]
            arrived = seen.get(t)
            if not arrived:
                continue
            first_at_start = set()
            for k in range(f - base, len(recent)):
                u, a = recent[k]
                if u != start:
                    break
                first_at_start.add(a)
            h = (end_of(t), clock.count)
            store.insert([(a, h) for a in set(arrived)
                          if run_start[a] <= start and a in first_at_start])
