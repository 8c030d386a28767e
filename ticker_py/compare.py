"""Engines side by side: one stream fed to several engines, every tick compared (``ticker compare``).

Answer streams are compared as *sets of models*, a model being its atoms at t and its
pins ``(atom, T)``; the order in which an engine enumerates them does not matter.

>>> from ticker_py.stages.consequences import consequences
>>> program = "a :- not b. b :- not a. c :- a. c :- b."
>>> cmp = compare_engines(program, [(0, [])], ["clingo", "native"])
>>> cmp.agree, sorted(cmp.ticks[0].models["clingo"]), cmp.unavailable["native"][:30]
(True, [((('a',), ('c',)), ()), ((('b',), ('c',)), ())], 'the native engine cannot run t')
>>> [c.atoms for c in consequences(iter_results(program, [(0, [])], engine="clingo", models=0), "cautious")]
[['c']]
"""

from __future__ import annotations

import io
import itertools
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from .api import analysed
from .engines import EngineOptions, create_engine
from .errors import EngineUnsupported, TickerError
from .explain.differences import explain_differences, stream_history
from .semantics_compare import SideBySide, engine_names, printed, shown
from .spec import EVALUATION, INPUT, PROGRAM, RunSpec, takes_spec
from .stages.consequences import consequences
from .stages.drive import drive
from .stages.input import Input
from .streams import AnswerState, ChangesWriter, Model, Result, TimePoint, time_points
from .streams.factorized import with_factors
from .values import format_atom

__all__ = [
    "default_factory",
    "prepare_stream",
    "iter_results",
    "explain_comparison",
    "model_key",
    "answer_set",
    "Tick",
    "EngineComparison",
    "compare_engines",
    "format_tick",
    "format_comparison",
    "format_comparison_json",
    "printed_models",
    "compare_consequences",
]

#: factorized answers that differ factor-wise are compared expanded up to this many answer streams
EXPAND_LIMIT = 1_000_000


def default_factory(name: str) -> Callable:
    """A factory creating the registered engine ``name``."""
    return lambda analysis, options: create_engine(name, analysis, options)


def prepare_stream(analysis, stream, spec: RunSpec, inputs: dict | None = None) -> Iterator[TimePoint]:
    """Time points of ``stream`` through the input stage, in ``spec`` 's tuple order, refused past
    ``max_gap`` (``inputs`` receives the atoms per time point)."""
    stage = Input(analysis, spec, counts=inputs)
    points = time_points(stage.records(stage.open(stream), spec.until), spec.until)
    if spec.tuple_order == "reverse":
        return (TimePoint(tp.t, tuple(reversed(tp.atoms))) for tp in points)
    return points


@takes_spec(PROGRAM, INPUT, EVALUATION, loads=True)
def iter_results(program, stream, *, spec: RunSpec) -> Iterator[Result]:
    """Results of one engine (the engine itself: no ``#show``, no renaming back) over a stream."""
    analysis = analysed(program, spec)
    eng = create_engine(spec.engine, analysis, spec.engine_options())
    return drive(eng, prepare_stream(analysis, stream, spec), spec.every)


def _factories(engines) -> dict:
    """``{name: factory}`` of engine names (a list or one comma string) or factories."""
    if isinstance(engines, dict):
        return engines
    names = engine_names(engines) if isinstance(engines, str) else engines
    return {name: default_factory(name) for name in names or ("clingo", "incremental", "native")}


def _started(analysis, engines: dict, options: EngineOptions) -> tuple:
    """``(running, unavailable)``: the engines created, and why the others are not."""
    running, unavailable = {}, {}
    for name, factory in engines.items():
        try:
            running[name] = factory(analysis, options)
        except EngineUnsupported as err:
            unavailable[name] = err.reason
        except ImportError as err:
            unavailable[name] = f"not installed ({err})"
    return running, unavailable


def model_key(model) -> tuple:
    """A model as ``(sorted atoms, sorted (atom, T) pins)``, atoms as tuples."""
    return (tuple(sorted(model.atoms, key=repr)), tuple(sorted(model.pinned, key=repr)))


def factor_key(f) -> tuple:
    """A factorized answer as a hashable key: equal keys, equal answer streams (not conversely)."""
    return (f.count, model_key(f.common), frozenset(frozenset(model_key(m) for m in alts) for alts in f.factors))


def _models(keys) -> tuple | None:
    """The Models of a set of :func:`model_key` s (an engine's failure message left out)."""
    if keys is None:
        return None
    return tuple(Model(frozenset(a for a in atoms if isinstance(a, tuple)), frozenset(pins)) for atoms, pins in keys)


def answer_set(models: tuple | None) -> frozenset:
    """The answer streams of a result as a frozenset of :func:`model_key` s."""
    return frozenset(model_key(m) for m in models or ())


@dataclass
class Tick:
    """One evaluation tick: each engine's answer streams, and whether they agree."""

    t: int
    c: int
    models: dict  # engine -> frozenset of model keys
    counts: dict = field(default_factory=dict)  # engine -> c reported by the engine
    changes: dict = field(default_factory=dict)  # engine -> its --changes line (compare_engines(changes=True))

    @property
    def agree(self) -> bool:
        return all(len(set(part.values())) <= 1 for part in (self.models, self.counts, self.changes))


@dataclass
class EngineComparison(SideBySide):
    """The outcome of :func:`compare_engines`."""

    engines: list  # engines that ran
    unavailable: dict  # engine -> why it cannot run the program ("not applicable"), located
    ticks: list  # every Tick (only the differing ones if keep_all=False)
    differing: list
    evaluated: int = 0
    inputs: dict = field(default_factory=dict)  # t -> input atoms

    _KIND = "engines"
    _TICK = ("c",)

    @property
    def agree(self) -> bool:
        return not self.differing

    def notes(self) -> dict:
        """``{engine: (short, detail)}``: a difference from the first engine is labelled ``engine``."""
        return {name: ("engine", f"engine {name}, the same semantics") for name in self.engines[1:]}

    def _runs(self) -> dict:
        return {name: {tick.t: _models(tick.models.get(name)) for tick in self.ticks} for name in self.engines}

    def _printed(self):
        return (
            ((name, tick.t, tick.c), printed_models(keys)) for tick in self.ticks for name, keys in tick.models.items()
        )


@takes_spec(PROGRAM, INPUT, EVALUATION, purpose="compare", loads=True, exclude=("engine", "explainable", "strict"))
def compare_engines(
    program, stream, engines=None, keep_all: bool = True, changes: bool = False, *, spec: RunSpec
) -> EngineComparison:
    """Run engines over the same stream in lockstep and compare each tick's answer streams.

    Parameters
    ----------
    program, stream
        As for :func:`ticker_py.run`; the stream is read once.
    engines : sequence of str, or dict
        Engine names (default: clingo, incremental, native), or ``{name: factory(analysis,
        EngineOptions)}``. An engine that refuses the program (:class:`EngineUnsupported`) or is not
        installed is reported in ``unavailable`` and skipped.
    keep_all : bool
        Keep every tick in ``ticks`` (else only the differing ones).
    changes : bool
        Run the engines as ``ticker run --changes`` (one answer stream, changes only) and compare
        their changes lines too.
    models, factorize, show, inertia, semantics
        What the engines compute (:class:`~ticker_py.spec.RunSpec`); ``models`` is 0, all, by default.
        With ``factorize`` the engines return factorized answers (``models`` is ignored), compared
        factor by factor, or as expanded sets where the factors differ.
    until, every, max_gap, stream_format, tuple_order
        The input, as for :func:`ticker_py.run`; ``tuple_order="reverse"``: each time point's atoms
        reach the engines in reverse order.
    clock, const, background, background_rdf, rdf_mapping, owl2rl
        How the program is loaded, as for :func:`ticker_py.load_program`.

    Returns
    -------
    EngineComparison
        The ticks, the differing ones, the engines that ran and those that did not (and why).

    See Also
    --------
    ticker_py.compare_semantics, format_comparison
    """
    analysis = analysed(program, spec)
    options = EngineOptions(models=1, changes_only=True) if changes else spec.engine_options()
    running, unavailable = _started(analysis, _factories(engines), options)
    inputs: dict = {}
    points = itertools.tee(prepare_stream(analysis, stream, spec, inputs), max(1, len(running)))
    streams = {name: drive(eng, pts, spec.every) for (name, eng), pts in zip(running.items(), points)}
    answers = {name: AnswerState() for name in running}  # an engine's changes only: its answer stream
    writers = {name: ChangesWriter(io.StringIO()) for name in running} if changes else {}
    ticks, differing, evaluated = [], [], 0
    while running:
        results, failed = {}, {}
        for name, it in list(streams.items()):
            try:
                results[name] = next(it, None)
            except TickerError:
                raise
            except Exception as err:  # an engine bug is a disagreement, reported at its tick
                results[name] = None
                failed[name] = f"<{name} raised {type(err).__name__}: {err}>"
                streams[name] = iter(())
        if all(r is None for r in results.values()) and not failed:
            break
        evaluated += 1
        ref = next((r for r in results.values() if r is not None), None)
        tick = Tick(ref.t if ref else -1, ref.c if ref else -1, {}, {})
        if spec.factorize:
            results = {n: r if r is None else with_factors(r) for n, r in results.items()}
            keys = {n: factor_key(r.factors) for n, r in results.items() if r is not None}
            same = len(set(keys.values())) == 1
        for name, res in results.items():
            if res is None:
                tick.models[name] = frozenset({((failed.get(name, "<no result>"),), ())})
                continue
            if spec.factorize and same:
                tick.models[name] = keys[name]
            elif spec.factorize and res.factors.count > EXPAND_LIMIT:
                tick.models[name] = frozenset({((f"<{res.factors.count} answer streams, factors differ>",), ())})
            else:
                tick.models[name] = answer_set(answers[name].models(res))
            tick.counts[name] = (res.t, res.c)
            if changes:
                tick.changes[name] = next(iter(writers[name].lines(res)))
        if not tick.agree:
            differing.append(tick)
        if keep_all:
            ticks.append(tick)
    return EngineComparison(list(running), unavailable, ticks, differing, evaluated, inputs)


def explain_comparison(analysis, stream, cmp: EngineComparison, spec: RunSpec, max_diffs: int = 20) -> str:
    """For each differing tick, the atoms in which an engine and the first one differ, explained on both sides."""
    out = []
    for tick in cmp.differing[:max_diffs]:
        history = stream_history(prepare_stream(analysis, stream, spec), tick.t, tick.c)
        names = list(tick.models)
        for name in names[1:]:
            pair = (names[0], name)
            if tick.models[name] == tick.models[names[0]] or any(
                not isinstance(a, tuple) for n in pair for atoms, _ in tick.models[n] for a in atoms
            ):
                continue  # the same, or an engine that failed (its message is in the report)
            sides = {n: _models(tick.models[n]) for n in pair}
            out.append(f"t={tick.t} c={tick.c}: {names[0]} vs {name}, explained")
            out.append(explain_differences(analysis, history, tick.t, tick.c, sides))
    return "\n".join(out)


def _text(item) -> str:
    """An atom, a pin ``a at T`` or an engine's failure message as printed."""
    if not isinstance(item, tuple):
        return str(item)
    pin = len(item) == 2 and isinstance(item[0], tuple) and isinstance(item[1], int)  # an atom's name is a str
    return f"{format_atom(item[0])} at {item[1]}" if pin else format_atom(item)


def printed_models(models) -> list:
    """:func:`model_key` s as printed lists of atoms, in printed order (a failure message as an atom)."""
    return printed((Model(frozenset(atoms), frozenset(pins)) for atoms, pins in models), _text)


def _shown(keys) -> list:
    return shown((Model(frozenset(atoms), frozenset(pins)) for atoms, pins in keys), _text)


def format_tick(tick: Tick, reference: str | None = None) -> str:
    """A readable diff of one differing tick: which engine has which model/atoms extra or missing."""
    ref = reference if reference in tick.models else next(iter(tick.models))
    lines = [f"t={tick.t} c={tick.c}: engines differ"]
    if len(set(tick.counts.values())) > 1:
        lines.append("  ticks: " + ", ".join(f"{n}: t={t} c={c}" for n, (t, c) in tick.counts.items()))
    if len(set(tick.changes.values())) > 1:
        lines += [f"  changes of {n}: {line}" for n, line in tick.changes.items()]
    groups: dict = {}
    for n, models in tick.models.items():
        groups.setdefault(models, []).append(n)
    for models, group in groups.items():
        shown = " ".join(_shown(models)) or "no answer stream"
        lines.append(f"  {', '.join(group)}: {shown}")
    base = tick.models[ref]
    for n, other in tick.models.items():
        if len(base) == len(other) == 1:  # one answer stream each: the atoms in which they differ
            (ba, bp), (oa, op) = *base, *other
            for what, items in (("has extra", {*oa, *op} - {*ba, *bp}), ("is missing", {*ba, *bp} - {*oa, *op})):
                if items:
                    lines.append(f"    {n} {what} (vs {ref}): {', '.join(map(_text, sorted(items, key=repr)))}")
        else:
            lines += [f"    {n} has extra answer stream (vs {ref}): {m}" for m in _shown(other - base)]
            lines += [f"    {n} is missing answer stream (vs {ref}): {m}" for m in _shown(base - other)]
    return "\n".join(lines)


def format_comparison(cmp: EngineComparison, max_diffs: int = 20) -> str:
    """The report ``ticker compare`` prints."""
    lines = [format_tick(t, cmp.engines[0] if cmp.engines else None) for t in cmp.differing[:max_diffs]]
    if len(cmp.differing) > max_diffs:
        lines.append(f"... {len(cmp.differing) - max_diffs} more differing ticks")
    lines += [f"{name}: not applicable: {reason}" for name, reason in cmp.unavailable.items()]
    ran, first = ", ".join(cmp.engines) or "no engine", cmp.differing[0] if cmp.differing else None
    if first is None:
        lines.append(f"{ran}: agree on all {cmp.evaluated} ticks")
    else:
        lines.append(f"{ran}: {len(cmp.differing)} of {cmp.evaluated} ticks differ (first at t={first.t} c={first.c})")
    return "\n".join(lines)


def format_comparison_json(cmp: EngineComparison, max_diffs: int = 20) -> str:
    """``ticker compare --format json``: one JSON line per differing tick (docs/cli.md), then the summary."""
    lines = []
    for tick in cmp.differing[:max_diffs]:
        obj = {"t": tick.t, "c": tick.c, "answers": {n: printed_models(m) for n, m in tick.models.items()}}
        if len(set(tick.counts.values())) > 1:
            obj["ticks"] = {n: list(tc) for n, tc in tick.counts.items()}
        if len(set(tick.changes.values())) > 1:
            obj["changes"] = dict(tick.changes)
        lines.append(json.dumps(obj))
    first = cmp.differing[0] if cmp.differing else None
    at = None if first is None else {"t": first.t, "c": first.c}
    summary = dict(engines=cmp.engines, unavailable=cmp.unavailable, ticks=cmp.evaluated, differing=len(cmp.differing))
    lines.append(json.dumps({"summary": summary | {"first": at, "agree": cmp.agree}}))
    return "\n".join(lines)


@takes_spec(PROGRAM, INPUT, EVALUATION, also=("consequences",), purpose="compare", loads=True)
def compare_consequences(program, stream, engines=None, *, spec: RunSpec):
    """``(rows, unavailable)``: ``rows`` yields per tick ``{engine: Consequences}`` (``spec.consequences``);
    ``unavailable``: why the other engines do not run."""
    analysis = analysed(program, spec)
    running, unavailable = _started(analysis, _factories(engines), spec.engine_options())
    points = list(prepare_stream(analysis, stream, spec))
    its = {n: consequences(drive(e, points, spec.every), spec.consequences) for n, e in running.items()}
    return (dict(zip(its, row)) for row in zip(*its.values())), unavailable
