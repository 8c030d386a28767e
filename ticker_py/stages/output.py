"""The output stage: results, written as the run specification's output choices say, to a sink.

:class:`Output` picks the writer (``format``, ``changes``, ``show_at``, ``consequences``, RDF
output; plain or factorized results) and says what it reads of each result: with
:attr:`Output.changes_only` the engine sends only the changes of its single answer stream, which
the writer applies. A sink is a file or standard output (:func:`open_output`), or the TCP clients
of a live run: a missing directory, a directory, a read-only place or a full device
(``/dev/full``) give a :class:`~ticker_py.errors.UsageError` naming the target (status 2 in the
CLI), at open time where possible, else at the write that fails. A closed pipe (``| head``) stays
a BrokenPipeError, which the CLI treats as a normal end.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from ..errors import Diagnostic, UsageError
from ..spec import RDF_OUTPUT

__all__ = ["Output", "open_output", "Sink", "open_writer", "wants_changes"]


class Output:
    """The output stage of a run under ``spec`` for the program ``analysis``: built before the engine
    (so that the engine is made for what it reads, :attr:`changes_only`), checked against the program
    then (RDF output's ternary predicate, :func:`ticker_py.streams.rdf_writer.rdf_output`); :meth:`open`
    it on a sink, then ``write(result)`` per result and ``close(summary)`` at the end."""

    orders = True  # the writers print several answer streams in order themselves

    def __init__(self, spec, analysis):
        self.spec, self.analysis = spec, analysis
        if spec.consequences:  # consequences read whole results unless nothing is printed
            self.changes_only = spec.changes or spec.format == "none"
        else:
            self.changes_only = wants_changes(
                spec.format, spec.models_per_tick, spec.show_at, spec.changes, spec.factorize
            )
        self.predicate = spec.rdf_output
        if spec.format in RDF_OUTPUT or spec.rdf_output != "triple":
            from ..streams.rdf_writer import rdf_output

            self.predicate = rdf_output(spec.rdf_output, spec.format, analysis, spec.rdf_mapping, spec.show)
        self.sink = self.writer = None

    def open(self, sink=None) -> Output:
        """Write to ``sink`` (a text stream), by default the file or standard output of ``spec.out``
        (:func:`open_output`)."""
        spec = self.spec
        self.sink = sink = open_output(spec.out) if sink is None else sink
        if spec.consequences:
            from .consequences import ConsequencesWriter

            self.writer = ConsequencesWriter(sink, spec.consequences, spec.show_at)
        else:
            from .input import rdf_mapping

            rdf = rdf_mapping(spec, self.analysis) if spec.format in RDF_OUTPUT else None
            self.writer = open_writer(
                spec.format, sink, spec.show_at, spec.changes, spec.models_per_tick, spec.factorize, rdf, self.predicate
            )
        self.write = self.writer.write
        return self

    def close(self, summary: dict) -> None:
        try:
            self.writer.close(summary)
        finally:  # also when the writer's last flush fails (a full device): the file is closed here
            self.sink.close()


class Sink:
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


def open_output(path: str | None) -> Sink:
    """Standard output for None or ``-``, else the file ``path`` opened for writing (UTF-8)."""
    if path is None or path == "-":
        return Sink(sys.stdout, "<stdout>", owned=False)
    target = Path(path)
    if target.is_dir():
        raise UsageError(Diagnostic(f"cannot write to '{path}': it is a directory"))
    if not target.parent.is_dir():
        raise UsageError(Diagnostic(f"cannot write to '{path}': directory '{target.parent}' does not exist"))
    try:
        return Sink(open(target, "w", encoding="utf-8"), str(path), owned=True)
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
    from ..streams.writers import FORMATS

    if fmt in FORMATS:
        if changes and fmt in ("jsonl", "changes"):
            fmt = "changes"
        elif changes and fmt != "none":
            raise UsageError.at(None, f"--changes prints JSON Lines; it cannot be combined with --format {fmt}")
        writer = FORMATS[fmt](out, show_at, factorize and models == 0)
    else:
        from ..streams.rdf_writer import RDF_OUTPUT_FORMATS, RdfWriter

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
