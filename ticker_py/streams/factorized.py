"""Factorized answers: the answer streams at a tick as a common part times independent choices.

>>> from ticker_py.streams.model import Model
>>> f = Factorized.build(Model(frozenset({("a",)})),
...                      [[Model(frozenset({("b",)})), Model(frozenset({("c",)}))],
...                       [Model(frozenset({("d",)})), Model(frozenset())]])
>>> f.count, len(f.factors)
(4, 2)
>>> sorted(sorted(m.sorted_atoms()) for m in f.models())
[['a', 'b'], ['a', 'b', 'd'], ['a', 'c'], ['a', 'c', 'd']]
>>> f.cautious().sorted_atoms(), f.brave().sorted_atoms()
(['a'], ['a', 'b', 'c', 'd'])

Factors share no atom, so distinct choices give distinct answer streams.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import islice, product
from math import prod

from .model import Model, Result

__all__ = [
    "Factorized",
    "LazyModels",
    "MappedModels",
    "ModelProduct",
    "with_factors",
    "factorized_result",
    "note_fallback",
    "JSON_SAFE",
]

log = logging.getLogger("ticker_py.factorize")

#: counts up to this are JSON numbers; larger ones are written as strings (JavaScript's safe range)
JSON_SAFE = 2**53

_EMPTY = Model(frozenset())


def _join(parts) -> Model:
    atoms, pinned = set(), set()
    for m in parts:
        atoms |= m.atoms
        pinned |= m.pinned
    return Model(frozenset(atoms), frozenset(pinned))


def _minus(m: Model, common: Model) -> Model:
    return Model(m.atoms - common.atoms, m.pinned - common.pinned)


@dataclass(frozen=True)
class Factorized:
    """``count`` answer streams (0: none): ``common`` joined with one alternative of each of
    ``factors``, a tuple of factors, each a tuple of at least two distinct alternatives
    (:class:`Model` parts), both in printed order (:meth:`Model.printed_key`).
    """

    count: int
    common: Model
    factors: tuple = ()

    @classmethod
    def build(cls, common: Model, factors: Iterable[Iterable[Model]]) -> Factorized:
        """Normalise: atoms in every alternative of a factor and one-alternative factors moved into
        ``common``, alternatives deduplicated, factors that share an atom multiplied out into one; an
        empty factor means no answer stream."""
        factors = [list(f) for f in factors]
        if any(not f for f in factors):
            return NONE
        fixed = [f[0] for f in factors if len(f) == 1]
        if fixed:
            common = _join([common] + fixed)
        out, owner = [], {}
        for f in factors:
            if len(f) == 1:
                continue
            shared = Model(
                frozenset.intersection(*(m.atoms for m in f)), frozenset.intersection(*(m.pinned for m in f))
            )
            if shared.atoms or shared.pinned:  # in every alternative: common (cautious = common)
                common = _join([common, shared])
            alts = tuple(dict.fromkeys(_minus(m, common) for m in f))
            if len(alts) < 2:
                common = _join([common, alts[0]])
                continue
            keys = {x for m in alts for x in (*m.atoms, *m.pinned)}
            clash = {owner[x] for x in keys if x in owner}
            for i in sorted(clash, reverse=True):  # shared atoms: multiply into one factor
                alts = tuple(dict.fromkeys(_join(p) for p in product(out[i], alts)))
                out[i] = ()
            for x in {x for m in alts for x in (*m.atoms, *m.pinned)}:
                owner[x] = len(out)
            out.append(alts)
        out = tuple(f for f in out if f)
        if any(m.atoms & common.atoms or m.pinned & common.pinned for f in out for m in f):
            return cls.build(common, out)  # a collapsed factor shared atoms with another
        return cls(prod(len(f) for f in out), common, _in_printed_order(out))

    @classmethod
    def from_models(cls, models: Iterable[Model]) -> Factorized:
        """The trivial factorization of plain models: one factor (none for a single model)."""
        return cls.build(_EMPTY, [list(models)])

    def models(self, limit: int = 0) -> ModelProduct:
        """The answer streams expanded, lazily (the first ``limit`` of them if ``limit`` > 0)."""
        return ModelProduct(self, limit)

    def brave(self) -> Model:
        """The atoms in some answer stream (empty if there is none)."""
        return _join([self.common] + [m for f in self.factors for m in f])

    def cautious(self) -> Model:
        """The atoms in every answer stream (empty if there is none)."""
        return self.common

    def printed(self, show_at: bool = False) -> Factorized:
        """This result as printed: pins dropped unless ``show_at`` (answer streams that print the
        same are one)."""
        if show_at or not (self.common.pinned or any(m.pinned for f in self.factors for m in f)):
            return self
        strip = lambda m: Model(m.atoms) if m.pinned else m  # noqa: E731
        return Factorized.build(strip(self.common), [[strip(m) for m in f] for f in self.factors])


def _in_printed_order(factors) -> tuple:
    """The factors and, in each, the alternatives in printed order (:meth:`Model.printed_key`)."""
    key = functools.cache(Model.printed_key)
    ordered = [tuple(sorted(f, key=key)) for f in factors]
    return tuple(sorted(ordered, key=lambda f: [key(m) for m in f]))


#: no answer stream
NONE = Factorized(0, _EMPTY, ())


class LazyModels(Sequence):
    """Answer streams built on demand: a sequence of :class:`Model` equal to the tuple of them."""

    def __eq__(self, other) -> bool:
        if isinstance(other, (tuple, list, LazyModels)):
            return len(other) == len(self) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    def __hash__(self):
        return hash(tuple(self))

    def __add__(self, other):
        return tuple(self) + tuple(other)

    def __radd__(self, other):
        return tuple(other) + tuple(self)


class MappedModels(LazyModels):
    """``make(answer)`` for each of ``answers``, made when read (never kept)."""

    def __init__(self, answers: Sequence, make):
        self.answers, self.make = answers, make

    def __len__(self) -> int:
        return len(self.answers)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return tuple(map(self.make, self.answers[index]))
        return self.make(self.answers[index])

    def __iter__(self):
        return map(self.make, self.answers)

    def __reduce__(self):  # pickled (and deep-copied) as the plain tuple: ``make`` may hold an engine
        return tuple, (tuple(self),)

    def __repr__(self) -> str:
        return f"MappedModels({len(self)} answer streams)"


class ModelProduct(LazyModels):
    """The answer streams of a :class:`Factorized`, expanded on demand in printed order (the last
    factor varies fastest)."""

    def __init__(self, factorized: Factorized, limit: int = 0):
        self.factorized = factorized
        self.size = factorized.count if limit <= 0 else min(limit, factorized.count)

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index):
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(self.size)))
        if index < 0:
            index += self.size
        if not 0 <= index < self.size:
            raise IndexError(index)
        f = self.factorized
        picks = []
        for factor in reversed(f.factors):
            index, k = divmod(index, len(factor))
            picks.append(factor[k])
        return _join([f.common] + picks)

    def __iter__(self):
        f = self.factorized
        if not self.size:
            return iter(())
        it = (_join((f.common,) + p) for p in product(*f.factors))
        return islice(it, self.size) if self.size < f.count else it

    def __eq__(self, other) -> bool:
        if isinstance(other, ModelProduct):
            return self.factorized == other.factorized and self.size == other.size
        return super().__eq__(other)

    def __hash__(self):
        return hash((self.factorized, self.size))

    def __repr__(self) -> str:
        return f"Factorized.models({self.factorized!r}, {self.size})"


def factorized_result(t: int, c: int, factorized: Factorized, limit: int = 0) -> Result:
    """A :class:`Result` carrying ``factorized``; its ``models`` expand it lazily (the first
    ``limit`` if ``limit`` > 0)."""
    return Result(t, c, factorized.models(limit), None, factorized)


def with_factors(result: Result, limit: int = 0) -> Result:
    """``result`` with its models the first ``limit`` (0: all) of its factorization (or the trivial
    one of its models)."""
    factors = result.factors
    if factors is None:
        factors = Factorized.from_models(result.models)
    elif len(result.models) == (factors.count if limit <= 0 else min(limit, factors.count)):
        return result
    return factorized_result(result.t, result.c, factors, limit)


#: (engine, reason) pairs already noted by :func:`note_fallback`
NOTED: set = set()


def note_fallback(engine: str, why: str) -> None:
    """Log once per engine and reason that factorizing fell back to enumerating."""
    if (engine, why) not in NOTED:
        NOTED.add((engine, why))
        log.info("note: %s engine: cannot factorize (%s); enumerating the answer streams instead", engine, why)
