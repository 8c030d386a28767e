"""Annotated fact storage: ``instance -> horizon`` with indexes, expiry buckets and deltas.

Horizons are tick keys, ``t * SLOT + j`` for the j-th evaluation at time point t (docs/native.md,
*Horizons*). An instance is a ground atom tuple (``shape="atom"``) or ``(atom, U)`` for atoms read
at a time point (``shape="at"``).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable
from heapq import heappop, heappush
from itertools import compress, repeat
from operator import eq, is_, is_not, itemgetter, lt

from ...windows import last_covering

__all__ = ["Store", "CountedStore", "Clock", "INF", "SLOT", "end_of", "window_end", "acceptor", "atom_key", "Index"]

SLOT = 1 << 32
INF = math.inf  # not an integer: any integer tick key compares below it

_first, _second = itemgetter(0), itemgetter(1)


def _consume(it) -> None:
    """Run an iterator of side effects at C speed."""
    deque(it, maxlen=0)


def end_of(t: int) -> int:
    """The horizon "until the last evaluation at time point t"."""
    return t * SLOT + SLOT - 1


def window_end(u: int, n: int | None):
    """The horizon of what holds at time point u under a time window of reach n (None: for ever)."""
    return INF if n is None else end_of(last_covering(u, n))


class Clock:
    """Where the stream stands: the evaluation time, the one before it, the tick (``now``),
    and how many atoms arrived (``count``)."""

    def __init__(self):
        self.time = -1
        self.prev_time = -1
        self.j = 0
        self.now = -1
        self.count = 0

    def tick(self, t: int) -> bool:
        """Move to the next evaluation, at time t; True if the time point advanced."""
        if t < self.time:
            raise ValueError(f"evaluation time {t} is before {self.time}")
        advance = t > self.time
        self.prev_time = self.time
        self.j = 0 if advance else self.j + 1
        if self.j >= SLOT - 1:
            raise OverflowError("too many evaluations at one time point")
        self.time = t
        self.now = t * SLOT + self.j
        return advance


def atom_key(positions):
    """Index key function for atom instances."""
    return itemgetter(*[p + 1 for p in positions])


def _at_key(positions, arity):
    """Index key function for ``(atom, U)`` instances; position ``arity`` is U."""
    getters = [(lambda x, i=p: x[1]) if p == arity else (lambda x, i=p + 1: x[0][i]) for p in positions]
    if len(getters) == 1:
        return getters[0]
    return lambda x: tuple(g(x) for g in getters)


def acceptor(patterns: list, key: Callable) -> Callable | None:
    """A filter of a list of atoms for the literals reading an input store, whose constants are
    ``patterns`` (position -> value): it keeps the atoms with one literal's constants at the
    positions where every literal has one (``key(positions)`` reads them); None if there are none.
    Plans match constants, so a dropped atom could match none of the literals."""
    common = tuple(sorted(set.intersection(*(set(c) for c in patterns)))) if patterns else ()
    if not common:
        return None
    allowed = frozenset(tuple(c[i] for i in common) if len(common) > 1 else c[common[0]] for c in patterns)
    get, contains = key(common), allowed.__contains__
    return lambda xs: list(compress(xs, map(contains, map(get, xs))))


class Index:
    """A store's instances on some argument positions: ``parts`` maps the value at the *fixed*
    positions (``part(instance)``: the literals' constants; only instances with one are indexed) to
    a dict keyed by the others (``key(instance)``, ``()`` if none); without fixed positions it is
    that one dict. A key with a single instance maps to the instance itself (most join keys are
    unique; plans read ``b if type(b) is dict else (b,)``). Batches are added and removed in C-level
    passes. The dicts are never replaced: plans hold them."""

    __slots__ = ("part", "key", "parts")

    def __init__(self, part: Callable | None, key: Callable | None):
        self.part, self.key, self.parts = part, key, {}

    def _placed(self, insts: list) -> tuple:
        """The instances to index, their dicts (None: the one dict) and their keys."""
        dicts = None
        if self.part is not None:
            dicts = list(map(self.parts.get, map(self.part, insts)))
            kept = list(map(is_not, dicts, repeat(None)))
            if not all(kept):
                insts, dicts = list(compress(insts, kept)), list(compress(dicts, kept))
        keys = list(map(self.key, insts)) if self.key is not None else [()] * len(insts)
        return insts, dicts, keys

    def add(self, insts: list) -> None:
        insts, dicts, keys = self._placed(insts)
        parts = self.parts
        if dicts is None:
            size = len(parts)
            olds = list(map(parts.setdefault, keys, insts))
            if len(parts) - size == len(keys):
                return  # a new key per instance
        else:
            size = sum(map(len, parts.values()))
            olds = list(map(dict.setdefault, dicts, keys, insts))
            if sum(map(len, parts.values())) - size == len(keys):
                return
        for d, k, inst in compress(zip(dicts or repeat(parts), keys, insts), map(is_not, olds, insts)):
            b = d[k]
            if type(b) is dict:
                b[inst] = None
            else:
                d[k] = {b: None, inst: None}

    def remove(self, insts: list) -> None:
        insts, dicts, keys = self._placed(insts)
        if dicts is None:
            olds = list(map(self.parts.pop, keys, repeat(None)))
        else:
            olds = list(map(dict.pop, dicts, keys, repeat(None)))
        if all(map(is_, olds, insts)):
            return  # each instance was alone under its key
        shared: dict = {}  # (id of its dict, key) -> (dict, the dict of its instances, popped here)
        for d, k, inst, b in compress(zip(dicts or repeat(self.parts), keys, insts, olds), map(is_not, olds, insts)):
            if b is None:
                b = shared.get((id(d), k))  # popped for an earlier instance of the batch
                if b is None:
                    continue
                b = b[1]
            elif type(b) is dict:
                shared[(id(d), k)] = (d, b)
            else:
                continue  # the key's lone instance (an equal tuple): popped
            del b[inst]
        for (_, k), (d, b) in shared.items():
            if len(b) > 1:
                d[k] = b
            elif b:
                d[k] = next(iter(b))

    def clear(self) -> None:
        if self.part is None:
            self.parts.clear()
        else:
            for d in self.parts.values():
                d.clear()

    def contents(self) -> dict:
        """``{(fixed value, key): {instance}}`` (for tests and introspection)."""
        parts = {None: self.parts} if self.part is None else self.parts
        return {(v, k): set(b) if type(b) is dict else {b} for v, d in parts.items() for k, b in d.items()}


class Store:
    """Facts of one relation (a predicate under one window/modality) with horizons, the largest per
    instance. New or extended pairs go to ``delta`` (this evaluation), ``round`` (while the store's
    component is iterated) and the ``listeners``; a store no plan probes (``stored=False``) only
    forwards them."""

    counted = False
    batch_min = 16  # a smaller batch goes pair by pair: the whole-batch attempt costs more than it saves

    def __init__(self, name: str, shape: str = "atom", arity: int = 0, scc=None, stored: bool = True):
        self.name, self.shape, self.arity, self.scc = name, shape, arity, scc
        self.stored = stored
        self.facts: dict = {}
        self.indexes: list = []
        self._index_of: dict = {}
        self._keys: dict = {}
        self.buckets: dict = {}
        self.heap: list = []
        self.stale: set = set()  # horizons whose buckets hold instances extended since (to skip at expiry)
        self.before: dict = {}  # id of an extension's pair in this evaluation's delta -> the horizon it extended
        self.delta: list = []
        self.round = None
        self.listeners: list = []
        self.on_fresh = None
        self.on_expire = None
        self.accept = None  # input stores: atoms -> those a literal reading the store can match
        self.batches = True  # whether inserts try the whole-batch path (their batches were new and distinct)

    def __repr__(self) -> str:
        return f"Store({self.name}, {len(self.facts)} facts)"

    def key(self, positions: tuple):
        """The function of an instance to its arguments at ``positions`` (one: the value, else a tuple)."""
        key = self._keys.get(positions)
        if key is None:
            key = self._keys[positions] = (
                atom_key(positions) if self.shape == "atom" else _at_key(positions, self.arity)
            )
        return key

    def index(self, positions: tuple, constants: dict | None = None) -> tuple:
        """The index a literal probes on argument positions ``positions`` (``arity`` = the time of
        an at-instance), ``constants`` (position -> value) among them: ``(dict, key positions)``,
        the dict of the literal's constants in the :class:`Index` the literals probing the same
        positions with constants at the same ones share."""
        consts = constants or {}
        fixed = tuple(p for p in positions if p in consts)
        free = tuple(p for p in positions if p not in consts)
        entry = self._index_of.get((positions, fixed))
        new = entry is None
        if new:
            entry = self._index_of[(positions, fixed)] = Index(
                self.key(fixed) if fixed else None, self.key(free) if free else None
            )
            self.indexes.append(entry)
        if not fixed:
            inner = entry.parts
        else:
            value = consts[fixed[0]] if len(fixed) == 1 else tuple(consts[p] for p in fixed)
            inner = entry.parts.get(value)
            if inner is None:
                inner = entry.parts[value] = {}
                new = True
        if new and self.facts:
            # a literal compiled after facts arrived: index them (adding an indexed one again is a no-op)
            entry.add(list(self.facts))
        return inner, free

    def insert(self, pairs) -> list:
        """Add ``(instance, horizon)`` pairs; return those that are new or extended."""
        if type(pairs) is not list:
            pairs = list(pairs)
        if not self.stored:
            return self._emit(pairs)
        if not pairs:
            return pairs
        facts = self.facts
        if self.batches and len(pairs) >= self.batch_min:
            insts = list(map(_first, pairs))
            if not facts or facts.keys().isdisjoint(insts):
                # every instance is new: whole-batch operations (C loops), unless the batch repeats one
                size = len(facts)
                facts.update(pairs)
                if len(facts) - size == len(pairs):
                    self._bucket_all(pairs, insts)
                    self._indexed(insts)
                    return self._emit(pairs)
                _consume(map(facts.pop, insts, repeat(None)))
            self.batches = False  # this store's batches repeat instances: go pair by pair
        return self._insert_each(pairs)

    def _bucket_all(self, pairs: list, insts: list) -> None:
        """Put facts into their horizons' buckets (in one operation when they share one)."""
        buckets = self.buckets
        h = pairs[0][1]
        if pairs[-1][1] == h and len(set(map(_second, pairs))) == 1:
            b = buckets.get(h)
            if b is None:
                buckets[h] = insts[:]
                heappush(self.heap, h)
            else:
                b.extend(insts)
        else:
            _bucket_each(buckets, self.heap, pairs)

    def _insert_each(self, pairs: list) -> list:
        """The general insert: pair by pair, keeping the largest horizon per instance."""
        facts = self.facts
        setdefault, stale_add, before = facts.setdefault, self.stale.add, self.before
        new, fresh = [], []
        new_append, fresh_append = new.append, fresh.append
        size = len(facts)
        for p in pairs:
            inst, h = p
            old = setdefault(inst, h)
            if len(facts) != size:
                size += 1
                fresh_append(inst)
            elif h > old:
                facts[inst] = h
                stale_add(old)
                before[id(p)] = old
            else:
                continue
            new_append(p)
        if new:
            self._bucket_all(new, list(map(_first, new)))
        if fresh:
            self._indexed(fresh)
            if len(fresh) == len(pairs):
                self.batches = True  # all new and distinct: try whole batches again
        return self._emit(new)

    def _indexed(self, fresh: list) -> None:
        """Index instances new to the store and report them (``on_fresh``)."""
        for entry in self.indexes:
            entry.add(fresh)
        if self.on_fresh is not None:
            self.on_fresh(fresh)

    def _unindexed(self, out: list, everything: bool = False) -> None:
        """Drop deleted instances (``everything`` the store had) from the indexes and report
        them (``on_expire``)."""
        for entry in self.indexes:
            if everything:
                entry.clear()
            else:
                entry.remove(out)
        if self.on_expire is not None:
            self.on_expire(out)

    def _emit(self, new: list) -> list:
        """Pass new or extended pairs on: the delta, the component's round, the listeners."""
        if new:
            self.delta.extend(new)
            if self.round is not None:
                self.round.extend(new)
            for listener in self.listeners:
                listener(new)
        return new

    def expire(self, now: int, count: int = 0) -> list:
        """Drop the facts whose horizon is before tick ``now``; return them."""
        heap = self.heap
        if not heap or heap[0] >= now:
            return []
        facts = self.facts
        if max(heap) < now:
            # every horizon passed: the store empties
            out = list(facts)
            facts.clear()
            self.buckets.clear()
            heap.clear()
            self.stale.clear()
            self._unindexed(out, True)
            return out
        buckets, stale, pop = self.buckets, self.stale, facts.pop
        out: list = []
        while heap[0] < now:
            h = heappop(heap)
            b = buckets.pop(h)
            if h in stale:
                # instances extended since went into later buckets: one pass deletes the whole
                # bucket (one lookup per instance) and puts the extended ones back
                stale.discard(h)
                olds = list(map(pop, b, repeat(-1)))
                # eq/lt, not h.__eq__: an instance extended for ever has the float INF, which an
                # int's own methods do not compare with (NotImplemented)
                if not all(map(eq, repeat(h), olds)):
                    facts.update(compress(zip(b, olds), map(lt, repeat(h), olds)))
                    b = list(compress(b, map(eq, repeat(h), olds)))
            else:
                _consume(map(facts.__delitem__, b))
            if out:
                out.extend(b)
            else:
                out = b
        if out:
            self._unindexed(out)
        return out


def _bucket_each(buckets: dict, heap: list, pairs) -> None:
    """Put ``(instance, key)`` pairs into the buckets of their keys (a new key onto the heap)."""
    lasth, bucket_append = None, None
    for inst, h in pairs:
        if h != lasth:
            b = buckets.get(h)
            if b is None:
                b = buckets[h] = []
                heappush(heap, h)
            lasth, bucket_append = h, b.append
        bucket_append(inst)


def _not_dominated_by(pairs: list, h: tuple) -> list:
    """The pairs that hold longer than ``h`` in at least one component."""
    return [a for a in pairs if a[0] > h[0] or a[1] > h[1]]


class CountedStore(Store):
    """A store of ``(time, count)`` horizons (docs/native.md, *Count horizons*): the current pair
    per fact, and the undominated others as alternatives that take its place when it expires (the
    fact is then emitted again). A plain horizon h is ``(h, INF)``."""

    counted = True

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.alts: dict = {}
        self.cbuckets: dict = {}
        self.cheap: list = []

    def _bucket(self, pairs: list) -> None:
        """Put ``(instance, (time, count))`` pairs into the buckets of both horizons."""
        _bucket_each(self.buckets, self.heap, [(inst, h[0]) for inst, h in pairs])
        _bucket_each(self.cbuckets, self.cheap, [(inst, h[1]) for inst, h in pairs if h[1] < INF])

    def insert(self, pairs) -> list:
        pairs = [p if type(p[1]) is tuple else (p[0], (p[1], INF)) for p in pairs]
        if not self.stored:
            return self._emit(pairs)
        facts, alts = self.facts, self.alts
        new, fresh = [], []
        for p in pairs:
            inst, h = p
            old = facts.get(inst)
            if old is None:
                facts[inst] = h
                fresh.append(inst)
            elif h[0] >= old[0] and h[1] >= old[1]:
                if h == old:
                    continue
                facts[inst] = h
                others = alts.get(inst)
                if others:
                    others[:] = _not_dominated_by(others, h)
            elif h[0] <= old[0] and h[1] <= old[1]:
                continue
            else:
                others = alts.setdefault(inst, [])
                if any(a[0] >= h[0] and a[1] >= h[1] for a in others):
                    continue
                others[:] = _not_dominated_by(others, h)
                others.append(h)
                continue
            new.append(p)
        self._bucket(new)
        if fresh:
            self._indexed(fresh)
        return self._emit(new)

    def expire(self, now: int, count: int = 0) -> list:
        due = []
        heap, buckets = self.heap, self.buckets
        while heap and heap[0] < now:
            due.extend(buckets.pop(heappop(heap)))
        heap, buckets = self.cheap, self.cbuckets
        while heap and heap[0] < count:
            due.extend(buckets.pop(heappop(heap)))
        if not due:
            return []
        facts, alts = self.facts, self.alts
        out, promoted = [], []
        for inst in due:
            h = facts.get(inst)
            if h is None or (h[0] >= now and h[1] >= count):
                continue  # gone already, or a stale bucket entry
            others = alts.pop(inst, None)
            if others:
                valid = [a for a in others if a[0] >= now and a[1] >= count]
                if valid:
                    best = max(valid)
                    valid.remove(best)
                    if valid:
                        alts[inst] = valid
                    facts[inst] = best
                    promoted.append((inst, best))
                    continue
            del facts[inst]
            out.append(inst)
        if out:
            self._unindexed(out)
        self._bucket(promoted)
        self._emit(promoted)
        return out
