"""Ground atoms as plain Python values, shared by streams and every engine.

A ground term is an ``int``, a ``str`` (a constant ``a``, or a string ``'"text"'`` with its quotes
and escapes, as clingo prints it), or a ``tuple`` ``(name, arg1, ..., argk)``, k >= 1; a ground atom
is a tuple ``(predicate, arg1, ..., argk)``. Integers are exact at any size: one beyond clingo's 32
bits goes through clingo as ``_int("digits")`` (no LARS name starts with ``_``). Terms order as in
clingo, a numeric ``lit("L","T")`` term as the number ``L`` (:func:`term_key`).
"""

from __future__ import annotations

import itertools
import math
import operator
import re
import warnings
from contextvars import ContextVar
from functools import cache

from . import ast
from .errors import Diagnostic, StreamError, TickerWarning
from .limits import CLINGO_MAX, CLINGO_MIN, MAX_FACT_ATOMS, SHORT_BITS, integer_digits
from .xsd import literal_number

__all__ = [
    "format_atom",
    "format_term",
    "unquote",
    "term_key",
    "from_ast_term",
    "expanded",
    "TooManyValues",
    "from_ast_atom",
    "to_ast_atom",
    "signature",
    "SURROGATE",
    "UNHOLDABLE",
    "WIDE",
    "clingo_term",
    "clingo_atom",
    "exact_term",
    "exact_atom",
    "int_text",
    "computed",
    "integer_too_long",
    "COMPUTE",
    "too_long",
    "short_int",
    "order",
    "compare",
    "Comparisons",
    "COMPARISONS",
    "KEYWORDS",
]

#: the keywords of LARS and clingo, which are no names (of predicates or constants)
KEYWORDS = frozenset({"not", "in", "at", "always"})

#: a lone surrogate: a character of a Python string that has no UTF-8 form, so no output can write it
SURROGATE = re.compile("[\ud800-\udfff]")
#: what clingo's strings (and program text) cannot hold: a NUL ends C strings, and a lone surrogate
UNHOLDABLE = re.compile("[\0\ud800-\udfff]")


def format_term(term) -> str:
    """Print a ground term in clingo syntax."""
    kind = type(term)
    if kind is str:
        return term
    if kind is tuple:
        if len(term) == 2 and type(term[1]) is str:  # iri("..."), f(a): no join
            return f"{term[0]}({term[1]})"
        return f"{term[0]}({','.join(map(format_term, term[1:]))})"
    return str(term)


def format_atom(atom: tuple) -> str:
    """Print a ground atom in clingo syntax: ``p``, ``p(a,1)``."""
    n = len(atom)
    if n == 2:
        return f"{atom[0]}({format_term(atom[1])})"
    if n == 1:
        return atom[0]
    return f"{atom[0]}({','.join(map(format_term, atom[1:]))})"


def signature(atom: tuple) -> tuple:
    return (atom[0], len(atom) - 1)


def term_key(term):
    """clingo's total order of symbols, with exact numbers: numbers < constants < strings < function
    terms (by arity, name, arguments); a numeric ``lit("L","T")`` term is the number L (after the
    integer of that value, then by datatype and lexical form: the order stays total)."""
    t = type(term)
    if t is int:
        return (0, term)
    if t is str:
        if term.startswith('"'):
            return (2, unquote(term))  # clingo orders strings by their content, not their escapes
        return (1, term)
    if term[0] == "lit":
        value = literal_number(term)
        if value is not None:
            return (0, value, 1, term[2], term[1])
    return (3, len(term) - 1, term[0], tuple(term_key(a) for a in term[1:]))


# ---------------------------------------------------------------- order comparisons


def _is_number(term) -> bool:
    return type(term) is int or literal_number(term) is not None


def _literal_kind(term) -> str | None:
    """What a string or RDF literal that is no number is, for a report; None for other terms."""
    if type(term) is str:
        return "a string" if term.startswith('"') else None
    if type(term) is tuple and len(term) == 3:
        if term[0] == "lang":
            return "a language-tagged string"
        if term[0] == "lit" and type(term[2]) is str:
            return f"a literal of type {unquote(term[2])}"
    return None


class Comparisons:
    """How an order comparison between a number and a string or literal that is no number (which
    orders after every number, rarely what it means) is reported: a warning once per comparison and
    kind of term, or with ``strict`` a StreamError. A Reasoner sets its own in :data:`COMPARISONS`."""

    def __init__(self, strict: bool = False):
        self.strict = strict
        self.seen: set = set()

    def report(self, where, number, other, kind: str) -> None:
        key = (where, kind)
        if key in self.seen:
            return
        self.seen.add(key)
        diagnostic = Diagnostic(
            f"'{where}' compares the number {format_term(number)} with {format_term(other)}, {kind} that is no number",
            getattr(where, "location", None),
            (
                "a term that is no number orders after every number, so the comparison holds or fails whatever "
                "its text says",
                "write numbers as integers, or as RDF literals of a numeric type (xsd:integer, xsd:decimal, ...)",
            )
            + (() if self.strict else ("--strict (strict=True) makes this an error",)),
            kind="error" if self.strict else "warning",
        )
        if self.strict:
            raise StreamError(diagnostic)
        warnings.warn(TickerWarning(diagnostic), stacklevel=3)


#: the reporting in effect (a context variable: each Reasoner sets its own while it evaluates;
#: unset, a process-wide one warns)
COMPARISONS: ContextVar = ContextVar("ticker_py_comparisons", default=None)
_ANYWHERE = Comparisons()


def order(a, b, where=None) -> int:
    """-1, 0 or 1 as ``a`` orders before, with or after ``b`` (:func:`term_key`); a number
    ordered against a string or literal that is no number is reported (:class:`Comparisons`) for
    the program's comparison ``where`` (an :class:`ast.Comparison`; None: not reported)."""
    ka, kb = term_key(a), term_key(b)
    if where is not None and ka[0] != kb[0] and (ka[0] == 0 or kb[0] == 0):
        number, other = (a, b) if ka[0] == 0 else (b, a)
        kind = _literal_kind(other)
        if kind is not None and _is_number(number):
            (COMPARISONS.get() or _ANYWHERE).report(where, number, other, kind)
    return (ka > kb) - (ka < kb)


_ORDERS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def compare(op: str, a, b, where=None) -> bool:
    """``a op b`` for an order comparison ``op``, as :func:`order` orders (and reports)."""
    return _ORDERS[op](order(a, b, where), 0)


# ---------------------------------------------------------------- integers clingo cannot hold

#: the reserved function symbol that carries an integer beyond clingo's 32 bits through clingo
WIDE = "_int"


def int_text(value: int) -> str:
    """An integer in clingo syntax: the number, or its ``_int("digits")`` symbol."""
    return str(value) if CLINGO_MIN <= value <= CLINGO_MAX else f'{WIDE}("{value}")'


def clingo_term(term):
    """``term`` with every integer clingo cannot hold replaced by its ``_int`` symbol."""
    t = type(term)
    if t is int:
        return term if CLINGO_MIN <= term <= CLINGO_MAX else (WIDE, f'"{term}"')
    if t is tuple:
        return (term[0], *(clingo_term(a) for a in term[1:]))
    return term


def _has_wide(term) -> bool:
    t = type(term)
    if t is int:
        return not CLINGO_MIN <= term <= CLINGO_MAX
    return t is tuple and any(_has_wide(a) for a in term[1:])


def clingo_atom(atom: tuple) -> tuple:
    """``atom`` as clingo holds it (:func:`clingo_term` of each argument; the atom itself if it
    has no integer beyond 32 bits)."""
    return (atom[0], *map(clingo_term, atom[1:])) if any(map(_has_wide, atom[1:])) else atom


def wide_value(term) -> int | None:
    """The integer an ``_int("digits")`` term stands for, or None."""
    if type(term) is tuple and len(term) == 2 and term[0] == WIDE and type(term[1]) is str and term[1][:1] == '"':
        try:
            return int(term[1][1:-1])
        except ValueError:
            return None
    return None


def exact_term(term):
    """The inverse of :func:`clingo_term`: ``_int`` symbols back to integers."""
    if type(term) is tuple:
        value = wide_value(term)
        return value if value is not None else (term[0], *(exact_term(a) for a in term[1:]))
    return term


def exact_atom(atom: tuple) -> tuple:
    """The inverse of :func:`clingo_atom`."""
    return (atom[0], *(exact_term(a) for a in atom[1:]))


def from_ast_term(term):
    """Convert a ground AST term (no variables, arithmetic evaluated by the caller)."""
    if isinstance(term, ast.Number):
        return term.value
    if isinstance(term, ast.Constant):
        return term.name
    if isinstance(term, ast.Function):
        return (term.name, *(from_ast_term(a) for a in term.args))
    if isinstance(term, ast.BinOp):
        return computed(term.op, from_ast_term(term.left), from_ast_term(term.right), term)
    if isinstance(term, ast.String):
        return ast.quote(term.value)
    raise ValueError(f"not a ground term: {term}")


class TooManyValues(Exception):
    """A fact's term has more than :data:`~ticker_py.limits.MAX_FACT_ATOMS` values."""


def expanded(term) -> list | None:
    """The values of a ground AST term, its intervals expanded (``f(1..2)``: ``f(1)``, ``f(2)``); None if
    a bound or an operation has no value; :class:`TooManyValues` past ``MAX_FACT_ATOMS`` values."""
    if isinstance(term, ast.Interval):
        lo, hi = expanded(term.low), expanded(term.high)
        if not lo or not hi or len(lo) != 1 or len(hi) != 1 or type(lo[0]) is not int or type(hi[0]) is not int:
            return None
        if hi[0] - lo[0] >= MAX_FACT_ATOMS:
            raise TooManyValues
        return list(range(lo[0], hi[0] + 1))
    if isinstance(term, (ast.Function, ast.BinOp)):
        parts = [expanded(a) for a in (term.args if isinstance(term, ast.Function) else (term.left, term.right))]
        if any(p is None for p in parts):
            return None
        if math.prod(map(len, parts)) > MAX_FACT_ATOMS:
            raise TooManyValues
        if isinstance(term, ast.Function):
            return [(term.name, *combo) for combo in itertools.product(*parts)]
        values = [computed(term.op, a, b, term) for a, b in itertools.product(*parts)]
        return None if any(v is None for v in values) else values
    return [from_ast_term(term)]


#: the operations that are defined on every pair of integers
_TOTAL = {"+": operator.add, "-": operator.sub, "*": operator.mul}


def evaluate_arith(op: str, a, b):
    """Integer arithmetic as clingo does it (truncating division and modulo); None if undefined."""
    if type(a) is not int or type(b) is not int:
        return None
    if op in _TOTAL:
        return _TOTAL[op](a, b)
    if b == 0:
        return None
    q = abs(a) // abs(b)
    if (a < 0) != (b < 0):
        q = -q
    return q if op == "/" else a - q * b


def integer_too_long(value: int) -> bool:
    """True if ``value`` has more digits than :func:`~ticker_py.limits.integer_digits`."""
    if value.bit_length() <= SHORT_BITS:
        return False
    limit = integer_digits()
    return limit != 0 and abs(value) >= _power(limit)


@cache
def _power(digits: int) -> int:
    return 10**digits


def computed(op: str, a, b, where=None, error=StreamError):
    """:func:`evaluate_arith`, refusing a result with too many digits (:func:`integer_too_long`): an
    ``error`` (ProgramError: the program's constants made it) at ``where``, the arithmetic term."""
    value = evaluate_arith(op, a, b)
    if value is not None and value.bit_length() > SHORT_BITS and integer_too_long(value):
        raise error(too_long(where, op, a, b))
    return value


def _fast(op: str):
    """:func:`computed` for ``op``: the usual small integers in one call."""
    apply = _TOTAL.get(op)

    def compute(a, b, where=None):
        if apply is not None and type(a) is int and type(b) is int:
            value = apply(a, b)
            if value.bit_length() <= SHORT_BITS:
                return value
        return computed(op, a, b, where)

    return compute


#: :func:`computed` per operator, ``f(a, b, where)`` (the native engine's rules call these)
COMPUTE = {op: _fast(op) for op in ("+", "-", "*", "/", "\\")}


def short_int(value: int) -> str:
    """An integer for a message: its first digits and how many there are, if it is long."""
    if -(2**128) < value < 2**128:
        return str(value)
    text = str(value)
    return f"{text[:20]}... ({len(text.lstrip('-'))} digits)"


def too_long(where, op: str, a: int, b: int) -> Diagnostic:
    """The error of an arithmetic term ``where`` that computes ``a op b``, an integer of more
    digits than any integer may have: the same text on every engine."""
    term = str(where)
    term = term if len(term) <= 60 else f"{term[:45]}...{term[-12:]}"
    return Diagnostic(
        f"'{term}' computes {short_int(a)} {op} {short_int(b)}, an integer of more than {integer_digits()} digits",
        getattr(where, "location", None),
        (
            "an integer has at most that many digits, in the input and in what a rule computes, on every"
            " engine (Python's limit: PYTHONINTMAXSTRDIGITS, sys.set_int_max_str_digits)",
        ),
    )


def from_ast_atom(atom: ast.Atom) -> tuple:
    return (atom.predicate, *(from_ast_term(a) for a in atom.args))


def to_ast_term(term):
    if type(term) is int:
        return ast.Number(term)
    if type(term) is str:
        if term.startswith('"'):
            return ast.String(unquote(term))
        return ast.Constant(term)
    return ast.Function(term[0], tuple(to_ast_term(a) for a in term[1:]))


def to_ast_atom(atom: tuple) -> ast.Atom:
    return ast.Atom(atom[0], tuple(to_ast_term(a) for a in atom[1:]))


def unquote(text: str) -> str:
    r"""The content of a quoted string term, its escapes (\n, \\, \") undone."""
    return _ESCAPE.sub(lambda m: ast.ESCAPES.get(m[1], m[1]), text[1:-1])


_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
