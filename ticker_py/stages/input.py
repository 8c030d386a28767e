"""The input stage: a stream in any format, read once, into the records an engine takes.

:func:`records_from` opens a stream (a path or ``-`` by its format, a pandas or Spark DataFrame, or
an iterable of Records or ``(t, atoms)`` pairs); :class:`Input` checks what it reads against one
program, in one pass per record: time never decreases, no intensional atom, a name of several
arities under its internal name per arity (:mod:`ticker_py.analysis.arities`), every value one the
engine can hold, and the run ends after ``until``. :meth:`Input.accept` does the same for the atoms
of one time point (``Reasoner.append``, live pushes, the cells of a sharded run).

>>> from ticker_py.api import load_program
>>> stage = Input(load_program("q(X) :- p(X)."))
>>> [(r.t, r.atoms) for r in stage.records([(0, ["p(1)"]), (2, [("p", 2)])])]
[(0, (('p', 1),)), (2, (('p', 2),))]
>>> list(stage.records([(1, [])]))
Traceback (most recent call last):
...
ticker_py.errors.StreamError: error: time 1 after time 2
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from ..analysis.arities import Renaming
from ..ast import Location
from ..errors import Diagnostic, StreamError, UsageError
from ..limits import integer_digits
from ..semantics import Origin
from ..spec import keywords_checked, whole
from ..streams.checker import StreamChecker
from ..streams.model import Record
from ..streams.readers import open_stream
from ..syntax import parse_ground_atom
from ..syntax.ground_atoms import GroundSyntaxError
from ..values import SURROGATE, format_atom, integer_too_long

__all__ = ["records_from", "Input", "parse_atom", "tuple_atom", "rdf_mapping"]


@keywords_checked
def records_from(stream, rdf=None, stream_format: str | None = "auto") -> Iterable[Record]:
    """Records from a path, ``-``, a pandas DataFrame, a Spark DataFrame, or an iterable of Records or
    ``(t, atoms)`` pairs (returned as they are: :meth:`Input.records` reads them).

    ``stream_format`` (``--stream-format``) is the format of ``-`` and of files with an unknown
    suffix: ``auto`` (the default, or None: by the suffix; ``-`` is text), ``text``, ``jsonl``,
    ``csv`` or an RDF format. The input decides whether it is RDF, never the output: ``.nt``,
    ``.nq``, a CSV or Parquet file or a DataFrame with columns ``t, s, p, o``, or an RDF
    ``stream_format`` are read by :mod:`ticker_py.streams.rdf`, mapped by ``rdf`` (a
    :class:`ticker_py.rdf.mapping.RdfMapping`; default: ``triple(S,P,O)``).
    """
    from ..rdf import RDF_FORMATS, rdf_format, rdf_table

    if stream_format == "auto":
        stream_format = None
    if isinstance(stream, (str, Path)):
        if stream_format in RDF_FORMATS or (str(stream) != "-" and rdf_format(str(stream))):
            from ..streams import rdf as rdf_streams

            return rdf_streams.open_rdf_stream(stream, stream_format, rdf or rdf_streams.RdfMapping())
        return open_stream(str(stream), fmt=stream_format)
    if hasattr(stream, "columns") and hasattr(stream, "iterrows"):
        if rdf_table(list(stream.columns)):
            from ..streams import rdf as rdf_streams

            return rdf_streams.read_rdf_dataframe(stream, mapping=rdf or rdf_streams.RdfMapping())
        from ..streams.tables import read_dataframe

        return read_dataframe(stream)
    if hasattr(stream, "toPandas") or hasattr(stream, "toLocalIterator"):
        from ..streams.spark_frame import read_spark_dataframe  # calls the DataFrame's methods only

        return read_spark_dataframe(stream)
    if not isinstance(stream, Iterable):
        raise UsageError(Diagnostic(f"a stream is a path, a DataFrame or (t, atoms) pairs, not {stream!r}"))
    return stream


def rdf_mapping(spec, analysis):
    """The :class:`~ticker_py.rdf.mapping.RdfMapping` of ``spec.rdf_mapping`` with the program's
    prefixes, or None if the run reads and writes no RDF (a reader maps by ``triple`` then)."""
    from ..rdf import RDF_FORMATS
    from ..spec import RDF_OUTPUT

    kind = spec.rdf_mapping
    if kind == "triple" and spec.format not in RDF_OUTPUT and spec.stream_format not in RDF_FORMATS:
        return None
    from ..rdf.mapping import RdfMapping

    return RdfMapping(kind, analysis.program.prefixes)


def _record(item) -> Record:
    """A ``(t, atoms)`` pair of the API as a Record (its atoms parsed and checked)."""
    if not isinstance(item, (tuple, list)) or len(item) != 2:
        raise StreamError(Diagnostic(f"a stream item is a (t, atoms) pair, not {item!r}"))
    t, atoms = whole(item[0], "time"), item[1]
    if isinstance(atoms, (str, tuple)) or not isinstance(atoms, Iterable):
        raise StreamError(Diagnostic(f"atoms at time {t} must be a list of atoms, not {atoms!r}"))
    return Record(t, tuple(parse_atom(a, t) for a in atoms), "<api>", 0)


def parse_atom(value, t: int) -> tuple:
    """A ground atom from a string (``"p(a,1)"``) or a tuple (``("p", "a", 1)``), checked.

    A tuple must be exactly what its printed form parses to: ints are numbers, ``str`` s are
    constants (``"a"``) or quoted strings (``'"text"'``), nested tuples function terms. So
    ``("temp", "50")`` is refused (write ``("temp", 50)``), and no string can smuggle program
    text into an engine.
    """
    if isinstance(value, tuple):
        if _too_long(value):
            raise StreamError(
                Diagnostic(
                    f"bad tuple atom {value[0]!r}(...) at time {t}: an integer with more than "
                    f"{integer_digits()} digits",
                    notes=(
                        "Python converts integers of at most that many digits to text (sys.set_int_max_str_digits)",
                    ),
                )
            )
        printed = tuple_atom(value)
        if printed is None:
            raise StreamError(
                Diagnostic(
                    f"bad tuple atom {value!r} at time {t}",
                    notes=(
                        "a tuple atom is (predicate, arg, ...): int for a number, str for a constant "
                        "such as 'a' or a quoted string such as '\"text\"', a tuple for a function term",
                    ),
                )
            ) from None
        text, value = printed  # the parsed atom: a numpy integer in it becomes an int
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


def _too_long(term) -> bool:
    """Whether a tuple atom holds an integer that has more digits than Python converts to text."""
    if type(term) is tuple:
        return any(_too_long(x) for x in term)
    return isinstance(term, int) and integer_too_long(term)


def tuple_atom(value: tuple) -> tuple | None:
    """``(text, atom)``: the printed form of ``value`` and what it parses to, if that is ``value``
    (see :func:`parse_atom`), else None."""
    try:
        text = format_atom(value) if value and type(value[0]) is str else None
        atom = parse_ground_atom(text) if text is not None else None
        return (text, atom) if atom is not None and atom == value else None
    except (GroundSyntaxError, TypeError, ValueError, IndexError, RecursionError):  # IndexError: an empty term ()
        return None


class Input:
    """The input stage of one run of ``analysis`` under ``spec``: the records it reads, checked (see the
    module doc).

    ``values``: the engine's check of the values it can hold (``check_values(t, atoms)``, raising
    StreamError), or None. ``start``: the time the stream stands at. ``counts``: a dict receiving
    the atoms read per time point (for a picture's input panel), or None. ``renamed``: called
    with the :class:`~ticker_py.analysis.arities.Renaming` once stream atoms of a name of the
    program with an arity it does not use were seen (the output prints them under their own name).
    ``rename=False``: the records are checked, not renamed (a sharded run's driver: its cells rename).
    """

    def __init__(
        self,
        analysis,
        spec=None,
        values: Callable | None = None,
        start: int = 0,
        counts: dict | None = None,
        renamed: Callable | None = None,
        rename: bool = True,
    ):
        self.analysis, self.spec = analysis, spec
        self.checker = StreamChecker.of(analysis)
        self.renaming = Renaming(analysis.renamed, analysis.signatures)
        self.renames = bool(analysis.renamed)  # atoms are renamed (or will be, once foreign ones come)
        self.rename = rename  # False: checked only (the engines' names are given later, by another stage)
        self.values = values
        self.time = start  # the latest time read: time must not decrease
        self.past: int | None = None  # the time of a record past ``until`` (where reading stopped)
        self.counts = counts
        self.renamed = renamed
        self.warned = False  # the warnings of body predicates nothing gave are out (once)

    def warn_unused(self, within: int | None = None) -> None:
        """A warning for each body predicate that nothing gave (clingo's "atom does not occur in any
        rule head"), located, with a "did you mean"; once. At the end of a stream, or after its first
        ``within`` time points (a live stream)."""
        import warnings

        from ..analysis.unused import never_given
        from ..errors import TickerWarning

        seen = self.checker.seen()
        if self.warned or not seen:  # an empty stream (a test, /dev/null) tells nothing about names
            return
        self.warned = True
        for diag in never_given(self.analysis, seen, within):
            warnings.warn(TickerWarning(diag), stacklevel=4)

    def open(self, stream, spec=None) -> Iterable:
        """The records of ``stream`` as :func:`records_from` reads it, in ``spec`` 's stream format
        and RDF mapping (default: the stage's spec)."""
        spec = spec or self.spec
        if spec is None:
            return records_from(stream)
        return records_from(stream, rdf_mapping(spec, self.analysis), spec.stream_format)

    def records(self, records: Iterable, until: int | None = None) -> Iterator[Record]:
        """``records`` (Records or ``(t, atoms)`` pairs) checked, up to time ``until``; raises the
        located error of the first one that is refused, after yielding every one before it. A record
        more than ``max_gap`` time points after the one before (or ``until`` that far after the last)
        is refused too: every time point in between would be evaluated."""
        checker, counts, values = self.checker, self.counts, self.values
        max_gap = self.spec.max_gap if self.spec is not None else None
        first = self.spec is not None and self.spec.semantics.origin is Origin.FIRST  # the first record starts it
        for rec in records:
            if type(rec) is not Record:
                rec = rec if isinstance(rec, Record) else _record(rec)
            t = rec.t
            if until is not None and t > until:
                self.past = t
                break
            if t < self.time:
                raise StreamError(Diagnostic(f"time {t} after time {self.time}", _where(rec)))
            if max_gap is not None and t - self.time > max_gap and not first:
                raise _gap_error(t, self.time, max_gap, _where(rec))
            self.time, first = t, False
            checker.check(rec)
            if (self.renames or checker.foreign) and self.rename:
                rec = rec.replace(atoms=tuple(self._inward(rec.atoms)), known=None)
            if values is not None:
                self._check_values(rec)
            if counts is not None:
                counts[t] = counts.get(t, 0) + len(rec.atoms)
            yield rec
        if until is not None and max_gap is not None and until - self.time > max_gap:
            raise _gap_error(until, self.time, max_gap, what="until")

    def accept(self, t: int, atoms, source: str = "<api>") -> list:
        """The atoms of time t (tuples) checked as :meth:`records` checks a record, under the
        engine's names (a refused one raises, located at ``source``)."""
        if t < self.time:
            raise StreamError(Diagnostic(f"time {t} after time {self.time}: time must not decrease"))
        self.time = t
        atoms = list(atoms)
        rec = Record(t, tuple(atoms), source, 0)
        self.checker.check(rec)
        if self.renames or self.checker.foreign:
            atoms = self._inward(atoms)
        if self.values is not None:
            self._check_values(rec.replace(atoms=tuple(atoms)))
        return atoms

    def _inward(self, atoms) -> list:
        """``atoms`` under the engine's names: a name of several arities is a name per arity, and
        so is a stream predicate of a program name with an arity the program does not use."""
        renaming = self.renaming
        if renaming.learn(self.checker.foreign):
            self.renames = True
            if self.renamed is not None:
                self.renamed(renaming)
        return renaming.atoms_in(atoms)

    def _check_values(self, rec: Record) -> None:
        try:
            self.values(rec.t, rec.atoms)
        except StreamError as err:
            from ..engines.wide import locate

            raise locate(err, rec.source, rec.line) from None


def _gap_error(t: int, last: int, max_gap: int, where: Location | None = None, what: str = "time") -> StreamError:
    return StreamError(
        Diagnostic(
            f"{what} {t} is {t - last} time points after time point {last}, more than the gap limit {max_gap}",
            where,
            (
                "every time point in between would be evaluated and written; raise the limit "
                "(max_gap=, --max-gap; 0: no limit) if that is meant",
            ),
        )
    )


def _where(rec: Record) -> Location | None:
    """The start of ``rec``'s line, for a record read from a source (None for an API pair)."""
    if rec.line:
        return Location(rec.source, rec.line, 1, rec.line, 2)
    return None
