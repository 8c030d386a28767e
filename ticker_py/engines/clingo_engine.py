"""The static engine: the program's static encoding solved one-shot by clingo at every tick.

Only the window-covered part of the stream is passed to the solver (Prop. 2 of the Ticker
paper): atoms older than every time window and outside every tuple window are dropped.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import lru_cache, partial
from itertools import takewhile

import clingo
from clingo import parse_term

from ..analysis import Analysis
from ..encode import encode_static
from ..encode.exact import Bounds, ExactProgram
from ..semantics import Origin, TupleScope, TupleTies
from ..streams.factorized import NONE, Factorized, factorized_result
from ..streams.model import Model, Result
from ..values import clingo_atom, exact_atom, format_atom
from ..windows import Windows
from .base import Engine, EngineOptions
from .factorize import factorize_or_enumerate
from .wide import ExactContext, check_clingo_strings, check_window_sizes, symbol_int, symbol_to_term

__all__ = ["ClingoEngine", "ModelReader", "symbol_to_term", "clingo_logger", "ground", "prefer_previous"]

log = logging.getLogger("ticker_py.clingo")


def clingo_logger(code, message: str) -> None:
    """Route clingo's messages through :mod:`logging` instead of raw stderr."""
    log.debug("clingo %s: %s", code, message.strip())


def ground(args: list, program: tuple, sites: list, *texts: str, observer=None) -> clingo.Control:
    """A clingo Control with these arguments (its messages logged: :func:`clingo_logger`), seen by
    ``observer``, with ``program`` (``(text, whether it calls Python)``: :meth:`ExactProgram.text`)
    and ``texts`` grounded; an error of the exact functions (``sites``: the program's) is raised after."""
    ctl = clingo.Control(args, logger=clingo_logger, message_limit=0)
    if observer is not None:
        ctl.register_observer(observer)
    for text in (program[0], *texts):
        ctl.add("base", [], text)
    context = ExactContext(sites) if program[1] else None
    ctl.ground([("base", [])], context=context)
    if context is not None:
        context.check()
    return ctl


def prefer_previous(ctl: clingo.Control, model: Model, t: int, predicates, d: int = 0) -> None:
    """Domain heuristic (``--heuristic=Domain``, inertia): the atoms of ``predicates`` in the previous
    answer ``model`` at ``t``, pinned to their times less ``d``, decided first, and true. Atoms that
    are facts or not in the ground program are skipped."""
    atoms = ctl.symbolic_atoms
    pins = [(a, t) for a in model.atoms] + list(model.pinned)
    symbols = (parse_term(format_atom(clingo_atom(a + (u - d,)))) for a, u in pins if a[0] in predicates and u >= d)
    lits = [sa.literal for sa in (atoms[s] for s in symbols) if sa is not None and not sa.is_fact]
    if lits:
        with ctl.backend() as b:
            for lit in lits:
                b.add_heuristic(lit, clingo.backend.HeuristicType.Level, 1, 0, [])
                b.add_heuristic(lit, clingo.backend.HeuristicType.Sign, 1, 0, [])


class ModelReader:
    """The one reader of clingo's models, for every engine that solves with clingo.

    The encodings show each atom pinned to its time point (or slot), ``name(args..., T)``. Symbols
    recur from model to model and tick to tick: each is converted once and kept while it recurs (the
    :data:`CACHED` symbols met last: memory stays flat on ever new symbols)."""

    #: how many converted symbols are kept
    CACHED = 1 << 13

    def __init__(self, analysis: Analysis, show: str):
        self.intensional = analysis.intensional
        self.background = frozenset(analysis.background)
        self.show_all = show == "all"
        self.signatures = analysis.signatures
        self.convert = lru_cache(maxsize=self.CACHED)(self._convert)

    def unmentioned(self, history, t: int) -> frozenset:
        """With show=all: the input atoms at t of predicates the program never mentions (the
        encoding has no ``#show`` for them); ``history`` holds ``(t, count, atom)``."""
        if not self.show_all:
            return frozenset()
        sigs = self.signatures
        return frozenset(
            exact_atom(a) for _, _, a in takewhile(lambda e: e[0] == t, reversed(history)) if a[0] not in sigs
        )

    def split(self, symbols, t: int, time_of=None) -> tuple:
        """``(now, pinned)`` lists of these shown symbols: the intensional atoms at ``t`` (all atoms at
        ``t`` with show=all), and ``(atom, T)`` of the intensional atoms pinned elsewhere, background
        atoms left out. A symbol pinned to a non-integer time is dropped (on every engine). With
        ``time_of`` (a list), the last argument is a slot and ``time_of[slot]`` its time point (None:
        no longer one), and a symbol whose last argument is no integer holds at ``t``."""
        now, pinned = [], []
        show_all, background = self.show_all, self.background
        for atom, time, intensional in map(self.convert, symbols):
            if time_of is not None:
                time = t if time is None else time_of[time]
            elif time is None:
                continue
            if time == t:
                if intensional or show_all:
                    now.append(atom)
            elif intensional and time is not None and atom not in background:
                pinned.append((atom, time))
        return now, pinned

    def read(self, symbols, t: int, time_of=None) -> Model:
        """The answer stream at ``t`` of these shown symbols (:meth:`split`)."""
        now, pinned = self.split(symbols, t, time_of)
        return Model(frozenset(now), frozenset(pinned))

    def _convert(self, sym: clingo.Symbol) -> tuple:
        """``(atom, T, intensional)``: ``T`` the integer of the last argument, None if it is none."""
        args = sym.arguments
        name = sym.name
        return (name, *(symbol_to_term(a) for a in args[:-1])), symbol_int(args[-1]), name in self.intensional


class ClingoEngine(Engine):
    """Static encoding + one-shot clingo per tick; the correctness baseline."""

    name = "clingo"
    factorizes = True  # with EngineOptions(factorize=True): Result.factors (see engines/factorize.py)

    def __init__(self, analysis: Analysis, options: EngineOptions = EngineOptions()):
        self.analysis, self.options = analysis, options
        sem = self.semantics = options.semantics
        check_window_sizes(analysis, analysis.program.proper_rules)
        self.encoding = encode_static(analysis, sem)
        self.exact = ExactProgram(self.encoding.statements)
        self.bounds = Bounds(analysis.signatures, self.exact.operates)
        self.reader = ModelReader(analysis, options.show)
        self.scoped = sem.tuple_scope is TupleScope.PREDICATE
        self.history = Windows(analysis, sem).history()
        self.origin = None if sem.origin is Origin.FIRST else 0  # origin=first: the first call's t
        self.fed: list = []  # (u, atom) fed back (persistence=feedback)
        self.arguments = ["--project"] if sem.tuple_ties is TupleTies.CHOICE else []

    def _start(self, t: int) -> None:
        if self.origin is None:
            self.origin = t

    def feed_back(self, u: int, atoms: Sequence[tuple]) -> None:
        """Add atoms derived at u to the stream at u, time-pinned (``persistence=feedback``)."""
        self.fed += [(u, clingo_atom(atom)) for atom in atoms]

    @property
    def count(self) -> int:
        return self.history.count

    #: raise StreamError for an atom clingo cannot hold (before appending): a string with a NUL
    check_values = staticmethod(check_clingo_strings)

    def append(self, t: int, atoms: Sequence[tuple]) -> None:
        self.check_values(t, atoms)
        self._start(t)
        self.bounds.note_atoms(atoms)
        self.history.extend(t, [clingo_atom(a) for a in atoms])

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

    def _control(self, t: int, observer=None) -> clingo.Control:
        self._start(t)
        lo = max(self.origin, self.history.trim(t))
        origin = self.origin if self.semantics.origin is Origin.FIRST else None
        fed = [(u, atom) for u, atom in self.fed if u >= lo]
        facts = self.encoding.facts(t, self.count, lo, self._window_atoms(), origin, fed)
        self.bounds.note_time(t)
        self.bounds.note_count(self.count)
        args = [f"--models={self.options.models}"] + self.arguments
        return ground(args, self.exact.text(self.bounds), self.exact.sites, facts, observer=observer)

    def iter_models(self, t: int):
        """The answer streams at t one by one, as the solver finds them (``models`` of the
        options: 0 = all); nothing is collected."""
        ctl = self._control(t)
        unmentioned = self.reader.unmentioned(self.history.entries, t)
        with ctl.solve(yield_=True) as handle:
            for m in handle:
                model = self.reader.read(m.symbols(shown=True), t)
                yield Model(model.atoms | unmentioned, model.pinned) if unmentioned else model

    def evaluate(self, t: int) -> Result:
        if self.options.factorize:
            return self._factorized(t)
        return Result(t, self.count, tuple(self.iter_models(t)))

    def _factorized(self, t: int) -> Result:
        found = factorize_or_enumerate(partial(self._control, t), lambda s: self.reader.read(s, t), self.name)
        if found is None:
            return factorized_result(t, self.count, NONE)
        return factorized_result(t, self.count, Factorized.build(*found), self.options.models)
