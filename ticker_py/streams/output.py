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

__all__ = ["Output", "open_output", "Sink"]


class Output:
    """The output stage of a run under ``spec``: :meth:`open` it on a sink, then ``write(result)`` per
    result and ``close(summary)`` at the end (the writer's last words, then the sink is closed).
    What it reads (:attr:`changes_only`) is known before it is opened, so that the engine can be
    made for it first."""

    orders = True  # the writers print several answer streams in order themselves

    def __init__(self, spec):
        self.spec = spec
        self.changes_only = _changes_only(spec)
        self.sink = self.writer = self.predicate = None

    def check(self, analysis) -> None:
        """Check the ternary predicate RDF output writes against the program (a name that is none of
        its ternary predicates is refused with a "did you mean", and so is one without an RDF format:
        :func:`ticker_py.rdf.writer.rdf_output`); before anything runs."""
        spec = self.spec
        self.predicate = spec.rdf_output
        if spec.format in RDF_OUTPUT or spec.rdf_output != "triple":
            from ..rdf.writer import rdf_output

            self.predicate = rdf_output(spec.rdf_output, spec.format, analysis, spec.rdf_mapping, spec.show)

    def open(self, sink, analysis=None) -> Output:
        """Write to ``sink`` (a text stream; see :func:`open_output`); ``analysis``: the program, which
        RDF output takes its prefixes from (and is checked against, if :meth:`check` was not called)."""
        spec = self.spec
        self.sink = sink
        if spec.format in RDF_OUTPUT:
            from ..rdf.writer import RdfWriter
            from .input import rdf_mapping

            if self.predicate is None and analysis is not None:
                self.check(analysis)
            rdf = rdf_mapping(spec, analysis) if analysis is not None else None
            self.writer = RdfWriter(sink, spec.format, rdf, self.predicate or spec.rdf_output)
        elif spec.consequences:
            from ..consequences import ConsequencesWriter

            self.writer = ConsequencesWriter(sink, spec.consequences, spec.show_at)
        else:
            if spec.factorize and spec.models_per_tick == 0:
                from .factor_writers import make_factor_writer as make
            else:
                from .writers import make_writer as make
            self.writer = make(spec.format, sink, show_at=spec.show_at, changes=spec.changes)
        self.write = self.writer.write
        return self

    def close(self, summary: dict) -> None:
        try:
            self.writer.close(summary)
        finally:  # also when the writer's last flush fails (a full device): the file is closed here
            self.sink.close()


def _changes_only(spec) -> bool:
    """Whether the engine sends only changes: for ``changes`` and format ``none``, and for the
    whole-model formats of a single answer stream, whose writers keep it up to date from the changes
    (the cheap path: no copy of the whole answer stream at each tick)."""
    one = spec.models_per_tick == 1 and not spec.show_at and not spec.consequences and not spec.factorize
    return spec.changes or spec.format == "none" or (one and spec.format in ("jsonl", "text", "csv"))


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
