"""The line formats: text (``T: atom, atom``) and JSON Lines (``{"t": T, "atoms": [...]}``), read
one line at a time (a pipe stays live), a record per line."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from ..syntax.ground_atoms import AtomReader, GroundSyntaxError
from ..values import SURROGATE
from .lines import line_time, stream_error, text_lines, time_value
from .model import Known, Record

__all__ = ["read_text", "read_jsonl"]

#: text up to a comment: anything but quotes and comment marks, and whole strings
_CODE = re.compile(r'[^"%#]*(?:"[^"\\]*(?:\\.[^"\\]*)*"[^"%#]*)*')
_TIME = re.compile(r"\s*(\S*?)\s*:")


def _strip_comment(line: str) -> str:
    """Cut a ``%`` or ``#`` comment, but not inside a quoted string."""
    if "%" not in line and "#" not in line:
        return line
    end = 0
    while True:
        end = _CODE.match(line, end).end()
        if end == len(line):
            return line
        if line[end] != '"':
            return line[:end]
        end += 1  # a quote that opens no string: read on after it


def _known(reader: AtomReader) -> Known | None:
    """What the reader learnt of the atoms of the line it just read (for the checker and the driver)."""
    return Known(*reader.shape) if reader.shape is not None else None


def read_text(lines_or_file, source: str = "<stdin>") -> Iterator[Record]:
    """Read the text format ``T: atom, atom; atom`` from a file object, an iterable of lines or a
    whole string. ``T:`` alone is a record without atoms."""
    reader = AtomReader()
    for number, raw in enumerate(text_lines(lines_or_file, source), 1):
        raw = raw.rstrip("\r\n")
        line, atoms = raw, None
        if "%" in raw or "#" in raw:  # maybe inside strings (IRIs): compact atoms hold no comment
            m = _TIME.match(raw)
            if m is not None and "%" not in m.group() and "#" not in m.group():
                atoms = reader.compact(raw, m.end())
            if atoms is None:
                line = _strip_comment(raw)
        if not line.strip():
            continue
        m, t = line_time(_TIME, line, source, number, "atoms", raw)
        try:
            atoms = reader.line(line, m.end()) if atoms is None else atoms
        except GroundSyntaxError as e:
            raise stream_error(source, number, e.column + 1, e.message, raw) from None
        yield Record(t, atoms, source, number, _known(reader))


def read_jsonl(lines_or_file, source: str = "<stdin>") -> Iterator[Record]:
    """Read JSON Lines ``{"t": 12, "atoms": ["alpha(20)"]}``; ``{"t": 12}`` is a heartbeat. ``t`` is
    a JSON integer; other keys are refused; blank lines are skipped."""
    reader = AtomReader()
    for number, raw in enumerate(text_lines(lines_or_file, source), 1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
            if raw.count('"t"') + raw.count('"atoms"') > 2 or "\\u" in raw:  # maybe a key given twice
                json.loads(raw, object_pairs_hook=_once)
        except json.JSONDecodeError as e:
            raise stream_error(source, number, e.colno, f"bad JSON: {e.msg}") from None
        except _Twice as e:
            key = f'"{e.args[0]}"'  # at its second occurrence (1 when written with escapes)
            column = raw.find(key, raw.find(key) + 1) + 1 if raw.count(key) > 1 else 1
            raise stream_error(source, number, column, f"key {key} given twice in one object", raw, len(key)) from None
        if not isinstance(obj, dict) or "t" not in obj:
            raise stream_error(source, number, 1, 'expected an object {"t": T, "atoms": [...]}')
        if len(obj) > 2 or (len(obj) == 2 and "atoms" not in obj):
            unknown = sorted(set(obj) - {"t", "atoms"})
            raise stream_error(source, number, 1, f"unknown key '{unknown[0]}' (expected 't' and 'atoms')")
        try:
            t = time_value(obj["t"])
        except ValueError as e:
            raise stream_error(source, number, 1, str(e)) from None
        texts = obj.get("atoms", [])
        if not isinstance(texts, list):
            raise stream_error(source, number, 1, "'atoms' must be a list of strings")
        if "\\u" in raw:  # an escape may stand for a lone surrogate, which no output can encode
            _refuse_surrogates(texts, source, number)
        atoms = _atoms(texts, source, number, reader)
        yield Record(t, atoms, source, number, _known(reader))


class _Twice(Exception):
    """A JSON object with a key twice (``json.loads`` would keep the last value)."""


def _once(pairs: list) -> dict:
    """The object of ``pairs``; :class:`_Twice` for a key given twice."""
    obj = dict(pairs)
    if len(obj) < len(pairs):
        seen = set()
        raise _Twice(next(k for k, _ in pairs if k in seen or seen.add(k)))
    return obj


def _atoms(texts: list, source: str, line: int, reader: AtomReader) -> tuple:
    """The atoms of ``texts``; the first bad one raises a located StreamError."""
    try:
        return reader.each(texts)
    except (GroundSyntaxError, TypeError):
        pass
    if not all(isinstance(x, str) for x in texts):
        raise stream_error(source, line, 1, "'atoms' must be a list of strings")
    for text in texts:
        try:
            reader.atom(text)
        except GroundSyntaxError as e:
            raise stream_error(source, line, 1, f"atom '{text}': {e.message}") from None
    raise AssertionError("each() failed on texts that parse one by one")  # pragma: no cover


def _refuse_surrogates(texts: list, source: str, number: int) -> None:
    """Refuse an atom text with a lone surrogate (a JSON escape such as ``\\ud800``): no output
    can encode it."""
    for text in texts:
        if isinstance(text, str) and SURROGATE.search(text):
            raise stream_error(
                source, number, 1, f"atom {ascii(text)}: a lone surrogate (\\ud800-\\udfff) is no character"
            )
