"""Result writers: JSON Lines, text, CSV, changes and none (docs/formats.md), and a DataFrame view.

A writer gets one :class:`~ticker_py.streams.model.Result` per evaluation point through
``write`` and flushes its output after each result, so it can feed a live consumer;
``close(summary)`` ends the output. See ``docs/formats.md`` for the exact formats.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from json.encoder import encode_basestring_ascii
from typing import TextIO

from ..errors import UsageError
from .model import Model, Result
from .texts import AtomTexts, only_atoms, printed_models, result_rows

__all__ = [
    "AtomTexts",
    "printed_models",
    "result_rows",
    "Writer",
    "JsonlWriter",
    "TextWriter",
    "CsvWriter",
    "ChangesWriter",
    "NoneWriter",
    "make_writer",
    "results_to_dataframe",
    "FORMATS",
]


class Writer:
    """Base writer: ``write(result)`` per evaluation point, then ``close(summary)``.

    Lines are assembled from :class:`AtomTexts` (each atom printed once per run). A result
    that carries only changes (an engine run with ``changes_only``) is written whole by the
    whole-model writers, rebuilt from the previous answer stream and the changes.
    """

    def __init__(self, out: TextIO, show_at: bool = False):
        self.out = out
        self.show_at = show_at
        self.texts = AtomTexts()
        self.whole = Model(frozenset())  # the single answer stream, rebuilt from changes
        #: while changes arrive: (its atoms, its pins, its sorted printed atoms or None), updated in place
        self._now: tuple | None = None
        #: while those sorted texts are kept: atom -> text of the answer's atoms, and of atoms that
        #: left it lately (at most ``texts.limit`` and one tick's worth: they may come back)
        self._shown: dict = {}
        self._left: dict = {}

    def _apply(self, changes) -> tuple:
        """Apply ``Result.changes`` to the answer stream (removed first, then added); returns the
        atoms (not pins) that left and those that came. Pins are kept only with ``show_at`` (they
        are not printed otherwise); changes that carry ``atoms``, the pair without the pins (the
        native engine's), are applied without touching the pins."""
        if self._now is None:
            self._now = (set(self.whole.atoms), set(self.whole.pinned) if self.show_at else set(), None)
        atoms, pins, _ = self._now
        added, removed = changes
        split = getattr(changes, "atoms", None)
        if split is not None:
            added_atoms, removed_atoms = split
        elif only_atoms(added) and only_atoms(removed):
            added_atoms, removed_atoms = added, removed
        else:
            added_atoms = [x for x in added if isinstance(x[0], str)]
            removed_atoms = [x for x in removed if isinstance(x[0], str)]
        if self.show_at:  # set operations at C speed, the atoms left out of the pins
            pins.difference_update(removed)
            pins.update(added.difference(added_atoms))
        gone = atoms.intersection(removed_atoms)
        atoms.difference_update(gone)
        new = set(added_atoms).difference(atoms)
        atoms.update(new)
        return gone, new

    def materialised(self, result: Result) -> Result:
        """``result`` with whole models, rebuilt from ``Result.changes`` if the engine sent only those
        (their pins only with ``show_at``)."""
        if result.models is not None:
            self.whole = result.models[0] if len(result.models) == 1 else Model(frozenset())
            self._now = None
            return result
        self._apply(result.changes)
        atoms, pins, _ = self._now = (*self._now[:2], None)
        self.whole = Model(frozenset(atoms), frozenset(pins))
        return Result(result.t, result.c, (self.whole,), result.changes)

    def _sorted_from_changes(self, changes) -> tuple:
        """The printed atoms of the answer stream after ``changes``, sorted: the previous sorted
        texts without those that left, merged with those that came (no whole-model copy). The
        texts are those of the answer's atoms (``_shown``): each atom is printed when it comes,
        not again while it stays, and its text is dropped soon after it leaves (flat memory)."""
        gone, new = self._apply(changes)
        atoms, pins, texts = self._now
        shown, left = self._shown, self._left
        if texts is not None and not gone and not new:
            return tuple(texts)
        if len(left) > self.texts.limit:
            left.clear()
        fmt = self.texts._format
        text = lambda atom: left.pop(atom, None) or fmt(atom)  # noqa: E731
        edits = None
        if texts is None:  # afresh: the texts shown so far may come back
            left.update(shown)
            shown.clear()
            shown.update(zip(atoms, map(text, atoms)))
        else:
            gone_texts = list(map(shown.pop, gone))
            new_texts = list(map(text, new))
            shown.update(zip(new, new_texts))
            left.update(zip(gone, gone_texts))
            if len(gone) + len(new) <= len(texts) // 4:
                edits = _edits(texts, gone_texts, new_texts)
        texts = sorted(shown.values()) if edits is None else _edited(texts, edits)
        self._now = (atoms, pins, texts)
        self._sorted_changed(texts, edits)
        return tuple(texts)

    def _sorted_changed(self, texts: list, edits: list | None) -> None:
        """Called when :meth:`_sorted_from_changes` changed the sorted texts to ``texts``: by
        ``edits`` (:func:`_edits`), or afresh (None)."""

    def lines(self, result: Result) -> Iterable[str]:
        """The output lines for one result."""
        return ()

    def write(self, result: Result) -> None:
        """Write one result and flush."""
        write = self.out.write
        for text in self._texts(result):
            write(text)
        self.out.flush()

    def _texts(self, result: Result) -> Iterable[str]:
        """What :meth:`write` writes for one result, in turn: each line, then a line end."""
        for line in self.lines(result):
            yield line
            yield "\n"

    def close(self, summary: dict | None = None) -> None:
        """End the output (the ``none`` format prints the summary here)."""
        self.out.flush()

    def _models(self, result: Result) -> list:
        if result.models is None and not self.show_at:  # changes only: the cheap path
            return [(self._sorted_from_changes(result.changes), ())]
        return printed_models(self.materialised(result), self.show_at, self.texts)

    def _json_list(self, texts) -> str:
        return self.texts.json_list(texts)


def _edits(texts: list, gone: list, new: list) -> list | None:
    """How the sorted list ``texts`` becomes itself without ``gone`` (which it holds) and with
    ``new``: ``(position, drop, text)`` sorted, each position found by bisection (few comparisons,
    unlike a sort); None if a text of ``gone`` is not there (two atoms print alike: cannot happen)."""
    dropped = [(bisect_left(texts, x), 1, x) for x in gone]
    end = len(texts)
    for pos, _, x in dropped:
        if pos == end or texts[pos] != x:
            return None
    return sorted(dropped + [(bisect_left(texts, x), 0, x) for x in new])


def _edited(items: list, edits: list, value=None) -> list:
    """``items`` (in the order of the sorted texts ``edits`` were found in) with ``edits`` made:
    a dropped text's item left out, a new text's item (``value(text)``, or the text) put in;
    the unchanged runs are copied by slices."""
    out: list = []
    at = 0
    for pos, drop, x in edits:
        out += items[at:pos]
        if drop:
            at = pos + 1
        else:
            out.append(x if value is None else value(x))
            at = pos
    out += items[at:]
    return out


class JsonlWriter(Writer):
    """``{"t": 7, "c": 3, "models": [["b(y)"], ["c(y)"]]}``, plus ``"at"`` with show_at."""

    #: while the answer stream comes as changes and some text needs escaping: the JSON strings of
    #: its sorted texts, in their order, edited as they are (no lookup of each at every tick)
    _jsons: list | None = None

    def _sorted_changed(self, texts, edits):
        # no cache: each text is encoded as it comes; the list holds the answer's JSON strings
        if not self.texts.escaped:
            self._jsons = None
        elif edits is None or self._jsons is None:
            self._jsons = list(map(encode_basestring_ascii, texts))
        else:
            self._jsons = _edited(self._jsons, edits, encode_basestring_ascii)

    def lines(self, result):
        yield "".join(self._parts(result))

    def _texts(self, result):
        # the line in its parts (no line-sized copies)
        return [*self._parts(result), "\n"]

    def _parts(self, result) -> list:
        """The line of one result as strings to write in turn: a long list of atoms comes in
        pieces of ``PIECE`` texts, so that no string as long as the line is built (nor freed)."""
        models = self._models(result)
        if result.models is None and not self.show_at and self._jsons is not None:
            lists = ["[", *_pieces(self._jsons, ", "), "]"]  # the single answer stream, kept up to date
        elif len(models) == 1 and not self.show_at and not self.texts.escaped and models[0][0]:
            lists = ['["', *_pieces(models[0][0], '", "'), '"]']  # AtomTexts.json_list, in pieces
        else:
            lists = [", ".join(self._json_list(a) for a, _ in models)]
        parts = ['{"t": ', str(result.t), ', "c": ', str(result.c), ', "models": [', *lists, "]"]
        if self.show_at:
            parts += [', "at": [', ", ".join(self._json_list(p) for _, p in models), "]"]
        parts.append("}")
        return parts


#: texts per piece of a JSON line (:meth:`JsonlWriter.write`)
PIECE = 512


def _pieces(texts, sep: str) -> list:
    """``sep.join(texts)`` as a list of strings of at most ``PIECE`` texts each."""
    if len(texts) <= PIECE:
        return [sep.join(texts)]
    out = [sep.join(texts[:PIECE])]
    for i in range(PIECE, len(texts), PIECE):
        out += (sep, sep.join(texts[i : i + PIECE]))
    return out


class TextWriter(Writer):
    """``t=7 c=3: {b(y)} {c(y)}`` or ``t=7 c=3: no answer stream``."""

    def lines(self, result):
        models = self._models(result)
        body = " ".join("{" + ", ".join(a + p) + "}" for a, p in models) or "no answer stream"
        yield f"t={result.t} c={result.c}: {body}"


class CsvWriter(Writer):
    """Header ``t,c,model,atom`` and one row per atom (see :func:`result_rows`)."""

    def __init__(self, out, show_at=False):
        super().__init__(out, show_at)
        out.write("t,c,model,atom\n")

    def lines(self, result):
        prefix = f"{result.t},{result.c},"
        models = self._models(result)
        if not models:
            yield prefix + ","
        field = self.texts.csv.__getitem__
        for index, (atoms, pinned) in enumerate(models):
            start = f"{prefix}{index},"
            if atoms or pinned:
                yield start + ("\n" + start).join(map(field, atoms + pinned))
            else:
                yield start


class ChangesWriter(Writer):
    """``{"t": 7, "c": 3, "added": [...], "removed": [...]}`` relative to the previous result.

    One line per evaluation point, also when nothing changed. A result with no answer
    stream adds ``"models": 0``, removes everything and resets the state to empty; one with
    several answer streams is refused. The cheap path: with ``Result.changes`` (``--changes``
    runs the engine in changes-only mode) only the changed atoms are printed.
    """

    def __init__(self, out, show_at=False):
        super().__init__(out, show_at)
        self.state: list | None = []  # the previous answer stream as printed (None: not printed yet)

    def lines(self, result):
        if result.models is None:
            yield self._from_changes(result)
            return
        state = self._state()  # before _models: it starts the base writer's state afresh
        models = self._models(result)
        if len(models) > 1:
            raise UsageError.at(None, "--changes needs a single answer stream; use --models 1")
        current = list(models[0][0] + models[0][1]) if models else []
        before, now = set(state), set(current)
        line = (
            f'{{"t": {result.t}, "c": {result.c}, '
            f'"added": {self._json_list(a for a in current if a not in before)}, '
            f'"removed": {self._json_list(a for a in state if a not in now)}'
        )
        self.state = current
        yield line + (', "models": 0}' if not models else "}")

    def _state(self) -> list:
        """The previous answer stream as printed, in model order (after changes-only results:
        from the atoms and pins the base writer applied them to)."""
        if self.state is None:
            atoms, pins, _ = self._now
            self.state = sorted(map(self.texts.text.__getitem__, atoms)) + (
                self.texts.pinned(pins) if self.show_at else []
            )
        return self.state

    def _from_changes(self, result) -> str:
        """The line for an engine that reported only ``Result.changes`` (the state follows it)."""
        added, removed = result.changes
        if not self.show_at:  # pins are not printed: those of the native engine's changes are not touched
            added, removed = getattr(result.changes, "atoms", None) or (added, removed)
        self._apply(result.changes)
        self.texts.room(len(self._now[0]))
        self._now = (*self._now[:2], None)  # its sorted texts are stale now
        self.state = None
        return (
            f'{{"t": {result.t}, "c": {result.c}, "added": {self._json_list(self._printed(added))}, '
            f'"removed": {self._json_list(self._printed(removed))}}}'
        )

    def _printed(self, items) -> list:
        text = self.texts.text.__getitem__
        atoms = sorted(text(a) for a in items if isinstance(a[0], str))
        if not self.show_at:
            return atoms
        pins = sorted((T, text(a)) for a, T in (x for x in items if not isinstance(x[0], str)))
        return atoms + [f"{a} at {T}" for T, a in pins]


class NoneWriter(Writer):
    """Writes nothing per result; ``close`` prints one summary line."""

    def close(self, summary=None):
        s = summary or {}
        self.out.write(
            f"time points: {s.get('time_points', 0)}, atoms: {s.get('atoms', 0)}, "
            f"evaluation: {s.get('seconds', 0.0):.3f} s\n"
        )
        super().close(summary)


#: ``--format`` names and their writers.
FORMATS = {"jsonl": JsonlWriter, "text": TextWriter, "csv": CsvWriter, "changes": ChangesWriter, "none": NoneWriter}


def make_writer(
    fmt: str, out: TextIO, show_at: bool = False, changes: bool = False, formats: dict | None = None
) -> Writer:
    """The writer for ``--format fmt``; ``changes`` (``--changes``) needs jsonl, changes or none;
    ``formats``: other writers for the same names (the factorized ones of
    :mod:`~ticker_py.streams.factor_writers`)."""
    if fmt not in FORMATS:
        raise UsageError.at(None, f"unknown output format '{fmt}' (known: {', '.join(FORMATS)})")
    if changes and fmt in ("jsonl", "changes"):
        fmt = "changes"
    elif changes and fmt != "none":
        raise UsageError.at(None, f"--changes prints JSON Lines; it cannot be combined with --format {fmt}")
    return (formats or FORMATS)[fmt](out, show_at)


def results_to_dataframe(results: Iterable[Result], show_at: bool = False):
    """A pandas DataFrame ``t, c, model, atom`` with the rows of :func:`result_rows`.

    ``model`` is nullable Int64 (<NA> = no answer stream) and ``atom`` a string column
    (<NA> = no atom: an empty or absent answer stream).
    """
    import pandas as pd

    rows = [row for result in results for row in result_rows(result, show_at)]
    frame = pd.DataFrame(rows, columns=["t", "c", "model", "atom"])
    return frame.astype({"t": "int64", "c": "int64", "model": "Int64", "atom": "string"})
