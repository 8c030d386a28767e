"""The ``--atoms`` selection of a picture: ``alarm/0,q(a,_)``.

>>> select("q(_),p/0").matches(("q", 7)), select("q(a,_)").matches(("q", "b", 1))
(True, False)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..ast import Location
from ..errors import Diagnostic, UsageError
from ..values import format_term

__all__ = ["Selection", "select"]

_TOKEN = re.compile(r"""\s*(?:(/)|(\()|(\))|(,)|(_)(?![\w'])|([a-z][\w']*)|(-?\d+)|("(?:[^"\\]|\\.)*")|(\S))""")
_ANY = object()


@dataclass(frozen=True)
class Selection:
    """The atoms an ``--atoms`` pattern selects: ``name/N`` (a predicate), ``name`` (a predicate
    of any arity) or an atom whose arguments may be ``_`` (any term), comma-separated."""

    text: str
    items: tuple  # ("pred", name, arity or None) | ("atom", name, argument patterns)

    def matches(self, atom: tuple) -> bool:
        for item in self.items:
            if item[1] != atom[0]:
                continue
            if item[0] == "pred":
                if item[2] is None or item[2] == len(atom) - 1:
                    return True
            elif len(item[2]) == len(atom) - 1 and all(map(_term_matches, item[2], atom[1:])):
                return True
        return False


def _term_matches(pattern, value) -> bool:
    if pattern is _ANY:
        return True
    if isinstance(pattern, tuple):
        return (
            type(value) is tuple
            and value[0] == pattern[0]
            and len(value) == len(pattern)
            and all(map(_term_matches, pattern[1:], value[1:]))
        )
    return format_term(value) == pattern


def select(text: str | None, where: str = "--atoms") -> Selection | None:
    """The :class:`Selection` of a pattern such as ``alarm/0,q(a,_)`` (None for None or empty);
    a bad pattern is a UsageError located in it."""
    if text is None or not text.strip():
        return None
    tokens = []
    for m in _TOKEN.finditer(text):
        kind = m.lastindex
        if kind is not None:
            tokens.append((kind, m.group(kind), m.start(kind)))
    pos = 0

    def fail(message: str, at: int | None = None):
        col = (tokens[pos][2] if pos < len(tokens) else len(text)) if at is None else at
        raise UsageError(
            Diagnostic(
                f"bad atom pattern '{text}': {message}",
                Location(where, 1, col + 1, 1, col + 2),
                ("write e.g. alarm/0,q(a,_): a predicate name/arity, a name, or an atom with _ for any term",),
            )
        )

    def peek(kind: int) -> bool:
        return pos < len(tokens) and tokens[pos][0] == kind

    def term():
        nonlocal pos
        if pos >= len(tokens):
            fail("a term is missing")
        kind, value, _ = tokens[pos]
        pos += 1
        if kind == 5:
            return _ANY
        if kind in (7, 8):
            return value
        if kind == 6:
            args = arguments()
            return (value, *args) if args else value
        pos -= 1
        fail(f"unexpected '{value}'")

    def arguments() -> list:
        nonlocal pos
        if not peek(2):
            return []
        pos += 1
        args = [term()]
        while peek(4):
            pos += 1
            args.append(term())
        if not peek(3):
            fail("')' expected")
        pos += 1
        return args

    items = []
    while True:
        if not peek(6):
            fail("a predicate name expected")
        name = tokens[pos][1]
        pos += 1
        if peek(1):
            pos += 1
            if not peek(7) or tokens[pos][1].startswith("-"):
                fail("an arity (0, 1, ...) expected after '/'")
            items.append(("pred", name, int(tokens[pos][1])))
            pos += 1
        elif peek(2):
            items.append(("atom", name, tuple(arguments())))
        else:
            items.append(("pred", name, None))
        if pos == len(tokens):
            return Selection(text, tuple(items))
        if not peek(4):
            fail(f"unexpected '{tokens[pos][1]}'")
        pos += 1
