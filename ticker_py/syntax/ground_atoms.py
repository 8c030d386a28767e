"""A fast hand-written parser for ground atoms in streams (``alpha(20), cache(1,3)``).

Atoms come back as tuples (see :mod:`ticker_py.values`). Errors raise
:class:`GroundSyntaxError` with a 0-based column; readers turn it into a located
:class:`~ticker_py.errors.StreamError`.
"""

from __future__ import annotations

import re

__all__ = ["GroundSyntaxError", "parse_ground_atom", "split_atoms"]

_NAME = re.compile(r"[a-z][A-Za-z0-9_']*")
_INT = re.compile(r"-?[0-9]+")
_STRING = re.compile(r'"(\\.|[^"\\\n])*"')
_VARIABLE = re.compile(r"_*[A-Z][A-Za-z0-9_']*")
_WS = re.compile(r"[ \t\r\n]*")
_SIMPLE = re.compile(r"\s*([a-z][A-Za-z0-9_']*)\s*(?:\(([A-Za-z0-9_', \-]*)\))?\s*$")
_RESERVED = {"not", "in", "always", "at"}


class GroundSyntaxError(ValueError):
    """A ground atom did not parse; ``column`` is 0-based in the parsed text."""

    def __init__(self, message: str, column: int):
        super().__init__(message)
        self.message = message
        self.column = column


class _Reader:
    __slots__ = ("text", "pos")

    def __init__(self, text: str, pos: int = 0):
        self.text = text
        self.pos = pos

    def ws(self):
        self.pos = _WS.match(self.text, self.pos).end()

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def fail(self, what: str):
        found = self.peek()
        found = f"'{found}'" if found else "end of input"
        raise GroundSyntaxError(f"expected {what}, found {found}", self.pos)

    def term(self):
        self.ws()
        text, pos = self.text, self.pos
        m = _INT.match(text, pos)
        if m:
            self.pos = m.end()
            return int(m.group())
        m = _STRING.match(text, pos)
        if m:
            self.pos = m.end()
            return m.group()
        m = _NAME.match(text, pos)
        if m:
            self.pos = m.end()
            self.ws()
            if self.peek() == "(":
                return (m.group(), *self.args())
            return m.group()
        if _VARIABLE.match(text, pos):
            raise GroundSyntaxError(f"variable '{_VARIABLE.match(text, pos).group()}' in a stream atom"
                                    " (stream atoms must be ground)", pos)
        self.fail("a term (number, constant, string or function term)")

    def args(self) -> list:
        self.pos += 1  # "("
        out = [self.term()]
        self.ws()
        while self.peek() == ",":
            self.pos += 1
            out.append(self.term())
            self.ws()
        if self.peek() != ")":
            self.fail("',' or ')'")
        self.pos += 1
        return out

    def atom(self) -> tuple:
        self.ws()
        m = _NAME.match(self.text, self.pos)
        if not m:
            if _VARIABLE.match(self.text, self.pos):
                self.fail("a predicate name (lower case)")
            self.fail("an atom")
        if m.group() in _RESERVED:
            raise GroundSyntaxError(f"'{m.group()}' is a keyword, not a predicate", self.pos)
        self.pos = m.end()
        self.ws()
        if self.peek() == "(":
            return (m.group(), *self.args())
        return (m.group(),)


def _simple(text: str):
    m = _SIMPLE.match(text)
    if not m:
        return None
    name, inner = m.group(1), m.group(2)
    if name in _RESERVED:
        return None
    if inner is None:
        return (name,)
    out = [name]
    for part in inner.split(","):
        part = part.strip()
        if not part:
            return None
        if part[0].isdigit() or part[0] == "-":
            try:
                out.append(int(part))
            except ValueError:
                return None
        elif part[0].islower() and _NAME.fullmatch(part):
            out.append(part)
        else:
            return None
    return tuple(out)


def parse_ground_atom(text: str) -> tuple:
    """Parse one ground atom: ``parse_ground_atom("p(a,1)") == ("p", "a", 1)``."""
    fast = _simple(text)
    if fast is not None:
        return fast
    r = _Reader(text)
    atom = r.atom()
    r.ws()
    if r.pos != len(text):
        r.fail("the end of the atom")
    return atom


def split_atoms(text: str, start: int = 0) -> list:
    """Parse atoms separated by ``,`` or ``;`` at top level; returns ``[(column, atom), ...]``."""
    r = _Reader(text, start)
    out = []
    r.ws()
    if r.pos >= len(text):
        return out
    while True:
        r.ws()
        col = r.pos
        out.append((col, r.atom()))
        r.ws()
        ch = r.peek()
        if ch == "":
            return out
        if ch not in ",;":
            r.fail("',' or ';' between atoms")
        r.pos += 1
