"""What every stream reader shares: located errors, times, and files read as lines.

Files are read as bytes and decoded line by line (pipes stay live); invalid UTF-8, an over-long
line and a read error (a corrupt compressed file) are located errors at their line.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..ast import Location
from ..errors import Diagnostic, StreamError, UsageError, with_excerpt
from ..limits import integral

__all__ = [
    "stream_error",
    "time_value",
    "line_time",
    "text_lines",
    "from_path",
    "open_binary",
    "MAX_LINE",
    "COMPRESSED",
]

#: The longest line (in bytes) a text, JSON Lines or CSV stream may have; see docs/formats.md.
MAX_LINE = 1 << 26

#: compression suffixes and the modules that decompress them
COMPRESSED = {".gz": "gzip", ".bz2": "bz2", ".xz": "lzma"}
_DECOMPRESS_ERRORS: tuple = ()
_INTEGER = re.compile(r"-?[0-9]+")


def stream_error(
    source: str, line: int, column: int, message: str, text: str | None = None, width: int = 1, notes: tuple = ()
) -> StreamError:
    """A StreamError at ``source:line:column`` (1-based), with a caret excerpt of ``text``."""
    diag = Diagnostic(message, Location(source, line, column, line, column + max(1, width)), notes)
    if text is not None:
        diag = with_excerpt(diag, "\n" * (line - 1) + text)
    return StreamError(diag)


def time_value(value, what: str = "time", text: bool = False) -> int:
    """A time (or an order key: ``what``) from one cell: an integer >= 0 (docs/formats.md, "Times"),
    written in decimal digits in a text format (``text``), else a value of an integer type (a float,
    a bool, a string or a missing value is none). ValueError says why, naming the value found."""
    if type(value) is not int:
        if text and isinstance(value, str) and _INTEGER.fullmatch(value.strip()):
            value = int(value.strip())
        elif integral(value) is None:
            shown = value.item() if type(value).__module__ == "numpy" else value  # 0.5, not np.float64(0.5)
            nan = isinstance(shown, float) and shown != shown
            if nan or shown is None or type(shown).__name__ in ("NAType", "NaTType"):  # pandas' missing values
                raise ValueError(
                    f"{what} must be a non-negative integer, found {'NaN' if nan else shown} (a missing value)"
                )
            raise ValueError(f"{what} must be a non-negative integer, found {shown!r}")
        else:
            value = integral(value)
    if value < 0:
        raise ValueError(f"negative {what} {value}")
    return value


def line_time(pattern, line: str, source: str, number: int, what: str, raw: str, notes=tuple) -> tuple:
    """``(match, t)``: the time ``T`` of a ``T: ...`` line, matched by ``pattern`` (group 1: the
    time); else a StreamError located in ``raw`` that expects ``T: what`` (with ``notes()``)."""
    m = pattern.match(line)
    if m is None:
        col = len(line) - len(line.lstrip()) + 1
        message = f"expected 'T: {what}' (a time point, ':', then {what})"
        raise stream_error(source, number, col, message, raw, notes=notes())
    try:
        return m, time_value(m.group(1), text=True)
    except ValueError as e:
        raise stream_error(source, number, m.start(1) + 1, str(e), raw, len(m.group(1))) from None


def _read_lines(f, source: str) -> Iterator[str]:
    """Decoded lines of a binary (or text) file object, one ``readline`` at a time; a leading
    byte-order mark is dropped."""
    number, limit = 0, MAX_LINE
    while True:
        try:
            raw = f.readline(limit + 1)
        except UnicodeDecodeError as e:  # a text-mode file object given by a caller
            raise stream_error(source, number + 1, 1, f"invalid UTF-8 ({e.reason}): not a text stream") from None
        except (OSError, EOFError) + _DECOMPRESS_ERRORS as e:
            raise stream_error(source, number + 1, 1, f"cannot read the stream: {e}") from None
        if not raw:
            return
        number += 1
        if len(raw) > limit and raw[-1:] not in (b"\n", "\n"):
            raise stream_error(source, number, 1, f"line longer than {limit} bytes (the limit for one line)")
        if type(raw) is bytes:
            try:
                raw = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                column = len(raw[: e.start].decode("utf-8")) + 1
                raise stream_error(
                    source, number, column, f"invalid UTF-8 (byte 0x{raw[e.start]:02x}): not a text stream"
                ) from None
        if number == 1 and raw.startswith("\ufeff"):
            raw = raw[1:]
        yield raw


def text_lines(lines_or_file, source: str) -> Iterable[str]:
    """Lines of a file object (binary or text; see :func:`_read_lines`), of a string, or of a list."""
    if isinstance(lines_or_file, str):
        return lines_or_file.splitlines()
    if hasattr(lines_or_file, "readline"):
        return _read_lines(getattr(lines_or_file, "buffer", lines_or_file), source)
    return lines_or_file


def from_path(read, path_or_file, source: str, *args) -> Iterator:
    """``read(file, source, *args)`` of a file object, or of the file at a path (:func:`open_binary`)."""
    if hasattr(path_or_file, "readline"):
        yield from read(path_or_file, source, *args)
        return
    with open_binary(Path(path_or_file), source) as f:
        yield from read(f, source, *args)


def open_binary(path: Path, source: str):
    """The file opened for binary reading, decompressed by its suffix; else a UsageError."""
    module = COMPRESSED.get(path.suffix.lower())
    try:
        if module is None:
            return open(path, "rb")
        global _DECOMPRESS_ERRORS
        import lzma
        import zlib

        _DECOMPRESS_ERRORS = (zlib.error, lzma.LZMAError)
        return importlib.import_module(module).open(path, "rb")
    except OSError as e:
        raise UsageError.at(None, f"cannot open stream file '{source}': {e.strerror or e}") from None
