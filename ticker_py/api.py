"""The Python API: parse a program, create a reasoner, feed it a stream, read results.

>>> from ticker_py import Reasoner
>>> r = Reasoner("alarm :- temp(V) in [2], V > 100.", engine="clingo")
>>> r.append(0, ["temp(120)"])
>>> r.evaluate(0).models
(Model(atoms=frozenset({('alarm',)}), pinned=frozenset()),)
>>> r.evaluate(3).models       # temp(120) left the window [1, 3]
(Model(atoms=frozenset(), pinned=frozenset()),)

One call for a whole stream, with a pandas DataFrame out:

>>> from ticker_py import run
>>> res = run("a :- not b. b :- not a.", [(0, [])], engine="clingo", models=0)
>>> [sorted(m.sorted_atoms() for m in r.models) for r in res]
[[['a'], ['b']]]
>>> res.to_dataframe()[["t", "model", "atom"]].values.tolist()
[[0, 0, 'a'], [0, 1, 'b']]
"""

from __future__ import annotations

import contextlib
import itertools
import re
import threading
from collections.abc import Iterable, Iterator
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from . import ast
from .analysis import GENERAL, Analysis, analyse
from .engines import EngineOptions, create_engine, resolve_engine
from .errors import Diagnostic, ProgramError, StreamError, UsageError
from .limits import CLINGO_MAX
from .semantics import Duplicates, Origin, Persistence, Semantics, check_program, resolve, under
from .streams import Record, Result, StreamChecker, open_stream, read_dataframe, results_to_dataframe
from .streams.drive import MAX_GAP, Every, check_max_gap, drive
from .syntax import parse_file, parse_ground_atom, parse_program, read_source
from .syntax.ground_atoms import GroundSyntaxError
from .values import COMPARISONS, SURROGATE, UNHOLDABLE, Comparisons, format_atom

if TYPE_CHECKING:  # imported where used: explaining is rare and its modules are large
    from .explain import Explanation

__all__ = ["load_program", "parse_clock", "Reasoner", "Results", "run", "records_from", "explain_at"]

_CLOCK = re.compile(r"^\s*(\d+)\s*([a-z]+)?\s*$")


def parse_clock(text: str | int) -> int:
    """The duration of one time point in ms: ``parse_clock("1s") == 1000``."""
    if type(text) is int and text > 0:
        return text
    if not isinstance(text, str):
        raise UsageError(Diagnostic(f"bad clock {text!r}", notes=("give a positive number of ms, or e.g. 1s, 500ms",)))
    m = _CLOCK.match(text)
    unit = m and ("sec" if m.group(2) in (None, "s") else m.group(2))  # the window units, and "s"
    if not m or unit not in ast.UNITS or int(m.group(1)) == 0:
        raise UsageError(Diagnostic(f"bad clock '{text}'", notes=("write e.g. 1s, 500ms, 1min",)))
    return int(m.group(1)) * ast.UNITS[unit]


def load_program(
    program: str | Path | ast.Program,
    *,
    background: str | Path | None = None,
    clock: str | int = "1s",
    background_rdf: str | Path | None = None,
    rdf_mapping: str = "triple",
    owl2rl: bool = False,
) -> Analysis:
    """Parse (source text, a ``.lars`` path or an AST) and analyse a program.

    ``background``: a file of more facts in program syntax, added to the program.
    ``background_rdf``: an RDF file (Turtle, N-Triples, ...) whose triples are added as facts,
    mapped as ``rdf_mapping`` says (``triple`` or ``property``, see docs/rdf.md).
    ``owl2rl``: add the shipped OWL 2 RL rules over ``triple/3`` (``ticker_py/rdf/owl2rl.lars``).
    """
    clock_ms = parse_clock(clock)
    if not isinstance(program, (str, Path, ast.Program)):
        raise UsageError(Diagnostic(f"a program is source text, a .lars path or an AST, not {program!r}"))
    for name, path in (("background", background), ("background_rdf", background_rdf)):
        if path is not None and not isinstance(path, (str, Path)):
            raise UsageError(Diagnostic(f"{name} must be a path, not {path!r}"))
    source = None
    if isinstance(program, ast.Program):
        prog = program
    elif isinstance(program, Path) or (
        isinstance(program, str) and program.endswith(".lars") and "\n" not in program and ":-" not in program
    ):
        source = read_source(program)
        prog = parse_program(source, str(program))
    else:
        _check_text(program)
        prog, source = parse_program(program), program
    if background is not None:
        prog = ast.Program(prog.rules + _background_facts(background), prog.file, prog.prefixes)
    if background_rdf is not None:
        from .rdf.background import rdf_facts
        from .rdf.streams import RdfMapping

        facts = rdf_facts(background_rdf, RdfMapping(rdf_mapping, prog.prefixes))
        prog = ast.Program(prog.rules + facts, prog.file, prog.prefixes)
    if owl2rl:
        from .rdf.background import OWL2RL

        prog = ast.Program(prog.rules + parse_file(OWL2RL).rules, prog.file, prog.prefixes)
    return analyse(prog, clock_ms, source=source)


def _check_text(source: str) -> None:
    """Refuse program source text with a character no program file can hold, located."""
    bad = UNHOLDABLE.search(source)  # a NUL (files with one are binary) or a lone surrogate
    if bad is not None:
        before = source[: bad.start()]
        line, column = before.count("\n") + 1, bad.start() - before.rfind("\n")
        what = "a NUL character" if bad.group() == "\0" else "a lone surrogate (no UTF-8 form)"
        raise ProgramError(
            Diagnostic(f"program text has {what}", ast.Location("<string>", line, column, line, column + 1))
        )


def _background_facts(path: str | Path) -> tuple:
    rules = parse_program(read_source(path, "background file"), str(path)).rules
    not_facts = [r for r in rules if not r.is_fact]
    if not_facts:
        raise UsageError(Diagnostic("background files hold facts only", not_facts[0].location))
    return rules


def _atom(value, t: int) -> tuple:
    """A ground atom from a string (``"p(a,1)"``) or a tuple (``("p", "a", 1)``), checked.

    A tuple must be exactly what its printed form parses to: ints are numbers, ``str`` s are
    constants (``"a"``) or quoted strings (``'"text"'``), nested tuples function terms. So
    ``("temp", "50")`` is refused (write ``("temp", 50)``), and no string can smuggle program
    text into an engine.
    """
    if isinstance(value, tuple):
        text = _tuple_atom_text(value)
        if text is None:
            raise StreamError(
                Diagnostic(
                    f"bad tuple atom {value!r} at time {t}",
                    notes=(
                        "a tuple atom is (predicate, arg, ...): int for a number, str for a constant "
                        "such as 'a' or a quoted string such as '\"text\"', a tuple for a function term",
                    ),
                )
            ) from None
    elif isinstance(value, str):
        text = value
    else:
        raise StreamError(Diagnostic(f"bad atom {value!r} at time {t}: give a string such as 'p(1)' or a tuple"))
    if SURROGATE.search(text):
        raise StreamError(
            Diagnostic(
                f"bad atom {ascii(text)} at time {t}: a lone surrogate has no UTF-8 form",
                notes=("no output format could write it",),
            )
        )
    if value is not text:
        return value
    try:
        return parse_ground_atom(value)
    except GroundSyntaxError as err:
        raise StreamError(Diagnostic(f"bad atom '{value}' at time {t}: {err.message}")) from None
    except RecursionError:
        raise StreamError(Diagnostic(f"bad atom at time {t}: nested too deeply")) from None


def _tuple_atom_text(value: tuple) -> str | None:
    """The printed form of ``value`` if ``value`` is exactly what it parses to (see :func:`_atom`), else None."""
    try:
        text = format_atom(value) if value and type(value[0]) is str else None
        return text if text is not None and parse_ground_atom(text) == value else None
    except (GroundSyntaxError, TypeError, ValueError, IndexError, RecursionError):  # IndexError: an empty term ()
        return None


def _query(atom):
    """An atom to explain: a string (parsed by the explainer) or a well-formed tuple atom."""
    if isinstance(atom, str) or (isinstance(atom, tuple) and _tuple_atom_text(atom) is not None):
        return atom
    raise UsageError(
        Diagnostic(
            f"bad atom to explain {atom!r}",
            notes=("give a string such as 'p(1)' or 'p(1) at 3', or a tuple such as ('p', 1)",),
        )
    )


def _time(t, what: str = "time") -> int:
    """t checked: an int >= 0 (not a bool, not a float)."""
    if type(t) is not int or t < 0:
        raise UsageError(Diagnostic(f"{what} must be an integer >= 0, not {t!r}"))
    return t


class Results(list):
    """A list of :class:`Result` that converts to a pandas DataFrame."""

    def to_dataframe(self, show_at: bool = False):
        """Columns ``t, c, model, atom``; for factorized results ``t, c, factor, alternative, atom``
        (see docs/formats.md)."""
        if self and self[0].factors is not None:
            from .streams.factor_writers import factors_to_dataframe

            return factors_to_dataframe(self, show_at=show_at)
        return results_to_dataframe(self, show_at=show_at)


class Reasoner:
    """A program bound to an engine, evaluated tick by tick.

    ``append(t, atoms)`` adds atoms (strings like ``"alpha(20)"`` or tuples) arriving at
    time t; ``evaluate(t)`` answers at tick (t, c). ``feed(records)`` drives a whole stream.
    Misuse raises :class:`~ticker_py.errors.TickerError` subclasses (UsageError, StreamError).
    Not thread-safe: a call while another thread is inside one raises UsageError (use one
    Reasoner per thread, or :class:`~ticker_py.live.LiveReasoner`, which takes a lock).
    ``explain(t, atom)`` explains an atom at the latest evaluated tick; with ``explainable=True``
    every Result can explain itself (``Result.explain``). ``history=False`` keeps nothing for
    explanations (``explain`` is then refused): the ``ticker run`` command's choice, which saves
    a copy of every window-covered input atom.

    ``semantics``: a profile of :data:`ticker_py.semantics.PROFILES` (or a ``Semantics``);
    ``knobs``: explicit knob values over it, e.g. ``window_bounds="half-open"``.
    ``strict``: an order comparison between a number and a string or literal that is no number
    (``V > 100`` with ``V = "7"``) raises StreamError; by default it is reported once per
    comparison and kind of term as a :class:`~ticker_py.errors.TickerWarning` (docs/semantics.md).
    """

    def __init__(
        self,
        program,
        engine: str = "auto",
        models: int = 1,
        show: str = "derived",
        clock: str | int = "1s",
        inertia: bool = False,
        changes_only: bool = False,
        factorize: bool = False,
        explainable: bool = False,
        semantics: str | Semantics | None = None,
        history: bool = True,
        strict: bool = False,
        **knobs,
    ):
        if not isinstance(program, (str, Path, ast.Program, Analysis)):
            raise UsageError(Diagnostic(f"a program is source text, a .lars path or an AST, not {program!r}"))
        if semantics is not None and not isinstance(semantics, (str, Semantics)):
            raise UsageError(Diagnostic(f"semantics is a profile name or a Semantics, not {semantics!r}"))
        self.semantics = resolve(semantics, **knobs)
        self.analysis = program if isinstance(program, Analysis) else load_program(program, clock=clock)
        if type(models) is not int or models < 0:
            raise UsageError(Diagnostic(f"--models must be >= 0, not {models}"))
        if show not in ("derived", "all"):
            raise UsageError(Diagnostic(f"unknown --show '{show}'", notes=("use derived or all",)))
        if not isinstance(engine, str):
            raise UsageError(Diagnostic(f"unknown engine {engine!r}"))
        check_program(self.semantics, self.analysis)
        analysis = under(self.semantics, self.analysis)
        self.engine_name = resolve_engine(engine, analysis, self.semantics)
        if factorize and self.semantics.changed:
            raise UsageError(
                Diagnostic(
                    "--factorize runs the default semantics",
                    notes=(f"drop --factorize or the knobs of '{self.semantics}'",),
                )
            )
        # more answer streams than clingo can count cannot be enumerated anyway: all of them (0)
        options = EngineOptions(
            models=0 if factorize or models > CLINGO_MAX else models,
            show=show,
            inertia=inertia,
            changes_only=changes_only and not factorize,
            factorize=factorize,
            semantics=self.semantics,
        )
        requested = engine if engine == "auto" else self.engine_name
        if self.semantics.persistence is Persistence.FEEDBACK:
            from .engines.feedback import FeedbackEngine, inner_options

            inner = create_engine(requested, analysis, inner_options(options))
            self.engine = FeedbackEngine(inner, analysis, options)
        else:
            self.engine = create_engine(requested, analysis, options)
        self.engine_name = getattr(self.engine, "name", self.engine_name)  # auto may have fallen back
        self.factorize, self.models = factorize, models
        if factorize and self.engine_name != "native" and not hasattr(self.engine, "factorizes"):
            from .streams.factorized import note_fallback

            note_fallback(self.engine_name, "this engine does not factorize")
        self.checker = StreamChecker(dict(self.analysis.signatures), set(self.analysis.intensional))
        self.time = 0
        self.atoms_in = 0
        self._busy = threading.Lock()
        self.seen_at, self.seen = -1, set()  # atoms appended at time seen_at
        self.explainable = explainable
        self._kept = None  # for explain()
        if history or explainable:
            from .engines.history import WindowHistory

            self._kept = WindowHistory(self.analysis.lookback, self.analysis.tuple_lookback)
        self._last: Result | None = None
        self.started = False  # something was appended or evaluated (origin=first: the origin is known)
        self.bag = self.semantics.duplicates is Duplicates.BAG
        self.comparisons = Comparisons(strict=bool(strict))

    def append(self, t: int, atoms: Iterable) -> None:
        """Add the atoms that arrived at time t (t never decreases; duplicates count once, unless
        the semantics has ``duplicates="bag"``)."""
        _time(t)
        if t < self.time:
            raise StreamError(Diagnostic(f"time {t} after time {self.time}: time must not decrease"))
        if isinstance(atoms, (str, tuple)) or not isinstance(atoms, Iterable):
            raise UsageError(Diagnostic(f"atoms must be a list of atoms, not {atoms!r}"))
        atoms = [_atom(a, t) for a in atoms]
        self.checker.check(Record(t, tuple(atoms), "<api>", 0))
        if self.bag:
            self._append(t, atoms)
            return
        if t != self.seen_at:
            self.seen_at, self.seen = t, set()
        fresh = []
        for a in atoms:  # the same atom twice in a time point counts once
            if a not in self.seen:
                self.seen.add(a)
                fresh.append(a)
        self._append(t, fresh)

    def _append(self, t: int, atoms: list) -> None:
        with self._exclusive():
            self.time = t
            self.started = True
            self.atoms_in += len(atoms)
            if self._kept is not None:
                self._kept.extend(t, atoms)
            self.engine.append(t, atoms)

    def evaluate(self, t: int | None = None) -> Result:
        """The answer streams at time t (default: the latest time appended)."""
        if t is None:
            t = self.time
        _time(t)
        if t < self.time:
            raise StreamError(Diagnostic(f"cannot evaluate time {t} after time {self.time}"))
        with self._exclusive():
            self.time = t
            self.started = True
            if self._kept is not None:
                self._kept.trim(t)
            result = self.engine.evaluate(t)
        if self.factorize:
            from .streams.factorized import with_factors

            result = with_factors(result, self.models)
        if self.explainable and result.models is not None:
            result = replace(result, explainer=partial(_explain_result, self.analysis, tuple(self._kept.entries)))
        self._last = result
        return result

    @contextlib.contextmanager
    def _exclusive(self):
        """A Reasoner is not thread-safe: a call while another thread is inside one raises UsageError."""
        if not self._busy.acquire(blocking=False):
            raise UsageError(
                Diagnostic(
                    "this Reasoner is in use by another thread",
                    notes=(
                        "a Reasoner is not thread-safe: use one per thread, or "
                        "ticker_py.live.LiveReasoner, whose methods take a lock",
                    ),
                )
            )
        token = COMPARISONS.set(self.comparisons)
        try:
            yield
        finally:
            COMPARISONS.reset(token)
            self._busy.release()

    def explain(
        self, t: int, atom, model: int = 1, why_not: bool = False, all_models: bool | None = None
    ) -> Explanation:
        """Why ``atom`` (``"p(1)"``, ``"p(1) at 3"`` or a tuple) holds in answer stream ``model``
        (1-based) at the latest evaluated tick, which must be at time t; ``why_not``: why it does not."""
        atom = _query(atom)
        if type(model) is not int:
            raise UsageError(Diagnostic(f"model must be an integer (1-based), not {model!r}"))
        last = self._last
        if last is None or last.t != t:
            where = "nothing was evaluated yet" if last is None else f"the latest evaluated time is {last.t}"
            raise UsageError(
                Diagnostic(f"cannot explain time {t}: {where}", notes=("explain the latest evaluated time point",))
            )
        if self._kept is None:
            raise UsageError(
                Diagnostic("this Reasoner keeps no history to explain from", notes=("create it without history=False",))
            )
        if all_models is None:  # at most one answer stream, or all of them computed
            all_models = self.models == 0 or self.analysis.fragment != GENERAL
        from .explain import explain

        return explain(
            self.analysis, self._kept.entries, last.t, last.c, last.models, atom, model, why_not, all_models=all_models
        )

    def feed(
        self,
        records: Iterable[Record],
        until: int | None = None,
        every: str | Every = Every.TIME,
        max_gap: int | None = MAX_GAP,
    ) -> Iterator[Result]:
        """Evaluate a stream of records: once per time point, or after every atom (``signal``).

        Time points are evaluated as soon as a later record shows they are complete. If the
        stream raises an error, everything accepted before it is evaluated first. A record
        more than ``max_gap`` time points after the open one is an error (None or 0: no limit).
        """
        every = Every.parse(every)
        max_gap = check_max_gap(max_gap)
        if until is not None:
            _time(until, "--until")
        records = self._values_checked(self.checker.records(records_from(records), self.time, until))
        return self._feed(records, every, until, max_gap)

    def _feed(
        self, records: Iterator[Record], every: Every, until: int | None, max_gap: int | None
    ) -> Iterator[Result]:
        start = self.time
        if self.semantics.origin is Origin.FIRST and not self.started:
            # the stream starts at its first record: nothing is evaluated before it
            first = next(records, None)
            if first is None:
                return
            start = first.t
            records = itertools.chain([first], records)
        yield from drive(_Checked(self), records, every, until, start, max_gap, self.bag)

    def _values_checked(self, records: Iterable[Record]) -> Iterator[Record]:
        """The records, each refused (located) if the engine cannot hold one of its values exactly."""
        check = getattr(self.engine, "check_values", None)
        for rec in records:
            if check is not None:
                try:
                    check(rec.t, rec.atoms)
                except StreamError as err:
                    from .engines.wide import locate

                    raise locate(err, rec.source, rec.line) from None
            yield rec


def _explain_result(analysis, history, result, atom, model, why_not):
    from .explain import explain

    return explain(analysis, history, result.t, result.c, result.models, atom, model, why_not)


class _Checked:
    """A reasoner as the driver sees it: records already checked, time and counts kept."""

    def __init__(self, reasoner: Reasoner):
        self.append, self.evaluate = reasoner._append, reasoner.evaluate


def records_from(stream, rdf=None, stream_format: str | None = None) -> Iterable[Record]:
    """Records from a path, ``-``, a pandas DataFrame, or an iterable of ``(t, atoms)`` pairs.

    ``stream_format`` (``--stream-format``) is the format of ``-`` and of files with an unknown
    suffix: ``text``, ``jsonl``, ``csv`` or an RDF format. RDF streams (``.nt``, ``.nq``, a
    DataFrame with columns ``t, s, p, o``, any stream with ``rdf``, a
    :class:`ticker_py.rdf.streams.RdfMapping`, or an RDF ``stream_format``) are read by
    :mod:`ticker_py.rdf.streams`.
    """
    from .rdf import RDF_FORMATS, rdf_format

    if stream_format == "auto":
        stream_format = None
    if isinstance(stream, (str, Path)):
        if rdf is not None or stream_format in RDF_FORMATS or rdf_format(str(stream)):
            from .rdf import streams as rdf_streams

            return rdf_streams.open_rdf_stream(stream, stream_format, rdf or rdf_streams.RdfMapping())
        return open_stream(str(stream), fmt=stream_format)
    if hasattr(stream, "columns") and hasattr(stream, "iterrows"):
        if rdf is not None or {"s", "p", "o"} <= set(stream.columns):
            from .rdf import streams as rdf_streams

            return rdf_streams.read_rdf_dataframe(stream, mapping=rdf or rdf_streams.RdfMapping())
        return read_dataframe(stream)
    if hasattr(stream, "toPandas") or hasattr(stream, "toLocalIterator"):
        from .streams.spark_frame import read_spark_dataframe  # calls the DataFrame's methods only

        return read_spark_dataframe(stream)

    if not isinstance(stream, Iterable):
        raise UsageError(Diagnostic(f"a stream is a path, a DataFrame or (t, atoms) pairs, not {stream!r}"))

    def gen():
        for item in stream:
            if isinstance(item, Record):
                yield item
                continue
            if not isinstance(item, (tuple, list)) or len(item) != 2:
                raise StreamError(Diagnostic(f"a stream item is a (t, atoms) pair, not {item!r}"))
            t, atoms = _time(item[0]), item[1]
            if isinstance(atoms, (str, tuple)) or not isinstance(atoms, Iterable):
                raise StreamError(Diagnostic(f"atoms at time {t} must be a list of atoms, not {atoms!r}"))
            yield Record(t, tuple(_atom(a, t) for a in atoms), "<api>", 0)

    return gen()


def run(
    program,
    stream,
    engine: str = "auto",
    models: int = 1,
    every: str = "time",
    until: int | None = None,
    show: str = "derived",
    clock: str | int = "1s",
    inertia: bool = False,
    factorize: bool = False,
    max_gap: int | None = MAX_GAP,
    explainable: bool = False,
    semantics: str | Semantics | None = None,
    strict: bool = False,
    **knobs,
) -> Results:
    """Evaluate a whole stream; ``stream`` is a path, a DataFrame or ``(t, atoms)`` pairs.

    ``factorize=True``: every Result carries its answer streams factorized (``Result.factors``,
    see docs/formats.md); ``models`` > 0 then keeps the first ``models`` of the product.
    ``max_gap``: the most time points one record may skip (None or 0: no limit).
    ``explainable``: every Result keeps what ``Result.explain`` needs (a copy of the window-covered
    stream per tick). ``semantics``, ``strict`` and ``knobs`` as for :class:`Reasoner`."""
    reasoner = Reasoner(
        program,
        engine=engine,
        models=models,
        show=show,
        clock=clock,
        inertia=inertia,
        factorize=factorize,
        explainable=explainable,
        semantics=semantics,
        strict=strict,
        **knobs,
    )
    return Results(reasoner.feed(records_from(stream), until=until, every=every, max_gap=max_gap))


def explain_at(
    program,
    stream,
    at: int,
    atom,
    why_not: bool = False,
    model: int = 1,
    engine: str = "auto",
    every: str | Every = Every.TIME,
    clock: str | int = "1s",
    models: int = 0,
) -> Explanation:
    """Run ``program`` over ``stream`` up to time ``at`` and explain ``atom`` there (``why_not``:
    why it does not hold) in answer stream ``model`` (1-based, in printed order). ``models``: how
    many answer streams to compute per tick (0 = all, as ``ticker run --models 0`` numbers them;
    a program with thousands of answer streams per tick runs much faster with a small N)."""
    analysis = program if isinstance(program, Analysis) else load_program(program, clock=clock)
    from .explain import parse_query

    _time(at, "--at")
    parse_query(_query(atom), analysis)  # a bad atom is refused before the stream is read
    reasoner = Reasoner(analysis, engine=engine, models=models)
    last_time = -1

    def outside() -> UsageError:
        return UsageError(
            Diagnostic(
                f"time {at} is outside the stream",
                notes=(f"its last time point is {last_time}" if last_time >= 0 else "the stream is empty",),
            )
        )

    def seen(records):
        nonlocal last_time
        for rec in records:
            last_time = max(last_time, rec.t)
            yield rec
        if last_time < at:  # said before the feed pads the time points up to ``at`` (or refuses the gap)
            raise outside()

    for _ in reasoner.feed(seen(records_from(stream)), until=at, every=every):
        pass
    if last_time < at:
        raise outside()
    return reasoner.explain(at, atom, model=model, why_not=why_not)
