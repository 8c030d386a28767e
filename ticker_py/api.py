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

import itertools
import re
from pathlib import Path
from typing import Iterable, Iterator, Optional, Union

from . import ast
from .analysis import Analysis, analyse
from .engines import EngineOptions, create_engine, resolve_engine
from .errors import Diagnostic, StreamError, UsageError
from .semantics import Duplicates, Origin, Persistence, Semantics, check_program, resolve, under
from .streams import Record, Result, StreamChecker, open_stream, read_dataframe, results_to_dataframe
from .streams.drive import Every, drive
from .streams.factorized import note_fallback, with_factors
from .syntax import parse_file, parse_ground_atom, parse_program
from .syntax.ground_atoms import GroundSyntaxError

__all__ = ["load_program", "parse_clock", "Reasoner", "Results", "run", "records_from"]

_CLOCK = re.compile(r"^\s*(\d+)\s*([a-z]+)?\s*$")


def parse_clock(text: Union[str, int]) -> int:
    """The duration of one time point in ms: ``parse_clock("1s") == 1000``."""
    if isinstance(text, int):
        return text
    m = _CLOCK.match(text)
    unit = m and ("sec" if m.group(2) in (None, "s") else m.group(2))  # the window units, and "s"
    if not m or unit not in ast.UNITS or int(m.group(1)) == 0:
        raise UsageError(Diagnostic(f"bad clock '{text}'", notes=("write e.g. 1s, 500ms, 1min",)))
    return int(m.group(1)) * ast.UNITS[unit]


def load_program(program: Union[str, Path, ast.Program], *, background: Union[str, Path, None] = None,
                 clock: Union[str, int] = "1s") -> Analysis:
    """Parse (source text, a ``.lars`` path or an AST) and analyse a program.

    ``background``: a file of more facts in program syntax, added to the program.
    """
    clock_ms = parse_clock(clock)
    source = None
    if isinstance(program, ast.Program):
        prog = program
    elif isinstance(program, Path) or (isinstance(program, str) and program.endswith(".lars")
                                       and "\n" not in program and ":-" not in program):
        prog = parse_file(program)
        source = Path(program).read_text()
    else:
        prog, source = parse_program(program), program
    if background is not None:
        prog = ast.Program(prog.rules + _background_facts(background), prog.file)
    return analyse(prog, clock_ms, source=source)


def _background_facts(path: Union[str, Path]) -> tuple:
    try:
        text = Path(path).read_text()
    except OSError:
        raise UsageError(Diagnostic(f"background file '{path}' does not exist")) from None
    rules = parse_program(text, str(path)).rules
    not_facts = [r for r in rules if not r.is_fact]
    if not_facts:
        raise UsageError(Diagnostic("background files hold facts only", not_facts[0].location))
    return rules


def _atom(value, t: int) -> tuple:
    if isinstance(value, tuple):
        return value
    try:
        return parse_ground_atom(value)
    except GroundSyntaxError as err:
        raise StreamError(Diagnostic(f"bad atom '{value}' at time {t}: {err.message}")) from None


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

    ``semantics``: a profile of :data:`ticker_py.semantics.PROFILES` (or a ``Semantics``);
    ``knobs``: explicit knob values over it, e.g. ``window_bounds="half-open"``.
    """

    def __init__(self, program, engine: str = "auto", models: int = 1, show: str = "derived",
                 clock: Union[str, int] = "1s", inertia: bool = False, changes_only: bool = False,
                 factorize: bool = False, semantics: Union[str, Semantics, None] = None, **knobs):
        self.semantics = resolve(semantics, **knobs)
        self.analysis = program if isinstance(program, Analysis) else load_program(program, clock=clock)
        if models < 0:
            raise UsageError(Diagnostic(f"--models must be >= 0, not {models}"))
        if show not in ("derived", "all"):
            raise UsageError(Diagnostic(f"unknown --show '{show}'", notes=("use derived or all",)))
        check_program(self.semantics, self.analysis)
        analysis = under(self.semantics, self.analysis)
        self.engine_name = resolve_engine(engine, analysis, self.semantics)
        if factorize and self.semantics.changed:
            raise UsageError(Diagnostic("--factorize runs the default semantics",
                                        notes=(f"drop --factorize or the knobs of '{self.semantics}'",)))
        options = EngineOptions(models=0 if factorize else models, show=show, inertia=inertia,
                                changes_only=changes_only and not factorize, factorize=factorize,
                                semantics=self.semantics)
        if self.semantics.persistence is Persistence.FEEDBACK:
            from .engines.feedback import FeedbackEngine, inner_options

            inner = create_engine(self.engine_name, analysis, inner_options(options))
            self.engine = FeedbackEngine(inner, analysis, options)
        else:
            self.engine = create_engine(self.engine_name, analysis, options)
        self.factorize, self.models = factorize, models
        if factorize and self.engine_name != "native" and not hasattr(self.engine, "factorizes"):
            note_fallback(self.engine_name, "this engine does not factorize")
        self.checker = StreamChecker(dict(self.analysis.signatures), set(self.analysis.intensional))
        self.time = 0
        self.atoms_in = 0
        self.started = False  # something was appended or evaluated (origin=first: the origin is known)

    def append(self, t: int, atoms: Iterable) -> None:
        """Add the atoms that arrived at time t (t never decreases)."""
        if t < self.time:
            raise StreamError(Diagnostic(f"time {t} after time {self.time}: time must not decrease"))
        atoms = [_atom(a, t) for a in atoms]
        self.checker.check(Record(t, tuple(atoms), "<api>", 0))
        self._append(t, atoms)

    def _append(self, t: int, atoms: list) -> None:
        self.time = t
        self.started = True
        self.atoms_in += len(atoms)
        self.engine.append(t, atoms)

    def evaluate(self, t: Optional[int] = None) -> Result:
        """The answer streams at time t (default: the latest time appended)."""
        if t is None:
            t = self.time
        if t < self.time:
            raise StreamError(Diagnostic(f"cannot evaluate time {t} after time {self.time}"))
        self.time = t
        self.started = True
        if self.factorize:
            return with_factors(self.engine.evaluate(t), self.models)
        return self.engine.evaluate(t)

    def feed(self, records: Iterable[Record], until: Optional[int] = None,
             every: Union[str, Every] = Every.TIME) -> Iterator[Result]:
        """Evaluate a stream of records: once per time point, or after every atom (``signal``).

        Time points are evaluated as soon as a later record shows they are complete. If the
        stream raises an error, everything accepted before it is evaluated first.
        """
        every = Every.parse(every)
        return self._feed(self.checker.records(records, self.time, until), every, until)

    def _feed(self, records: Iterator[Record], every: Every, until: Optional[int]) -> Iterator[Result]:
        start = self.time
        if self.semantics.origin is Origin.FIRST and not self.started:
            # the stream starts at its first record: nothing is evaluated before it
            first = next(records, None)
            if first is None:
                return
            start = first.t
            records = itertools.chain([first], records)
        yield from drive(_Checked(self), records, every, until, start, self.semantics.duplicates is Duplicates.BAG)


class _Checked:
    """A reasoner as the driver sees it: records already checked, time and counts kept."""

    def __init__(self, reasoner: Reasoner):
        self.append, self.evaluate = reasoner._append, reasoner.evaluate


def records_from(stream) -> Iterable[Record]:
    """Records from a path, ``-``, a pandas DataFrame, or an iterable of ``(t, atoms)`` pairs."""
    if isinstance(stream, (str, Path)):
        return open_stream(str(stream))
    if hasattr(stream, "columns") and hasattr(stream, "iterrows"):
        return read_dataframe(stream)
    if hasattr(stream, "toPandas") or hasattr(stream, "toLocalIterator"):
        from .streams.spark_frame import read_spark_dataframe  # calls the DataFrame's methods only

        return read_spark_dataframe(stream)

    def gen():
        for item in stream:
            if isinstance(item, Record):
                yield item
            else:
                t, atoms = item
                yield Record(t, tuple(_atom(a, t) for a in atoms), "<api>", 0)
    return gen()


def run(program, stream, engine: str = "auto", models: int = 1, every: str = "time",
        until: Optional[int] = None, show: str = "derived", clock: Union[str, int] = "1s",
        inertia: bool = False, factorize: bool = False, semantics: Union[str, Semantics, None] = None,
        **knobs) -> Results:
    """Evaluate a whole stream; ``stream`` is a path, a DataFrame or ``(t, atoms)`` pairs.

    ``factorize=True``: every Result carries its answer streams factorized (``Result.factors``,
    see docs/formats.md); ``models`` > 0 then keeps the first ``models`` of the product.
    ``semantics`` and ``knobs`` as for :class:`Reasoner`."""
    reasoner = Reasoner(program, engine=engine, models=models, show=show, clock=clock, inertia=inertia,
                        factorize=factorize, semantics=semantics, **knobs)
    return Results(reasoner.feed(records_from(stream), until=until, every=every))
