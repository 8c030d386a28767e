"""The cells' rows of one time range merged into Results, time point after time point: answer
streams of atom texts (:func:`parsed` gives them atoms again, :func:`rows` the rows ``--out``
writes)."""

from __future__ import annotations

import itertools
import pickle
from collections.abc import Iterable, Iterator

from ..errors import Diagnostic, StreamError
from ..streams.factorized import Factorized, factorized_result
from ..streams.model import Model, Result
from .cell import ERROR, FACTORS, MODEL, NONE, STATE
from .plan import Grid

_NO_ANSWER = Factorized(0, Model(frozenset()))


class _Merger:
    """Turns the key shards' rows of one time point after the other into Results."""

    def __init__(self, shards: int, models: int, base: int = 0):
        self.shards, self.models = shards, models
        self.c = base
        self.mult: dict = {}  # models=1: atom or (atom, T) pin -> number of shards holding it
        self.live: set = set()  # models=1: atoms at t held by some shard
        self.pins: set = set()  # models=1: pins held by some shard
        self.model = None  # models=1: the answer stream at the time point before, while unchanged

    def _add(self, items, live):
        mult = self.mult
        for x in items:
            self.model = None
            n = mult.get(x, 0)
            mult[x] = n + 1
            if n == 0:
                live.add(x)

    def _remove(self, items, live):
        mult = self.mult
        for x in items:
            self.model = None
            n = mult[x] - 1
            if n:
                mult[x] = n
            else:
                del mult[x]
                live.discard(x)

    def result(self, t: int, rows) -> Result:
        """``rows``: ``(shard, model, kind, n, added, removed, pins_added, pins_removed, message)``."""
        none = False
        per_shard = [[] for _ in range(self.shards)]
        factorized = []
        for shard, _model, kind, n, added, removed, pins_added, pins_removed, message in rows:
            self.c += n or 0
            if kind == ERROR:
                raise StreamError(Diagnostic(f"{message.decode()} (in shard {shard})"))
            if kind == FACTORS:
                factorized.append(pickle.loads(message))
                continue
            if kind == NONE:
                none = True
            if kind == STATE or (kind == NONE and self.models == 1):
                self._add(added or (), self.live)
                self._remove(removed or (), self.live)
                self._add(pins_added or (), self.pins)
                self._remove(pins_removed or (), self.pins)
            elif kind == MODEL:
                per_shard[shard].append((frozenset(added or ()), frozenset(pins_added or ())))
        if none:
            return Result(t, self.c, ())
        if factorized:  # the key shards' answer streams are independent: their factors side by side
            if any(f.count == 0 for f in factorized):
                return factorized_result(t, self.c, factorized[0] if len(factorized) == 1 else _NO_ANSWER)
            if len(factorized) == 1:
                return factorized_result(t, self.c, factorized[0], self.models)
            common = Model(
                frozenset().union(*(f.common.atoms for f in factorized)),
                frozenset().union(*(f.common.pinned for f in factorized)),
            )
            combined = Factorized.build(common, [alt for f in factorized for alt in f.factors])
            return factorized_result(t, self.c, combined, self.models)
        if self.models == 1:  # the same Model while nothing changes: its printed texts are kept
            if self.model is None:
                self.model = Model(frozenset(self.live), frozenset(self.pins))
            return Result(t, self.c, (self.model,))
        merged, seen = [], set()
        for combo in itertools.product(*per_shard):
            atoms = frozenset().union(*(m[0] for m in combo))
            pins = frozenset().union(*(m[1] for m in combo))
            if (atoms, pins) not in seen:
                seen.add((atoms, pins))
                merged.append(Model(atoms, pins))
                if self.models and len(merged) == self.models:
                    break
        return Result(t, self.c, tuple(merged))


def merge_shards(
    rows: Iterable[tuple], shards: int, last: int, models: int = 1, first: int = 0, base: int = 0
) -> Iterator[Result]:
    """Merge report rows ``(shard, t, model, kind, ...)`` of one time range sorted by t into
    Results for ``first``..``last``; ``base``: the count c before ``first``.

    Raises the StreamError of an ERROR row after yielding every time point before it.
    """
    merger = _Merger(shards, models, base)
    groups = itertools.groupby(rows, key=lambda r: r[1])
    pending = next(groups, None)
    for t in range(first, last + 1):
        group = ()
        if pending is not None and pending[0] == t:
            group = [(r[0], *r[2:]) for r in pending[1]]
            pending = next(groups, None)
        yield merger.result(t, group)
    if pending is not None:  # rows past `last`: only an error can be there
        merger.result(pending[0], [(r[0], *r[2:]) for r in pending[1]])


def merge_range(grid: Grid, r: int, rows: Iterable[tuple], models: int) -> Iterator[Result]:
    """The Results of time range r from its cells' rows ``(key shard, t, model, kind, ...)`` sorted by t."""
    t0, t1 = grid.ranges[r]
    return merge_shards(rows, grid.key_shards, t1 - 1, models, t0, grid.bases[r])


def _pin_key(text: str) -> tuple:
    atom, _, T = text.rpartition(" at ")
    return int(T), atom


def parsed(result: Result, reader) -> Result:
    """A merged Result whose answer streams hold atom texts, with atoms (``reader``: an
    :class:`~ticker_py.syntax.ground_atoms.AtomReader`) in printed order."""
    if result.factors is not None or not result.models:
        return result

    def model(m):
        pins = frozenset((reader.atom(a), T) for T, a in map(_pin_key, m.pinned))
        return Model(frozenset(map(reader.atom, m.atoms)), pins)

    texts = sorted(result.models, key=lambda m: (sorted(m.atoms), sorted(m.pinned, key=_pin_key)))
    return result.replace(models=tuple(model(m) for m in texts))


def rows(result: Result, r: int) -> Iterator[tuple]:
    """The rows ``--out`` writes for a merged Result of time range r: ``(range, t, c, model, atoms,
    pins, factor, alternative)``; one row without a model where there is no answer stream; with
    factors, the common part (factor 0), then alternative k of factor i."""
    t, c, f = result.t, result.c, result.factors
    if f is not None:
        if not f.count:
            yield r, t, c, None, None, None, None, None
            return
        yield r, t, c, None, f.common.sorted_atoms(), f.common.sorted_pinned(), 0, 0
        for i, alternatives in enumerate(f.factors, 1):
            for k, m in enumerate(alternatives, 1):
                yield r, t, c, None, m.sorted_atoms(), m.sorted_pinned(), i, k
        return
    if not result.models:
        yield r, t, c, None, None, None, None, None
    printed = [_printed(m) for m in result.models]
    for i, (atoms, pins) in enumerate(sorted(printed)):
        yield r, t, c, i, atoms, pins, None, None


_last: list = [None, None]  # the Model printed last and its texts: an answer that stays is sorted once


def _printed(m: Model) -> tuple:
    if _last[0] is not m:
        _last[:] = [m, (sorted(m.atoms), sorted(m.pinned, key=_pin_key))]
    return _last[1]
