"""Feeding the input stores from the stream: atoms appended, counted for tuple windows, and
given the horizons of the windows that read them (docs/native.md, *Horizons*)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import filterfalse, islice, repeat, takewhile
from operator import itemgetter

from ... import ast
from ...windows import first_point, tuple_start
from .store import INF, Clock, end_of, window_end
from .views import background_at
from .wiring import Wiring

__all__ = ["StreamFeed", "Runs"]

NOW, DIAMOND, BOX, AT = ast.NOW, ast.DIAMOND, ast.BOX, ast.AT
_first = itemgetter(0)


class Runs:
    """The runs of consecutive time points of a predicate's atoms, which boxes read, kept as
    sets so that a time point costs what changed: ``start`` maps an atom to the first time
    point of its current run, ``seen[u]`` holds the atoms at u (while a run can continue from
    u), ``started[u]`` the atoms whose run started at u (while a time box of at most ``reach``
    points can see u)."""

    def __init__(self, reach: int):
        self.reach = reach
        self.start: dict = {}
        self.seen: dict = {}
        self.started: dict = {}

    def add(self, u: int, atoms) -> list:
        """Atoms read at u: return those not seen at u before (in order, each once)."""
        seen_u = self.seen.get(u)
        distinct = dict.fromkeys(atoms)
        prev = self.seen.get(u - 1)
        if seen_u is None:
            # set operations on the dict and sets reuse the atoms' hashes (tuples do not keep theirs)
            arrived = list(distinct)
            self.seen[u] = set(distinct)
            starts = arrived if not prev else distinct.keys() - prev
        else:
            arrived = list(filterfalse(seen_u.__contains__, distinct))
            seen_u.update(arrived)
            starts = arrived if not prev else list(filterfalse(prev.__contains__, arrived))
        if starts:
            self.start.update(zip(starts, repeat(u)))
            if self.reach:
                self.started.setdefault(u, set()).update(starts)
        return arrived

    def holding(self, arrived: list, t: int, n: int) -> list:
        """Of atoms arrived at t, those whose run started at or before the window's first point."""
        lo = first_point(t, n)
        young = [s for u, s in self.started.items() if u > lo]
        if not young:
            return arrived
        young = young[0].union(*young[1:])
        return list(filterfalse(young.__contains__, arrived))

    def forget(self, t: int) -> None:
        """The clock moved to t: forget runs that ended before t - 1, and run starts that no
        box can see any more."""
        seen, start, started = self.seen, self.start, self.started
        while seen:
            u = next(iter(seen))
            if u >= t - 1:
                break
            gone = seen.pop(u)
            after = seen.get(u + 1)
            for a in gone - after if after else gone:
                if start.get(a, u + 1) <= u:  # its run ended at u (a later run started after u)
                    del start[a]
        while started:
            u = next(iter(started))
            if u > t - self.reach:
                break
            del started[u]


class StreamFeed:
    """The atoms not yet fed, the recent atoms tuple windows read, and the runs boxes read."""

    def __init__(self, wiring: Wiring, clock: Clock, changes):
        self.wiring, self.clock, self.changes = wiring, clock, changes
        self.pending: list = []  # (t, atoms, index of the first) appended since the last evaluation
        self.recent: list = []  # (t, atom) of the last atoms (tuple windows), from index base
        self.recent_base = 1
        self.runs = {
            p: Runs(max((n for mod, n, _ in wiring.ext_feeds.get(p, ()) if mod is BOX), default=0))
            for p in wiring.box_preds
        }

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
        self._background(False, lambda bg, n: [(a, INF) for a in bg])
        for mod, p, _n, store in w.tuple_sources:
            bg = w.background.get(p)
            if bg and mod is not AT:
                store.insert([(a, INF) for a in bg])

    def advance(self, t: int) -> None:
        """The clock moved to t: background atoms under @-windows at the new time points; runs
        that ended before t-1 are forgotten."""
        prev = self.clock.prev_time
        self._background(True, lambda bg, n: background_at(bg, n, prev, t))
        for runs in self.runs.values():
            runs.forget(t)

    def _background(self, at: bool, pairs) -> None:
        """Background atoms into the stores of time windows, @-windows (``at``) or the others:
        ``pairs(atoms, n)``, those a store accepts, with their horizons."""
        w = self.wiring
        for p, feeds in w.ext_feeds.items():
            bg = w.background.get(p)
            if bg:
                for mod, n, store in feeds:
                    if (mod is AT) == at:
                        store.insert(pairs(bg if store.accept is None else store.accept(bg), n))

    def feed(self, t: int, now: int) -> None:
        """The atoms appended since the last evaluation, into the stores that read them."""
        pending, self.pending = self.pending, []
        w = self.wiring
        feeds, tfeeds = w.ext_feeds, w.tuple_feeds
        show_all = self.changes.show_all
        for u, atoms, first in pending:
            if tfeeds:
                self._feed_tuple_atoms(u, atoms, first)
            if len(set(map(_first, atoms))) == 1:
                groups = ((atoms[0][0], atoms),)
            else:  # per predicate, in arrival order: one pass, no sort
                by: dict = {}
                for a in atoms:
                    by.setdefault(a[0], []).append(a)
                groups = by.items()
            for p, group in groups:
                for mod, n, store in feeds.get(p, ()):
                    if mod is BOX:
                        continue
                    h = window_end(u, n)  # NOW: n is 0, an atom before t ends before now
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
        runs = self.runs[p]
        arrived = runs.add(u, atoms)
        if u != t or not arrived:
            return
        h = end_of(t)
        for mod, n, store in self.wiring.ext_feeds.get(p, ()):
            if mod is BOX:
                store.insert(list(zip(runs.holding(arrived, t, n), repeat(h))))

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
                        out.setdefault(id(store), (store, []))[1].append(((a, u) if mod is AT else a, (INF, hc)))
        for store, pairs in out.values():
            store.insert(pairs)

    def feed_tuples(self, t: int, advance: bool) -> None:
        """Background atoms under tuple @-windows, and tuple boxes (see docs/native.md)."""
        w, clock = self.wiring, self.clock
        recent, base = self.recent, self.recent_base
        for mod, p, n, store in w.tuple_sources:
            if mod is DIAMOND:
                continue
            # the stream index of the window's oldest atom, and the time its timeline starts at
            f, start = tuple_start(clock.count, n, lambda k: recent[k - base][0])  # noqa: B023 - called at once
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
            run_start = self.runs[p].start
            arrived = self.runs[p].seen.get(t)
            if not arrived:
                continue
            # the atoms at the window's start time inside the window
            inside = {a for _, a in takewhile(lambda e: e[0] == start, islice(recent, f - base, None))}  # noqa: B023
            h = (end_of(t), clock.count)
            store.insert([(a, h) for a in set(arrived) if run_start[a] <= start and a in inside])
