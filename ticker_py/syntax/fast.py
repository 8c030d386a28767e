"""A fast program parser: one regular-expression tokenizer and a recursive descent.

It builds exactly the :class:`ast.Program` (rules, terms and locations) the lark parser
builds, for the programs it fully understands: rules, facts and constraints over atoms,
windows, @, arithmetic, intervals, strings and ``_``. It gives up (:func:`parse_fast`
returns ``None``) on anything else: any syntax or semantic error, ``@prefix``, IRIs and
prefixed names, terms nested deeper than the depth limit. The caller then parses with
lark, which reports the located errors, so no message depends on this module.

Why it agrees with lark's contextual lexer: every token it produces is the first match of
lark's terminals in lark's order, and a name in a window's unit position counts as the
unit (as lark retypes it). Where lark would lex differently (``<`` where a term starts is
an IRI there, a comparison here; ``atX`` is ``at X`` after an atom there, a name here) the
descent meets a token it does not expect and gives up.
"""

from __future__ import annotations

import gc
import re
from contextlib import contextmanager

from .. import ast
from ..ast import (
    ESCAPES,
    Atom,
    BinOp,
    Comparison,
    Constant,
    ExtendedAtom,
    Function,
    Head,
    Interval,
    Literal,
    Location,
    Number,
    Rule,
    String,
    Variable,
    Window,
)
from ..errors import ProgramError
from ..limits import MAX_TERM_DEPTH
from .anonymous import ANONYMOUS, name_anonymous

__all__ = ["parse_fast", "paused_gc"]

#: white space and comments, then one token or the end of the text. The space is matched once,
#: never given back: inside a lookahead (which the matcher never re-enters) and then taken as
#: ``\1`` (an atomic group, which Python has only from 3.11), so that a token that fails to match
#: after a line of many ``%`` does not make the matcher split the comment every possible way
_PIECE = re.compile(
    r"""(?=([ \t\r\n\f]*(?:(?:%[^\n]*|//[^\n]*|/\*[\s\S]*?\*/)[ \t\r\n\f]*)*))\1(
    [a-z][A-Za-z0-9_']*
  | _*[A-Z][A-Za-z0-9_']*
  | _(?![A-Za-z0-9_'])
  | [0-9]+
  | "(?:\\.|[^"\\\n])*"
  | :-|\.\.|!=|<=|>=|==|[.,()\[\]=<>+\-*/\\\#]
  | \Z
)""",
    re.VERBOSE,
)

_KEYWORDS = frozenset({"not", "in", "at", "always"})
_UNITS = frozenset({"sec", "ms", "min", "h"})
_CMP = frozenset({"!=", "<=", ">=", "==", "=", "<", ">"})
_ADD = frozenset({"+", "-"})
_MUL = frozenset({"*", "/", "\\"})
#: tokens after which a body literal starting with a name is a comparison, not an atom
_TERM_CONTINUES = _CMP | _ADD | _MUL | {".."}
_END = "$end"
_ARG_END = frozenset({",", ")"})
#: tokens after an atom that make it a plain (now) extended atom
_NOW_ENDS = frozenset({",", "."})
#: a piece's kind: punctuation and keywords are their own kind; else by the first character
_FIXED = {t: t for t in (":-", "..", "!=", "<=", ">=", "==", *".,()[]=<>+-*/\\#", *_KEYWORDS)}
_FIXED["_"] = "anon"
_FIXED[""] = _END
_FIRST = {
    **dict.fromkeys("abcdefghijklmnopqrstuvwxyz", "name"),
    **dict.fromkeys("ABCDEFGHIJKLMNOPQRSTUVWXYZ_", "var"),
    **dict.fromkeys("0123456789", "int"),
    '"': "str",
}
_LEAVES = frozenset({"var", "int", "anon", "str", "name"})
#: a term that starts with one of _LEAVES and continues with one of these is more than that token
_AFTER_NON_LEAF = _TERM_CONTINUES | {"("}


#: a block that leaves this many more objects to the cycle collector freezes them (see paused_gc)
FREEZE_OBJECTS = 200_000


@contextmanager
def paused_gc():
    """Pause Python's cycle collector in the block.

    Building a large acyclic structure (a program, its analysis) otherwise triggers
    collections that traverse all of it again and again: most of the time of a program of
    10^5 rules. When the block leaves many new objects (FREEZE_OBJECTS), they are moved to the
    permanent generation (``gc.freeze``), so that later collections skip them too; they are
    still freed by reference counting.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if gc.get_count()[0] > FREEZE_OBJECTS:
                gc.freeze()
            gc.enable()


class _GiveUp(Exception):
    """Not a program this parser is sure of: parse with lark."""


def parse_fast(text: str, file: str = "<string>") -> ast.Program | None:
    """The program ``text`` holds, or ``None`` where the lark parser must decide."""
    try:
        tokens = _tokenize(text)
        return _Parser(tokens, file).program()
    except (_GiveUp, ProgramError, ValueError):  # ValueError: int() of an over-long number
        return None
    except RecursionError:  # nested past the depth limit: lark reports it
        return None


def _tokenize(text: str):
    """Parallel lists: kind, value, line, column (kind is the text of punctuation and
    keywords, else name/var/anon/int/str; the end of the text is two end tokens)."""
    kinds, values, lines, cols = [], [], [], []
    add_kind, add_value, add_line, add_col = kinds.append, values.append, lines.append, cols.append
    line, line_start, pos = 1, 0, 0
    fixed, first = _FIXED, _FIRST
    for space, value in _PIECE.findall(text):
        if space:
            pos += len(space)
            if "\n" in space:
                line += space.count("\n")
                line_start = pos - len(space) + space.rindex("\n") + 1
        add_kind(fixed.get(value) or first[value[0]])
        add_value(value)
        add_line(line)
        add_col(pos - line_start + 1)
        pos += len(value)
    # findall passes over what matches no piece: then the pieces fall short of the text
    if pos != len(text):
        raise _GiveUp
    if len(values) == 1 or values[-2]:  # the descent looks one token past the end: two ends
        kinds.append(_END)  # (findall gives two where white space ends the text)
        values.append("")
        lines.append(line)
        cols.append(cols[-1])
    return kinds, values, lines, cols


class _Parser:
    """Recursive descent over the token lists; each term method returns
    ``(term, first token, last token, nesting depth)`` (first/last include parentheses).

    Where lark gives two nodes the same span (an atom, its plain extended atom, its literal),
    they share one (immutable) Location object."""

    def __init__(self, tokens, file: str):
        self.kinds, self.values, self.lines, self.cols = tokens
        self.file = file
        self.i = 0
        self.anonymous = False

    # ---------------------------------------------------------------- helpers
    def loc(self, first: int, last: int) -> ast.Location:
        return Location(
            self.file, self.lines[first], self.cols[first], self.lines[last], self.cols[last] + len(self.values[last])
        )

    def expect(self, kind: str) -> int:
        i = self.i
        if self.kinds[i] != kind:
            raise _GiveUp
        self.i = i + 1
        return i

    # ---------------------------------------------------------------- rules
    def program(self) -> ast.Program:
        rules = []
        kinds = self.kinds
        while kinds[self.i] != _END:
            rules.append(self.rule())
        return ast.Program(tuple(rules), file=self.file, prefixes=())

    def rule(self) -> ast.Rule:
        first = self.i
        self.anonymous = False
        if self.kinds[first] == ":-":
            self.i += 1
            head, body = None, self.body()
        else:
            head = self.head()
            if self.kinds[self.i] == ":-":
                self.i += 1
                body = self.body()
            else:
                body = ()
        rule = Rule(head, body, self.loc(first, self.expect(".")))
        return name_anonymous(rule) if self.anonymous else rule

    def head(self) -> ast.Head:
        atom, first, last = self.atom()
        if self.kinds[self.i] != "at":
            return Head(atom, None, atom.location)
        self.i += 1
        time, _, last, _ = self.term()
        return Head(atom, time, self.loc(first, last))

    def body(self) -> tuple:
        literals = [self.literal()]
        kinds = self.kinds
        while kinds[self.i] == ",":
            self.i += 1
            literals.append(self.literal())
        return tuple(literals)

    def literal(self) -> ast.Literal:
        first = self.i
        negated = self.kinds[first] == "not"
        if negated:
            self.i += 1
        start = self.i
        if self.kinds[start] == "name":
            atom, _, last = self.atom()
            if self.kinds[self.i] in _TERM_CONTINUES:
                self.i = start
                element, last = self.comparison()
            else:
                element, last = self.extended(atom, start, last)
        else:
            element, last = self.comparison()
        return Literal(element, negated, self.loc(first, last) if negated else element.location)

    def extended(self, atom: ast.Atom, first: int, last: int):
        kinds = self.kinds
        kind = kinds[self.i]
        modality, window, time = ast.NOW, None, None
        if kind in _NOW_ENDS:
            return ExtendedAtom(atom, modality, window, time, atom.location), last
        if kind == "in" or kind == "[":
            modality, (window, last) = ast.DIAMOND, self.window()
        elif kind == "always":
            self.i += 1
            modality, (window, last) = ast.BOX, self.window()
        elif kind == "at":
            self.i += 1
            modality = ast.AT
            time, _, last, _ = self.term()
            if kinds[self.i] in ("in", "["):
                window, last = self.window()
        return ExtendedAtom(atom, modality, window, time, self.loc(first, last)), last

    def window(self):
        kinds, i = self.kinds, self.i
        if kinds[i] == "in":
            i += 1
        if kinds[i] != "[" or kinds[i + 1] != "int":
            raise _GiveUp
        first = i
        size = int(self.values[i + 1])
        i += 2
        unit = None
        kind = kinds[i]
        if kind == "#":
            if size == 0:
                raise _GiveUp
            unit = "#"
            i += 1
        elif kind == "name":
            unit = self.values[i]
            if unit not in _UNITS:
                raise _GiveUp
            i += 1
        if kinds[i] != "]":
            raise _GiveUp
        self.i = i + 1
        return Window(size, unit, self.loc(first, i)), i

    def comparison(self):
        left, first, _, _ = self.term()
        op = self.kinds[self.i]
        if op not in _CMP:
            raise _GiveUp
        self.i += 1
        right, _, last, _ = self.term()
        return Comparison("=" if op == "==" else op, left, right, self.loc(first, last)), last

    # ---------------------------------------------------------------- atoms and terms
    def atom(self):
        i = self.i
        if self.kinds[i] != "name":
            raise _GiveUp
        name = self.values[i]
        self.i = i + 1
        if self.kinds[i + 1] != "(":
            line, col = self.lines[i], self.cols[i]
            return Atom(name, (), Location(self.file, line, col, line, col + len(name))), i, i
        args, last, _ = self.args()
        return Atom(name, args, self.loc(i, last)), i, last

    def args(self):
        """``( t1, ..., tk )`` after a name: the terms, the ')' token and the deepest nesting."""
        kinds, values, lines, cols, file = self.kinds, self.values, self.lines, self.cols, self.file
        terms, depth = [], 0
        i = self.i + 1
        while True:
            kind = kinds[i]
            if kinds[i + 1] in _ARG_END and (kind == "var" or kind == "int" or kind == "name"):
                value, line, col = values[i], lines[i], cols[i]  # a plain argument: the usual case
                loc = Location(file, line, col, line, col + len(value))
                terms.append(
                    Variable(value, loc)
                    if kind == "var"
                    else Number(int(value), loc)
                    if kind == "int"
                    else Constant(value, loc)
                )
                i += 1
            else:
                self.i = i
                term, _, _, d = self.term()
                terms.append(term)
                if d > depth:
                    depth = d
                i = self.i
            if kinds[i] != ",":
                break
            i += 1
        if kinds[i] != ")":
            raise _GiveUp
        self.i = i + 1
        return tuple(terms), i, depth

    def term(self):
        i = self.i
        kinds = self.kinds
        if kinds[i] in _LEAVES and kinds[i + 1] not in _AFTER_NON_LEAF:
            return self.primary()
        low = self.sum()
        if self.kinds[self.i] != "..":
            return low
        self.i += 1
        high = self.sum()
        return self.nested(Interval(low[0], high[0], self.loc(low[1], high[2])), low[1], high[2], max(low[3], high[3]))

    def nested(self, term, first: int, last: int, depth: int):
        if depth >= MAX_TERM_DEPTH:
            raise _GiveUp
        return term, first, last, depth + 1

    def sum(self):
        return self.operations(_ADD, self.product)

    def product(self):
        return self.operations(_MUL, self.unary)

    def operations(self, ops, operand):
        """``operand (op operand)*`` with ``op`` in ``ops``, left-associative."""
        left = operand()
        kinds = self.kinds
        while kinds[self.i] in ops:
            op = kinds[self.i]
            self.i += 1
            right = operand()
            left = self.nested(
                BinOp(op, left[0], right[0], self.loc(left[1], right[2])), left[1], right[2], max(left[3], right[3])
            )
        return left

    def unary(self):
        i = self.i
        if self.kinds[i] != "-":
            return self.primary()
        self.i += 1
        arg, _, last, depth = self.unary()
        loc = self.loc(i, last)
        term = Number(-arg.value, loc) if isinstance(arg, ast.Number) else BinOp("-", Number(0, None), arg, loc)
        return self.nested(term, i, last, depth)

    def primary(self):
        i = self.i
        kind = self.kinds[i]
        value = self.values[i]
        self.i = i + 1
        if kind == "var":
            return Variable(value, self.loc(i, i)), i, i, 0
        if kind == "int":
            return Number(int(value), self.loc(i, i)), i, i, 0
        if kind == "name":
            if self.kinds[i + 1] != "(":
                return Constant(value, self.loc(i, i)), i, i, 0
            args, last, depth = self.args()
            return self.nested(Function(value, args, self.loc(i, last)), i, last, depth)
        if kind == "anon":
            self.anonymous = True
            return Variable(ANONYMOUS, self.loc(i, i)), i, i, 0
        if kind == "str":
            return String(_unescape(value[1:-1]), self.loc(i, i)), i, i, 0
        if kind == "(":
            term, _, _, depth = self.term()
            return self.nested(term, i, self.expect(")"), depth)
        raise _GiveUp


def _unescape(text: str) -> str:
    if "\\" not in text:
        return text
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\":
            if text[i + 1] not in ESCAPES:
                raise _GiveUp
            out.append(ESCAPES[text[i + 1]])
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)
