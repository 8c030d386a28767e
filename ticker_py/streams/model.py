"""The stream model shared by every reader, engine and writer: time points 0, 1, 2, ... of ground
atoms (:mod:`ticker_py.values`) in arrival order, each atom counted over the whole stream (the tick
stream of the Ticker paper); results are per evaluation tick ``(t, c)``."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from ..node import Node, field
from ..values import format_atom

__all__ = ["Known", "Record", "TimePoint", "Model", "Result", "time_points", "in_printed_order"]


class Known(Node):
    """What a reader learnt of a record's atoms: ``pairs``, the (name, tuple length) pair of every atom
    (maybe more); ``distinct``, whether no atom occurs twice (False: not known)."""

    pairs: frozenset
    distinct: bool = False


class Record(Node):
    """What a reader yields: atoms at time ``t`` from one line/row of a source (``source``/``line``
    locate it). Several records may carry the same t; t never decreases. ``known``: a
    :class:`Known`, or None; records equal each other regardless."""

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
    """Group records into consecutive time points 0, 1, 2, ... (gaps become empty points), each yielded
    once a later record completes it (if the records raise, the one collected so far first); with
    ``until`` the stream stops after that time point, or is padded with empty ones up to it."""
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
    """One answer stream at an evaluation tick: ``atoms``, the shown atoms holding at t;
    ``pinned``, ``(atom, T)`` pairs of atoms pinned by @-heads to T != t."""

    atoms: frozenset
    pinned: frozenset = frozenset()

    def printed_key(self, text: Callable = format_atom, pins: bool = True) -> tuple:
        """The answer stream as printed, ``(atom texts sorted, "a at T" pin texts sorted by T, then
        text)`` (pins only with ``pins``; ``text`` prints an atom): every output sorts answer
        streams by this key."""
        atoms = tuple(sorted(map(text, self.atoms)))
        if not (pins and self.pinned):
            return atoms, ()
        return atoms, tuple(f"{s} at {T}" for T, s in sorted((T, text(a)) for a, T in self.pinned))

    def sorted_atoms(self) -> list:
        return list(self.printed_key(pins=False)[0])

    def sorted_pinned(self) -> list:
        return list(self.printed_key()[1])

    def __repr__(self) -> str:
        """``Model({alarm, temp(120)})``, with ``pinned={p(a) at 5}`` when there are pins."""
        pins = f", pinned={{{', '.join(self.sorted_pinned())}}}" if self.pinned else ""
        return f"Model({{{', '.join(self.sorted_atoms())}}}{pins})"


def in_printed_order(models, key: Callable | None = None) -> list:
    """``models`` sorted in the one order of every output, by :meth:`Model.printed_key` (``key``: the
    same key from cached texts, :meth:`~ticker_py.streams.texts.AtomTexts.key`)."""
    return sorted(models, key=key or Model.printed_key)


class Result(Node):
    """The answer at one evaluation tick: ``models``, zero, one or several answer streams (``()``:
    no answer stream). ``changes``: ``(added, removed)`` atoms and ``(atom, T)`` pins since the
    previous tick's single answer stream (with ``EngineOptions(changes_only=True)`` ``models`` may be
    None). ``factors``: the :class:`~ticker_py.streams.factorized.Factorized` answer
    (``EngineOptions(factorize=True)``), which ``models`` expands lazily.
    """

    t: int
    c: int
    models: tuple | None
    changes: tuple | None = None
    factors: object | None = None
    explainer: Callable | None = field(default=None, compare=False, repr=False)

    def __repr__(self) -> str:
        """``Result(t=0, c=1, models=(Model({alarm}),), changes=(added={alarm}, removed={}))``."""
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
            from ..errors import UsageError

            note = "create the Reasoner (or call run) with explainable=True"
            raise UsageError.at(None, "this result does not carry its stream", note)
        return self.explainer(self, atom, model, why_not)

    def plot(self, **options):
        """This tick's answer streams as a matplotlib figure (see :meth:`ticker_py.api.Results.plot`)."""
        from ..plot.draw import results_figure

        return results_figure([self], **options)

    def _repr_html_(self) -> str:
        """A notebook's view: the answer streams as a table and a small timeline (docs/pictures.md)."""
        from ..plot.html import results_html

        return results_html([self])
