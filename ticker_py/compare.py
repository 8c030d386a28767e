"""Engines side by side, brave/cautious consequences, and streaming enumeration.

``ticker compare`` feeds one stream to several engines and reports every evaluation tick
where their answer streams differ (exit 0 all agree, 3 they differ, 2 bad arguments).
Answer streams are compared as *sets of models*, a model being its atoms at t and its
pins ``(atom, T)``; the order in which an engine enumerates them does not matter.

>>> from ticker_py.api import load_program
>>> a = load_program("a :- not b. b :- not a. c :- a. c :- b.")
>>> cmp = compare_engines(a, [(0, [])], {"clingo": default_factory("clingo")}, models=0)
>>> cmp.agree, sorted(cmp.ticks[0].models["clingo"])
(True, [((('a',), ('c',)), ()), ((('b',), ('c',)), ())])
>>> [c.atoms for c in consequences(iter_results(a, [(0, [])], "clingo", models=0), "cautious")]
[['c']]

Research switches (they change what every engine sees, identically):

* ``tuple_order="reverse"`` reverses the arrival order of the atoms *within each time point*
  before the stream reaches the engines. A tuple window ``[n #]`` that reaches into the oldest
  time point then keeps its first-arrived atoms instead of its last-arrived (SPEC §3.3).
* ``every="signal"`` evaluates after every atom (SPEC §3.4) instead of once per time point.
"""

from __future__ import annotations

import itertools
import json
import sys
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Optional, TextIO

from .engines import EngineOptions, create_engine
from .errors import Diagnostic, EngineUnsupported, TickerError, UsageError
from .ground import format_atom
from .streams import Result, StreamChecker, TimePoint, time_points

__all__ = ["default_factory", "prepare_stream", "reverse_within_time_points", "feed", "iter_results",
           "model_key", "answer_set", "Tick", "Comparison", "compare_engines", "format_comparison",
           "Consequences", "consequences", "AnswerStreamWriter", "enumerate_answer_streams",
           "register_cli", "EXIT_DIFFER"]

EXIT_DIFFER = 3
ENGINE_NAMES = ("clingo", "incremental", "native")

#: ``factory(analysis, options) -> Engine``
EngineFactory = Callable[..., object]


def default_factory(name: str) -> EngineFactory:
    """A factory creating the registered engine ``name``."""
    return lambda analysis, options: create_engine(name, analysis, options)


# ------------------------------------------------------------------ streams

def reverse_within_time_points(points: Iterable[TimePoint]) -> Iterator[TimePoint]:
    """The same stream with the arrival order of the atoms inside each time point reversed."""
    for tp in points:
        yield TimePoint(tp.t, tuple(reversed(tp.atoms)))


def prepare_stream(analysis, records, until: Optional[int] = None,
                   tuple_order: str = "arrival") -> Iterator[TimePoint]:
    """Checked, grouped time points from records or ``(t, atoms)`` pairs (atoms as tuples or text)."""
    from .api import records_from

    if tuple_order not in ("arrival", "reverse"):
        raise UsageError(Diagnostic(f"unknown --tuple-order '{tuple_order}'",
                                    notes=("use arrival or reverse",)))
    checker = StreamChecker(dict(analysis.signatures), set(analysis.intensional))
    checked = (checker.check(r) for r in records_from(records))
    points = time_points(checked, until)
    return reverse_within_time_points(points) if tuple_order == "reverse" else points


def feed(engine, points: Iterable[TimePoint], every: str = "time") -> Iterator[Result]:
    """Drive an engine over time points; ``every="signal"`` evaluates after every atom."""
    for tp in points:
        if every == "signal" and tp.atoms:
            for atom in tp.atoms:
                engine.append(tp.t, [atom])
                yield engine.evaluate(tp.t)
        else:
            engine.append(tp.t, list(tp.atoms))
            yield engine.evaluate(tp.t)


def iter_results(analysis, records, engine: str = "clingo", models: int = 1, every: str = "time",
                 until: Optional[int] = None, tuple_order: str = "arrival") -> Iterator[Result]:
    """Results of one engine over a stream (records, a path or ``(t, atoms)`` pairs)."""
    eng = create_engine(engine, analysis, EngineOptions(models=models))
    return feed(eng, prepare_stream(analysis, records, until, tuple_order), every)


# ------------------------------------------------------------------ comparing

def model_key(model) -> tuple:
    """A model as ``(sorted atoms, sorted (atom, T) pins)``, atoms as tuples."""
    return (tuple(sorted(model.atoms, key=repr)), tuple(sorted(model.pinned, key=repr)))


class _Materialiser:
    """Rebuilds whole models from an engine that reports only ``Result.changes``."""

    def __init__(self):
        self.atoms, self.pinned = set(), set()

    def models(self, result: Result) -> Optional[tuple]:
        if result.models is not None:
            return result.models
        if result.changes is None:
            return None
        from .streams import Model

        added, removed = result.changes
        for a in removed:
            (self.pinned if _is_pin(a) else self.atoms).discard(a)
        for a in added:
            (self.pinned if _is_pin(a) else self.atoms).add(a)
        return (Model(frozenset(self.atoms), frozenset(self.pinned)),)


def _is_pin(item) -> bool:
    return isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], tuple) and isinstance(item[1], int)


def answer_set(models: Optional[tuple]) -> frozenset:
    """The answer streams of a result as a frozenset of :func:`model_key` s."""
    return frozenset(model_key(m) for m in models or ())


@dataclass
class Tick:
    """One evaluation tick: each engine's answer streams, and whether they agree."""

    t: int
    c: int
    models: dict  # engine -> frozenset of model keys
    counts: dict = field(default_factory=dict)  # engine -> c reported by the engine

    @property
    def agree(self) -> bool:
        return len(set(self.models.values())) <= 1 and len(set(self.counts.values())) <= 1


@dataclass
class Comparison:
    """The outcome of :func:`compare_engines`."""

    engines: list  # engines that ran
    unavailable: dict  # engine -> reason ("n/a")
    ticks: list  # every Tick (only the differing ones if keep_all=False)
    differing: list
    evaluated: int = 0

    @property
    def agree(self) -> bool:
        return not self.differing


def compare_engines(analysis, records, engines: dict, models: int = 0, every: str = "time",
                    until: Optional[int] = None, tuple_order: str = "arrival",
                    keep_all: bool = True) -> Comparison:
    """Run engines (``{name: factory}``) over the same stream in lockstep and compare each tick.

    An engine whose factory raises :class:`EngineUnsupported` (or is not installed) is
    reported in ``unavailable`` and skipped.
    """
    if every not in ("time", "signal"):
        raise UsageError(Diagnostic(f"unknown --every '{every}'", notes=("use time or signal",)))
    running, unavailable = {}, {}
    options = EngineOptions(models=models)
    for name, factory in engines.items():
        try:
            running[name] = factory(analysis, options)
        except EngineUnsupported as err:
            unavailable[name] = err.diagnostics[0].message
        except ImportError as err:
            unavailable[name] = f"not installed ({err})"
    points = itertools.tee(prepare_stream(analysis, records, until, tuple_order), max(1, len(running)))
    streams = {name: feed(eng, pts, every) for (name, eng), pts in zip(running.items(), points)}
    mats = {name: _Materialiser() for name in running}
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
        for name, res in results.items():
            if res is None:
                tick.models[name] = frozenset({((failed.get(name, "<no result>"),), ())})
                continue
            tick.models[name] = answer_set(mats[name].models(res))
            tick.counts[name] = (res.t, res.c)
        if not tick.agree:
            differing.append(tick)
        if keep_all:
            ticks.append(tick)
    return Comparison(list(running), unavailable, ticks, differing, evaluated)


def explain_comparison(analysis, records, cmp: Comparison, max_diffs: int = 20, until: Optional[int] = None,
                       tuple_order: str = "arrival") -> str:
    """For each differing tick, every atom one engine has and the first engine lacks, explained on both
    sides (:mod:`ticker_py.explain.differences`)."""
    from .explain.differences import explain_differences, stream_history
    from .streams.model import Model

    out = []
    for tick in cmp.differing[:max_diffs]:
        history = stream_history(prepare_stream(analysis, records, until, tuple_order), tick.t, tick.c)
        names = list(tick.models)
        for name in names[1:]:
            if tick.models[name] == tick.models[names[0]] or not all(
                    all(isinstance(a, tuple) for a in atoms) for atoms, _ in tick.models[name] | tick.models[names[0]]):
                continue
            sides = {n: tuple(Model(frozenset(atoms), frozenset(pins)) for atoms, pins in tick.models[n])
                     for n in (names[0], name)}
            out.append(f"t={tick.t} c={tick.c}: {names[0]} vs {name}, explained")
            out.append(explain_differences(analysis, history, tick.t, tick.c, sides))
    return "\n".join(out)


def _fmt_model(key) -> str:
    atoms, pins = key
    parts = [format_atom(a) if isinstance(a, tuple) else str(a) for a in atoms]
    parts += [f"{format_atom(a)} at {T}" for a, T in pins]
    return "{" + ", ".join(parts) + "}"


def _fmt_items(items) -> str:
    out = []
    for a in sorted(items, key=repr):
        if isinstance(a, str):
            out.append(a)
        else:
            out.append(f"{format_atom(a[0])} at {a[1]}" if _is_pin(a) else format_atom(a))
    return ", ".join(out)


def format_tick(tick: Tick, reference: Optional[str] = None) -> str:
    """A readable diff of one differing tick: which engine has which model/atoms extra or missing."""
    names = list(tick.models)
    ref = reference if reference in tick.models else names[0]
    lines = [f"t={tick.t} c={tick.c}: engines differ"]
    if len(set(tick.counts.values())) > 1:
        lines.append("  ticks: " + ", ".join(f"{n}: t={t} c={c}" for n, (t, c) in tick.counts.items()))
    groups: dict = {}
    for n in names:
        groups.setdefault(tick.models[n], []).append(n)
    for models, group in groups.items():
        shown = " ".join(_fmt_model(m) for m in sorted(models, key=repr)) or "no answer stream"
        lines.append(f"  {', '.join(group)}: {shown}")
    base = tick.models[ref]
    for n in names:
        other = tick.models[n]
        if other == base:
            continue
        if len(base) == 1 and len(other) == 1:
            (ba, bp), (oa, op) = next(iter(base)), next(iter(other))
            b_items = set(ba) | set(bp)
            o_items = set(oa) | set(op)
            if o_items - b_items:
                lines.append(f"    {n} has extra (vs {ref}): {_fmt_items(o_items - b_items)}")
            if b_items - o_items:
                lines.append(f"    {n} is missing (vs {ref}): {_fmt_items(b_items - o_items)}")
        else:
            for m in sorted(other - base, key=repr):
                lines.append(f"    {n} has extra answer stream (vs {ref}): {_fmt_model(m)}")
            for m in sorted(base - other, key=repr):
                lines.append(f"    {n} is missing answer stream (vs {ref}): {_fmt_model(m)}")
    return "\n".join(lines)


def format_comparison(cmp: Comparison, max_diffs: int = 20) -> str:
    """The report ``ticker compare`` prints."""
    lines = [format_tick(t, cmp.engines[0] if cmp.engines else None) for t in cmp.differing[:max_diffs]]
    if len(cmp.differing) > max_diffs:
        lines.append(f"... {len(cmp.differing) - max_diffs} more differing ticks")
    for name, reason in cmp.unavailable.items():
        lines.append(f"{name}: n/a ({reason})")
    ran = ", ".join(cmp.engines) or "no engine"
    if cmp.agree:
        lines.append(f"{ran}: agree on all {cmp.evaluated} ticks")
    else:
        first = cmp.differing[0]
        lines.append(f"{ran}: {len(cmp.differing)} of {cmp.evaluated} ticks differ "
                     f"(first at t={first.t} c={first.c})")
    return "\n".join(lines)


# ------------------------------------------------------------------ consequences and enumeration

@dataclass(frozen=True)
class Consequences:
    """Brave (in some) or cautious (in every) atoms at one tick; ``atoms`` is None without answer streams."""

    t: int
    c: int
    answer_streams: int
    atoms: Optional[list]

    def to_json(self, mode: str) -> str:
        return json.dumps({"t": self.t, "c": self.c, "answer_streams": self.answer_streams,
                           mode: self.atoms})


class _Fold:
    def __init__(self, mode: str):
        if mode not in ("brave", "cautious"):
            raise UsageError(Diagnostic(f"unknown consequences '{mode}'", notes=("use brave or cautious",)))
        self.mode, self.acc, self.n = mode, None, 0

    def add(self, printed: frozenset) -> None:
        self.n += 1
        if self.acc is None:
            self.acc = set(printed)
        elif self.mode == "brave":
            self.acc |= printed
        else:
            self.acc &= printed

    def result(self, t: int, c: int) -> Consequences:
        return Consequences(t, c, self.n, None if self.acc is None else sorted(self.acc))


def _printed(model, show_at: bool) -> frozenset:
    items = model.sorted_atoms() + (model.sorted_pinned() if show_at else [])
    return frozenset(items)


def consequences(results_iter: Iterable[Result], mode: str, show_at: bool = False) -> Iterator[Consequences]:
    """Per result: the number of answer streams and the brave or cautious consequences (atoms as text)."""
    for res in results_iter:
        fold = _Fold(mode)
        seen = set()
        for m in res.models or ():
            p = _printed(m, show_at)
            if p not in seen:
                seen.add(p)
                fold.add(p)
        yield fold.result(res.t, res.c)


class AnswerStreamWriter:
    """JSON Lines, one line per answer stream as it is produced.

    ``{"t": 7, "c": 3, "model": 0, "atoms": ["b(y)"]}`` (plus ``"at"`` pins with show_at);
    a tick without answer streams is one line with ``"model": null, "atoms": null``.
    """

    def __init__(self, out: TextIO, show_at: bool = False):
        self.out, self.show_at = out, show_at

    def write_model(self, t: int, c: int, index: int, model) -> None:
        obj = {"t": t, "c": c, "model": index, "atoms": model.sorted_atoms()}
        if self.show_at:
            obj["at"] = model.sorted_pinned()
        self.out.write(json.dumps(obj) + "\n")

    def write_none(self, t: int, c: int) -> None:
        self.out.write(json.dumps({"t": t, "c": c, "model": None, "atoms": None}) + "\n")


def _streaming_clingo(analysis, show: str = "derived"):
    """A clingo engine whose ``iter_models(t)`` yields every model one by one from the solver."""
    from .engines.clingo_engine import ClingoEngine

    return ClingoEngine(analysis, EngineOptions(models=0, show=show))


def enumerate_answer_streams(analysis, records, out: TextIO, mode: Optional[str] = None,
                             until: Optional[int] = None, every: str = "time", show_at: bool = False,
                             tuple_order: str = "arrival") -> Iterator[Consequences]:
    """Write every answer stream of every tick to ``out`` as it is produced (clingo engine).

    Yields per tick the count of answer streams and, with ``mode``, the brave or cautious
    consequences (else ``atoms`` is None). Models are never collected: only a hash of each
    printed model per tick is kept, to print models that print the same once.
    """
    engine = _streaming_clingo(analysis)
    writer = AnswerStreamWriter(out, show_at)
    points = prepare_stream(analysis, records, until, tuple_order)

    def ticks():
        for tp in points:
            atoms = list(tp.atoms)
            if every == "signal" and atoms:
                for a in atoms:
                    engine.append(tp.t, [a])
                    yield tp.t
            else:
                engine.append(tp.t, atoms)
                yield tp.t

    for t in ticks():
        c = engine.count
        fold = _Fold(mode or "brave")
        seen = set()
        for model in engine.iter_models(t):
            p = _printed(model, show_at)
            h = hash(p)
            if h in seen:
                continue
            seen.add(h)
            writer.write_model(t, c, fold.n, model)
            fold.add(p) if mode else setattr(fold, "n", fold.n + 1)
        if fold.n == 0:
            writer.write_none(t, c)
        out.flush()
        res = fold.result(t, c)
        yield res if mode else Consequences(t, c, res.answer_streams, None)


# ------------------------------------------------------------------ command line

def _engine_list(text: str) -> list:
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise UsageError(Diagnostic("--engines needs at least one engine"))
    for n in names:
        if n not in ENGINE_NAMES:
            raise UsageError(Diagnostic(f"unknown engine '{n}'", notes=(f"engines: {', '.join(ENGINE_NAMES)}",)))
    return names


def _add_stream_args(p) -> None:
    from .cli import _add_program_args

    _add_program_args(p)
    p.add_argument("--stream", required=True, help="stream file (.stream/.txt/.jsonl/.csv/.parquet) or -")
    p.add_argument("--every", default="time", help="time: once per time point; signal: after every atom")
    p.add_argument("--until", type=int, metavar="T", help="evaluate time points up to T")
    p.add_argument("--tuple-order", default="arrival",
                   help="arrival (SPEC §3.3: a tuple window keeps the last-arrived atoms of its oldest "
                        "time point) or reverse (the atoms of each time point are fed in reverse order, "
                        "so it keeps the first-arrived)")


def register_cli(subparsers) -> None:
    """Add ``compare`` and ``enumerate`` to the ``ticker`` command."""
    p = subparsers.add_parser("compare", help="run engines side by side; exit 3 when they differ",
                              description="Feed one stream to several engines and report every tick where "
                                          "their answer streams (as sets of models) differ.")
    _add_stream_args(p)
    p.add_argument("--engines", default="clingo,incremental,native", help="comma-separated engines")
    p.add_argument("--models", type=int, default=0, help="answer streams per tick (default 0 = all)")
    p.add_argument("--consequences", metavar="brave|cautious",
                   help="compare brave or cautious consequences instead of the answer streams")
    p.add_argument("--max-diffs", type=int, default=20, help="differing ticks to print (default 20)")
    p.add_argument("--explain", action="store_true",
                   help="for each differing atom, the why of the engine that has it and the why-not of the one"
                        " that lacks it")
    p.set_defaults(func=cmd_compare)

    e = subparsers.add_parser("enumerate", help="write all answer streams to a file as they are produced",
                              description="Enumerate every answer stream of every tick (clingo) into a "
                                          "JSON Lines file; print per tick the count and, with "
                                          "--consequences, the brave or cautious consequences.")
    _add_stream_args(e)
    e.add_argument("--out", required=True, help="JSON Lines file for the answer streams")
    e.add_argument("--consequences", metavar="brave|cautious", help="also print these consequences per tick")
    e.add_argument("--show-at", action="store_true", help="include atoms pinned to other time points")
    e.set_defaults(func=cmd_enumerate)


def _check_common(args) -> None:
    if args.every not in ("time", "signal"):
        raise UsageError(Diagnostic(f"unknown --every '{args.every}'", notes=("use time or signal",)))
    if args.tuple_order not in ("arrival", "reverse"):
        raise UsageError(Diagnostic(f"unknown --tuple-order '{args.tuple_order}'",
                                    notes=("use arrival or reverse",)))
    if args.consequences not in (None, "brave", "cautious"):
        raise UsageError(Diagnostic(f"unknown --consequences '{args.consequences}'",
                                    notes=("use brave or cautious",)))


def cmd_compare(args, factories: Optional[dict] = None) -> int:
    """``ticker compare``; ``factories`` overrides the engines (tests inject stand-ins)."""
    from .cli import load

    _check_common(args)
    if args.models < 0:
        raise UsageError(Diagnostic(f"--models must be >= 0, not {args.models}"))
    names = _engine_list(args.engines)
    analysis = load(args)
    factories = factories or {n: default_factory(n) for n in names}
    if args.consequences:
        return _compare_consequences(args, analysis, factories)
    from .api import records_from

    stream = list(records_from(args.stream)) if getattr(args, "explain", False) else args.stream  # read twice
    cmp = compare_engines(analysis, stream, factories, models=args.models, every=args.every,
                          until=args.until, tuple_order=args.tuple_order, keep_all=False)
    print(format_comparison(cmp, args.max_diffs))
    if getattr(args, "explain", False):
        print(explain_comparison(analysis, stream, cmp, args.max_diffs, args.until, args.tuple_order))
    if len(cmp.engines) < 2:
        print("note: fewer than two engines ran; nothing was compared", file=sys.stderr)
    return 0 if cmp.agree else EXIT_DIFFER


def _compare_consequences(args, analysis, factories) -> int:
    """Compare per-tick counts of answer streams and brave/cautious consequences."""
    running, unavailable = {}, {}
    for name, factory in factories.items():
        try:
            running[name] = factory(analysis, EngineOptions(models=args.models))
        except (EngineUnsupported, ImportError) as err:
            unavailable[name] = getattr(err, "diagnostics", [err])[0]
    points = list(prepare_stream(analysis, args.stream, args.until, args.tuple_order))
    its = {n: consequences(feed(e, points, args.every), args.consequences) for n, e in running.items()}
    differ = 0
    for row in zip(*its.values()):
        per = dict(zip(its, row))
        first = row[0]
        if len({(r.answer_streams, tuple(r.atoms or ()), r.atoms is None) for r in row}) > 1:
            differ += 1
            if differ <= args.max_diffs:
                print(f"t={first.t} c={first.c}: engines differ")
                for n, r in per.items():
                    print(f"  {n}: {r.answer_streams} answer streams, {args.consequences} {r.atoms}")
        else:
            print(first.to_json(args.consequences))
    for n, reason in unavailable.items():
        print(f"{n}: n/a ({reason})")
    return EXIT_DIFFER if differ else 0


def cmd_enumerate(args) -> int:
    """``ticker enumerate``."""
    from .cli import load

    _check_common(args)
    analysis = load(args)
    with open(args.out, "w") as out:
        for res in enumerate_answer_streams(analysis, args.stream, out, args.consequences, args.until,
                                            args.every, args.show_at, args.tuple_order):
            if args.consequences:
                print(res.to_json(args.consequences))
            else:
                print(json.dumps({"t": res.t, "c": res.c, "answer_streams": res.answer_streams}))
            sys.stdout.flush()
    return 0
