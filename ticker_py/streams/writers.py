"""Result writers, one per format (docs/formats.md), for plain and factorized results; and the
DataFrame views. A writer flushes after each result, so it can feed a live consumer."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from json.encoder import encode_basestring_ascii
from typing import TextIO

from ..errors import UsageError
from .answers import EMPTY, AnswerState
from .model import Result
from .texts import AtomTexts, printed_models

__all__ = [
    "AtomTexts",
    "printed_models",
    "printed_factors",
    "result_rows",
    "factor_rows",
    "Writer",
    "JsonlWriter",
    "TextWriter",
    "CsvWriter",
    "ChangesWriter",
    "NoneWriter",
    "FORMATS",
    "results_to_dataframe",
]


class Writer:
    """Base writer: ``write(result)`` per evaluation point, then ``close(summary)``; a result of
    changes only is written whole. ``wants_changes`` is set by ``stages.output.open_writer``."""

    wants_changes = False

    def __init__(self, out: TextIO | None, show_at: bool = False, factorize: bool = False):
        self.out, self.show_at, self.factorize = out, show_at, factorize
        self.texts = AtomTexts()
        self.answer = AnswerState(pins=show_at)  # the single answer stream, while changes come
        #: while changes come: the answer's sorted printed atoms, edited in place (None: not kept)
        self._sorted: list | None = None
        #: while those are kept: atom -> text of the answer's atoms, and of atoms that left it lately
        #: (at most ``texts.limit`` and one tick's worth: they may come back)
        self._shown: dict = {}
        self._left: dict = {}
        self._factors = (None, None)  # the previous factorized answer and its printed form
        self._common = (None, None)  # the previous common part and its printed form (it mostly recurs)

    def printed(self, result: Result) -> list:
        """The answer streams of ``result`` as printed (:func:`printed_models`), also of changes only."""
        if result.models is None and not self.show_at:  # changes only: the cheap path
            return [(self._sorted_from_changes(result.changes), ())]
        self._sorted = None
        return self.texts.printed(self.answer.models(result), self.show_at)

    def _sorted_from_changes(self, changes) -> tuple:
        """The sorted printed atoms of the answer after ``changes``: the previous sorted texts edited;
        each atom printed once while it stays (``_shown``), its text dropped soon after it leaves."""
        new, gone = self.answer.apply(changes)[:2]
        texts, shown, left = self._sorted, self._shown, self._left
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
            atoms = self.answer.atoms
            shown.update(zip(atoms, map(text, atoms)))
        else:
            gone_texts = list(map(shown.pop, gone))
            new_texts = list(map(text, new))
            shown.update(zip(new, new_texts))
            left.update(zip(gone, gone_texts))
            if len(gone) + len(new) <= len(texts) // 4:
                edits = _edits(texts, gone_texts, new_texts)
        self._sorted = texts = sorted(shown.values()) if edits is None else _edited(texts, edits)
        self._sorted_changed(texts, edits)
        return tuple(texts)

    def _sorted_changed(self, texts: list, edits: list | None) -> None:
        """Called when :meth:`_sorted_from_changes` changed the sorted texts by ``edits`` (None: afresh)."""

    def printed_factors(self, result: Result) -> tuple:
        """:func:`printed_factors` of ``result``; a factorized answer that recurs is printed once."""
        f = result.factors
        if f is None:  # plain answer streams: their trivial factorization
            from .factorized import Factorized

            f = Factorized.from_models(result.models)
        if f is not self._factors[0]:
            p = f.printed(self.show_at)
            if self._common[0] != p.common:
                self._common = (p.common, self._part(p.common))
            self._factors = (f, (p.count, self._common[1], [[self._part(m) for m in alts] for alts in p.factors]))
        return self._factors[1]

    def _part(self, model) -> list:
        atoms, pins = self.texts.key(model, self.show_at)
        return list(atoms + pins)

    def groups(self, result: Result) -> list:
        """``[(key, atoms)]`` as printed: ``((model,), atoms and pins)`` per answer stream, or
        ``((factor, alternative), atoms)`` with ``factorize`` (the common part is factor 0)."""
        if not self.factorize:
            return [((i,), a + p) for i, (a, p) in enumerate(self.printed(result))]
        count, common, factors = self.printed_factors(result)
        if not count:
            return []
        return [((i, k), atoms) for i, alts in enumerate([[common]] + factors) for k, atoms in enumerate(alts)]

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


def _edits(texts: list, gone: list, new: list) -> list | None:
    """How the sorted list ``texts`` becomes itself without ``gone`` and with ``new``: ``(position,
    drop, text)`` sorted, found by bisection; None if a text of ``gone`` is not there."""
    dropped = [(bisect_left(texts, x), 1, x) for x in gone]
    end = len(texts)
    for pos, _, x in dropped:
        if pos == end or texts[pos] != x:
            return None
    return sorted(dropped + [(bisect_left(texts, x), 0, x) for x in new])


def _edited(items: list, edits: list, value=None) -> list:
    """``items`` (in the order of the texts ``edits`` were found in) with ``edits`` made, a new
    text's item ``value(text)`` (or the text)."""
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
    """``{"t": 7, "c": 3, "models": [["b(y)"], ["c(y)"]]}``, plus ``"at"`` with show_at;
    factorized: ``{"t": 7, "c": 3, "count": 4, "common": ["a"], "factors": [[["b"], ["c"]], [["d"], []]]}``
    (``count`` a string beyond 2**53)."""

    #: while the answer comes as changes and some text needs escaping: its sorted JSON strings, edited
    _jsons: list | None = None
    #: the previous printed factorized answer and its JSON text after ``"c"``
    _factor_json: tuple = (None, None)

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
        """The line of one result as strings to write in turn (a long list of atoms in pieces)."""
        parts = ['{"t": ', str(result.t), ', "c": ', str(result.c)]
        json_list = self.texts.json_list
        if self.factorize:
            from .factorized import JSON_SAFE

            printed = self.printed_factors(result)
            if self._factor_json[0] is not printed:
                count, common, factors = printed
                lists = ", ".join("[" + ", ".join(map(json_list, alts)) + "]" for alts in factors)
                number = count if count <= JSON_SAFE else f'"{count}"'
                self._factor_json = (
                    printed,
                    f', "count": {number}, "common": {json_list(common)}, "factors": [{lists}]}}',
                )
            parts.append(self._factor_json[1])
            return parts
        models = self.printed(result)
        if result.models is None and not self.show_at and self._jsons is not None:
            lists = ["[", *_pieces(self._jsons, ", "), "]"]  # the single answer stream, kept up to date
        elif len(models) == 1 and not self.show_at and not self.texts.escaped and models[0][0]:
            lists = ['["', *_pieces(models[0][0], '", "'), '"]']  # AtomTexts.json_list, in pieces
        else:
            lists = [", ".join(json_list(a) for a, _ in models)]
        parts += [', "models": [', *lists, "]"]
        if self.show_at:
            parts += [', "at": [', ", ".join(json_list(p) for _, p in models), "]"]
        parts.append("}")
        return parts


#: texts per piece of a JSON line (:meth:`JsonlWriter.write`)
PIECE = 512


def _pieces(texts, sep: str) -> list:
    """``sep.join(texts)`` as a list of strings of at most ``PIECE`` texts each."""
    out = [sep.join(texts if len(texts) <= PIECE else texts[:PIECE])]  # most answers: no copy
    for i in range(PIECE, len(texts), PIECE):
        out += (sep, sep.join(texts[i : i + PIECE]))
    return out


class TextWriter(Writer):
    """``t=7 c=3: {b(y)} {c(y)}`` or ``t=7 c=3: no answer stream``; factorized:
    ``t=7 c=3: 4 answer streams: {a} * ({b} | {c}) * ({d} | {})``."""

    def lines(self, result):
        head = f"t={result.t} c={result.c}: "
        if not self.factorize:
            body = " ".join("{" + ", ".join(a + p) + "}" for a, p in self.printed(result))
            yield head + (body or "no answer stream")
            return
        count, common, factors = self.printed_factors(result)
        if not count:
            yield head + "no answer stream"
            return
        body = " * ".join(
            ["{" + ", ".join(common) + "}"]
            + ["(" + " | ".join("{" + ", ".join(a) + "}" for a in alts) + ")" for alts in factors]
        )
        yield f"{head}{count} answer stream{'s' * (count != 1)}: {body}"


class CsvWriter(Writer):
    """The rows of :func:`result_rows` (``t,c,model,atom``) or of :func:`factor_rows`."""

    def __init__(self, out, show_at=False, factorize=False):
        super().__init__(out, show_at, factorize)
        out.write("t,c,factor,alternative,atom\n" if factorize else "t,c,model,atom\n")

    def lines(self, result):
        prefix = f"{result.t},{result.c},"
        groups = self.groups(result)
        if not groups:
            yield prefix + ",," if self.factorize else prefix + ","
        field = self.texts.csv.__getitem__
        for key, atoms in groups:
            start = prefix + ",".join(map(str, key)) + ","
            yield start + ("\n" + start).join(map(field, atoms)) if atoms else start


class ChangesWriter(Writer):
    """``{"t": 7, "c": 3, "added": [...], "removed": [...]}`` relative to the previous result; no
    answer stream adds ``"models": 0`` and removes everything; several are refused."""

    def lines(self, result):
        if self.factorize and result.factors is not None and result.factors.printed(self.show_at).count > 1:
            raise UsageError.at(
                None,
                f"--changes needs a single answer stream; at t={result.t} there are "
                f"{result.factors.count} (drop --changes)",
            )
        head = f'{{"t": {result.t}, "c": {result.c}, "added": '
        if result.models is None:
            added, removed = result.changes
            if not self.show_at:  # pins are not printed: those of the native engine's changes are not touched
                added, removed = getattr(result.changes, "atoms", None) or (added, removed)
            self.answer.apply(result.changes)
            self.texts.room(len(self.answer.atoms))
            yield f'{head}{self._json(added)}, "removed": {self._json(removed)}}}'
            return
        models = result.models
        if len(models) > 1 and len({m if self.show_at else m.atoms for m in models}) > 1:
            raise UsageError.at(None, "--changes needs a single answer stream; use --models 1")
        new = models[0] if models else EMPTY
        added, removed, pins_added, pins_removed = AnswerState.diff(self.answer.model(), new)
        self.answer.set((new,))
        yield (
            f'{head}{self._json(added | pins_added)}, "removed": {self._json(removed | pins_removed)}'
            + (', "models": 0}' if not models else "}")
        )

    def _json(self, items) -> str:
        """The JSON list of the printed atoms among ``items`` (pins after them, only with show_at)."""
        text = self.texts.text.__getitem__
        atoms = sorted(text(a) for a in items if type(a[0]) is str)
        if self.show_at:
            atoms += self.texts.pinned(frozenset(x for x in items if type(x[0]) is not str))
        return self.texts.json_list(atoms)


class NoneWriter(Writer):
    """Writes nothing per result; ``close`` prints one summary line."""

    def close(self, summary=None):
        s = summary or {}
        self.out.write(
            f"time points: {s.get('time_points', 0)}, atoms: {s.get('atoms', 0)}, "
            f"evaluation: {s.get('seconds', 0.0):.3f} s\n"
        )
        super().close(summary)


#: ``--format`` names and their writers (``changes``: ``--changes``).
FORMATS = {"jsonl": JsonlWriter, "text": TextWriter, "csv": CsvWriter, "changes": ChangesWriter, "none": NoneWriter}


def printed_factors(result: Result, show_at: bool = False) -> tuple:
    """``(count, common, factors)`` of a factorized result as printed: atom strings, each
    alternative sorted, in :class:`Factorized`'s order; pins only with ``show_at``."""
    return Writer(None, show_at).printed_factors(result)


def result_rows(result: Result, show_at: bool = False) -> Iterable[tuple]:
    """Rows ``(t, c, model, atom)`` of one result; None marks an absent model or atom.

    One row per atom of each printed model (model = its 0-based index); an empty answer
    stream is one row with atom None; no answer stream is one row with model and atom None.
    """
    return _rows(result, Writer(None, show_at))


def factor_rows(result: Result, show_at: bool = False) -> Iterable[tuple]:
    """Rows ``(t, c, factor, alternative, atom)`` of one factorized result (None: absent). The
    common part is factor 0 with the one alternative 0, the factors are numbered from 1 (factor
    ``i + 1`` is ``Factorized.factors[i]``); no answer stream is one row with factor None."""
    return _rows(result, Writer(None, show_at, factorize=True))


def _rows(result: Result, writer: Writer) -> Iterable[tuple]:
    """The rows of :meth:`Writer.groups`, one per atom (None: absent)."""
    groups = writer.groups(result)
    if not groups:
        yield result.t, result.c, *(None,) * (2 + writer.factorize)
    for key, atoms in groups:
        for atom in atoms or (None,):
            yield result.t, result.c, *key, atom


def results_to_dataframe(results: Iterable[Result], show_at: bool = False):
    """A pandas DataFrame with the rows of :func:`result_rows`, ``t, c, model, atom``, or of
    factorized results those of :func:`factor_rows`, ``t, c, factor, alternative, atom``.

    ``model``, ``factor`` and ``alternative`` are nullable Int64 (<NA> = no answer stream) and
    ``atom`` a string column (<NA> = no atom: an empty or absent answer stream).
    """
    import pandas as pd

    results = list(results)
    factorized = bool(results) and results[0].factors is not None
    columns = ["factor", "alternative"] if factorized else ["model"]
    writer = Writer(None, show_at, factorized)
    frame = pd.DataFrame([row for r in results for row in _rows(r, writer)], columns=["t", "c", *columns, "atom"])
    return frame.astype({"t": "int64", "c": "int64", **dict.fromkeys(columns, "Int64"), "atom": "string"})
