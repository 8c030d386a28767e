"""Build :mod:`ticker_py.ast` values while lark's LALR parser reduces (no parse tree is built),
each located from the first and last of its children (a term in parentheses: their span)."""

from __future__ import annotations

import re
import sys

from lark import Transformer

from .. import ast
from ..errors import Diagnostic, ProgramError
from ..limits import MAX_TERM_DEPTH
from ..values import unquote
from .anonymous import ANONYMOUS, name_anonymous

SHOW_TERM_NOTE = "name predicates instead: '#show p/2.' prints the atoms of p/2"
_ABSOLUTE_IRI = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_UNITS = {"SEC": "sec", "MS": "ms", "MIN": "min", "HOUR": "h", "HASH": "#"}


class Include(ast.Node):
    """An ``#include "path".`` directive, resolved by :func:`ticker_py.syntax.parse_program`."""

    path: str
    location: ast.Location | None = ast.field(default=None, compare=False, repr=False)


class Const(ast.Node):
    """A ``#const name = value.`` directive."""

    name: str
    value: ast.Term
    location: ast.Location | None = ast.field(default=None, compare=False, repr=False)


class Found:
    """What a file's parse collected besides its rules: problems that leave the rest readable and
    the directives (``shows`` None: no ``#show``)."""

    def __init__(self, file: str):
        self.file = file
        self.prefixes: dict = {}
        self.problems: list = []
        self.consts: list = []
        self.includes: list = []
        self.shows: list | None = None
        self.show_at: dict = {}  # (name, arity) -> the location of its first #show


class ToAst(Transformer):
    """The callbacks of the parser; :meth:`begin` starts a file (one parse at a time)."""

    def begin(self, file: str) -> Found:
        self.file = file
        self.found = Found(file)
        #: id(term) -> (term, nesting depth, span of its parentheses or None), for the terms that
        #: nest (function terms, operations, intervals) or stand in parentheses; the term is kept
        #: so that its id stays its own
        self.nested: dict = {}
        self.anonymous = False
        return self.found

    # -------------------------------------------------------- locations
    def _loc(self, tok) -> ast.Location:
        return ast.Location(self.file, tok.line, tok.column, tok.end_line, tok.end_column)

    def _span(self, first, last) -> ast.Location:
        """From the start of ``first`` to the end of ``last`` (each a token or a location)."""
        return ast.Location(self.file, first.line, first.column, last.end_line, last.end_column)

    def _outer(self, term) -> ast.Location:
        """The location of ``term``, or of the parentheses it is written in."""
        entry = self.nested.get(id(term))
        return entry[2] if entry is not None and entry[2] is not None else term.location

    def _term_span(self, first, last) -> ast.Location:
        return self._span(self._outer(first), self._outer(last))

    def _nest(self, term, children, parens=None):
        """Record ``term``, one level deeper than the deepest of ``children``; refuse it past
        MAX_TERM_DEPTH, at its innermost level."""
        get = self.nested.get
        depth = 1 + max((entry[1] for entry in map(get, map(id, children)) if entry is not None), default=0)
        self.nested[id(term)] = (term, depth, parens)
        if depth > MAX_TERM_DEPTH:
            where, note = (
                self._outer(self._innermost(term)),
                "function terms, parentheses and operators each add a level",
            )
            raise ProgramError.at(where, f"term nested more than {MAX_TERM_DEPTH} levels deep", note)
        return term

    def _innermost(self, term):
        """The innermost nested term of ``term``'s deepest branch."""
        while True:
            inner = getattr(term, "args", None) or [getattr(term, f, None) for f in ("left", "right", "low", "high")]
            entries = [e for e in map(self.nested.get, map(id, inner)) if e is not None]
            if not entries:
                return term
            term = max(entries, key=lambda e: e[1])[0]

    def _problem(self, location: ast.Location, message: str, *notes: str) -> None:
        self.found.problems.append(Diagnostic(message, location, notes))

    # -------------------------------------------------------- program and rules
    def start(self, c):
        found = self.found
        return ast.Program(
            tuple(r for r in c if type(r) is ast.Rule),
            file=self.file,
            prefixes=tuple(found.prefixes.items()),
            shows=None if found.shows is None else tuple(sorted(set(found.shows))),
            show_at=tuple(found.show_at.items()),
        )

    def prefix(self, c):
        name, iri, prefixes = str(c[1])[:-1], self._iri(c[2]), self.found.prefixes
        if prefixes.get(name, iri) != iri:
            self._problem(
                self._span(c[0], c[-1]),
                f"prefix '{name}:' declared again with another IRI",
                f"it stands for <{prefixes[name]}>",
            )
            return
        prefixes[name] = iri

    def _iri(self, tok) -> str:
        iri = str(tok)[1:-1]
        if not _ABSOLUTE_IRI.match(iri):
            self._problem(
                self._loc(tok),
                f"relative IRI <{iri}>",
                "write an absolute IRI: a scheme, ':', then the rest (<http://ex.org/a>)",
            )
        return iri

    def rule(self, c):
        """A fact ``head.``, a rule ``head :- body.`` or a constraint ``:- body.``."""
        head = c[0] if type(c[0]) is ast.Head else None
        body = c[-2] if type(c[-2]) is tuple else ()
        rule = ast.Rule(head, body, self._span(c[0] if head is None else head.location, c[-1]))
        if self.anonymous:
            self.anonymous = False
            return name_anonymous(rule)
        return rule

    def head(self, c):
        if len(c) == 1:
            return ast.Head(c[0], None, c[0].location)
        return ast.Head(c[0], c[2], self._span(c[0].location, self._outer(c[2])))

    def body(self, c):
        return tuple(c[::2])

    def literal(self, c):
        if len(c) == 1:
            return ast.Literal(c[0], False, c[0].location)
        return ast.Literal(c[1], True, self._span(c[0], c[1].location))

    # -------------------------------------------------------- directives
    def const(self, c):
        loc = self._span(c[0], c[-1])
        if str(c[2]) not in ("=", "=="):
            self._problem(loc, f"'{c[2]}' in #const", "write '#const name = value.'")
        self.found.consts.append(Const(str(c[1]), c[3], loc))

    def show(self, c):
        """``#show.`` (nothing shown but what is named) or ``#show p/2.``"""
        term, found = c[1], self.found
        found.shows = found.shows or []
        if len(c) == 2:
            return
        if (
            type(term) is ast.BinOp
            and term.op == "/"
            and type(term.left) is ast.Constant
            and type(term.right) is ast.Number
            and term.right.value >= 0
        ):
            found.shows.append((term.left.name, term.right.value))
            found.show_at.setdefault(found.shows[-1], self._span(c[0], c[-1]))
            return
        self._problem(
            self._span(c[0], c[-1]),
            f"'#show {term}.' is not supported: #show takes a predicate name/arity",
            SHOW_TERM_NOTE,
        )

    def show_term(self, c):
        self.found.shows = self.found.shows or []
        self._problem(self._span(c[0], c[-1]), "#show of terms ('#show t : body.') is not supported", SHOW_TERM_NOTE)

    def include(self, c):
        self.found.includes.append(Include(unquote(c[1]), self._span(c[0], c[-1])))

    # -------------------------------------------------------- extended atoms
    def ext_atom(self, c):
        """``a``, ``a [w]``, ``a always [w]``, ``a at T`` or ``a at T [w]`` (``in`` before a window optional)."""
        atom, after = c[0], getattr(c[1], "type", None) if len(c) > 1 else None
        window = c[-1] if type(c[-1]) is ast.Window else None
        if after == "AT":
            end = self._outer(c[2]) if window is None else window.location
            return ast.ExtendedAtom(atom, ast.AT, window, c[2], self._span(atom.location, end))
        if window is None:
            return ast.ExtendedAtom(atom, ast.NOW, None, None, atom.location)
        modality = ast.BOX if after == "ALWAYS" else ast.DIAMOND
        return ast.ExtendedAtom(atom, modality, window, None, self._span(atom.location, window.location))

    def window(self, c):
        loc = self._span(c[0], c[-1])
        negative = c[1].type == "MINUS"
        size_tok = c[2] if negative else c[1]
        unit = c[-2] if len(c) > 3 + negative else None
        if size_tok.type == "NAME":  # a #const name: its value is put in place after parsing
            if negative:
                self._problem(loc, f"negative window size -{size_tok}", "a window's size is a number n >= 0")
            return ast.Window(str(size_tok), unit, loc)
        if negative:
            self._problem(
                loc,
                f"negative window size -{size_tok}",
                "a window covers n >= 0 time points, or the last n >= 1 atoms with '#'",
            )
        size = int(size_tok)
        if unit == "#" and size == 0:
            self._problem(loc, "tuple window of size 0", "a tuple window [n #] needs n >= 1")
            size = 1
        return ast.Window(size, unit, loc)

    def unit(self, c):
        tok = c[0]
        if tok.type == "NAME":
            self._problem(
                self._loc(tok), f"unknown window unit '{tok}'", "units are sec, ms, min, h, or # for a tuple window"
            )
            return None
        return _UNITS[tok.type]

    def comparison(self, c):
        op = str(c[1])
        return ast.Comparison("=" if op == "==" else op, c[0], c[2], self._term_span(c[0], c[2]))

    # -------------------------------------------------------- atoms and terms
    def atom(self, c):
        if len(c) == 1:
            return ast.Atom(str(c[0]), (), self._loc(c[0]))
        return ast.Atom(str(c[0]), c[2], self._span(c[0], c[3]))

    def args(self, c):
        return tuple(c[::2])

    def number(self, c):
        loc = self._loc(c[0])
        try:
            return ast.Number(int(c[0]), loc)
        except ValueError:  # longer than Python converts (sys.get_int_max_str_digits)
            self._problem(
                loc,
                f"integer of {len(c[0])} digits is too long",
                f"integers have at most {sys.get_int_max_str_digits()} digits",
            )
            return ast.Number(0, loc)

    def variable(self, c):
        return ast.Variable(str(c[0]), self._loc(c[0]))

    def anonymous(self, c):
        self.anonymous = True
        return ast.Variable(ANONYMOUS, self._loc(c[0]))

    def constant(self, c):
        return ast.Constant(str(c[0]), self._loc(c[0]))

    def string(self, c):
        return ast.String(unquote(c[0]), self._loc(c[0]))

    def iri(self, c):
        return ast.Iri.of(self._iri(c[0]), None, self._loc(c[0]))

    def prefixed_name(self, c):
        text = str(c[0])
        name, local = text.split(":", 1)
        loc = self._loc(c[0])
        if name not in self.found.prefixes:
            self._problem(
                loc,
                f"unknown prefix '{name}:' in '{text}'",
                f"declare it before its first use: @prefix {name}: <http://...> .",
            )
            return ast.Iri.of(local, text, loc)
        return ast.Iri.of(self.found.prefixes[name] + local, text, loc)

    def function(self, c):
        return self._nest(ast.Function(str(c[0]), c[2], self._span(c[0], c[3])), c[2])

    def binop(self, c):
        return self._nest(ast.BinOp(str(c[1]), c[0], c[2], self._term_span(c[0], c[2])), (c[0], c[2]))

    def interval(self, c):
        return self._nest(ast.Interval(c[0], c[2], self._term_span(c[0], c[2])), (c[0], c[2]))

    def neg(self, c):
        arg, loc = c[1], self._span(c[0], self._outer(c[1]))
        if type(arg) is ast.Number:
            return self._nest(ast.Number(-arg.value, loc), (arg,))
        return self._nest(ast.BinOp("-", ast.Number(0), arg, loc), (arg,))

    def primary(self, c):
        """``( term )``: the term, one level deeper, located within the parentheses."""
        return self._nest(c[1], (c[1],), self._span(c[0], c[2]))
