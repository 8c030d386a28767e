"""The output target of a run: a file or standard output, whose failures are user errors.

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

__all__ = ["open_output", "Output"]


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
