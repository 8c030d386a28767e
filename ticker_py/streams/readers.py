"""Which reader reads a stream (docs/formats.md): by the file's suffix, or ``--stream-format``.

Every reader is a lazy generator of :class:`~ticker_py.streams.model.Record` that raises a located
:class:`~ticker_py.errors.StreamError` at the first bad record, after yielding every good one.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

from ..errors import UsageError
from .lines import COMPRESSED, from_path
from .model import Record
from .parquet import read_parquet
from .tables import read_csv
from .text import read_jsonl, read_text

__all__ = ["open_stream", "stream_format", "STREAM_FORMATS", "COMPRESSED"]

#: ``--stream-format`` names and their line readers.
STREAM_FORMATS = {"text": read_text, "jsonl": read_jsonl, "csv": read_csv}

_SUFFIXES = {".stream": "text", ".txt": "text", ".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv"}


def stream_format(path: Path) -> str:
    """The format of a stream file by its suffix (after a compression suffix); '' if unknown."""
    suffixes = [s.lower() for s in path.suffixes]
    if path.is_dir() or suffixes[-1:] == [".parquet"]:
        return "parquet"
    if suffixes and suffixes[-1] in COMPRESSED:
        suffixes.pop()
    return _SUFFIXES.get(suffixes[-1], "") if suffixes else ""


def open_stream(path_or_dash, source: str | None = None, fmt: str | None = None) -> Iterator[Record]:
    """Open a stream: ``-`` is stdin, a directory is Parquet, a file goes by its suffix.

    ``fmt`` (``--stream-format``: text, jsonl or csv) is the format of stdin and of files
    whose suffix names none (default text); it never overrides a known suffix. ``.gz``,
    ``.bz2`` and ``.xz`` files are decompressed. A missing file raises :class:`UsageError`.
    """
    if fmt is not None and fmt not in STREAM_FORMATS:
        raise UsageError.at(None, f"unknown stream format '{fmt}' (known: {', '.join(STREAM_FORMATS)})")
    name = str(path_or_dash)
    if name == "-":
        return STREAM_FORMATS[fmt or "text"](sys.stdin.buffer, source or "<stdin>")
    path = Path(name)
    if not path.exists():
        raise UsageError.at(None, f"stream file '{name}' does not exist")
    known = stream_format(path)
    if known == "parquet":
        return read_parquet(path, source or name)
    return from_path(STREAM_FORMATS[known or fmt or "text"], path, source or name)
