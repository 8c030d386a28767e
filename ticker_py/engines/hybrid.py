"""The default incremental engine: a native stratified prefix, clingo for the rest (docs/incremental.md).

The lower part L (``Analysis.lower``) is the same in every answer stream, so the native engine computes
it; each tick a fresh clingo Control solves the static encoding of the upper part U over the atoms it
reads, times relative to ``max(0, t - lookback)`` where U allows (clingo never frees a symbol).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from .. import ast
from ..analysis import Analysis, analyse
from ..encode import encode_static
from ..encode.asp import Show
from ..encode.exact import Bounds, ExactProgram
from ..encode.incremental import times_stay_relative
from ..limits import CLINGO_MAX
from ..streams.factorized import NONE, Factorized, MappedModels, factorized_result, note_fallback
from ..streams.model import Model, Result
from ..values import clingo_atom, format_term, int_text
from ..windows import Windows
from .base import Engine, EngineOptions, ModelDiffer
from .clingo_engine import ModelReader, ground, prefer_previous
from .factorize import factorize_or_enumerate
from .wide import check_clingo_strings, check_window_sizes

__all__ = ["HybridEngine", "times_stay_relative", "KEPT_SYMBOLS"]

#: U's answers are kept for reuse while together they hold at most this many shown symbols
KEPT_SYMBOLS = 4_000_000


class HybridEngine(Engine):
    """Native engine for the stratified lower part, clingo per tick for the upper part."""

    name = "incremental"
    #: raise StreamError for an atom clingo (solving the upper part) cannot hold: a string with a NUL
    check_values = staticmethod(check_clingo_strings)

    def __init__(self, analysis: Analysis, options: EngineOptions = EngineOptions()):
        from .native import NativeEngine

        self.analysis, self.options = analysis, options
        self.lower_preds, self.upper_preds = analysis.lower, analysis.upper
        prog = analysis.program
        upper_rules = [r for r in prog.proper_rules if r.head is None or r.head.atom.predicate in self.upper_preds]
        self.diff = ModelDiffer(options)
        self.factorizes = options.factorize and not options.inertia  # (all native: one answer stream)
        if options.factorize and options.inertia:
            note_fallback(self.name, "--inertia prefers one answer stream")
        self.last_factorized = None  # (facts, shift or None, lower model, joined answer) of the last tick
        if not upper_rules:  # stratified without constraints: all native, which holds any value
            self.native = NativeEngine(analysis, options)
            self.upper = self.check_values = None
            return
        lower_rules = [r for r in prog.proper_rules if r.head is not None and r.head.atom.predicate in self.lower_preds]
        facts = [r for r in prog.facts if r.head.atom.predicate not in self.upper_preds]
        self.native = None
        sem = options.semantics
        if lower_rules:
            lower = analyse(ast.Program(tuple(facts + lower_rules), prog.file), analysis.clock_ms)
            self.native = NativeEngine(lower, EngineOptions(models=1, pruning=options.pruning, semantics=sem))
        up = self.upper = analyse(ast.Program(tuple(prog.facts) + tuple(upper_rules), prog.file), analysis.clock_ms)
        windows = Windows(up, sem)
        check_window_sizes(up, upper_rules)
        enc = self.encoding = encode_static(up, sem)
        shows = [Show()] + [Show(p, up.signatures[p] + 1) for p in sorted(up.intensional)]
        self.exact = ExactProgram([s for s in enc.statements if not isinstance(s, Show)] + shows)
        self.bounds = Bounds(up.signatures, self.exact.operates)
        self.rules = None  # U's program text for the values so far, and whether it calls Python
        self.reads = frozenset(up.extensional & self.lower_preds)  # lower predicates U reads
        self.tuples = bool(enc.tick_pinned)
        self.shift = windows.lookback is not None and not self.tuples and times_stay_relative(upper_rules)
        # stream atoms passed to U: those of predicates U mentions (all of them for tuple windows,
        # which count every atom)
        self.kept = None if self.tuples else frozenset(up.signatures)
        self.answers: dict = {}  # facts text -> U's answers (see _solve), reused while facts recur
        self.kept_size = 0  # symbols (+ 1 per answer) held by self.answers
        self.history = windows.history()
        self.time = -1
        self.inputs_now: set = set()
        self.show_all = options.show == "all"
        self.ext_bg = frozenset(a for a in analysis.background if a[0] not in analysis.intensional)
        self.reader = ModelReader(up, options.show)  # U's shown symbols: (atom, time as given to clingo, _)
        self.texts: dict = {}  # lower atom -> its text without the time argument
        self.args = ["--heuristic=Domain"] if options.inertia else []

    def append(self, t: int, atoms: Sequence[tuple]) -> None:
        if self.upper is None:
            self.native.append(t, atoms)
            return
        self.check_values(t, atoms)
        self._move(t)
        if self.native is not None:
            self.native.append(t, atoms)
        self.bounds.note_atoms(atoms)
        self.history.extend(t, [clingo_atom(a) for a in atoms], self._passed_to_upper)
        if self.show_all:
            intensional = self.analysis.intensional
            self.inputs_now.update(a for a in atoms if a[0] not in intensional)

    def _move(self, t: int) -> None:
        if t != self.time:
            self.inputs_now = set()
            self.time = t

    def _passed_to_upper(self, atom: tuple) -> bool:
        return atom[0] not in self.lower_preds and (self.kept is None or atom[0] in self.kept)

    def evaluate(self, t: int) -> Result:
        if self.upper is None:
            return self.native.evaluate(t)
        self._move(t)
        lower = self.native.evaluate(t).models[0] if self.native is not None else Model(frozenset())
        lo = self.history.trim(t)
        d = lo if self.shift else 0
        facts = self._facts(t, d, lo, lower)
        self._program(t - d)
        if self.factorizes:
            return self._factorized(t, d, facts, lower)
        answers = None if self.options.inertia else self.answers.get(facts)
        if answers is None:
            answers = self._solve(facts, t, d)
        base = self._base(lower)
        if len(answers) > 1 and self.options.models != 1:  # built when read (shared lower part)
            models = MappedModels(answers, partial(self._join, base, lower.pinned, d))
        else:
            models = tuple(self._join(base, lower.pinned, d, answer) for answer in answers)
        return self.diff.result(t, self.history.count, models)

    def _base(self, lower: Model) -> frozenset:
        """The lower model's atoms at t (with show=all also the input and background atoms)."""
        return lower.atoms | self.inputs_now | self.ext_bg if self.show_all else lower.atoms

    def _keep(self, key, value, size: int = 0) -> None:
        """Keep an answer for reuse (all are dropped at 32, or beyond :data:`KEPT_SYMBOLS` symbols)."""
        if len(self.answers) >= 32 or self.kept_size + size > KEPT_SYMBOLS:
            self.answers.clear()
            self.kept_size = 0
        self.answers[key] = value
        self.kept_size += size

    def _program(self, time: int) -> None:
        """U's program for the values so far (``time``: the latest time given to clingo); the
        kept answers are dropped when it changes."""
        self.bounds.note_time(time)
        self.bounds.note_count(self.history.count)
        rules = self.exact.text(self.bounds)
        if rules != self.rules:
            self.rules = rules
            self.answers.clear()
            self.kept_size = 0

    def _solve(self, facts: str, t: int, d: int) -> list:
        """U's answers for these facts, each split (:meth:`.ModelReader.split`) at the time given to
        clingo as now. The same program and facts give the same answers in the same order: they are
        kept for reuse (not with inertia, whose heuristics depend on the previous answer)."""
        ctl = ground(self.args + [f"--models={self.options.models}"], self.rules, self.exact.sites, facts)
        if self.options.inertia and self.diff.previous is not None:
            prefer_previous(ctl, self.diff.previous, t, self.upper.intensional, d)
        split, rel = self.reader.split, t - d
        with ctl.solve(yield_=True) as handle:
            answers = [split(m.symbols(shown=True), rel) for m in handle]
        size = sum(len(now) + len(pinned) + 1 for now, pinned in answers)
        if not self.options.inertia and size <= KEPT_SYMBOLS:
            self._keep(facts, answers, size)
        return answers

    def _factorized(self, t: int, d: int, facts: str, lower: Model) -> Result:
        """The factorized answer: the lower model and U's common part joined, times U's factors
        (cached per facts text, as U's answers are; the joined answer is reused while the facts,
        the shift and the lower model stay the same, as they mostly do from tick to tick)."""
        last = self.last_factorized
        if last is not None and last[0] == facts and last[1] in (None, d) and last[2] == lower and not self.show_all:
            return factorized_result(t, self.history.count, last[3], self.options.models)
        key = ("factorized", facts)
        symbolic = self.answers.get(key, self)
        if symbolic is self:
            symbolic = factorize_or_enumerate(
                lambda observer: ground(["--models=0"], self.rules, self.exact.sites, facts, observer=observer),
                lambda symbols: self.reader.split(symbols, t - d),
                self.name,
            )
            self._keep(key, symbolic)
        if symbolic is None:
            return factorized_result(t, self.history.count, NONE)
        base = self._base(lower)
        common, factors = symbolic
        empty = frozenset()
        joined = Factorized.build(
            self._join(base, lower.pinned, d, common),
            [[self._join(empty, empty, d, alt) for alt in f] for f in factors],
        )
        # U's pins (times other than now) are shifted by d: then d is part of the key
        pins = bool(common[1]) or any(alt[1] for f in factors for alt in f)
        self.last_factorized = (facts, d if pins else None, lower, joined)
        return factorized_result(t, self.history.count, joined, self.options.models)

    def _facts(self, t: int, d: int, lo: int, lower: Model) -> str:
        """U's facts at t, times less d: the stream's (the count only for tuple windows: it
        changes at every atom, and the facts text keys the kept answers), the lower atoms U reads."""
        out = [self.encoding.facts(t, self.history.count if self.tuples else None, lo, self.history, d=d)]
        reads, texts = self.reads, self.texts
        if not reads:
            return out[0]
        text = str if t - d <= CLINGO_MAX else int_text
        now = text(t - d)
        for atom in lower.atoms:
            if atom[0] in reads:
                out.append(f"{texts.get(atom) or self._text(atom)}{now}).")
        for atom, u in lower.pinned:
            if atom[0] in reads and lo <= u <= t:
                out.append(f"{texts.get(atom) or self._text(atom)}{text(u - d)}).")
        return "\n".join(out)

    def _text(self, atom: tuple) -> str:
        """``q(args,`` of a lower atom, cached (the time argument follows)."""
        if len(self.texts) > 100_000:
            self.texts = {}
        self.bounds.note_atoms((atom,))
        args = "".join(format_term(a) + "," for a in clingo_atom(atom)[1:])
        return self.texts.setdefault(atom, f"{atom[0]}({args}")

    def _join(self, base: frozenset, lower_pinned: frozenset, d: int, answer: tuple) -> Model:
        """The lower model (``base``, ``lower_pinned``) joined with one answer of U (times + d)."""
        now, pinned = answer
        if not pinned:
            return Model(base.union(now), lower_pinned)
        return Model(base.union(now), lower_pinned.union([(a, u + d) for a, u in pinned]))
