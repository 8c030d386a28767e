"""The stream model shared by every reader, engine and writer.

A stream is a sequence of time points 0, 1, 2, ...; each carries the ground atoms that
arrived in it, in arrival order. Atoms are tuples (see :mod:`ticker_py.values`); every
atom gets a count (1, 2, ...) in arrival order over the whole stream — the tick stream
of the Ticker paper. Results are per evaluation tick ``(t, c)``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from ..node import Node, field
from ..values import format_atom

__all__ = ["Known", "Record", "TimePoint", "Model", "Result", "time_points", "in_printed_order"]


class Known(Node):
    """What a reader learnt about a record's atoms while it split them, so that checks and the
    driver need not look at each atom again: ``pairs``, a set holding the (name, tuple length)
    pair of every atom (a table reader's may hold more: those of the batch the record came from);
    ``distinct``, whether no atom occurs twice (False: not known)."""

    pairs: frozenset
    distinct: bool = False


class Record(Node):
    """What a reader yields: atoms at time ``t`` from one line/row of a source.

    ``source``/``line`` locate the record for error messages. Several records may carry the
    same t (a time point continued on a later line); t never decreases. ``known``: what the
    reader knows of the atoms (:class:`Known`), or None; records equal each other regardless.
    """

    t: int
    atoms: tuple
    source: str = "<stream>"
    line: int = 0
    known: Known | None = field(default=None, compare=False, repr=False)


class TimePoint(Node):
    """All atoms of one time point, in arrival order, duplicates removed."""

    t: int
    atoms: tuple


def _shown(atoms) -> str:
    """A set of atoms and ``(atom, T)`` pins in clingo syntax, sorted (pins last)."""
    model = Model(
        frozenset(a for a in atoms if not isinstance(a[0], tuple)),
        frozenset(a for a in atoms if isinstance(a[0], tuple)),
    )
    return "{" + ", ".join(sum(model.printed_key(), ())) + "}"


def time_points(records: Iterable[Record], until: int | None = None) -> Iterator[TimePoint]:
    """Group records into consecutive time points 0, 1, 2, ... (gaps become empty points).

    A time point is yielded as soon as a later record shows it is complete, so readers
    stay incremental. If the records raise, the time point collected so far is yielded
    first (unless no record was accepted at all). With ``until`` the stream stops after that time point, or is
    padded with empty time points up to it.
    """
    current, atoms = 0, {}  # a dict keeps the first arrival of each atom, in order
    accepted = False
    try:
        for rec in records:
            accepted = True
            if until is not None and rec.t > until:
                break
            while rec.t > current:
                yield TimePoint(current, tuple(atoms))
                current, atoms = current + 1, {}
            if atoms:
                atoms.update(dict.fromkeys(rec.atoms))
            else:
                atoms = dict.fromkeys(rec.atoms)
    except Exception:
        if accepted:
            yield TimePoint(current, tuple(atoms))  # what was accepted before the error
        raise
    last = current if until is None else until
    while current <= last:
        yield TimePoint(current, tuple(atoms))
        current, atoms = current + 1, {}


class Model(Node):
    """One answer stream at an evaluation tick.

    ``atoms``: the atoms holding at t that are shown (intensional ones; all with show=all).
    ``pinned``: ``(atom, T)`` pairs of intensional atoms pinned by @-heads to T != t
    (past time points and predictions).
    """

    atoms: frozenset
    pinned: frozenset = frozenset()

    def printed_key(self, text: Callable = format_atom, pins: bool = True) -> tuple:
        """The answer stream as printed, ``(atom texts sorted, "a at T" pin texts sorted by T, then
        text)`` (pins only with ``pins``; ``text`` prints an atom), and the one order answer streams
        are printed and numbered in everywhere (``ticker run``, ``Result.models``, ``--model K``,
        ``ticker enumerate``, ``ticker compare``, factors): sorted by this key."""
        atoms = tuple(sorted(map(text, self.atoms)))
        if not (pins and self.pinned):
            return atoms, ()
        return atoms, tuple(f"{s} at {T}" for T, s in sorted((T, text(a)) for a, T in self.pinned))

    def sorted_atoms(self) -> list:
        return list(self.printed_key(pins=False)[0])

    def sorted_pinned(self) -> list:
        return list(self.printed_key()[1])

    def __repr__(self) -> str:
        """``Model({alarm, temp(120)})``, with ``pinned={p(a) at 5}`` when there are pins: the
        atoms in clingo syntax, sorted."""
        pins = f", pinned={{{', '.join(self.sorted_pinned())}}}" if self.pinned else ""
        return f"Model({{{', '.join(self.sorted_atoms())}}}{pins})"


def in_printed_order(models, key: Callable | None = None) -> list:
    """``models`` sorted in the one order of every output, by :meth:`Model.printed_key` (``key``: the
    same key from cached texts, :meth:`~ticker_py.streams.texts.AtomTexts.key`)."""
    return sorted(models, key=key or Model.printed_key)


class Result(Node):
    """The answer at one evaluation tick: zero, one or several answer streams.

    ``models == ()`` means *no answer stream*; ``(Model(frozenset()),)`` is one empty one.
    ``changes``, when an engine maintains its answer incrementally, is ``(added, removed)``:
    frozensets of atoms at t (and of ``(atom, T)`` pins) relative to the previous evaluation
    of the single answer stream. An engine created with ``EngineOptions(changes_only=True)``
    may leave ``models`` as ``None`` and report only ``changes`` (never materialising the
    whole answer: the mode for long streams and benchmarks).
    ``factors``, from an engine created with ``EngineOptions(factorize=True)``, is the
    :class:`~ticker_py.streams.factorized.Factorized` answer; ``models`` then expands it lazily.
    """

    t: int
    c: int
    models: tuple | None
    changes: tuple | None = None
    factors: object | None = None
    explainer: Callable | None = field(default=None, compare=False, repr=False)

    def __repr__(self) -> str:
        """``Result(t=0, c=1, models=(Model({alarm}),), changes=(added={alarm}, removed={}))``: atoms
        in clingo syntax, as :class:`Model` shows them."""
        text = f"Result(t={self.t}, c={self.c}, models={self.models!r}"
        if self.changes is not None:
            added, removed = self.changes
            text += f", changes=(added={_shown(added)}, removed={_shown(removed)})"
        if self.factors is not None:
            text += f", factors={self.factors!r}"
        return text + ")"

    def explain(self, atom, model: int = 1, why_not: bool = False):
        """Why ``atom`` holds in answer stream ``model`` (1-based, printed order), or why not
        (:mod:`ticker_py.explain`); needs a result of ``Reasoner(..., explainable=True)``, whose
        ``explainer(result, atom, model, why_not)`` it calls."""
        if self.explainer is None:
            from ..errors import Diagnostic, UsageError

            raise UsageError(
                Diagnostic(
                    "this result does not carry its stream",
                    notes=("create the Reasoner (or call run) with explainable=True",),
                )
            )
        return self.explainer(self, atom, model, why_not)

    def plot(self, **options):
        """This tick's answer streams as a matplotlib figure (see :meth:`ticker_py.api.Results.plot`)."""
        from ..plot.draw import results_figure

        return results_figure([self], **options)

    def _repr_html_(self) -> str:
        """A notebook's view: the answer streams as a table and a small timeline (docs/pictures.md)."""
        from ..plot.html import results_html

        return results_html([self])
