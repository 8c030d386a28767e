"""Turn lark parse trees into :mod:`ticker_py.ast` values."""

from __future__ import annotations

import re
import sys

from lark import Token, Transformer, v_args

from .. import ast
from ..ast import ESCAPES
from ..errors import ProgramError
from .anonymous import ANONYMOUS, name_anonymous

ESCAPE_NOTE = "strings know the escapes \\n, \\\\ and \\\" (as clingo's)"


_ABSOLUTE_IRI = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")


def _loc(file: str, item) -> ast.Location:
    return ast.Location(file, item.line, item.column, item.end_line, item.end_column)


def _span(file: str, first, last) -> ast.Location:
    return ast.Location(file, first.line, first.column, last.end_line, last.end_column)


@v_args(meta=True)
class ToAst(Transformer):
    """Build AST nodes with source locations."""

    def __init__(self, file: str):
        super().__init__()
        self.file = file
        self.prefixes: dict = {}

    def _m(self, meta) -> ast.Location:
        return ast.Location(self.file, meta.line, meta.column, meta.end_line, meta.end_column)

    # -------------------------------------------------------- program and rules
    def start(self, meta, rules):
        return ast.Program(
            tuple(r for r in rules if r is not None), file=self.file, prefixes=tuple(self.prefixes.items())
        )

    def prefix(self, meta, c):
        name, iri = str(c[1])[:-1], self._iri(c[2])
        if self.prefixes.get(name, iri) != iri:
            raise ProgramError.at(
                self._m(meta),
                f"prefix '{name}:' declared again with another IRI",
                f"it stands for <{self.prefixes[name]}>",
            )
        self.prefixes[name] = iri
        return None

    def _iri(self, tok) -> str:
        iri = str(tok)[1:-1]
        if not _ABSOLUTE_IRI.match(iri):
            raise ProgramError.at(
                _loc(self.file, tok),
                f"relative IRI <{iri}>",
                "write an absolute IRI: a scheme, ':', then the rest (<http://ex.org/a>)",
            )
        return iri

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
        size_tok = next(x for x in c if isinstance(x, Token) and x.type == "INT")
        unit = next((x for x in c if isinstance(x, str) and not isinstance(x, Token)), None)
        if negative:
            raise ProgramError.at(
                loc,
                f"negative window size -{size_tok}",
                "a window covers n >= 0 time points, or the last n >= 1 atoms with '#'",
            )
        size = int(size_tok)
        if unit == "#" and size == 0:
            raise ProgramError.at(loc, "tuple window of size 0", "a tuple window [n #] needs n >= 1")
        return ast.Window(size, unit, loc)

    def unit(self, meta, c):
        tok = c[0]
        if tok.type == "NAME":
            raise ProgramError.at(
                _loc(self.file, tok),
                f"unknown window unit '{tok}'",
                "units are sec, ms, min, h, or # for a tuple window",
            )
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
            raise ProgramError.at(
                self._m(meta),
                f"integer of {len(c[0])} digits is too long",
                f"integers have at most {sys.get_int_max_str_digits()} digits",
            ) from None

    def variable(self, meta, c):
        return ast.Variable(str(c[0]), self._m(meta))

    def anonymous(self, meta, c):
        return ast.Variable(ANONYMOUS, self._m(meta))

    def constant(self, meta, c):
        return ast.Constant(str(c[0]), self._m(meta))

    def string(self, meta, c):
        tok = c[0]
        text = str(tok)[1:-1]
        out, i = [], 0
        while i < len(text):
            if text[i] == "\\" and i + 1 < len(text):
                if text[i + 1] not in ESCAPES:
                    col = tok.column + 1 + i
                    raise ProgramError.at(
                        ast.Location(self.file, tok.line, col, tok.line, col + 2),
                        f"unknown escape '\\{text[i + 1]}' in a string",
                        ESCAPE_NOTE,
                    )
                out.append(ESCAPES[text[i + 1]])
                i += 2
            else:
                out.append(text[i])
                i += 1
        return ast.String("".join(out), self._m(meta))

    def iri(self, meta, c):
        return ast.Iri.of(self._iri(c[0]), None, self._m(meta))

    def prefixed_name(self, meta, c):
        text = str(c[0])
        name, local = text.split(":", 1)
        if name not in self.prefixes:
            raise ProgramError.at(
                self._m(meta),
                f"unknown prefix '{name}:' in '{text}'",
                f"declare it before its first use: @prefix {name}: <http://...> .",
            )
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
