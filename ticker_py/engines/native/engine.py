"""The native engine: Laser-style annotated, semi-naive evaluation of positive and
stratified LARS programs (see docs/native.md).

Every relation a rule reads (a predicate under one window and modality) is a
:class:`Store` of facts annotated with horizons. At each evaluation only what is new
flows: the atoms appended since the last evaluation, facts whose horizon was extended,
and facts the clock makes readable (pins reaching their time point). Components of
the dependency graph are evaluated in order, each to a semi-naive fixpoint; expired
facts leave their stores through horizon buckets, and the answer is maintained as
deltas.
"""

from __future__ import annotations

from heapq import heappop, heappush
from itertools import count, repeat
from typing import Sequence

from ... import ast
from ...analysis import Analysis
from ...errors import Diagnostic, EngineUnsupported
from ...streams.model import Model, Result
from ..base import Engine, EngineOptions
from .boxes import PinCover
from .plan import Literal, compile_rule
from .store import INF, SLOT, CountedStore, Store, end_of

__all__ = ["NativeEngine", "counted_predicates"]


def capped(h: int, cap: int) -> int:
    return h if h < cap else cap


def capped_pair(h: tuple, cap: int) -> tuple:
    return (h[0] if h[0] < cap else cap, h[1])


def counted_predicates(rules, intensional) -> set:
    """The derived predicates whose facts can hold by count: a rule for them reads a
    tuple window or another such predicate in a positive body literal."""
    counted: set = set()
    changed = True
    while changed:
        changed = False
        for r in rules:
            q = r.head.atom.predicate
            if q in counted:
                continue
            for lit in r.body:
                if lit.negated or lit.is_comparison:
                    continue
                el = lit.element
                p = el.atom.predicate
                if p in counted or (p not in intensional and el.window is not None and el.window.is_tuple):
                    counted.add(q)
                    changed = True
                    break
    return counted


class NativeEngine(Engine):
    """Annotation-based incremental evaluation (positive and stratified programs)."""

    name = "native"

    def __init__(self, analysis: Analysis, options: EngineOptions = EngineOptions()):
        self.analysis, self.options = analysis, options
        self.stats = {"rule_evaluations": 0, "pruned": 0, "delta_facts": 0}
        self.sigs = analysis.signatures
        self.intensional = analysis.intensional
        self.bg: dict = {}
        for atom in analysis.background:
            self.bg.setdefault(atom[0], []).append(atom)
        self.bg_sets = {p: frozenset(v) for p, v in self.bg.items()}
        rules = [r for r in analysis.program.proper_rules]
        for r in rules:
            if r.head is None:
                raise EngineUnsupported(Diagnostic("the native engine cannot run constraints", r.location))
        self.scc_of = {p: i for i, comp in enumerate(analysis.strata) for p in comp}
        pinned = {r.head.atom.predicate for r in rules if r.head.time is not None}
        self.pinned_preds = pinned
        self.counted = counted_predicates(rules, self.intensional)
        # how a view of q caps a horizon at a tick (pairs for counted q)
        self.cap_of = {q: capped_pair if q in self.counted else capped for q in self.intensional}
        self.stores: list = []
        self.sources: dict = {}
        self.moving, self.pins, self.now_view = {}, {}, {}
        self.ext_feeds: dict = {}      # predicate -> [(kind, n, store)]
        self.box_preds: set = set()
        self.tuple_sources: list = []
        self.tuple_feeds: dict = {}    # predicate -> [(kind, n, store)] of its tuple diamonds and @s
        self.int_views: dict = {}      # predicate -> {"diamond": [(n, store)], "at": [...], "box": [...]}
        for q in sorted(self.intensional):
            scc = self.scc_of[q]
            arity = self.sigs[q]
            c = q in self.counted
            self.moving[q] = self._store(f"{q}", "atom", arity, scc, counted=c)
            self.int_views[q] = {"diamond": [], "at": [], "box": []}
            if q in pinned:
                self.pins[q] = self._store(f"{q}@", "at", arity, scc, counted=c)
                self.now_view[q] = self._store(f"now {q}", "atom", arity, scc, counted=c)
            else:
                self.now_view[q] = self.moving[q]
        self.plans = [[] for _ in analysis.strata]
        for r in rules:
            self.plans[self.scc_of[r.head.atom.predicate]].append(self._compile(r))
        for q in self.intensional:
            self._wire_views(q)
        self.internal = [[s for s in self.stores if s.scc == i] for i in range(len(self.plans))]
        self.sccs_with_box = {}
        self.pinned_at = {q: {} for q in self.intensional}   # q -> u -> atoms pinned at u
        self.covers = {q: [] for q in self.intensional}
        for q, views in self.int_views.items():
            for n, store in views["box"]:
                cover = PinCover(n, self.pinned_at[q])
                self.covers[q].append(cover)
                self.sccs_with_box.setdefault(self.scc_of[q], []).append((q, store, cover))
        # stream state
        self.count = 0
        self.pending: list = []
        self.recent: list = []         # (t, atom) of the last atoms (tuple windows), from index base
        self.recent_base = 1
        self.runs = {p: ({}, {}, {}) for p in self.box_preds}   # last seen, run start, seen at
        self.time = -1
        self.j = 0
        self.now = -1
        self.started = False
        self.future: list = []         # heap of (U, seq, q, atom) pins not yet readable
        self.pin_seq = count()         # breaks ties in the heap: atoms of mixed types do not compare
        self.pins_now: list = []
        self.out_now: set = set()
        self.out_pins: set = set()
        self.shown_inputs: set = set()
        self.show_all = options.show == "all"
        self.ext_bg = frozenset(a for p, v in self.bg.items() if p not in self.intensional for a in v)
        self.prev_time = -1
        for q in self.intensional:
            self._track_output(q)

    # ------------------------------------------------------------ construction

    def _store(self, name, shape, arity, scc=None, stored=True, counted=False) -> Store:
        s = (CountedStore if counted else Store)(name, shape, arity, scc, stored)
        self.stores.append(s)
        return s

    def _source(self, el: ast.ExtendedAtom, used_as_delta_only: bool) -> tuple:
        """The store an extended atom reads, and whether it is a box."""
        p = el.atom.predicate
        arity = self.sigs[p]
        n = None if el.window is None else self.analysis.size(el.window)
        mod = el.modality
        if p in self.intensional:
            if mod == ast.NOW or (mod in (ast.DIAMOND, ast.BOX) and n == 0):
                return self.now_view[p], False
            if mod == ast.DIAMOND and p not in self.pinned_preds:
                return self.moving[p], False
            kind = {ast.DIAMOND: "diamond", ast.AT: "at", ast.BOX: "box"}[mod]
            key = ("int", kind, p, n)
            if key not in self.sources:
                shape = "at" if kind == "at" else "atom"
                store = self.sources[key] = self._store(f"{p} {kind} {n}", shape, arity, self.scc_of[p],
                                                        counted=p in self.counted)
                self.int_views[p][kind].append((n, store))
            return self.sources[key], mod == ast.BOX
        if el.window is not None and el.window.is_tuple:
            kind = {ast.DIAMOND: "tdiamond", ast.AT: "tat", ast.BOX: "tbox"}[mod]
        elif mod == ast.NOW or (mod in (ast.DIAMOND, ast.BOX) and n == 0):
            kind, n = "now", 0
        else:
            kind = {ast.DIAMOND: "diamond", ast.AT: "at", ast.BOX: "box"}[mod]
        key = ("ext", kind, p, n)
        store = self.sources.get(key)
        if store is None:
            shape = "at" if kind in ("at", "tat") else "atom"
            tuple_kind = kind.startswith("t")
            store = self.sources[key] = self._store(f"{p} {kind} {n}", shape, arity, None, stored=False,
                                                    counted=tuple_kind)
            if tuple_kind:
                self.tuple_sources.append((kind, p, n, store))
                if kind == "tbox":
                    self.box_preds.add(p)
                else:
                    self.tuple_feeds.setdefault(p, []).append((kind, n, store))
            else:
                self.ext_feeds.setdefault(p, []).append((kind, n, store))
                if kind == "box":
                    self.box_preds.add(p)
        if not used_as_delta_only:
            store.stored = True
        return store, mod == ast.BOX

    def _compile(self, rule: ast.Rule):
        for term in rule.head.atom.args + ((rule.head.time,) if rule.head.time is not None else ()):
            if isinstance(term, ast.Interval) or any(isinstance(a, ast.Interval) for a in getattr(term, "args", ())):
                raise EngineUnsupported(Diagnostic(f"the native engine cannot run rule '{rule}'", rule.location,
                                                   ("intervals are supported in facts only",)))
        positives = [l for l in rule.body if not l.negated and not l.is_comparison]
        negated = any(l.negated for l in rule.body)
        single = len(positives) == 1 and not negated
        body = []
        for lit in rule.body:
            if lit.is_comparison:
                body.append((lit.element, lit.negated))
                continue
            el = lit.element
            # a store is only a delta feed if this is its rule's sole positive literal
            store, box = self._source(el, used_as_delta_only=single and not lit.negated)
            body.append(Literal(store, el.atom, el.time, lit.negated, box))
        head = rule.head
        q = head.atom.predicate
        target = self.pins[q] if head.time is not None else self.moving[q]
        plan = compile_rule(rule, body, target)
        if plan.transient and plan.full_store is not None:
            plan.full_store.stored = True
        return plan

    def _wire_views(self, q: str):
        """Feed the views of derived predicate q from its moving facts and its pins."""
        moving, views = self.moving[q], self.int_views[q]
        pinned = q in self.pins
        nowv = self.now_view[q]
        diamonds = views["diamond"]
        ats = views["at"]
        engine = self
        lim = self.cap_of[q]

        if pinned or ats:
            def from_moving(new):
                if pinned:
                    nowv.insert(new)
                    for n, store in diamonds:
                        store.insert(new)
                if ats:
                    cap = end_of(engine.time)
                    at_pairs = [((a, engine.time), lim(h, cap)) for a, h in new]
                    for n, store in ats:
                        store.insert(at_pairs)
            moving.listeners.append(from_moving)

        if pinned:
            def from_pins(new):
                t = engine.time
                now_pairs, dia = [], [[] for _ in diamonds]
                at = [[] for _ in ats]
                last = SLOT - 1
                for p in new:
                    key, h = p
                    u = key[1]
                    if u > t:
                        continue
                    a = key[0]
                    if u == t:
                        now_pairs.append((a, lim(h, t * SLOT + last)))
                    for i, (n, store) in enumerate(diamonds):
                        if u >= t - n:
                            dia[i].append((a, lim(h, (u + n) * SLOT + last)))
                    for i, (n, store) in enumerate(ats):
                        if n is None:
                            at[i].append(p)
                        elif u >= t - n:
                            at[i].append((key, lim(h, (u + n) * SLOT + last)))
                if now_pairs:
                    nowv.insert(now_pairs)
                for (n, store), pairs in zip(diamonds, dia):
                    if pairs:
                        store.insert(pairs)
                for (n, store), pairs in zip(ats, at):
                    if pairs:
                        store.insert(pairs)
            self.pins[q].listeners.append(from_pins)

    def _track_output(self, q: str):
        """Record changes of the answer: now-atoms of q and its pins."""
        engine = self

        def fresh_now(atoms):
            rem = engine.removed_now
            if rem:
                s = set(atoms)
                back = s & rem
                rem -= back
                engine.added_now |= s - back
            else:
                engine.added_now.update(atoms)

        def expired_now(atoms):
            engine.removed_now.update(atoms)

        nowv = self.now_view[q]
        nowv.on_fresh, nowv.on_expire = fresh_now, expired_now
        if q not in self.pins:
            return
        bgq = self.bg_sets.get(q, frozenset())

        pinned_at, covers = self.pinned_at[q], self.covers[q]

        def fresh_pin(keys):
            t = engine.time
            for key in keys:
                u = key[1]
                if covers and key[0] not in bgq:
                    pinned_at.setdefault(u, set()).add(key[0])
                    for cover in covers:
                        cover.pinned(key[0], u)
                if u > t:
                    heappush(engine.future, (u, next(engine.pin_seq), q, key[0]))
                elif u == t:
                    engine.pins_now.append((q, key[0]))
                if u != t and key[0] not in bgq:
                    if key in engine.removed_pins:
                        engine.removed_pins.discard(key)
                    else:
                        engine.added_pins.add(key)

        def expired_pin(keys):
            prev = engine.prev_time
            for key in keys:
                if covers and key[0] not in bgq:
                    u = key[1]
                    at = pinned_at[u]
                    at.discard(key[0])
                    if not at:
                        del pinned_at[u]
                    for cover in covers:
                        cover.unpinned(key[0], u)
                if key[1] != prev and key[0] not in bgq:
                    engine.removed_pins.add(key)

        pins = self.pins[q]
        pins.on_fresh, pins.on_expire = fresh_pin, expired_pin

    # ------------------------------------------------------------ the stream

    def append(self, t: int, atoms: Sequence[tuple]) -> None:
        if not atoms:
            return
        if t < self.time:
            raise ValueError(f"time {t} is before the last evaluation time {self.time}")
        atoms = list(atoms)
        first = self.count + 1
        self.count += len(atoms)
        self.pending.append((t, atoms, first))
        if self.tuple_sources:
            recent = self.recent
            recent.extend(zip(repeat(t), atoms))
            keep = self.analysis.tuple_lookback
            if len(recent) > 2 * keep + 64:
                drop = len(recent) - keep
                del recent[:drop]
                self.recent_base += drop

    def evaluate(self, t: int) -> Result:
        if t < self.time:
            raise ValueError(f"evaluation time {t} is before {self.time}")
        advance = t > self.time
        self.prev_time = self.time
        self.j = 0 if advance else self.j + 1
        if self.j >= SLOT - 1:
            raise OverflowError("too many evaluations at one time point")
        self.time = t
        now = self.now = t * SLOT + self.j
        self.added_now, self.removed_now = set(), set()
        self.added_pins, self.removed_pins = set(), set()
        for s in self.stores:
            s.delta = []
        # only then expire: a counted fact that falls back on an alternative pair is emitted
        # again as a delta, into its own store and the views it feeds
        count = self.count
        for s in self.stores:
            s.expire(now, count)
        if not self.started:
            self._start()
        if advance:
            self._advance(t)
            for covers in self.covers.values():
                for cover in covers:
                    cover.move(t)
        self.inputs_now = set()
        self._feed_inputs(t, now)
        if self.show_all:
            self._show_inputs_changes(advance)
        self._feed_tuples(t, advance)
        for i, plans in enumerate(self.plans):
            self._run_component(i, plans, now)
            for q, store, cover in self.sccs_with_box.get(i, ()):
                self._feed_int_box(q, store, cover, now)
        return self._result(t)

    def _start(self):
        self.started = True
        for p, feeds in self.ext_feeds.items():
            bg = self.bg.get(p)
            if bg:
                for kind, n, store in feeds:
                    if kind != "at":
                        store.insert([(a, INF) for a in bg])
        for kind, p, n, store in self.tuple_sources:
            bg = self.bg.get(p)
            if bg and kind != "tat":
                store.insert([(a, INF) for a in bg])
        for q in self.intensional:
            bg = self.bg.get(q)
            if bg:
                self.moving[q].insert([(a, INF) for a in bg])

    def _advance(self, t: int):
        """The clock moved to t: pins become readable, @-windows see a new time point."""
        prev = self.prev_time
        for q, a in self.pins_now:
            if (a, prev) in self.pins[q].facts and a not in self.bg_sets.get(q, ()):
                self.added_pins.add((a, prev))
        self.pins_now = []
        future = self.future
        while future and future[0][0] <= t:
            u, _, q, a = heappop(future)
            store = self.pins[q]
            h = store.facts.get((a, u))
            if h is None:
                continue
            if u == t:
                self.pins_now.append((q, a))
                if a not in self.bg_sets.get(q, ()):
                    self.removed_pins.add((a, u))
            for listener in store.listeners:
                listener([((a, u), h)])
        for p, feeds in self.ext_feeds.items():
            bg = self.bg.get(p)
            if bg:
                for kind, n, store in feeds:
                    if kind == "at":
                        store.insert(self._bg_at(bg, n, prev, t))
        for q, views in self.int_views.items():
            if views["at"]:
                moving = self.moving[q]
                cap = end_of(t)
                lim = self.cap_of[q]
                pairs = [((a, t), lim(h, cap)) for a, h in moving.facts.items()]
                bg = self.bg.get(q, ())
                for n, store in views["at"]:
                    store.insert(pairs)
                    if bg:
                        store.insert(self._bg_at(bg, n, prev, t))
        for p, (last, start, seen) in self.runs.items():
            while seen:
                u = next(iter(seen))
                if u >= t - 1:
                    break
                for a in seen.pop(u):
                    if last.get(a) == u:
                        del last[a]
                        del start[a]

    @staticmethod
    def _bg_at(bg, n, prev, t):
        lo = max(prev + 1, 0 if n is None else t - n, 0)
        out = []
        for u in range(lo, t + 1):
            h = INF if n is None else end_of(u + n)
            out.extend(((a, u), h) for a in bg)
        return out

    def _feed_inputs(self, t: int, now: int):
        pending, self.pending = self.pending, []
        feeds = self.ext_feeds
        tfeeds = self.tuple_feeds
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
                for kind, n, store in feeds.get(p, ()):
                    if kind == "now":
                        if u == t:
                            store.insert(list(zip(group, repeat(end_of(t)))))
                    elif kind == "diamond":
                        h = end_of(u + n)
                        if h >= now:
                            store.insert(list(zip(group, repeat(h))))
                    elif kind == "at":
                        h = INF if n is None else end_of(u + n)
                        if h >= now:
                            store.insert([((a, u), h) for a in group])
                if p in self.runs:
                    self._feed_box(p, u, t, group)
            if self.show_all and u == t:
                self.inputs_now.update(a for a in atoms if a[0] not in self.intensional)

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
        for kind, n, store in self.ext_feeds.get(p, ()):
            if kind == "box":
                lo = max(0, t - n)
                store.insert([(a, h) for a in arrived if start[a] <= lo])

    def _feed_tuple_atoms(self, u, atoms, first):
        """Atoms entering tuple windows: each holds until ``n - 1`` more atoms arrived."""
        count, tfeeds = self.count, self.tuple_feeds
        out: dict = {}
        for i, a in enumerate(atoms, first):
            feeds = tfeeds.get(a[0])
            if feeds:
                for kind, n, store in feeds:
                    hc = i + n - 1
                    if hc >= count:
                        out.setdefault(id(store), (store, []))[1].append(
                            ((a, u) if kind == "tat" else a, (INF, hc)))
        for store, pairs in out.values():
            store.insert(pairs)

    def _window_start(self, n: int) -> tuple:
        """``(index, time)``: the stream index of the oldest atom in a tuple window of n atoms
        and the time its timeline starts at (index 1 and time 0 while fewer atoms arrived)."""
        if self.count < n:
            return 1, 0
        f = self.count - n + 1
        return f, self.recent[f - self.recent_base][0]

    def _feed_tuples(self, t: int, advance: bool):
        """Background atoms under tuple @-windows, and tuple boxes (see docs/native.md)."""
        recent, base = self.recent, self.recent_base
        for kind, p, n, store in self.tuple_sources:
            if kind == "tdiamond":
                continue
            f, start = self._window_start(n)
            if kind == "tat":
                bg = self.bg.get(p)
                if not bg:
                    continue
                lo = max(start, self.prev_time if advance and self.prev_time >= 0 else t)
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
            h = (end_of(t), self.count)
            store.insert([(a, h) for a in set(arrived)
                          if run_start[a] <= start and a in first_at_start])

    def _feed_int_box(self, q, store, cover, now):
        """``q always [n]`` for derived q: q now, and pinned at every earlier point."""
        facts = self.now_view[q].facts
        if cover.hi < cover.lo:
            held = facts
        else:
            held = cover.holding(facts)
            bgq = self.bg.get(q)
            if bgq:
                held += [a for a in bgq if a in facts]
        store.insert([(a, now) for a in held])

    # ------------------------------------------------------------ rules

    def _run_component(self, i: int, plans: list, now: int):
        if not plans:
            return
        stats = self.stats
        prune = self.options.pruning
        internal = self.internal[i]
        initial = {id(s): s.delta[:] for s in internal}
        for s in internal:
            s.round = []
        out: list = []
        for plan in plans:
            if plan.transient:
                if prune and self._pruned(plan, None):
                    continue
                d = plan.full_store.facts.items() if plan.full_store is not None else ((None, now),)
                plan.full(d, out, now)
                stats["rule_evaluations"] += 1
                stats["delta_facts"] += len(d)
                if out:
                    plan.head_store.insert(out)
                    out = []
                continue
            for store, fn in plan.drivers:
                d = initial[id(store)] if store.scc == i else store.delta
                if not d:
                    continue
                if prune and self._pruned(plan, store):
                    continue
                fn(d, out, now)
                stats["rule_evaluations"] += 1
                stats["delta_facts"] += len(d)
                if out:
                    plan.head_store.insert(out)
                    out = []
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
                        fn(d, out, now)
                        stats["rule_evaluations"] += 1
                        stats["delta_facts"] += len(d)
                        if out:
                            plan.head_store.insert(out)
                            out = []
        for s in internal:
            s.round = None

    def _pruned(self, plan, driver) -> bool:
        """Laser2's pruning: a box atom of the rule holds for no atom: skip the rule."""
        for store in plan.box_stores:
            if store is not driver and not store.facts:
                self.stats["pruned"] += 1
                return True
        return False

    # ------------------------------------------------------------ output

    def _result(self, t: int) -> Result:
        added = self.added_now | self.added_pins
        removed = self.removed_now | self.removed_pins
        models = None
        if not self.options.changes_only:
            self.out_now -= self.removed_now
            self.out_now |= self.added_now
            self.out_pins -= self.removed_pins
            self.out_pins |= self.added_pins
            models = (Model(frozenset(self.out_now), frozenset(self.out_pins)),)
        return Result(t, self.count, models, (frozenset(added), frozenset(removed)))

    def _show_inputs_changes(self, advance: bool):
        """With show=all: input atoms at t and background of extensional predicates."""
        if self.prev_time < 0 and advance:
            for p, atoms in self.bg.items():
                if p not in self.intensional:
                    self.added_now.update(atoms)
        current = self.inputs_now if advance else self.shown_inputs | self.inputs_now
        ext_bg = self.ext_bg
        self.removed_now |= (self.shown_inputs - current) - ext_bg
        self.added_now |= (current - self.shown_inputs) - ext_bg
        self.shown_inputs = current
