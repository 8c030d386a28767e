"""The reader of ground atoms in streams (``alpha(20), cache(1,3)``) as tuples (:mod:`ticker_py.values`).

A line is first cut by one regular expression into its terms (leaves and flat function terms such
as ``iri("…")``) and what lies between them; each distinct term text is converted once and
remembered. A line the cut does not take (spaces inside terms, deeper nesting, anything wrong) is
read token by token by :class:`_Assembler`, which gives every error its message and 0-based column
(:class:`GroundSyntaxError`); both give the same atoms (tests/test_ground_atoms.py).
"""

from __future__ import annotations

import functools
import re
import sys
from itertools import groupby
from types import SimpleNamespace

from .. import accelerators
from ..limits import MAX_TERM_DEPTH
from .constant_atoms import split_constants
from .tokens import ANONYMOUS, ESCAPE_NOTE, INT, KEYWORDS, NAME, STRING, VARIABLE, bad_string

__all__ = ["GroundSyntaxError", "AtomReader", "parse_ground_atom", "parse_ground_term", "split_atoms"]

_LEAF = rf"{STRING}|-?{INT}|{NAME}"
_FLAT = rf"{NAME}\((?:{_LEAF})(?:,(?:{_LEAF}))*\)"
_NUMBER_START = frozenset("-0123456789")
_WS = " \t\r\n"
#: what may stand between two atoms of a line the cut takes (anything else: the assembler reads it)
_SEPARATORS = frozenset(a + s + b for s in ",;" for a in ("", " ", "\t") for b in ("", " ", "  ", "\t"))
_NEWLINE = frozenset(["\n"])
_TUPLES, _STRINGS = frozenset([tuple]), frozenset([str])


@functools.cache
def _re() -> SimpleNamespace:
    """The regular expressions, compiled when first used (a run that reads no atoms compiles none)."""
    return SimpleNamespace(
        terms=re.compile(f"({_FLAT}|{_LEAF})"),  # the terms of a line, and what lies between them
        parts=re.compile(rf"^{NAME}|{_LEAF}|\n", re.M),  # the name and arguments of flat terms
        number=re.compile(r"[(,][-0-9]"),  # an integer argument follows
        token=re.compile(rf"[{_WS}]*(?:({STRING}|-?{INT})|({NAME})|([^{_WS}]))"),  # the assembler's
        variable=re.compile(f"{VARIABLE}|{ANONYMOUS}"),
        name=re.compile(NAME),
    )


class GroundSyntaxError(ValueError):
    """A ground atom did not parse; ``column`` is 0-based in the parsed text."""

    def __init__(self, message: str, column: int):
        super().__init__(message)
        self.message = message
        self.column = column


class _Declined(Exception):
    """The bulk conversion declines texts (a keyword): the assembler reads them and says where."""


class AtomReader:
    """Reads lines and lists of atom texts, converting each distinct term text and each distinct
    text of a list once. A cache that holds ``limit`` texts starts afresh (flat memory)."""

    def __init__(self, limit: int = 1 << 16):
        self.atoms: dict = {}  # atom text -> atom (texts of lists: JSON Lines, table cells)
        self.terms: dict = {"\n": "\n"}  # term text (a leaf or a flat function term) -> term
        self.limit = limit
        self.line_text, self.line_atoms = None, ()  # the previous line's atom text and atoms
        self.shape = None  # (pairs, distinct) of the previous line's atoms, when the accelerator found them

    def line(self, text: str, start: int = 0) -> tuple:
        """The atoms of ``text[start:]``, separated by ``,`` or ``;`` (the line before's text again:
        the same tuple)."""
        atoms = self.compact(text, start)
        if atoms is None:
            atoms = _Assembler(text, start).atoms()
            self.line_atoms = atoms
        return atoms

    def compact(self, text: str, start: int = 0) -> tuple | None:
        """:meth:`line` if ``text[start:]`` is the line before or compact atoms (no space inside a
        term, at most two levels of function terms) between separators, else None."""
        rest = text[start:].strip(_WS)
        if rest == self.line_text:
            return self.line_atoms
        self.shape, self.line_text = None, rest
        atoms = self._known(rest)
        if atoms is None and accelerators.ENABLED:
            found = split_constants(rest)
            if found is not None:
                atoms, *self.shape = found
        if atoms is None:
            atoms = self._split(rest, _SEPARATORS)
        self.line_atoms = atoms
        return atoms

    def each(self, texts: list) -> tuple:
        """One atom for each of ``texts`` (each one atom: a JSON Lines list, table cells); the first
        bad text raises its GroundSyntaxError (TypeError: a text that is not a string)."""
        self.shape = None
        get = self.atoms.get
        found = list(map(get, texts))
        if None not in found:
            return tuple(found)
        if accelerators.ENABLED and found.count(None) == len(texts):
            # a text of two atoms, or of none, makes the count differ
            split = split_constants(", ".join(texts))
            if split is not None and len(split[0]) == len(texts):
                atoms, *self.shape = split
                return atoms
        atoms = self._split("\n".join(texts), _NEWLINE)  # each text one atom: only newlines between
        if atoms is None or len(atoms) != len(texts):
            return tuple([get(text) or self.atom(text) for text in texts])
        if len(self.atoms) + len(texts) > self.limit:
            self.atoms.clear()
        self.atoms.update(zip(texts, atoms))
        return atoms

    def atom(self, text: str) -> tuple:
        """``parse_ground_atom(text)``, remembered."""
        atom = self.atoms.get(text)
        if atom is None:
            atom = _Assembler(text).single()
            if len(self.atoms) >= self.limit:
                self.atoms.clear()
            self.atoms[text] = atom
        return atom

    def _split(self, rest: str, separators: frozenset) -> tuple | None:
        """The atoms of ``rest`` if it is compact atoms with one of ``separators`` between each two,
        else None."""
        parts = _re().terms.split(rest)
        if parts[0] or not KEYWORDS.isdisjoint(parts):
            return None
        tokens, between = parts[1::2], parts[2::2]  # between[i] follows tokens[i]
        terms = self.terms
        if len(terms) >= self.limit:
            terms.clear()
            terms["\n"] = "\n"
        try:
            new = set(tokens).difference(terms)
            if new:
                self._learn_terms(new)
        except _Declined:
            return None
        values = list(map(terms.__getitem__, tokens))
        atoms = _uniform(tokens, between, values, separators)
        if atoms is not None:
            return atoms
        out, n, i = [], len(tokens), 0
        while i < n:
            value, after = values[i], between[i]
            if after == "(":  # a predicate with arguments
                if type(value) is not str or value[0] == '"':
                    return None
                j = i + 1
                while j < n and between[j] == ",":
                    j += 1
                if j == n or between[j][:1] != ")":
                    return None
                out.append((value, *values[i + 1 : j + 1]))
                after, i = between[j][1:], j + 1
            else:  # a flat atom, or a name: an atom without arguments
                kind = type(value)
                if kind is str and value[0] != '"':
                    value = (value,)
                elif kind is not tuple:
                    return None
                out.append(value)
                i += 1
            if (after not in separators) if i < n else after:
                return None
        return tuple(out)

    def _known(self, rest: str) -> tuple | None:
        """The atoms of a line of known flat atoms with ``", "`` between them, else None."""
        terms = self.terms
        if type(terms.get(rest.partition(", ")[0])) is not tuple:
            return None
        found = list(map(terms.get, rest.split(", ")))
        return tuple(found) if _TUPLES.issuperset(map(type, found)) else None

    def _tuples(self, texts: list) -> list:
        """The tuples of flat function terms ``name(leaf,...)``, in bulk."""
        joined = "\n".join(texts)
        if '"' not in joined:  # the parts are what lies between the punctuation
            parts = joined.replace("(", ",").replace(")", "").replace("\n", ",\n,").split(",")
            convert = _re().number.search(joined) is not None
        else:
            parts, convert = _re().parts.findall(joined), True
        if not KEYWORDS.isdisjoint(parts):
            raise _Declined
        get = str
        if convert:
            get = self.terms.__getitem__
            new = set(parts).difference(self.terms)
            if new:
                self._learn_terms(new)
        n = len(texts)
        k = parts.index("\n") if n > 1 else len(parts)
        if len(parts) == n * (k + 1) - 1 and parts[k :: k + 1].count("\n") == n - 1:
            del parts[k :: k + 1]  # all of one length: zipped at once
            return list(zip(*[iter(map(get, parts) if convert else parts)] * k))
        return [tuple(map(get, group)) for newline, group in groupby(parts, "\n".__eq__) if not newline]

    def _learn_terms(self, texts: set) -> None:
        """Convert and remember the term texts ``texts`` (names and strings stand for themselves)."""
        terms = self.terms
        flat = [t for t in texts if t[-1] == ")"]
        if flat:
            terms.update(zip(flat, self._tuples(flat)))
        for text in texts:
            if text[0] in _NUMBER_START:
                try:
                    terms[text] = int(text)
                except ValueError:  # longer than Python converts: the assembler says where
                    raise _Declined from None
            elif text[-1] != ")":
                terms[text] = text


def _uniform(tokens: list, between: list, values: list, separators: frozenset) -> tuple | None:
    """The atoms of a cut line whose atoms all have one shape (a predicate, k arguments, one
    separator) at once; else None."""
    k = next((j for j, x in enumerate(between) if x != "," and j), 0) + 1  # tokens per atom
    unit = between[:k]
    if k < 2 or unit[0] != "(" or unit[-1][:1] != ")" or len(tokens) % k:
        return None
    if len(tokens) > k and unit[-1][1:] not in separators:
        return None
    shape = unit * (len(tokens) // k)
    shape[-1] = ")"
    names = values[::k]
    if between != shape or not _STRINGS.issuperset(map(type, names)) or '"' in "".join(names):
        return None
    return tuple(zip(*[iter(values)] * k))


class _Assembler:
    """Reads atoms or a term token by token (a number or string, a name, or one other character);
    every error is raised here, located."""

    def __init__(self, text: str, start: int = 0):
        self.text = text
        self.tokens = _re().token.finditer(text, start)
        self.token = None
        self.next()

    def next(self) -> None:
        """Move to the next token: ``kind`` is ``"value"``, ``"name"``, ``"char"`` or ``"end"``."""
        m = self.token = next(self.tokens, None)
        if m is None:
            self.kind, self.value, self.pos = "end", "", len(self.text)
        else:
            self.kind = "value" if m.group(1) else "name" if m.group(2) else "char"
            self.pos = m.start(m.lastindex)
            self.value = m.group(m.lastindex)

    def fail(self, what: str):
        found = f"'{self.text[self.pos]}'" if self.kind != "end" else "end of input"
        raise GroundSyntaxError(f"expected {what}, found {found}", self.pos)

    def atoms(self, columns: bool = False) -> tuple:
        """Atoms separated by ``,`` or ``;`` up to the end (with ``columns``, ``(column, atom)`` pairs)."""
        out = []
        if self.kind == "end":
            return ()
        while True:
            out.append((self.pos, self.atom()) if columns else self.atom())
            if self.kind == "end":
                return tuple(out)
            if self.value not in (",", ";"):
                self.fail("',' or ';' between atoms")
            self.next()

    def single(self) -> tuple:
        """One atom, the whole text."""
        atom = self.atom()
        if self.kind != "end":
            self.fail("the end of the atom")
        return atom

    def atom(self) -> tuple:
        if self.kind != "name":
            variable = self.kind == "char" and _re().variable.match(self.text, self.pos)
            self.fail("a predicate name (lower case)" if variable else "an atom")
        name = self.value
        if name in KEYWORDS:
            raise GroundSyntaxError(f"'{name}' is a keyword, not a predicate", self.pos)
        self.next()
        if self.value == "(" and self.kind == "char":
            return (name, *self.arguments(0))
        return (name,)

    def arguments(self, depth: int) -> list:
        """The terms of an argument list (at ``(``), ``depth`` levels inside the atom's."""
        if depth > MAX_TERM_DEPTH:
            raise GroundSyntaxError(f"term nested more than {MAX_TERM_DEPTH} levels deep", self.pos)
        out = []
        while True:
            self.next()
            out.append(self.term(depth))
            if self.kind != "char" or self.value not in ",)":
                self.fail("',' or ')'")
            if self.value == ")":
                self.next()
                return out

    def term(self, depth: int):
        kind, value, pos = self.kind, self.value, self.pos
        if kind == "value":
            self.next()
            if value[0] == '"':
                return value
            try:
                return int(value)
            except ValueError:  # longer than Python converts (sys.get_int_max_str_digits)
                raise GroundSyntaxError(
                    f"integer of {len(value.lstrip('-'))} digits is too long "
                    f"(integers have at most {sys.get_int_max_str_digits()} digits)",
                    pos,
                ) from None
        if kind == "name":
            if value in KEYWORDS:
                raise GroundSyntaxError(f"'{value}' is a keyword, not a constant", pos)
            self.next()
            if self.kind == "char" and self.value == "(":
                return (value, *self.arguments(depth + 1))
            return value
        if kind == "char":
            if value == '"':
                message, start, _ = bad_string(self.text, pos)
                if "escape" in message:
                    message += f" ({ESCAPE_NOTE})"
                raise GroundSyntaxError(message, start)
            variable = _re().variable.match(self.text, pos)
            if variable:
                raise GroundSyntaxError(
                    f"variable '{variable.group()}' in a stream atom (stream atoms must be ground)", pos
                )
        self.fail("a term (number, constant, string or function term)")


def parse_ground_atom(text: str) -> tuple:
    """Parse one ground atom: ``parse_ground_atom("p(a,1)") == ("p", "a", 1)``."""
    return _Assembler(text).single()


def parse_ground_term(text: str):
    """Parse one ground term as it stands for an atom's argument (its nesting counted from
    there): ``parse_ground_term("f(1,\\"x\\")") == ("f", 1, '"x"')``."""
    if _re().name.fullmatch(text) and text not in KEYWORDS:
        return text  # a constant, the most common cell of a table: no token stream needed
    reader = _Assembler(text)
    term = reader.term(0)
    if reader.kind != "end":
        reader.fail("the end of the term")
    return term


def split_atoms(text: str, start: int = 0) -> tuple:
    """The atoms of ``text[start:]`` separated by ``,`` or ``;`` at top level, as pairs
    ``(column, atom)`` (the column 0-based where the atom starts)."""
    return _Assembler(text, start).atoms(columns=True)
