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

Every keyword is a field of the run specification (:class:`~ticker_py.spec.RunSpec`); a spec can
be given whole (``run(p, s, spec=RunSpec(models=0))``) and keywords set over it.
"""

from __future__ import annotations

import contextlib
import itertools
import operator
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from . import ast
from .analysis import Analysis, analyse
from .errors import Diagnostic, ProgramError, StreamError, UsageError
from .semantics import Origin
from .spec import EVALUATION, INPUT, PROGRAM, RunSpec, keywords_checked, parse_clock, takes_spec, whole
from .stages.drive import drive
from .stages.evaluation import Evaluation
from .stages.input import Input, parse_atom, records_from, tuple_atom
from .streams import Record, Result, results_to_dataframe
from .syntax import load_source, parse_file, parse_program, read_source
from .values import UNHOLDABLE

if TYPE_CHECKING:  # imported where used: explaining is rare and its modules are large
    from .explain import Explanation

__all__ = ["load_program", "parse_clock", "Reasoner", "Results", "RunSpec", "run", "records_from", "explain_at"]


@takes_spec(PROGRAM)
def load_program(program: str | Path | ast.Program, *, spec: RunSpec) -> Analysis:
    """Parse (source text, a ``.lars`` path or an AST) and analyse a program.

    Parameters
    ----------
    program : str, Path or ast.Program
        Source text, the path of a ``.lars`` file, or a parsed program.
    clock, const, background, background_rdf, rdf_mapping, owl2rl
        How the program is loaded (:class:`~ticker_py.spec.RunSpec`, "the program"): the duration of
        a time point, values of constants over ``#const`` (``{"n": 20}``), files of background facts,
        RDF files of background triples mapped as ``rdf_mapping`` says (docs/rdf.md), the OWL 2 RL
        rules.
    spec : RunSpec, optional
        A whole specification; keywords are set over it.

    Returns
    -------
    Analysis
        The analysed program every engine runs.

    See Also
    --------
    Reasoner, run
    """
    if not isinstance(program, (str, Path, ast.Program)):
        raise UsageError(Diagnostic(f"a program is source text, a .lars path or an AST, not {program!r}"))
    const, source, problems = spec.constants, None, ()
    if isinstance(program, ast.Program):
        prog = program
        if const:
            raise UsageError(
                Diagnostic("const= needs the program's source", notes=("give source text or a .lars path",))
            )
    else:
        if isinstance(program, str) and not (program.endswith(".lars") and "\n" not in program and ":-" not in program):
            _check_text(program)
            text, file = program, "<string>"
        else:  # a path
            text, file = read_source(program), str(program)
        loaded = load_source(text, file, const)
        prog, problems, source = loaded.program, loaded.problems, loaded.sources
    for path in spec.background:
        prog = prog.replace(rules=prog.rules + _background_facts(path))
    for path in spec.background_rdf:
        from .rdf.background import rdf_facts
        from .rdf.mapping import RdfMapping

        prog = prog.replace(rules=prog.rules + rdf_facts(path, RdfMapping(spec.rdf_mapping, prog.prefixes)))
    if spec.owl2rl:
        from .rdf.background import OWL2RL

        prog = prog.replace(rules=prog.rules + parse_file(OWL2RL).rules)
    return analyse(prog, spec.clock_ms, source=source, problems=problems)


def analysed(program, spec: RunSpec) -> Analysis:
    """``program`` loaded under ``spec`` (source, a path or an AST), or as it is if it is an Analysis."""
    return program if isinstance(program, Analysis) else load_program(program, spec=spec)


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


def _query(atom):
    """An atom to explain: a string (parsed by the explainer) or a well-formed tuple atom."""
    if isinstance(atom, str) or (isinstance(atom, tuple) and tuple_atom(atom) is not None):
        return atom
    raise UsageError(
        Diagnostic(
            f"bad atom to explain {atom!r}",
            notes=("give a string such as 'p(1)' or 'p(1) at 3', or a tuple such as ('p', 1)",),
        )
    )


class Results(list):
    """A list of :class:`Result` that converts to a pandas DataFrame and draws itself.

    From :func:`run`, ``inputs`` counts the input atoms per time point and ``about`` says what ran
    (engine, semantics); a notebook shows the results as a table and a small timeline."""

    inputs: dict | None = None
    about: str = ""
    predicates: set | None = None  # the program's (name, arity) pairs

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


def _why(analysis, tick: tuple, atom, model, why_not, all_models=True):
    """What the evaluation stage explains with: :func:`ticker_py.explain.explain` at one tick, ``tick``
    the fields of its :class:`~ticker_py.explain.TickAnswer`."""
    from .explain import TickAnswer, explain

    return explain(analysis, TickAnswer(*tick), atom, model, why_not, all_models)


class Reasoner:
    """A program bound to an engine, evaluated tick by tick: the three stages of a run composed.

    Atoms go through the input stage (:class:`~ticker_py.stages.input.Input`: checked against the
    program, renamed, their values checked), the engine runs in the evaluation stage
    (:class:`~ticker_py.stages.evaluation.Evaluation`), and results go to the caller, or to an
    ``output`` (the output stage, :class:`~ticker_py.stages.output.Output`) that writes them.

    Parameters
    ----------
    program : str, Path, ast.Program or Analysis
        Source text, a ``.lars`` path, a parsed or an analysed program (:func:`load_program`).
    engine, models, factorize, show, inertia, semantics, strict, explainable
        The evaluation (:class:`~ticker_py.spec.RunSpec`): ``models`` answer streams per tick (0:
        all; not given: 1, or all with ``factorize``); ``semantics`` a profile of
        :data:`ticker_py.semantics.PROFILES`, the knobs (``window_bounds="half-open"``) over it;
        ``strict``: an order comparison of a number with a string that is no number raises
        StreamError (else a :class:`~ticker_py.errors.TickerWarning`); ``explainable``: every
        Result can explain itself (``Result.explain``).
    clock, const, background, background_rdf, rdf_mapping, owl2rl
        How the program is loaded, as for :func:`load_program`.
    spec : RunSpec, optional
        A whole specification; keywords are set over it.
    output : Output, optional
        The consumer that writes the results: the engine sends what it reads
        (``output.changes_only``), it orders several answer streams itself, and nothing is kept
        for explanations (unless ``explainable``).

    Notes
    -----
    ``append(t, atoms)`` adds atoms (strings like ``"alpha(20)"`` or tuples) arriving at time t;
    ``evaluate(t)`` answers at tick (t, c); ``feed(stream)`` drives a whole stream; ``explain(t,
    atom)`` explains an atom at the latest evaluated tick. Misuse raises
    :class:`~ticker_py.errors.TickerError` subclasses (UsageError, StreamError). Not thread-safe: a
    call while another thread is inside one raises UsageError (use one Reasoner per thread, or
    :class:`~ticker_py.live.LiveReasoner`, which takes a lock).

    See Also
    --------
    run, ticker_py.spec.RunSpec, ticker_py.live.LiveReasoner
    """

    @takes_spec(PROGRAM, EVALUATION, loads=True)
    def __init__(self, program, *, output=None, spec: RunSpec):
        if not isinstance(program, (str, Path, ast.Program, Analysis)):
            raise UsageError(Diagnostic(f"a program is source text, a .lars path or an AST, not {program!r}"))
        self.spec = spec
        self.analysis = analysed(program, spec)
        self.evaluation = evaluation = Evaluation(self.analysis, spec, output, why=_why)
        self.input = Input(
            self.analysis, spec, getattr(evaluation.engine, "check_values", None), renamed=evaluation.rename_with
        )
        self.seen_at, self.seen = -1, set()  # atoms appended at time seen_at

    engine = property(lambda self: self.evaluation.engine, doc="The engine.")
    engine_name = property(lambda self: self.evaluation.engine_name, doc="The engine's name (auto resolved).")
    semantics = property(lambda self: self.spec.semantics, doc="The semantics (its knobs).")
    models = property(lambda self: self.evaluation.models, doc="Answer streams per tick (0: all).")
    time = property(lambda self: self.evaluation.time, doc="The time the stream stands at.")
    atoms_in = property(lambda self: self.evaluation.atoms_in, doc="The atoms appended so far.")
    started = property(lambda self: self.evaluation.started, doc="Something was appended or evaluated.")
    checker = property(lambda self: self.input.checker, doc="The input stage's checks of stream atoms.")

    def append(self, t: int, atoms: Iterable) -> None:
        """Add the atoms that arrived at time t (t never decreases; duplicates count once, unless
        the semantics has ``duplicates="bag"``)."""
        t = whole(t, "time")
        if isinstance(atoms, (str, tuple)) or not isinstance(atoms, Iterable):
            raise UsageError(Diagnostic(f"atoms must be a list of atoms, not {atoms!r}"))
        atoms = self.input.accept(t, [parse_atom(a, t) for a in atoms])
        if not self.evaluation.bag:
            if t != self.seen_at:
                self.seen_at, self.seen = t, set()
            seen, fresh = self.seen, []
            for a in atoms:  # the same atom twice in a time point counts once
                if a not in seen:
                    seen.add(a)
                    fresh.append(a)
            atoms = fresh
        self.evaluation.append(t, atoms)

    def evaluate(self, t: int | None = None) -> Result:
        """The answer streams at time t (default: the latest time appended); several are in printed
        order (sorted by their atoms, then their pins), as every output numbers them."""
        t = self.time if t is None else whole(t, "time")
        if t < self.time:
            raise StreamError(Diagnostic(f"cannot evaluate time {t} after time {self.time}"))
        self.input.time = t  # time must not decrease: nothing is appended before it any more
        return self.evaluation.evaluate(t)

    def explain(self, t: int, atom, model: int = 1, why_not: bool = False, all_models: bool | None = None):
        """Why ``atom`` (``"p(1)"``, ``"p(1) at 3"`` or a tuple) holds in answer stream ``model``
        (1-based) at the latest evaluated tick, which must be at time t; ``why_not``: why it does not.

        Returns
        -------
        ticker_py.explain.Explanation
        """
        atom = _query(atom)
        if type(model) is not int:
            raise UsageError(Diagnostic(f"model must be an integer (1-based), not {model!r}"))
        last = self.evaluation.last
        if last is None or last.t != t:
            where = "nothing was evaluated yet" if last is None else f"the latest evaluated time is {last.t}"
            raise UsageError(
                Diagnostic(f"cannot explain time {t}: {where}", notes=("explain the latest evaluated time point",))
            )
        return self.evaluation.explain(atom, model, why_not, all_models)

    @takes_spec(INPUT, exclude=("tuple_order",), inherit=True)
    def feed(self, records, warn_after: int | None = None, *, spec: RunSpec) -> Iterator[Result]:
        """Evaluate a stream: once per time point, or after every atom (``every="signal"``).

        Parameters
        ----------
        records : path, DataFrame or iterable
            What :func:`records_from` reads: a path or ``-``, a DataFrame, Records or ``(t, atoms)``
            pairs.
        until, every, max_gap, stream_format
            The input (:class:`~ticker_py.spec.RunSpec`), over the Reasoner's: the last time point,
            when to evaluate, the most time points one record may skip (None or 0: no limit), the
            format of a path without a known suffix.
        warn_after : int, optional
            A body predicate that nothing gave is a warning at the end of the stream, or (for a
            stream that may not end) after its first ``warn_after`` time points.

        Returns
        -------
        iterator of Result
            Time points are evaluated as soon as a later record shows they are complete. If the
            stream raises an error, everything accepted before it is evaluated first.
        """
        if not isinstance(records, Iterator):  # a stream to open (an iterator is one opened already)
            records = self.input.open(records, spec)
        records = self.input.records(records, spec.until)
        return self._feed(records, spec, warn_after)

    def _feed(self, records: Iterator[Record], spec: RunSpec, warn_after=None) -> Iterator[Result]:
        start = self.time
        if self.semantics.origin is Origin.FIRST and not self.started:
            # the stream starts at its first record: nothing is evaluated before it
            first = next(records, None)
            if first is None:
                return
            start = first.t
            records = itertools.chain([first], records)
        results = drive(self.evaluation, records, spec.every, spec.until, start, self.evaluation.bag)
        if warn_after is None:
            yield from results
        else:
            for result in results:
                yield result
                if not self.input.warned and result.t - start + 1 >= warn_after:
                    self.input.warn_unused(warn_after)
        if spec.until is None:  # a run cut short (--until, explain --at) has not seen the whole stream
            self.input.warn_unused()


@takes_spec(PROGRAM, INPUT, EVALUATION, loads=True, exclude=("tuple_order",))
def run(program, stream, *, spec: RunSpec) -> Results:
    """Evaluate a whole stream.

    Parameters
    ----------
    program : str, Path, ast.Program or Analysis
        The program, as for :class:`Reasoner`.
    stream : path, DataFrame or iterable
        A path or ``-`` (by its suffix, or ``stream_format``), a pandas or Spark DataFrame, or
        ``(t, atoms)`` pairs (atoms as strings ``"p(1)"`` or tuples ``("p", 1)``).
    engine, models, factorize, show, inertia, semantics, strict, explainable
        The evaluation, as for :class:`Reasoner`; with ``factorize=True`` every Result carries its
        answer streams factorized (``Result.factors``, docs/formats.md), and ``models`` > 0 keeps
        the first ``models`` of the product.
    until, every, max_gap, stream_format
        The input, as for :meth:`Reasoner.feed`.
    clock, const, background, background_rdf, rdf_mapping, owl2rl
        How the program is loaded, as for :func:`load_program`.
    spec : RunSpec, optional
        A whole specification; keywords are set over it. The defaults are the command line's:
        ``run(program, stream)`` does what ``ticker run PROGRAM --stream FILE`` does (docs/cli.md).

    Returns
    -------
    Results
        One Result per evaluation, a list that converts to a DataFrame (``to_dataframe``) and draws
        itself (``plot``); ``inputs`` counts the input atoms per time point, ``about`` says what ran.

    See Also
    --------
    Reasoner, ticker_py.run_sharded, ticker_py.explain_at
    """
    reasoner = Reasoner(program, spec=spec)
    inputs: dict = {}
    reasoner.input.counts = inputs
    results = Results(reasoner.feed(stream, spec=spec))
    results.inputs = inputs
    results.predicates = reasoner.analysis.predicates  # what Results.plot checks --atoms against
    models = reasoner.models
    answers = (
        "all answer streams" if models == 0 else f"first {models} answer streams" if models > 1 else "1 answer stream"
    )
    results.about = f"engine {reasoner.engine_name} · semantics {reasoner.semantics} · {answers} per tick"
    return results


@takes_spec(PROGRAM, INPUT, EVALUATION, purpose="explain", loads=True, exclude=("tuple_order", "until", "explainable"))
def explain_at(
    program, stream, at: int, atom, why_not: bool = False, model: int = 1, collect: list | None = None, *, spec: RunSpec
) -> Explanation:
    """Run ``program`` over ``stream`` up to time ``at`` and explain ``atom`` there.

    Parameters
    ----------
    program, stream
        As for :func:`run`.
    at : int
        The time point to explain at.
    atom : str or tuple
        The atom: ``"p(1)"``, ``"p(1) at 3"`` (pinned to time point 3) or ``("p", 1)``.
    why_not : bool
        Explain why the atom does not hold.
    model : int
        The answer stream (1-based, in printed order).
    collect : list, optional
        A list the results of the run up to ``at`` are appended to (for a report).
    engine, models, factorize, show, inertia, semantics, strict
        The evaluation, as for :func:`run`; ``models`` (answer streams computed per tick) is 0, all,
        by default, as ``ticker explain`` numbers them (a program with thousands of answer streams
        per tick runs much faster with a small N).
    every, max_gap, stream_format
        The input, as for :func:`run` (``at`` is its ``until``).
    clock, const, background, background_rdf, rdf_mapping, owl2rl
        How the program is loaded, as for :func:`load_program`.

    Returns
    -------
    ticker_py.explain.Explanation
        Its text (``str``), JSON, DOT, Markdown and pictures (docs/explain.md).

    See Also
    --------
    Reasoner.explain, Result.explain
    """
    analysis = analysed(program, spec)
    from .explain import parse_query

    at = whole(at, "at")
    parse_query(_query(atom), analysis)  # a bad atom is refused before the stream is read
    reasoner = Reasoner(analysis, spec=spec)
    last_time = -1

    def outside() -> UsageError:
        return UsageError(
            Diagnostic(
                f"time {at} is outside the stream",
                notes=(f"its last time point is {last_time}" if last_time >= 0 else "the stream is empty",),
            )
        )

    def seen(records):  # the stream as read, its last time noted
        nonlocal last_time
        for rec in records:
            t = rec.t if isinstance(rec, Record) else rec[0] if isinstance(rec, (tuple, list)) and rec else None
            with contextlib.suppress(TypeError):
                last_time = max(last_time, operator.index(t))
            yield rec
        if last_time < at:  # said before the feed pads the time points up to ``at`` (or refuses the gap)
            raise outside()

    stage = reasoner.input
    for result in reasoner._feed(stage.records(seen(stage.open(stream)), at), RunSpec.of(spec, until=at)):
        if collect is not None:
            collect.append(result)
    if last_time < at:
        raise outside()
    return reasoner.explain(at, atom, model=model, why_not=why_not)
