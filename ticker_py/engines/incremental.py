"""The incremental engine: the incremental encoding solved multi-shot by one clingo Control.

Per evaluation tick (Alg. 3, IncrementTick):

1. the atoms that arrived since the last tick become shared facts (they never change), as do
   the background atoms pinned to each new time point;
2. the tick part is grounded once with the tick's number ``e``, time t and count c: its
   atoms are new, so nothing is redefined; clingo's grounder evaluates the stratified part
   and leaves only the guesses of cycles through negation to the solver;
3. the guard ``_g(e)`` is set, the models are read through the guarded ``#show`` terms, and
   the guard is released, which fixes the tick's guesses false for good.

Nothing is ever deleted from a Control, so every ``rebuild_every`` ticks a fresh Control is
started with only the window-covered stream (as the static engine keeps it): memory stays
bounded. New constants need nothing special: the grounder sees them as they arrive.
"""

from __future__ import annotations

from collections.abc import Sequence

import clingo

from ..analysis import Analysis
from ..encode.asp import timeline_limit
from ..encode.exact import Bounds, ExactProgram
from ..encode.incremental import GUARD, TICK, encode_incremental
from ..streams.model import Model, Result
from ..values import clingo_atom, format_term, int_text
from ..windows import Windows
from .base import Engine, EngineOptions, ModelDiffer
from .clingo_engine import ClingoEngine, ModelReader, clingo_logger, prefer_true
from .wide import ExactContext, check_window_sizes, int_symbol

__all__ = ["PureIncrementalEngine", "REBUILD_EVERY"]

#: Ticks between Control rebuilds (see docs/incremental.md for the measurements).
REBUILD_EVERY = 25


def _fact(atom: tuple, *extra) -> str:
    """``atom`` (as clingo holds it) with the integers ``extra`` appended, as a fact."""
    args = [format_term(a) for a in atom[1:]] + [int_text(x) for x in extra]
    return f"{atom[0]}({','.join(args)})." if args else f"{atom[0]}."


class PureIncrementalEngine(Engine):
    """``--engine incremental-pure``: the incremental encoding + multi-shot clingo; same answers
    as :class:`ClingoEngine`."""

    name = "incremental-pure"

    def __init__(
        self, analysis: Analysis, options: EngineOptions = EngineOptions(), rebuild_every: int = REBUILD_EVERY
    ):
        self.analysis = analysis
        self.options = options
        check_window_sizes(analysis, analysis.program.proper_rules)
        self.encoding = encode_incremental(analysis, options.semantics)
        self.exact = ExactProgram(
            (s for s, _ in self.encoding.annotated),
            [(f"_bg_{a[0]}", *a[1:]) for a in self.encoding.background_atoms]
            + [a + (0,) for a in self.encoding.timed_background],
        )
        self.bounds = Bounds(self.exact.flow.relevant, analysis.signatures)
        self.bounds.note_tick(rebuild_every)
        self.rules = None  # the tick part on the current Control, and whether it calls Python
        self.reader = ModelReader(analysis, options.show)
        self.rebuild_every = rebuild_every
        self.history = Windows(analysis, options.semantics).history()
        self.time = 0
        self.ctl = None
        self.ticks_on_control = 0  # the next tick's number e on this Control
        self.pending: list = []  # shared facts not yet grounded
        self.pinned_to = -1  # background atoms pinned up to this time point
        self.diff = ModelDiffer(options)  # changes; its previous model guides inertia
        self.bg_pins = [clingo_atom(a) for a in self.encoding.timed_background]
        self.show_inputs = options.show == "all"

    # ------------------------------------------------------------------ stream

    @property
    def count(self) -> int:
        return self.history.count

    check_values = ClingoEngine.check_values

    def append(self, t: int, atoms: Sequence[tuple]) -> None:
        self.check_values(t, atoms)
        self.bounds.note_atoms(atoms)
        atoms = [clingo_atom(a) for a in atoms]
        self.time = t
        first = self.history.count + 1
        self.history.extend(t, atoms)
        if self.ctl is not None:
            self.pending.extend(self._input_facts(t, k, atom) for k, atom in enumerate(atoms, first))

    def _input_facts(self, t: int, k: int, atom: tuple) -> str:
        text = _fact(atom, t)
        if atom[0] in self.encoding.tick_pinned:
            text += _fact(atom, t, k)
        if self.encoding.tick_pinned:
            text += f"_tick({t},{k})."
        return text

    def _pin_background(self, lo: int, t: int) -> None:
        """The background atoms pinned to the time points of ``lo..t`` not pinned yet."""
        start = max(lo, self.pinned_to + 1)
        if self.bg_pins:
            timeline_limit(start, t)
        for u in range(start, t + 1):
            self.pending.extend(_fact(a, u) for a in self.bg_pins)
        self.pinned_to = max(self.pinned_to, t)

    # ------------------------------------------------------------------ control

    def _new_control(self, t: int, rules: tuple) -> None:
        lo = self.history.trim(t)
        args = ["--heuristic=Domain"] if self.options.inertia else []
        ctl = clingo.Control(args, logger=clingo_logger, message_limit=0)
        ctl.add(
            "tick",
            [TICK, "_t", "_c"],
            rules[0]
            + f"_now(_t,{TICK}). _cnt(_c,{TICK}). #external {GUARD}({TICK}).\n"
            + self.encoding.show_inputs * self.show_inputs,
        )
        self.rules = rules
        self.pending = [self.encoding.background]
        self.pending.extend(self._input_facts(u, k, a) for u, k, a in self.history)
        self.pinned_to = lo - 1
        self.ctl, self.ticks_on_control = ctl, 0

    def _step(self, t: int, lo: int) -> int:
        """Ground the pending facts and the tick part; returns the tick's number. A new Control
        is started every ``rebuild_every`` ticks, and when the values call for exact arithmetic
        where the tick part had clingo's own (encode/exact.py)."""
        bounds = self.bounds
        bounds.note_time(t)
        bounds.note_count(self.count)
        rules = self.exact.text(bounds)
        if self.ctl is None or self.ticks_on_control >= self.rebuild_every or rules != self.rules:
            self._new_control(t, rules)
        self._pin_background(lo, t)
        # e restarts with each Control: clingo never frees symbols, so an ever-growing e
        # would leak a copy of every tick atom
        e = self.ticks_on_control
        self.ticks_on_control += 1
        ctl = self.ctl
        ctl.add("base", [], "\n".join(self.pending))
        self.pending = []
        parts = [("base", []), ("tick", [clingo.Number(e), int_symbol(t), int_symbol(self.count)])]
        if self.rules[1]:
            context = ExactContext(self.exact.sites)
            ctl.ground(parts, context=context)
            context.check()
        else:
            ctl.ground(parts)
        ctl.assign_external(clingo.Function(GUARD, [clingo.Number(e)]), True)
        return e

    # ------------------------------------------------------------------ solving

    def evaluate(self, t: int) -> Result:
        lo = self.history.trim(t)
        e = self._step(t, lo)
        ctl = self.ctl
        if self.options.inertia and self.diff.previous is not None:
            self._prefer(self.diff.previous, e, t)
        models = []
        ctl.configuration.solve.models = str(self.options.models)
        with ctl.solve(yield_=True) as handle:
            for m in handle:
                models.append(self.reader.read(m.symbols(shown=True), t))
        unmentioned = self.reader.unmentioned(self.history.entries, t)
        if unmentioned:
            models = [Model(m.atoms | unmentioned, m.pinned) for m in models]
        ctl.release_external(clingo.Function(GUARD, [clingo.Number(e)]))
        return self.diff.result(t, self.count, tuple(models))

    def _prefer(self, model: Model, e: int, t: int) -> None:
        """Domain heuristic: decide the previous answer's atoms first, and true."""
        intensional = self.analysis.intensional
        prefer_true(
            self.ctl,
            (
                clingo.parse_term(_fact(clingo_atom(atom), u, e)[:-1])
                for atom, u in [(a, t) for a in model.atoms] + list(model.pinned)
                if atom[0] in intensional
            ),
        )
