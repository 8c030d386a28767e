"""Engines and the one registry that creates them by name.

The CLI (``--engine``, ``--engines``), compare, bench and the tests read :data:`ENGINES`.
``auto`` picks the native engine for positive and stratified programs (without
constraints) and the incremental engine otherwise.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from ..analysis import Analysis
from ..errors import Diagnostic, EngineUnsupported, UsageError
from ..semantics import Persistence, Semantics, check_program
from .base import Engine, EngineOptions

__all__ = [
    "Engine",
    "EngineOptions",
    "EngineEntry",
    "ENGINES",
    "ENGINE_NAMES",
    "create_engine",
    "check_engine",
    "resolve_engine",
    "engine_class",
    "unsupported_reasons",
    "check_semantics",
    "semantics_engines",
]


@dataclass(frozen=True)
class EngineEntry:
    """A registered engine: where its class lives and which fragment it runs.

    ``runs_as``: the name in :attr:`Analysis.engines` that says whether it can run a program.
    ``knobs``: the semantics knobs (:mod:`ticker_py.semantics`) it runs with any value; every
    other knob only with its first value.
    """

    name: str
    module: str
    cls: str
    runs_as: str
    summary: str
    knobs: frozenset = frozenset()


ENGINES = {
    e.name: e
    for e in (
        EngineEntry(
            "clingo",
            "ticker_py.engines.clingo_engine",
            "ClingoEngine",
            "clingo",
            "the static encoding, solved from scratch per tick",
            frozenset(
                {"window_bounds", "origin", "tuple_scope", "tuple_ties", "duplicates", "future_heads", "persistence"}
            ),
        ),
        EngineEntry(
            "incremental",
            "ticker_py.engines.hybrid",
            "HybridEngine",
            "incremental",
            "the stratified lower part evaluated natively, the rest solved by clingo per tick",
            frozenset({"window_bounds", "duplicates"}),
        ),
        EngineEntry(
            "incremental-pure",
            "ticker_py.engines.incremental",
            "PureIncrementalEngine",
            "incremental",
            "the pure incremental encoding, multi-shot clingo on the whole program",
            frozenset({"window_bounds", "duplicates"}),
        ),
        EngineEntry(
            "native",
            "ticker_py.engines.native",
            "NativeEngine",
            "native",
            "pure Python, positive and stratified programs without constraints",
            frozenset({"window_bounds", "duplicates"}),
        ),
    )
}

#: every engine name; ``--engine`` also takes ``auto``
ENGINE_NAMES = tuple(ENGINES)


def resolve_engine(name: str, analysis: Analysis, semantics: Semantics = Semantics()) -> str:
    """The concrete engine name for ``name`` (``auto``: the first engine that runs the program
    under ``semantics``)."""
    if name == "auto":
        usable = semantics_engines(analysis, semantics)
        return usable[0] if usable else analysis.engines[0]
    if name not in ENGINES:
        raise UsageError(Diagnostic(f"unknown engine '{name}'", notes=(f"engines: auto, {', '.join(ENGINES)}",)))
    return name


def engine_class(name: str):
    """The class of a registered engine (imports its module)."""
    entry = ENGINES[name]
    return getattr(importlib.import_module(entry.module), entry.cls)


def can_run(name: str, analysis: Analysis) -> bool:
    """Whether the registered engine ``name`` accepts the program's fragment."""
    return ENGINES[name].runs_as in analysis.engines


def check_engine(name: str, analysis: Analysis) -> str:
    """The concrete engine name for ``name``; raises EngineUnsupported if it cannot run the program."""
    name = resolve_engine(name, analysis)
    if not can_run(name, analysis):
        raise EngineUnsupported(
            Diagnostic(
                f"the {name} engine cannot run this program",
                notes=tuple(unsupported_reasons(analysis)) + (f"engines that can: {', '.join(analysis.engines)}",),
            )
        )
    return name


def check_semantics(name: str, semantics: Semantics) -> None:
    """Raise EngineUnsupported (status 2) naming the first knob engine ``name`` cannot run."""
    missing = [k for k in semantics.changed if k not in ENGINES[name].knobs]
    if missing:
        knob = missing[0]
        can = [e.name for e in ENGINES.values() if knob in e.knobs]
        raise EngineUnsupported(
            Diagnostic(
                f"the {name} engine cannot run {knob}={getattr(semantics, knob)} "
                f"(--{knob.replace('_', '-')} {getattr(semantics, knob)})",
                notes=(f"engines that can: {', '.join(can) or 'none'}",),
            )
        )


def semantics_engines(analysis: Analysis, semantics: Semantics) -> tuple:
    """The engines that can run the program under ``semantics`` (its fragment and its knobs)."""
    return tuple(n for n in ENGINES if can_run(n, analysis) and set(semantics.changed) <= ENGINES[n].knobs)


def create_engine(name: str, analysis: Analysis, options: EngineOptions = EngineOptions()) -> Engine:
    """Create an engine for an analysed program; raises EngineUnsupported if it cannot run it, and
    the located errors of a program outside the fragment of the semantics' profile.

    ``auto`` tries the engines that can run the program in order: one that refuses the program
    when it is created falls back to the next. ``incremental`` falls back to ``incremental-pure``
    when a rule of the lower part is one the native evaluation cannot run (an interval head): the
    same answers, solved by clingo. Under ``persistence=feedback`` the engine is wrapped in the one
    that feeds its conclusions back (:mod:`.feedback`).
    """
    check_program(options.semantics, analysis)
    if options.semantics.persistence is Persistence.FEEDBACK:
        from .feedback import FeedbackEngine, inner_options

        return FeedbackEngine(_create(name, analysis, inner_options(options)), analysis, options)
    engine = _create(name, analysis, options)
    if options.factorize and engine.name != "native" and not hasattr(engine, "factorizes"):
        from ..streams.factorized import note_fallback

        note_fallback(engine.name, "this engine does not factorize")
    return engine


def _create(name: str, analysis: Analysis, options: EngineOptions) -> Engine:
    if name == "auto":
        knobs = set(options.semantics.changed)
        candidates = [n for n in analysis.engines if knobs <= ENGINES[n].knobs] or list(analysis.engines)
        for candidate in candidates[:-1]:
            try:
                return _create(candidate, analysis, options)
            except EngineUnsupported:
                pass
        name = candidates[-1]
    name = check_engine(name, analysis)
    check_semantics(name, options.semantics)
    if name == "incremental":
        try:
            return engine_class(name)(analysis, options)
        except EngineUnsupported:
            name = "incremental-pure"
    return engine_class(name)(analysis, options)


def unsupported_reasons(analysis: Analysis) -> list:
    """Why the native engine refuses a program: the rules and the reasons."""
    out = [
        f"{e.element.location}: '{e.head}' depends negatively on '{e.body}' through a cycle (not stratified)"
        for e in analysis.negative_cycle
    ]
    out += [f"{r.location}: constraint '{r}' needs a solver" for r in analysis.program.rules if r.is_constraint]
    out += [
        f"{r.location}: interval in rule '{r}' (the native engine takes intervals in facts only)"
        for r in analysis.interval_rules
    ]
    return [analysis.named(line) for line in out]
