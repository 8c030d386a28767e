"""Errors: user errors (bad program, stream or arguments) and internal invariant failures.

A :class:`TickerError` is the user's fault and is reported as text in clingo's style
(``file:line:col: error: message`` plus ``note:`` lines and a caret excerpt); the CLI
exits with status 2. An :class:`InternalError` is a bug in ticker_py (status 1).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: ``ticker --version`` and ``--help`` need no AST
    from .ast import Location

__all__ = [
    "Diagnostic",
    "TickerError",
    "ProgramError",
    "StreamError",
    "UsageError",
    "EngineUnsupported",
    "InternalError",
    "TickerWarning",
    "file_error",
]


@dataclass(frozen=True)
class Diagnostic:
    """One problem, as data: where, what, and follow-up notes."""

    message: str
    location: Location | None = None
    notes: tuple = ()
    excerpt: str = ""
    kind: str = "error"

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location is not None else ""
        lines = [f"{where}{self.kind}: {self.message}"]
        if self.excerpt:
            lines.append(self.excerpt)
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


class TickerError(Exception):
    """A user error: one or more diagnostics. ``str()`` is the clingo-style report."""

    def __init__(self, diagnostics, *, source: str | None = None):
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        if source is not None:
            diagnostics = [with_excerpt(d, source) for d in diagnostics]
        self.diagnostics = tuple(diagnostics)
        super().__init__("\n".join(map(str, self.diagnostics)))

    @classmethod
    def at(cls, location: Location | None, message: str, *notes: str, source: str | None = None):
        return cls(Diagnostic(message, location, tuple(notes)), source=source)

    @property
    def reason(self) -> str:
        """The first diagnostic on one line, located, and how many more there are (``p.lars:1:20-21:
        negation 'not q' is not allowed in the r4 profile (and 2 more)``): why a comparison lists a
        run as not applicable."""
        first = self.diagnostics[0]
        more = len(self.diagnostics) - 1
        text = f"{first.location}: {first.message}" if first.location else first.message
        return text + (f" (and {more} more)" if more else "")


class ProgramError(TickerError):
    """The program is malformed or outside what LARS allows."""


class StreamError(TickerError):
    """A stream record is malformed or breaks the stream rules."""


class UsageError(TickerError):
    """Bad arguments: unknown engine or format, missing file, ..."""


def file_error(err: OSError, what: str, path, verb: str = "read", directory_note: str | None = None) -> UsageError:
    """The UsageError for ``err``, raised opening or reading the input file ``path`` (``what``:
    "program file", "stream file", ...): it does not exist, it is a directory, or the system's reason."""
    if isinstance(err, FileNotFoundError):
        return UsageError(Diagnostic(f"{what} '{path}' does not exist"))
    if isinstance(err, IsADirectoryError):
        return UsageError(
            Diagnostic(f"{what} '{path}' is a directory", notes=(directory_note,) if directory_note else ())
        )
    return UsageError(Diagnostic(f"cannot {verb} {what} '{path}': {err.strerror or err}"))


class EngineUnsupported(TickerError):
    """The chosen engine cannot run this program (the message says why)."""

    @property
    def reason(self) -> str:
        """The refusal and its first located cause, which the engine gives as a note (``the native
        engine cannot run this program: p.lars:2:26-33: 'a' depends negatively on 'b' through a
        cycle (not stratified) (and 1 more)``)."""
        first = self.diagnostics[0]
        causes = [n for n in first.notes if _LOCATED.match(n)]
        if first.location is not None or not causes:
            return super().reason
        more = len(causes) - 1 + len(self.diagnostics) - 1
        return f"{first.message}: {causes[0]}" + (f" (and {more} more)" if more else "")


#: a note that starts with a place in the program (``p.lars:2:26-33: ...``)
_LOCATED = re.compile(r"[^\s:][^:]*:\d+:\d+")


class InternalError(RuntimeError):
    """An internal invariant failed: a bug in ticker_py."""


class TickerWarning(UserWarning):
    """Something the user may not mean, reported and run on (a :mod:`warnings` category): its
    argument is a :class:`Diagnostic` of kind ``warning``, whose text is ``str()`` of the warning."""

    def __init__(self, diagnostic: Diagnostic):
        super().__init__(str(diagnostic))
        self.diagnostic = diagnostic


def with_excerpt(diag: Diagnostic, source: str) -> Diagnostic:
    """Attach a caret excerpt of the source line the diagnostic points at."""
    loc = diag.location
    if loc is None or diag.excerpt:
        return diag
    lines = source.splitlines()
    if not 1 <= loc.line <= len(lines):
        return diag
    text = lines[loc.line - 1].expandtabs(1)
    end = loc.end_column if loc.end_line == loc.line else len(text) + 1
    width = max(1, end - loc.column)
    excerpt = f"  {text}\n  {' ' * (loc.column - 1)}^{'~' * (width - 1)}"
    return Diagnostic(diag.message, loc, diag.notes, excerpt, diag.kind)
