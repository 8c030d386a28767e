"""The token rules of LARS, written once as regular expressions (text): the grammar
(``lars.lark``, :func:`lark_terminals`) and every reader of atoms compile the same texts, so they
accept exactly the same names, numbers and strings (tests/test_syntax.py)."""

from __future__ import annotations

import re

from ..values import KEYWORDS

__all__ = [
    "WORD",
    "NAME_START",
    "NAME",
    "VARIABLE",
    "ANONYMOUS",
    "INT",
    "STRING",
    "QUOTED",
    "IRIREF",
    "PNAME_NS",
    "PNAME_LN",
    "LINE_COMMENT",
    "BLOCK_COMMENT",
    "WS",
    "KEYWORDS",
    "ESCAPE_NOTE",
    "ascii_bytes",
    "is_name",
    "bad_string",
    "bad_token",
    "lark_terminals",
]

#: the characters of a name or a variable after its first one, and those a name starts with
WORD, NAME_START = "A-Za-z0-9_'", "a-z"
#: a name (of a predicate, constant or function); a keyword (KEYWORDS) is no name
NAME = f"[{NAME_START}][{WORD}]*"
VARIABLE = f"_*[A-Z][{WORD}]*"
#: ``_`` alone: a fresh variable
ANONYMOUS = f"_(?![{WORD}])"
#: a number without its sign (the program's ``-`` is an operator; a stream atom's ``-1`` is ``-`` + INT)
INT = "[0-9]+"
#: a string on one line with clingo's escapes only (``\\"``, ``\\\\``, ``\\n``)
STRING = r'"[^"\\\n]*(?:\\["\\n][^"\\\n]*)*"'
#: a string's extent, whatever its escapes (to skip it whole)
QUOTED = r'"(?:\\.|[^"\\\n])*"'
IRIREF = r'<[^<>"{}|^`\\\x00-\x20]*>'
PNAME_NS = "(?:[a-z][A-Za-z0-9_]*)?:"
PNAME_LN = r"(?:[a-z][A-Za-z0-9_]*)?:[A-Za-z0-9_][A-Za-z0-9_\-]*"
LINE_COMMENT = "(?:%|//)[^\\n]*"
BLOCK_COMMENT = r"/\*[\s\S]*?\*/"
WS = "[ \\t\\r\\n\\f]+"

#: the grammar's terminals defined here (name, pattern, lark priority)
_TERMINALS = (
    ("INT", INT, 0),
    # a keyword is never a name: the grammar's NAME leaves it to the keyword's terminal
    ("NAME", f"(?!(?:{'|'.join(sorted(KEYWORDS))})(?![{WORD}])){NAME}", 0),
    ("VARIABLE", VARIABLE, 0),
    ("ANONYMOUS", ANONYMOUS, 0),
    ("STRING", STRING, 0),
    ("PNAME_NS", PNAME_NS, 0),
    ("PNAME_LN", PNAME_LN, 2),
    ("IRIREF", IRIREF, 0),
    ("LINE_COMMENT", LINE_COMMENT, 0),
    ("BLOCK_COMMENT", BLOCK_COMMENT, 0),
    ("WS", WS, 0),
)

#: the note of an unknown escape, for every reader
ESCAPE_NOTE = "strings know the escapes \\n, \\\\ and \\\", as clingo's"

_NAME = re.compile(NAME)
#: a string's valid part (STRING without its closing quote), then the unknown escape that ends it
_ESCAPES = re.compile(STRING[:-1] + r'(\\[^"\\n\n])?')
_OPEN = re.compile(rf'{STRING}|{LINE_COMMENT}|{BLOCK_COMMENT}|{IRIREF}|(/\*)|(")|[^"/%<]+|.', re.S)


def ascii_bytes(characters: str) -> bytes:
    """The ASCII characters of the class ``characters`` (``"a-z"``) as bytes."""
    return bytes(c for c in range(128) if re.fullmatch(f"[{characters}]", chr(c)))


def is_name(text: str) -> bool:
    """True if ``text`` is a name (and no keyword)."""
    return _NAME.fullmatch(text) is not None and text not in KEYWORDS


def lark_terminals() -> str:
    """The grammar's lines that define the terminals of this module (lark syntax)."""
    return "".join(
        f"{name}{f'.{priority}' if priority else ''}: /{pattern.replace('/', chr(92) + '/')}/\n"
        for name, pattern, priority in _TERMINALS
    )


def bad_string(text: str, start: int) -> tuple:
    """``(message, start, stop)`` for the string at ``text[start]`` that :data:`STRING` does not
    match: its first unknown escape, or else the opening quote of a string that does not close."""
    escape = _ESCAPES.match(text, start)
    if escape.group(1):
        return f"unknown escape '{escape.group(1)}' in a string", escape.start(1), escape.end(1)
    return "unclosed string", start, start + 1


def bad_token(text: str, end: int | None = None) -> tuple | None:
    """``(message, start, stop)`` (:func:`bad_string`, or an unclosed comment at its ``/*``) of the
    first bad string or comment of program text that starts before ``end``, else None."""
    end = len(text) if end is None else end
    for match in _OPEN.finditer(text):
        if match.start() >= end:
            return None
        if match.group(1):
            return "unclosed comment", match.start(), match.start() + 2
        if match.group(2):
            return bad_string(text, match.start())
    return None
