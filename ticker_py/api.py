"""The Python API: parse a program, create a reasoner, feed it a stream, read results.

>>> from ticker_py import Reasoner
>>> r = Reasoner("alarm :- temp(V) in [2], V > 100.", engine="clingo")
>>> r.append(0, ["temp(120)"])
>>> r.evaluate(0).models
(Model({alarm}),)
>>> r.evaluate(3).models       # temp(120) left the window [1, 3]
(Model({}),)

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
from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from . import ast
from .analysis import GENERAL, Analysis, analyse
from .analysis.arities import Renaming
from .engines import EngineOptions, create_engine, resolve_engine
from .errors import Diagnostic, ProgramError, StreamError, UsageError
from .limits import CLINGO_MAX
from .semantics import KNOBS, Duplicates, Origin, Persistence, Semantics, check_program, resolve
from .streams import Record, Result, StreamChecker, open_stream, read_dataframe, results_to_dataframe
from .streams.drive import MAX_GAP, Every, check_max_gap, drive, whole
from .streams.model import in_printed_order
from .syntax import load_source, parse_file, parse_ground_atom, parse_program, read_source
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


def _check_keywords(knobs: dict, function) -> None:
    """Refuse a keyword argument that is neither a parameter of ``function`` nor a semantics knob
    (``model=0``, ``egine="native"``), naming the closest one."""
    unknown = [k for k in knobs if k not in KNOBS]
    if unknown:
        raise _unknown_keyword(unknown[0], _parameters(function) + list(KNOBS))


def _parameters(function) -> list:
    """The names ``function`` takes as keywords, in order (not ``self``, nor ``**knobs``)."""
    code = function.__code__
    names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    return [n for n in names if n != "self"]


def _unknown_keyword(name: str, names: list) -> UsageError:
    import difflib

    close = difflib.get_close_matches(name, names, n=1)
    return UsageError(
        Diagnostic(
            f"unknown keyword argument '{name}'" + (f"; did you mean '{close[0]}'?" if close else ""),
            notes=(f"keywords: {', '.join(names)}",),
        )
    )


def keywords_checked(function):
    """``function`` whose misspelled keyword argument is a UsageError naming the closest parameter,
    as for :func:`run` (Python's TypeError names none)."""
    import functools

    names = _parameters(function)
    known = frozenset(names)

    @functools.wraps(function)
    def checked(*args, **kwargs):
        for name in kwargs:
            if name not in known:
                raise _unknown_keyword(name, names)
        return function(*args, **kwargs)

    return checked


@keywords_checked
def load_program(
    program: str | Path | ast.Program,
    *,
    background: str | Path | Sequence[str | Path] | None = None,
    clock: str | int = "1s",
    background_rdf: str | Path | Sequence[str | Path] | None = None,
    rdf_mapping: str = "triple",
    owl2rl: bool = False,
    const: dict | None = None,
) -> Analysis:
    """Parse (source text, a ``.lars`` path or an AST) and analyse a program.

    ``const``: values of constants (name -> int or term text, ``{"n": 20}``), over the
    program's ``#const`` ones (as ``-c n=20``).

    ``background``: a file of more facts in program syntax, added to the program (or a list of
    such files, added in order, as ``--background`` given several times).
    ``background_rdf``: an RDF file (Turtle, N-Triples, ...) whose triples are added as facts,
    mapped as ``rdf_mapping`` says (``triple`` or ``property``, see docs/rdf.md); or a list of them.
    ``owl2rl``: add the shipped OWL 2 RL rules over ``triple/3`` (``ticker_py/rdf/owl2rl.lars``).
    """
    clock_ms = parse_clock(clock)
    if not isinstance(program, (str, Path, ast.Program)):
        raise UsageError(Diagnostic(f"a program is source text, a .lars path or an AST, not {program!r}"))
    backgrounds, rdf_backgrounds = _paths(background, "background"), _paths(background_rdf, "background_rdf")
    if const is not None and not isinstance(const, dict):
        raise UsageError(Diagnostic(f"const is a dict of names to values, not {const!r}"))
    source, problems = None, ()
    if isinstance(program, ast.Program):
        prog = program
        if const:
            raise UsageError(
                Diagnostic("const= needs the program's source", notes=("give source text or a .lars path",))
            )
    else:
        if isinstance(program, Path) or (
            isinstance(program, str) and program.endswith(".lars") and "\n" not in program and ":-" not in program
        ):
            text, file = read_source(program), str(program)
        else:
            _check_text(program)
            text, file = program, "<string>"
        loaded = load_source(text, file, const)
        prog, problems, source = loaded.program, loaded.problems, loaded.sources
    for path in backgrounds:
        prog = prog.replace(rules=prog.rules + _background_facts(path))
    for path in rdf_backgrounds:
        from .rdf.background import rdf_facts
        from .rdf.mapping import RdfMapping

        facts = rdf_facts(path, RdfMapping(rdf_mapping, prog.prefixes))
        prog = prog.replace(rules=prog.rules + facts)
    if owl2rl:
        from .rdf.background import OWL2RL

        prog = prog.replace(rules=prog.rules + parse_file(OWL2RL).rules)
    return analyse(prog, clock_ms, source=source, problems=problems)


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


def _paths(value, name: str) -> list:
    """The background files of ``value``: None, one path, or a list or tuple of paths."""
    paths = [] if value is None else [value] if isinstance(value, (str, Path)) else value
    if not isinstance(paths, (list, tuple)) or not all(isinstance(p, (str, Path)) for p in paths):
        raise UsageError(Diagnostic(f"{name} must be a path or a list of paths, not {value!r}"))
    return list(paths)


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
        printed = _tuple_atom_text(value)
        if printed is not None:
            text, value = printed  # the parsed atom: a numpy integer in it becomes an int
        else:
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


def _tuple_atom_text(value: tuple) -> tuple | None:
    """``(text, atom)``: the printed form of ``value`` and what it parses to, if that is ``value``
    (see :func:`_atom`), else None."""
    try:
        text = format_atom(value) if value and type(value[0]) is str else None
        atom = parse_ground_atom(text) if text is not None else None
        return (text, atom) if atom is not None and atom == value else None
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
    """t checked: an integer >= 0, Python's or numpy's (``np.int64`` from a DataFrame; not a bool,
    not a float), as an int."""
    return whole(t, what)


def _models(models, factorize: bool) -> int:
    """``models`` checked; None (the default) is 1, or all (0) with ``factorize``, as in the CLI."""
    if models is None:
        return 0 if factorize else 1
    return _time(models, "models")


class Results(list):
    """A list of :class:`Result` that converts to a pandas DataFrame and draws itself.

    From :func:`run`, ``inputs`` counts the input atoms per time point and ``about`` says what ran
    (engine, semantics); a notebook shows the results as a table and a small timeline."""

    inputs: dict | None = None
    about: str = ""

    def plot(self, title: str | None = None, start=None, end=None, atoms=None, max_atoms: int | None = 60):
        """The timeline of the answer streams as a matplotlib figure (docs/pictures.md): one row per
        derived atom, a bar where it holds; ``start``/``end`` the time points shown, ``atoms`` a
        pattern such as ``"alarm/0,q(a,_)"``, ``max_atoms`` the rows drawn (None: all)."""
        from .plot.draw import results_figure

        return results_figure(self, title=title, start=start, end=end, atoms=atoms, max_atoms=max_atoms)

    def _repr_html_(self) -> str:
        from .plot.html import results_html

        return results_html(self)

    @keywords_checked
    def to_dataframe(self, show_at: bool = False):
        """Columns ``t, c, model, atom``; for factorized results ``t, c, factor, alternative, atom``
        (see docs/formats.md)."""
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
    a copy of every window-covered input atom. Several answer streams come in printed order;
    ``printed_order=False`` leaves them in the engine's (the ``ticker run`` command's choice: its
    writers print them in that order themselves, without building each answer stream first).

    ``models``: answer streams per tick (0: all); None, the default, is 1, or all with
    ``factorize=True`` (the defaults are the CLI's: docs/cli.md, "Defaults").
    ``semantics``: a profile of :data:`ticker_py.semantics.PROFILES` (or a ``Semantics``);
    ``knobs``: explicit knob values over it, e.g. ``window_bounds="half-open"``; any other keyword
    is refused, naming the closest one.
    ``const``: values of constants over the program's ``#const`` (``{"n": 20}``; see
    :func:`load_program`).
    ``strict``: an order comparison between a number and a string or literal that is no number
    (``V > 100`` with ``V = "7"``) raises StreamError; by default it is reported once per
    comparison and kind of term as a :class:`~ticker_py.errors.TickerWarning` (docs/semantics.md).
    """

    def __init__(
        self,
        program,
        engine: str = "auto",
        models: int | None = None,
        show: str = "derived",
        clock: str | int = "1s",
        inertia: bool = False,
        changes_only: bool = False,
        factorize: bool = False,
        explainable: bool = False,
        semantics: str | Semantics | None = None,
        history: bool = True,
        printed_order: bool = True,
        strict: bool = False,
        const: dict | None = None,
        **knobs,
    ):
        if not isinstance(program, (str, Path, ast.Program, Analysis)):
            raise UsageError(Diagnostic(f"a program is source text, a .lars path or an AST, not {program!r}"))
        if semantics is not None and not isinstance(semantics, (str, Semantics)):
            raise UsageError(Diagnostic(f"semantics is a profile name or a Semantics, not {semantics!r}"))
        _check_keywords(knobs, Reasoner.__init__)
        self.semantics = resolve(semantics, **knobs)
        if isinstance(program, Analysis):
            if const:
                raise UsageError(Diagnostic("const= needs the program's source, not its analysis"))
            self.analysis = program
        else:
            self.analysis = load_program(program, clock=clock, const=const)
        models = _models(models, factorize)
        if show not in ("derived", "all"):
            raise UsageError(Diagnostic(f"unknown show {show!r}", notes=("use 'derived' or 'all'",)))
        if not isinstance(engine, str):
            raise UsageError(Diagnostic(f"unknown engine {engine!r}"))
        check_program(self.semantics, self.analysis)
        analysis = self.analysis
        self.engine_name = resolve_engine(engine, analysis, self.semantics)
        if factorize and self.semantics.changed:
            raise UsageError(
                Diagnostic(
                    "factorize=True runs the default semantics",
                    notes=(f"drop factorize=True or the knobs of '{self.semantics}'",),
                )
            )
        # more answer streams than clingo can count cannot be enumerated anyway: all of them (0)
        # #show: the named predicates, whatever their kind (show="all" prints every atom anyway);
        # a name of several arities: internal names inside, the program's outside (analysis.arities)
        shows = self.analysis.program.shows if show != "all" else None
        renamed = self.analysis.renamed
        self.renaming = Renaming(renamed, self.analysis.signatures) if renamed else None
        self.shown = None
        if shows is not None or renamed:
            from .streams.shown import ShownAtoms

            self.shown = ShownAtoms(shows, self.renaming.atom_out if renamed else None)
            show = "all" if shows is not None else show
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
        self.checker = StreamChecker.of(self.analysis)
        self.time = 0
        self.atoms_in = 0
        self._busy = threading.Lock()
        self.seen_at, self.seen = -1, set()  # atoms appended at time seen_at
        self.explainable = explainable
        self._kept = None  # for explain()
        if history or explainable:
            from .windows import Windows

            self._kept = Windows(self.analysis, self.semantics).history()
        self._last: Result | None = None
        self._texts = None  # printed atoms, to order several answer streams
        self.printed_order = printed_order
        self.started = False  # something was appended or evaluated (origin=first: the origin is known)
        self.warned_unused = False  # the warnings for body predicates nothing gave are out (once)
        self.origin = 0  # where the timeline starts: under origin=first the first append or evaluate
        self.bag = self.semantics.duplicates is Duplicates.BAG
        self.comparisons = Comparisons(strict=bool(strict))

    def append(self, t: int, atoms: Iterable) -> None:
        """Add the atoms that arrived at time t (t never decreases; duplicates count once, unless
        the semantics has ``duplicates="bag"``)."""
        t = _time(t)
        if t < self.time:
            raise StreamError(Diagnostic(f"time {t} after time {self.time}: time must not decrease"))
        if isinstance(atoms, (str, tuple)) or not isinstance(atoms, Iterable):
            raise UsageError(Diagnostic(f"atoms must be a list of atoms, not {atoms!r}"))
        atoms = self._accepted(t, [_atom(a, t) for a in atoms], "<api>")
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
            self._start(t)
            self.atoms_in += len(atoms)
            if self._kept is not None:
                self._kept.extend(t, atoms)
            self.engine.append(t, atoms)

    def evaluate(self, t: int | None = None) -> Result:
        """The answer streams at time t (default: the latest time appended); several are in printed
        order (sorted by their atoms, then their pins), as every output numbers them."""
        if t is None:
            t = self.time
        t = _time(t)
        if t < self.time:
            raise StreamError(Diagnostic(f"cannot evaluate time {t} after time {self.time}"))
        with self._exclusive():
            self._start(t)
            if self._kept is not None:
                self._kept.trim(t)
            result = self.engine.evaluate(t)
        raw = result  # what explanations read: every atom
        if self.shown is not None:
            result = self.shown.result(result)
        if self.factorize:
            from .streams.factorized import with_factors

            result = with_factors(result, self.models)
        elif self.printed_order and result.models is not None and len(result.models) > 1:
            result = result.replace(models=self._in_printed_order(result.models))
        if self.explainable and result.models is not None:
            explainer = partial(_explain_result, self.analysis, tuple(self._kept.entries), self.semantics, self.origin)
            if raw is not result and self.shown is not None:  # explained over every atom, not the shown ones
                explainer = partial(_explain_raw, explainer, raw)
            result = result.replace(explainer=explainer)
        self._last = raw if self.shown is not None else result
        return result

    def _in_printed_order(self, models) -> tuple:
        """Several answer streams in the order every output prints and numbers them: by their
        sorted atoms, then their pins (:meth:`Model.printed_key`; texts cached across ticks)."""
        if self._texts is None:
            from .streams.texts import AtomTexts

            self._texts = AtomTexts()
        return tuple(in_printed_order(models, self._texts.key))

    def _start(self, t: int) -> None:
        """The stream stands at t (under origin=first the first call fixes the origin)."""
        if not self.started and self.semantics.origin is Origin.FIRST:
            self.origin = t
        self.time = t
        self.started = True

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
            self.analysis,
            self._kept.entries,
            last.t,
            last.c,
            last.models,
            atom,
            model,
            why_not,
            all_models=all_models,
            semantics=self.semantics,
            origin=self.origin,
        )

    @keywords_checked
    def feed(
        self,
        records: Iterable[Record],
        until: int | None = None,
        every: str | Every = Every.TIME,
        max_gap: int | None = MAX_GAP,
        warn_after: int | None = None,
    ) -> Iterator[Result]:
        """Evaluate a stream of records: once per time point, or after every atom (``signal``).

        Time points are evaluated as soon as a later record shows they are complete. If the
        stream raises an error, everything accepted before it is evaluated first. A record
        more than ``max_gap`` time points after the open one is an error (None or 0: no limit).
        A body predicate that nothing gave is a warning at the end of the stream, or, with
        ``warn_after`` (for a stream that may not end), after its first so many time points.
        """
        every = Every.parse(every, "every")
        max_gap = check_max_gap(max_gap, "max_gap")
        if until is not None:
            until = _time(until, "until")
        records = self._renamed(self.checker.records(records_from(records), self.time, until))
        return self._feed(self._values_checked(records), every, until, max_gap, warn_after)

    def _renamed(self, records: Iterable[Record]) -> Iterator[Record]:
        """The records with the internal names of a name of several arities (analysis.arities)."""
        checker = self.checker
        for rec in records:
            if self.renaming is not None or checker.foreign:
                rec = rec.replace(atoms=tuple(self._inward(rec.atoms)), known=None)
            yield rec

    def _accepted(self, t: int, atoms: list, source: str) -> list:
        """Atom tuples of time t checked against the program (a refused one raises, located at
        ``source``) under the engine's names; what :meth:`append` and shard cells add."""
        self.checker.check(Record(t, tuple(atoms), source, 0))
        if self.renaming is not None or self.checker.foreign:
            atoms = self._inward(atoms)
        return atoms

    def _inward(self, atoms) -> list:
        """``atoms`` under the engine's names: a name of several arities is a name per arity, and
        so is a stream predicate of a program name with an arity the program does not use."""
        if self.renaming is None:
            self.renaming = Renaming({}, self.analysis.signatures)
        if self.renaming.learn(self.checker.foreign):  # printed under their own names again
            if self.shown is None:
                from .streams.shown import ShownAtoms

                self.shown = ShownAtoms()
            self.shown.rename = self.renaming.atom_out
        return self.renaming.atoms_in(atoms)

    def _feed(
        self, records: Iterator[Record], every: Every, until: int | None, max_gap: int | None, warn_after=None
    ) -> Iterator[Result]:
        start = self.time
        if self.semantics.origin is Origin.FIRST and not self.started:
            # the stream starts at its first record: nothing is evaluated before it
            first = next(records, None)
            if first is None:
                return
            start = first.t
            records = itertools.chain([first], records)
        results = drive(_Checked(self), records, every, until, start, max_gap, self.bag)
        if warn_after is None:
            yield from results
        else:
            for result in results:
                yield result
                if not self.warned_unused and result.t - start + 1 >= warn_after:
                    self.warn_never_given(warn_after)
        if until is None:  # a run cut short (--until, explain --at) has not seen the whole stream
            self.warn_never_given()

    def warn_never_given(self, within: int | None = None) -> None:
        """A warning for each body predicate that nothing gave (clingo's "atom does not occur in any
        rule head"), located, with a "did you mean"; once per Reasoner. At the end of a stream, or
        after its first ``within`` time points (a live stream)."""
        import warnings

        from .analysis.unused import never_given
        from .errors import TickerWarning

        seen = self.checker.seen()
        if self.warned_unused or not seen:  # an empty stream (a test, /dev/null) tells nothing about names
            return
        self.warned_unused = True
        for diag in never_given(self.analysis, seen, within):
            warnings.warn(TickerWarning(diag), stacklevel=4)

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


def _explain_result(analysis, history, semantics, origin, result, atom, model, why_not):
    from .explain import explain

    return explain(
        analysis, history, result.t, result.c, result.models, atom, model, why_not, semantics=semantics, origin=origin
    )


def _explain_raw(explainer, raw, result, atom, model, why_not):
    return explainer(raw, atom, model, why_not)


class _Checked:
    """A reasoner as the driver sees it: records already checked, time and counts kept."""

    def __init__(self, reasoner: Reasoner):
        self.append, self.evaluate = reasoner._append, reasoner.evaluate


@keywords_checked
def records_from(stream, rdf=None, stream_format: str | None = "auto") -> Iterable[Record]:
    """Records from a path, ``-``, a pandas DataFrame, or an iterable of ``(t, atoms)`` pairs.

    ``stream_format`` (``--stream-format``) is the format of ``-`` and of files with an unknown
    suffix: ``auto`` (the default, or None: by the suffix; ``-`` is text), ``text``, ``jsonl``,
    ``csv`` or an RDF format. The input decides whether it is RDF, never the output: ``.nt``,
    ``.nq``, a CSV or Parquet file or a DataFrame with columns ``t, s, p, o``, or an RDF
    ``stream_format`` are read by :mod:`ticker_py.rdf.streams`, mapped by ``rdf`` (a
    :class:`ticker_py.rdf.mapping.RdfMapping`; default: ``triple(S,P,O)``).
    """
    from .rdf import RDF_FORMATS, rdf_format, rdf_table

    if stream_format == "auto":
        stream_format = None
    if isinstance(stream, (str, Path)):
        if stream_format in RDF_FORMATS or (str(stream) != "-" and rdf_format(str(stream))):
            from .rdf import streams as rdf_streams

            return rdf_streams.open_rdf_stream(stream, stream_format, rdf or rdf_streams.RdfMapping())
        return open_stream(str(stream), fmt=stream_format)
    if hasattr(stream, "columns") and hasattr(stream, "iterrows"):
        if rdf_table(list(stream.columns)):
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
    models: int | None = None,
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
    const: dict | None = None,
    **knobs,
) -> Results:
    """Evaluate a whole stream; ``stream`` is a path, a DataFrame or ``(t, atoms)`` pairs.

    ``models``: answer streams per tick (0: all); None, the default, is 1, or all with ``factorize``
    (as ``ticker run``: the defaults are the CLI's, docs/cli.md). ``factorize=True``: every Result
    carries its answer streams factorized (``Result.factors``, see docs/formats.md); ``models`` > 0
    then keeps the first ``models`` of the product (in printed order).
    ``max_gap``: the most time points one record may skip (None or 0: no limit).
    ``explainable``: every Result keeps what ``Result.explain`` needs (a copy of the window-covered
    stream per tick). ``semantics``, ``strict``, ``const`` and ``knobs`` as for :class:`Reasoner`."""
    _check_keywords(knobs, run)
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
        const=const,
        **knobs,
    )
    from .plot.timeline import counting

    inputs: dict = {}
    records = counting(records_from(stream), inputs)
    results = Results(reasoner.feed(records, until=until, every=every, max_gap=max_gap))
    results.inputs = inputs
    models = reasoner.models
    answers = (
        "all answer streams" if models == 0 else f"first {models} answer streams" if models > 1 else "1 answer stream"
    )
    results.about = f"engine {reasoner.engine_name} · semantics {reasoner.semantics} · {answers} per tick"
    return results


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
    collect: list | None = None,
    semantics: str | Semantics | None = None,
    **knobs,
) -> Explanation:
    """Run ``program`` over ``stream`` up to time ``at`` and explain ``atom`` there (``why_not``:
    why it does not hold) in answer stream ``model`` (1-based, in printed order). ``models``: how
    many answer streams to compute per tick (0 = all, as ``ticker run --models 0`` numbers them;
    a program with thousands of answer streams per tick runs much faster with a small N).
    ``collect``: a list the results of the run up to ``at`` are appended to (for a report).
    ``semantics`` and ``knobs`` as for :class:`Reasoner`."""
    _check_keywords(knobs, explain_at)
    analysis = program if isinstance(program, Analysis) else load_program(program, clock=clock)
    from .explain import parse_query

    at = _time(at, "at")
    parse_query(_query(atom), analysis)  # a bad atom is refused before the stream is read
    reasoner = Reasoner(analysis, engine=engine, models=models, semantics=semantics, **knobs)
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

    for result in reasoner.feed(seen(records_from(stream)), until=at, every=every):
        if collect is not None:
            collect.append(result)
    if last_time < at:
        raise outside()
    return reasoner.explain(at, atom, model=model, why_not=why_not)
