"""The static engine: the program's static encoding solved one-shot by clingo at every tick.

Only the window-covered part of the stream is passed to the solver (Prop. 2 of the Ticker
paper): atoms older than every time window and outside every tuple window are dropped.
"""

from __future__ import annotations

import logging
from collections import deque
from typing import Sequence

import clingo

from ..analysis import Analysis
from ..encode import encode_static
from ..semantics import Origin, TupleScope, TupleTies
from ..streams.model import Model, Result
from .base import Engine, EngineOptions, covered_from, trim_history

__all__ = ["ClingoEngine", "symbol_to_term", "clingo_logger", "prefer_true"]

log = logging.getLogger("ticker_py.clingo")


def clingo_logger(code, message: str) -> None:
    """Route clingo's messages through :mod:`logging` instead of raw stderr."""
    log.debug("clingo %s: %s", code, message.strip())


def symbol_to_term(sym: clingo.Symbol):
    """A clingo symbol as a ground term of :mod:`ticker_py.values`."""
    st = sym.type
    if st == clingo.SymbolType.Number:
        return sym.number
    if st == clingo.SymbolType.String:
        return str(sym)
    if st == clingo.SymbolType.Function and not sym.arguments:
        return sym.name if sym.name else "()"
    return (sym.name, *(symbol_to_term(a) for a in sym.arguments))


def prefer_true(ctl: clingo.Control, symbols) -> None:
    """Domain heuristic (``--heuristic=Domain``): decide these atoms first, and true.

    Atoms that are facts or not in the ground program are skipped."""
    atoms = ctl.symbolic_atoms
    lits = [sa.literal for sa in (atoms[s] for s in symbols) if sa is not None and not sa.is_fact]
    if lits:
        with ctl.backend() as b:
            for lit in lits:
                b.add_heuristic(lit, clingo.backend.HeuristicType.Level, 1, 0, [])
                b.add_heuristic(lit, clingo.backend.HeuristicType.Sign, 1, 0, [])


class ModelReader:
    """Turns shown symbols of a time-pinned answer set into a :class:`Model`."""

    def __init__(self, analysis: Analysis, show: str):
        self.intensional = analysis.intensional
        self.background = frozenset(analysis.background)
        self.show_all = show == "all"

    def read(self, symbols, t: int) -> Model:
        now, pinned = set(), set()
        for sym in symbols:
            args = sym.arguments
            time = args[-1].number
            name = sym.name
            atom = (name, *(symbol_to_term(a) for a in args[:-1]))
            if name in self.intensional:
                if time == t:
                    now.add(atom)
                elif atom not in self.background:
                    pinned.add((atom, time))
            elif self.show_all and time == t:
                now.add(atom)
        return Model(frozenset(now), frozenset(pinned))


class ClingoEngine(Engine):
    """Static encoding + one-shot clingo per tick; the correctness baseline."""

    name = "clingo"

    def __init__(self, analysis: Analysis, options: EngineOptions = EngineOptions()):
        self.analysis = analysis
        self.options = options
        sem = self.semantics = options.semantics
        self.encoding = encode_static(analysis, sem)
        self.reader = ModelReader(analysis, options.show)
        self.history: deque = deque()
        self.count = 0
        self.time = 0
        self.origin = None if sem.origin is Origin.FIRST else 0  # origin=first: the first call's t
        self.scoped = sem.tuple_scope is TupleScope.PREDICATE
        self.fed: list = []  # (u, atom) fed back (persistence=feedback)
        self.arguments = ["--project"] if sem.tuple_ties is TupleTies.CHOICE else []

    def _start(self, t: int) -> None:
        if self.origin is None:
            self.origin = t

    def feed_back(self, u: int, atoms: Sequence[tuple]) -> None:
        """Add atoms derived at u to the stream at u, time-pinned (``persistence=feedback``)."""
        self.fed += [(u, atom) for atom in atoms]

    def append(self, t: int, atoms: Sequence[tuple]) -> None:
        self._start(t)
        self.time = t
        for atom in atoms:
            self.count += 1
            self.history.append((t, self.count, atom))

    def covered_from(self, t: int) -> int:
        """The first time point a time window or @-atom can read at t."""
        return max(self.origin or 0, covered_from(self.analysis.lookback, t))

    def _trim(self, lo: int) -> None:
        # per-predicate counts (tuple_scope=predicate) need every atom: no trimming by count
        keep = self.count if self.scoped else self.analysis.tuple_lookback
        trim_history(self.history, lo, self.count, keep)

    def _window_atoms(self):
        """``(U, K, atom)`` of the history; under ``tuple_scope=predicate`` K is the atom's
        count among its predicate's atoms."""
        if not self.scoped:
            return self.history
        counts: dict = {}
        out = []
        for u, _, atom in self.history:
            counts[atom[0]] = k = counts.get(atom[0], 0) + 1
            out.append((u, k, atom))
        return out

    def iter_models(self, t: int):
        """The answer streams at t one by one, as the solver finds them (``models`` of the
        options: 0 = all); nothing is collected."""
        self._start(t)
        lo = self.covered_from(t)
        self._trim(lo)
        origin = self.origin if self.semantics.origin is Origin.FIRST else None
        fed = [(u, atom) for u, atom in self.fed if u >= lo]
        facts = self.encoding.facts(t, self.count, lo, self._window_atoms(), origin, fed)
        ctl = clingo.Control([f"--models={self.options.models}"] + self.arguments, logger=clingo_logger,
                             message_limit=0)
        ctl.add("base", [], self.encoding.rules)
        ctl.add("base", [], facts)
        ctl.ground([("base", [])])
        with ctl.solve(yield_=True) as handle:
            for m in handle:
                yield self.reader.read(m.symbols(shown=True), t)

    def evaluate(self, t: int) -> Result:
        return Result(t, self.count, tuple(self.iter_models(t)))
