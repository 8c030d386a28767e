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

import re
from pathlib import Path
from typing import Iterable, Iterator, Optional, Union

from . import ast
from .analysis import Analysis, analyse
from .engines import EngineOptions, create_engine, resolve_engine
from .errors import Diagnostic, StreamError, UsageError
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
                 clock: Union[str, int] = "1s", background_rdf: Union[str, Path, None] = None,
                 rdf_mapping: str = "triple", owl2rl: bool = False) -> Analysis:
    """Parse (source text, a ``.lars`` path or an AST) and analyse a program.

    ``background``: a file of more facts in program syntax, added to the program.
    ``background_rdf``: an RDF file (Turtle, N-Triples, ...) whose triples are added as facts,
    mapped as ``rdf_mapping`` says (``triple`` or ``property``, see docs/rdf.md).
    ``owl2rl``: add the shipped OWL 2 RL rules over ``triple/3`` (``ticker_py/rdf/owl2rl.lars``).
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
    """

    def __init__(self, program, engine: str = "auto", models: int = 1, show: str = "derived",
                 clock: Union[str, int] = "1s", inertia: bool = False, changes_only: bool = False,
                 factorize: bool = False):
        self.analysis = program if isinstance(program, Analysis) else load_program(program, clock=clock)
        if models < 0:
            raise UsageError(Diagnostic(f"--models must be >= 0, not {models}"))
        if show not in ("derived", "all"):
            raise UsageError(Diagnostic(f"unknown --show '{show}'", notes=("use derived or all",)))
        self.engine_name = resolve_engine(engine, self.analysis)
        self.engine = create_engine(self.engine_name, self.analysis,
                                    EngineOptions(models=0 if factorize else models, show=show, inertia=inertia,
                                                  changes_only=changes_only and not factorize,
                                                  factorize=factorize))
        self.factorize, self.models = factorize, models
        if factorize and self.engine_name != "native" and not hasattr(self.engine, "factorizes"):
            note_fallback(self.engine_name, "this engine does not factorize")
        self.checker = StreamChecker(dict(self.analysis.signatures), set(self.analysis.intensional))
        self.time = 0
        self.atoms_in = 0

    def append(self, t: int, atoms: Iterable) -> None:
        """Add the atoms that arrived at time t (t never decreases)."""
        if t < self.time:
            raise StreamError(Diagnostic(f"time {t} after time {self.time}: time must not decrease"))
        atoms = [_atom(a, t) for a in atoms]
        self.checker.check(Record(t, tuple(atoms), "<api>", 0))
        self._append(t, atoms)

    def _append(self, t: int, atoms: list) -> None:
        self.time = t
        self.atoms_in += len(atoms)
        self.engine.append(t, atoms)

    def evaluate(self, t: Optional[int] = None) -> Result:
        """The answer streams at time t (default: the latest time appended)."""
        if t is None:
            t = self.time
        if t < self.time:
            raise StreamError(Diagnostic(f"cannot evaluate time {t} after time {self.time}"))
        self.time = t
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
        return drive(_Checked(self), self.checker.records(records, self.time, until), every, until, self.time)


class _Checked:
    """A reasoner as the driver sees it: records already checked, time and counts kept."""

    def __init__(self, reasoner: Reasoner):
        self.append, self.evaluate = reasoner._append, reasoner.evaluate


def records_from(stream, rdf=None, stream_format: Optional[str] = None) -> Iterable[Record]:
    """Records from a path, ``-``, a pandas DataFrame, or an iterable of ``(t, atoms)`` pairs.

    RDF streams (``.nt``, ``.nq``, a DataFrame with columns ``t, s, p, o``, any stream with
    ``rdf``, a :class:`ticker_py.rdf.streams.RdfMapping`, or an RDF ``stream_format``) are read
    by :mod:`ticker_py.rdf.streams`.
    """
    from .rdf import streams as rdf_streams

    if isinstance(stream, (str, Path)):
        if rdf is not None or stream_format in rdf_streams.RDF_FORMATS or rdf_streams.rdf_format(str(stream)):
            return rdf_streams.open_rdf_stream(stream, stream_format, rdf or rdf_streams.RdfMapping())
        return open_stream(str(stream))
    if hasattr(stream, "columns") and hasattr(stream, "iterrows"):
        if rdf is not None or {"s", "p", "o"} <= set(stream.columns):
            return rdf_streams.read_rdf_dataframe(stream, mapping=rdf or rdf_streams.RdfMapping())
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
        inertia: bool = False, factorize: bool = False) -> Results:
    """Evaluate a whole stream; ``stream`` is a path, a DataFrame or ``(t, atoms)`` pairs.

    ``factorize=True``: every Result carries its answer streams factorized (``Result.factors``,
    see docs/formats.md); ``models`` > 0 then keeps the first ``models`` of the product."""
    reasoner = Reasoner(program, engine=engine, models=models, show=show, clock=clock, inertia=inertia,
                        factorize=factorize)
    return Results(reasoner.feed(records_from(stream), until=until, every=every))
