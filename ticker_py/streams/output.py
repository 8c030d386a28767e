"""The output of a run: its target, a file or standard output whose failures are user errors, and
the writer of its format (:func:`open_writer`).

A missing directory, a directory, a read-only place or a full device (``/dev/full``) give
a :class:`~ticker_py.errors.UsageError` naming the target (status 2 in the CLI), at open
time where possible, else at the write that fails. A closed pipe (``| head``) stays a
BrokenPipeError, which the CLI treats as a normal end.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from ..errors import Diagnostic, UsageError

__all__ = ["open_output", "Output", "open_writer", "wants_changes"]


class Output:
    """A text sink around ``stream``: OSErrors of write, flush and close become UsageErrors."""

    def __init__(self, stream: TextIO, name: str, owned: bool):
        self.stream, self.name, self.owned = stream, name, owned

    def _fail(self, err: OSError):
        if isinstance(err, BrokenPipeError):
            raise err
        raise UsageError(Diagnostic(f"cannot write to '{self.name}': {err.strerror or err}")) from None

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except OSError as err:
            self._fail(err)

    def flush(self) -> None:
        try:
            self.stream.flush()
        except OSError as err:
            self._fail(err)

    def writable(self) -> bool:
        return True

    def close(self) -> None:
        """Flush; close the file if this Output opened it (standard output stays open)."""
        try:
            self.stream.flush()
        except OSError as err:
            if self.owned:
                self._close_quietly()
            self._fail(err)
        if self.owned:
            self.stream.close()

    def _close_quietly(self) -> None:
        try:
            self.stream.close()
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def open_output(path: str | None) -> Output:
    """Standard output for None or ``-``, else the file ``path`` opened for writing (UTF-8)."""
    if path is None or path == "-":
        return Output(sys.stdout, "<stdout>", owned=False)
    target = Path(path)
    if target.is_dir():
        raise UsageError(Diagnostic(f"cannot write to '{path}': it is a directory"))
    if not target.parent.is_dir():
        raise UsageError(Diagnostic(f"cannot write to '{path}': directory '{target.parent}' does not exist"))
    try:
        return Output(open(target, "w", encoding="utf-8"), str(path), owned=True)
    except OSError as err:
        raise UsageError(Diagnostic(f"cannot write to '{path}': {err.strerror or err}")) from None


def open_writer(fmt: str, out, show_at=False, changes=False, models=1, factorize=False, rdf=None, rdf_output="triple"):
    """The writer of ``--format fmt`` (jsonl, text, csv, none; ntriples, nquads) on ``out``.

    ``changes`` (``--changes``) prints what changed, as JSON Lines: it needs jsonl or none;
    ``models`` answer streams per tick (0: all), printed as a product with ``factorize`` and
    ``models`` 0; ``rdf`` (an :class:`~ticker_py.rdf.mapping.RdfMapping`) and ``rdf_output`` (the
    predicate of the triples) for the RDF formats. Its ``wants_changes`` says whether the engine
    need send only changes (:func:`wants_changes`).
    """
    from .writers import FORMATS

    if fmt in FORMATS:
        if changes and fmt in ("jsonl", "changes"):
            fmt = "changes"
        elif changes and fmt != "none":
            raise UsageError.at(None, f"--changes prints JSON Lines; it cannot be combined with --format {fmt}")
        writer = FORMATS[fmt](out, show_at, factorize and models == 0)
    else:
        from ..rdf.writer import RDF_OUTPUT_FORMATS, RdfWriter

        if fmt not in RDF_OUTPUT_FORMATS:
            known = ", ".join([*FORMATS, *RDF_OUTPUT_FORMATS])
            raise UsageError.at(None, f"unknown output format '{fmt}' (known: {known})")
        if models != 1 or changes:
            notes = ("use --models 1 and no --changes",)
            raise UsageError(Diagnostic(f"--format {fmt} writes a single answer stream", notes=notes))
        writer = RdfWriter(out, fmt, rdf, rdf_output)
    writer.wants_changes = wants_changes(fmt, models, show_at, changes, factorize)
    return writer


def wants_changes(fmt: str, models: int = 1, show_at: bool = False, changes: bool = False, factorize: bool = False):
    """Whether the writer of these options takes results of changes only (``changes_only``, for the
    engine): for ``--changes`` and ``--format none``, and for the whole-model formats of a single
    answer stream, whose writers keep it up to date from the changes (the cheap path: no copy of
    the whole answer stream at each tick)."""
    whole = fmt in ("jsonl", "text", "csv") and models == 1 and not show_at and not factorize
    return changes or fmt in ("changes", "none") or whole
