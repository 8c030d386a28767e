"""Turn lark parse trees into :mod:`ticker_py.ast` values."""

from __future__ import annotations

import re
import sys

from lark import Token, Transformer, v_args

from .. import ast
from ..ast import ESCAPES
from ..errors import Diagnostic
from .anonymous import ANONYMOUS, name_anonymous

ESCAPE_NOTE = "strings know the escapes \\n, \\\\ and \\\" (as clingo's)"


_ABSOLUTE_IRI = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")


def _loc(file: str, item) -> ast.Location:
    return ast.Location(file, item.line, item.column, item.end_line, item.end_column)


def _span(file: str, first, last) -> ast.Location:
    return ast.Location(file, first.line, first.column, last.end_line, last.end_column)


class Include(ast.Node):
    """An ``#include "path".`` directive, resolved by :func:`ticker_py.syntax.parse_program`."""

    path: str
    location: ast.Location | None = ast.field(default=None, compare=False, repr=False)


class Const(ast.Node):
    """A ``#const name = value.`` directive."""

    name: str
    value: ast.Term
    location: ast.Location | None = ast.field(default=None, compare=False, repr=False)


SHOW_TERM_NOTE = "name predicates instead: '#show p/2.' prints the atoms of p/2"


@v_args(meta=True)
class ToAst(Transformer):
    """Build AST nodes with source locations.

    A problem that leaves the rest of the program readable (a bad window, an unknown prefix)
    is collected in ``problems`` and parsing goes on, so that every one is reported at once.
    The directives are collected too: ``consts`` and ``includes`` in order, ``shows``
    (None: no ``#show``).
    """

    def __init__(self, file: str):
        super().__init__()
        self.file = file
        self.prefixes: dict = {}
        self.problems: list = []
        self.consts: list = []
        self.includes: list = []
        self.shows: list | None = None
        self.show_at: dict = {}  # (name, arity) -> the location of its first #show

    def _m(self, meta) -> ast.Location:
        return ast.Location(self.file, meta.line, meta.column, meta.end_line, meta.end_column)

    def _problem(self, location: ast.Location, message: str, *notes: str) -> None:
        self.problems.append(Diagnostic(message, location, notes))

    # -------------------------------------------------------- program and rules
    def start(self, meta, rules):
        return ast.Program(
            tuple(r for r in rules if isinstance(r, ast.Rule)),
            file=self.file,
            prefixes=tuple(self.prefixes.items()),
            shows=None if self.shows is None else tuple(sorted(set(self.shows))),
            show_at=tuple(self.show_at.items()),
        )

    def prefix(self, meta, c):
        name, iri = str(c[1])[:-1], self._iri(c[2])
        if self.prefixes.get(name, iri) != iri:
            self._problem(
                self._m(meta),
                f"prefix '{name}:' declared again with another IRI",
                f"it stands for <{self.prefixes[name]}>",
            )
            return None
        self.prefixes[name] = iri
        return None

    def _iri(self, tok) -> str:
        iri = str(tok)[1:-1]
        if not _ABSOLUTE_IRI.match(iri):
            self._problem(
                _loc(self.file, tok),
                f"relative IRI <{iri}>",
                "write an absolute IRI: a scheme, ':', then the rest (<http://ex.org/a>)",
            )
        return iri

    # -------------------------------------------------------- directives
    def const(self, meta, c):
        loc = self._m(meta)
        if str(c[2]) not in ("=", "=="):
            self._problem(loc, f"'{c[2]}' in #const", "write '#const name = value.'")
        self.consts.append(Const(str(c[1]), c[3], loc))

    def show_none(self, meta, c):
        self.shows = self.shows or []

    def show(self, meta, c):
        term = c[1]
        self.shows = self.shows or []
        if (
            isinstance(term, ast.BinOp)
            and term.op == "/"
            and isinstance(term.left, ast.Constant)
            and isinstance(term.right, ast.Number)
            and term.right.value >= 0
        ):
            self.shows.append((term.left.name, term.right.value))
            self.show_at.setdefault(self.shows[-1], self._m(meta))
            return
        self._problem(
            self._m(meta), f"'#show {term}.' is not supported: #show takes a predicate name/arity", SHOW_TERM_NOTE
        )

    def show_term(self, meta, c):
        self.shows = self.shows or []
        self._problem(self._m(meta), "#show of terms ('#show t : body.') is not supported", SHOW_TERM_NOTE)

    def include(self, meta, c):
        self.includes.append(Include(self._unescape(c[1]), self._m(meta)))

    def fact(self, meta, c):
        return name_anonymous(ast.Rule(c[0], (), self._m(meta)))

    def rule(self, meta, c):
        return name_anonymous(ast.Rule(c[0], c[2], self._m(meta)))

    def constraint(self, meta, c):
        return name_anonymous(ast.Rule(None, c[1], self._m(meta)))

    def head(self, meta, c):
        return ast.Head(c[0], None, self._m(meta))

    def head_at(self, meta, c):
        return ast.Head(c[0], c[2], self._m(meta))

    def body(self, meta, c):
        return tuple(x for x in c if not isinstance(x, Token))

    def literal(self, meta, c):
        negated = isinstance(c[0], Token) and c[0].type == "NOT"
        return ast.Literal(c[-1], negated, self._m(meta))

    # -------------------------------------------------------- extended atoms
    def now(self, meta, c):
        return ast.ExtendedAtom(c[0], ast.NOW, None, None, self._m(meta))

    def diamond(self, meta, c):
        return ast.ExtendedAtom(c[0], ast.DIAMOND, c[-1], None, self._m(meta))

    def box(self, meta, c):
        return ast.ExtendedAtom(c[0], ast.BOX, c[-1], None, self._m(meta))

    def at(self, meta, c):
        return ast.ExtendedAtom(c[0], ast.AT, None, c[2], self._m(meta))

    def at_window(self, meta, c):
        return ast.ExtendedAtom(c[0], ast.AT, c[-1], c[2], self._m(meta))

    def window(self, meta, c):
        loc = self._m(meta)
        negative = any(isinstance(x, Token) and x.type == "MINUS" for x in c)
        unit = next((x for x in c if isinstance(x, str) and not isinstance(x, Token)), None)
        name = next((x for x in c if isinstance(x, Token) and x.type == "NAME"), None)
        if name is not None:  # a #const name: its value is put in place after parsing
            if negative:
                self._problem(loc, f"negative window size -{name}", "a window's size is a number n >= 0")
            return ast.Window(str(name), unit, loc)
        size_tok = next(x for x in c if isinstance(x, Token) and x.type == "INT")
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

    def unit(self, meta, c):
        tok = c[0]
        if tok.type == "NAME":
            self._problem(
                _loc(self.file, tok),
                f"unknown window unit '{tok}'",
                "units are sec, ms, min, h, or # for a tuple window",
            )
            return None
        return {"SEC": "sec", "MS": "ms", "MIN": "min", "HOUR": "h", "HASH": "#"}[tok.type]

    def comparison(self, meta, c):
        op = "=" if str(c[1]) == "==" else str(c[1])
        return ast.Comparison(op, c[0], c[2], self._m(meta))

    # -------------------------------------------------------- atoms and terms
    def atom(self, meta, c):
        args = c[2] if len(c) > 1 else ()
        return ast.Atom(str(c[0]), args, self._m(meta))

    def args(self, meta, c):
        return tuple(x for x in c if not (isinstance(x, Token) and x.type == "COMMA"))

    def number(self, meta, c):
        try:
            return ast.Number(int(c[0]), self._m(meta))
        except ValueError:  # longer than Python converts (sys.get_int_max_str_digits)
            self._problem(
                self._m(meta),
                f"integer of {len(c[0])} digits is too long",
                f"integers have at most {sys.get_int_max_str_digits()} digits",
            )
            return ast.Number(0, self._m(meta))

    def variable(self, meta, c):
        return ast.Variable(str(c[0]), self._m(meta))

    def anonymous(self, meta, c):
        return ast.Variable(ANONYMOUS, self._m(meta))

    def constant(self, meta, c):
        return ast.Constant(str(c[0]), self._m(meta))

    def string(self, meta, c):
        return ast.String(self._unescape(c[0]), self._m(meta))

    def _unescape(self, tok) -> str:
        """The content of a STRING token, its escapes replaced (an unknown one is reported)."""
        text = str(tok)[1:-1]
        out, i = [], 0
        while i < len(text):
            if text[i] == "\\" and i + 1 < len(text):
                if text[i + 1] not in ESCAPES:
                    col = tok.column + 1 + i
                    self._problem(
                        ast.Location(self.file, tok.line, col, tok.line, col + 2),
                        f"unknown escape '\\{text[i + 1]}' in a string",
                        ESCAPE_NOTE,
                    )
                out.append(ESCAPES.get(text[i + 1], text[i + 1]))
                i += 2
            else:
                out.append(text[i])
                i += 1
        return "".join(out)

    def iri(self, meta, c):
        return ast.Iri.of(self._iri(c[0]), None, self._m(meta))

    def prefixed_name(self, meta, c):
        text = str(c[0])
        name, local = text.split(":", 1)
        if name not in self.prefixes:
            self._problem(
                self._m(meta),
                f"unknown prefix '{name}:' in '{text}'",
                f"declare it before its first use: @prefix {name}: <http://...> .",
            )
            return ast.Iri.of(local, text, self._m(meta))
        return ast.Iri.of(self.prefixes[name] + local, text, self._m(meta))

    def function(self, meta, c):
        return ast.Function(str(c[0]), c[2], self._m(meta))

    def binop(self, meta, c):
        return ast.BinOp(str(c[1]), c[0], c[2], self._m(meta))

    def interval(self, meta, c):
        return ast.Interval(c[0], c[2], self._m(meta))

    def neg(self, meta, c):
        arg = c[1]
        if isinstance(arg, ast.Number):
            return ast.Number(-arg.value, self._m(meta))
        return ast.BinOp("-", ast.Number(0), arg, self._m(meta))

    def __default__(self, data, children, meta):  # parenthesised terms pass through
        kept = [c for c in children if not isinstance(c, Token)]
        if len(kept) == 1:
            return kept[0]
        return super().__default__(data, children, meta)
