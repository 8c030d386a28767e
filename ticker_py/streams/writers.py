"""Result writers: JSON Lines, text, CSV, changes and none (SPEC §4), and a DataFrame view.

A writer gets one :class:`~ticker_py.streams.model.Result` per evaluation point through
``write`` and flushes its output after each result, so it can feed a live consumer;
``close(summary)`` ends the output. See ``docs/formats.md`` for the exact formats.
"""

from __future__ import annotations

import csv
import json
from typing import Iterable, Optional, TextIO

from ..values import format_atom
from ..errors import UsageError
from .model import Result

__all__ = ["printed_models", "result_rows", "Writer", "JsonlWriter", "TextWriter", "CsvWriter",
           "ChangesWriter", "NoneWriter", "make_writer", "results_to_dataframe", "FORMATS"]


def printed_models(result: Result, show_at: bool = False) -> list:
    """The answer streams of ``result`` as printed: ``[(atoms, pinned), ...]``.

    ``atoms`` is the sorted list of printed atoms at t, ``pinned`` the ``"a(y) at 5"``
    strings (empty without ``show_at``). Models that print the same appear once, sorted.
    """
    return sorted({(tuple(m.sorted_atoms()), tuple(m.sorted_pinned()) if show_at else ())
                   for m in result.models})


def result_rows(result: Result, show_at: bool = False) -> Iterable[tuple]:
    """Rows ``(t, c, model, atom)`` of one result; None marks an absent model or atom.

    One row per atom of each printed model (model = its 0-based index); an empty answer
    stream is one row with atom None; no answer stream is one row with model and atom None.
    """
    models = printed_models(result, show_at)
    if not models:
        yield result.t, result.c, None, None
    for index, (atoms, pinned) in enumerate(models):
        for atom in (atoms + pinned) or (None,):
            yield result.t, result.c, index, atom


class Writer:
    """Base writer: ``write(result)`` per evaluation point, then ``close(summary)``."""

    def __init__(self, out: TextIO, show_at: bool = False):
        self.out = out
        self.show_at = show_at

    def lines(self, result: Result) -> Iterable[str]:
        """The output lines for one result."""
        return ()

    def write(self, result: Result) -> None:
        """Write one result and flush."""
        for line in self.lines(result):
            self.out.write(line + "\n")
        self.out.flush()

    def close(self, summary: Optional[dict] = None) -> None:
        """End the output (the ``none`` format prints the summary here)."""
        self.out.flush()


class JsonlWriter(Writer):
    """``{"t": 7, "c": 3, "models": [["b(y)"], ["c(y)"]]}``, plus ``"at"`` with show_at."""

    def lines(self, result):
        if result.models is None:
            yield self._from_changes(result)
            return
        models = printed_models(result, self.show_at)
        obj = {"t": result.t, "c": result.c, "models": [list(a) for a, _ in models]}
        if self.show_at:
            obj["at"] = [list(p) for _, p in models]
        yield json.dumps(obj)


class TextWriter(Writer):
    """``t=7 c=3: {b(y)} {c(y)}`` or ``t=7 c=3: no answer stream``."""

    def lines(self, result):
        if result.models is None:
            yield self._from_changes(result)
            return
        models = printed_models(result, self.show_at)
        body = " ".join("{" + ", ".join(a + p) + "}" for a, p in models) or "no answer stream"
        yield f"t={result.t} c={result.c}: {body}"


class CsvWriter(Writer):
    """Header ``t,c,model,atom`` and one row per atom (see :func:`result_rows`)."""

    def __init__(self, out, show_at=False):
        super().__init__(out, show_at)
        self.csv = csv.writer(out, lineterminator="\n")
        self.csv.writerow(("t", "c", "model", "atom"))

    def write(self, result):
        self.csv.writerows(result_rows(result, self.show_at))
        self.out.flush()


class ChangesWriter(Writer):
    """``{"t": 7, "c": 3, "added": [...], "removed": [...]}`` relative to the previous result.

    One line per evaluation point, also when nothing changed. A result with no answer
    stream adds ``"models": 0``, removes everything and resets the state to empty; one with
    several answer streams is refused.
    """

    def __init__(self, out, show_at=False):
        super().__init__(out, show_at)
        self.state: list = []

    def lines(self, result):
        if result.models is None:
            yield self._from_changes(result)
            return
        models = printed_models(result, self.show_at)
        if len(models) > 1:
            raise UsageError.at(None, "--changes needs a single answer stream; use --models 1")
        current = list(models[0][0] + models[0][1]) if models else []
        before, now = set(self.state), set(current)
        obj = {"t": result.t, "c": result.c,
               "added": [a for a in current if a not in before],
               "removed": [a for a in self.state if a not in now]}
        if not models:
            obj["models"] = 0
        self.state = current
        yield json.dumps(obj)

    def _from_changes(self, result) -> str:
        """The line for an engine that reported only ``Result.changes``."""
        added, removed = result.changes
        obj = {"t": result.t, "c": result.c, "added": self._printed(added), "removed": self._printed(removed)}
        return json.dumps(obj)

    def _printed(self, items) -> list:
        atoms = sorted(format_atom(a) for a in items if isinstance(a[0], str))
        if not self.show_at:
            return atoms
        pins = sorted((T, format_atom(a)) for a, T in (x for x in items if not isinstance(x[0], str)))
        return atoms + [f"{a} at {T}" for T, a in pins]


class NoneWriter(Writer):
    """Writes nothing per result; ``close`` prints one summary line."""

    def close(self, summary=None):
        s = summary or {}
        self.out.write(f"time points: {s.get('time_points', 0)}, atoms: {s.get('atoms', 0)}, "
                       f"evaluation: {s.get('seconds', 0.0):.3f} s\n")
        super().close(summary)


#: ``--format`` names and their writers.
FORMATS = {"jsonl": JsonlWriter, "text": TextWriter, "csv": CsvWriter,
           "changes": ChangesWriter, "none": NoneWriter}


def make_writer(fmt: str, out: TextIO, show_at: bool = False, changes: bool = False,
                formats: Optional[dict] = None) -> Writer:
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
