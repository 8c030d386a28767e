"""Exact values on the clingo side: integers of any size, exact arithmetic and comparisons.

Wider integers are handed to clingo as ``_int("digits")`` (:func:`ticker_py.values.clingo_atom`)
and read back (:func:`symbol_to_term`); :class:`ExactContext` holds the functions an
:class:`~ticker_py.encode.exact.ExactProgram` calls where clingo could get a value wrong (an
undefined result gives no value: the rule instance does not fire). See docs/semantics.md.
"""

from __future__ import annotations

from dataclasses import replace

import clingo

from .. import ast
from ..analysis import Analysis
from ..encode.exact import OPERATIONS
from ..errors import Diagnostic, EngineUnsupported, StreamError, TickerError
from ..limits import CLINGO_MAX, CLINGO_MIN, MAX_FACT_ATOMS
from ..values import UNHOLDABLE, WIDE, evaluate_arith, integer_too_long, order, short_int, too_long

__all__ = [
    "ExactContext",
    "symbol_to_term",
    "int_symbol",
    "symbol_int",
    "check_window_sizes",
    "check_clingo_strings",
    "locate",
]

RANGE = f"clingo's integer range {CLINGO_MIN}..{CLINGO_MAX}"
WINDOW_NOTE = "the clingo encodings keep window sizes as clingo numbers"
NATIVE_NOTE = "the native engine (--engine native; auto for programs in its fragment) takes windows of any size"

_NUMBER, _FUNCTION, _STRING = clingo.SymbolType.Number, clingo.SymbolType.Function, clingo.SymbolType.String


def int_symbol(value: int) -> clingo.Symbol:
    """The clingo symbol of an integer: a number, or its ``_int`` symbol."""
    if CLINGO_MIN <= value <= CLINGO_MAX:
        return clingo.Number(value)
    return clingo.Function(WIDE, [clingo.String(str(value))])


def symbol_int(sym: clingo.Symbol) -> int | None:
    """The integer a clingo number or ``_int`` symbol stands for, else None."""
    st = sym.type
    if st == _NUMBER:
        return sym.number
    if st == _FUNCTION and sym.name == WIDE:
        args = sym.arguments
        if len(args) == 1 and args[0].type == _STRING:
            return int(args[0].string)
    return None


def symbol_to_term(sym: clingo.Symbol):
    """A clingo symbol as a ground term of :mod:`ticker_py.values` (``_int`` symbols as integers)."""
    st = sym.type
    if st == _NUMBER:
        return sym.number
    if st == _STRING:
        return str(sym)
    if st == _FUNCTION and not sym.arguments:
        return sym.name if sym.name else "()"
    if sym.name == WIDE and (value := symbol_int(sym)) is not None:
        return value
    return (sym.name, *(symbol_to_term(a) for a in sym.arguments))


class ExactContext:
    """The functions an :class:`~ticker_py.encode.exact.ExactProgram` calls (``@_add(X,Y,R)``, ...),
    given to :meth:`clingo.Control.ground` as its context; ``sites``: the program's terms and
    comparisons by number (the last argument R), for located reports. A user error (a comparison
    report under ``--strict``, a result too large) is kept in ``error`` (clingo cannot pass it
    through) and raised by :meth:`check` after grounding."""

    def __init__(self, sites: list):
        self.sites = sites
        self.error: TickerError | None = None

    def check(self) -> None:
        """Raise the error a function met while grounding, if any."""
        error, self.error = self.error, None
        if error is not None:
            raise error

    def _fail(self, error: TickerError) -> list:
        """Keep the first error (clingo cannot pass it through); no value."""
        if self.error is None:
            self.error = error
        return []

    def _arith(self, op: str, a: clingo.Symbol, b: clingo.Symbol, number):
        x, y = symbol_int(a), symbol_int(b)
        if x is None or y is None:
            return []
        value = evaluate_arith(op, x, y)
        if value is None:
            return []
        if integer_too_long(value):
            return self._fail(StreamError(too_long(self.sites[number.number], op, x, y)))
        return int_symbol(value)

    def _range(self, a, b, number):
        x, y = symbol_int(a), symbol_int(b)
        if x is None or y is None:
            return []
        if y - x >= MAX_FACT_ATOMS:
            site = self.sites[number.number]
            span = f"{short_int(y - x + 1)} integers {short_int(x)}..{short_int(y)}"
            return self._fail(
                StreamError(Diagnostic(f"'{site}' spans the {span}, more than {MAX_FACT_ATOMS}", site.location))
            )
        return [int_symbol(v) for v in range(x, y + 1)]

    def _cmp(self, a, b, number):
        cmp = self.sites[number.number]
        where = cmp if cmp.location is not None else None
        try:
            return clingo.Number(order(symbol_to_term(a), symbol_to_term(b), where))
        except TickerError as err:
            self._fail(err)
            return clingo.Number(0)


# ``@_add(A,B,R)``, ... (:data:`~ticker_py.encode.exact.OPERATIONS`): one method per operator
for _op, _name in OPERATIONS.items():
    setattr(ExactContext, _name, lambda self, a, b, number, op=_op: self._arith(op, a, b, number))


def check_window_sizes(analysis: Analysis, rules) -> None:
    """Refuse, located, a window of more time points or atoms than clingo's integers count."""
    out = []
    for rule in rules:
        for lit in rule.body:
            el = lit.element
            if isinstance(el, ast.Comparison) or el.window is None:
                continue
            n, what = analysis.size(el.window), "atoms" if el.window.is_tuple else "time points"
            if n > CLINGO_MAX:
                message = f"window {el.window} covers {n} {what}, outside {RANGE}"
                out.append(Diagnostic(message, el.window.location, (WINDOW_NOTE, NATIVE_NOTE)))
    if out:
        raise EngineUnsupported(out)


def unholdable(term) -> str | None:
    """The first quoted string among the arguments of ``term`` (an atom or a function term) that
    clingo cannot hold, or None (names and constants are identifiers: they hold neither)."""
    for arg in term[1:]:
        t = type(arg)
        if t is str:
            if arg[0] == '"' and UNHOLDABLE.search(arg):
                return arg
        elif t is tuple:
            found = unholdable(arg)
            if found is not None:
                return found
    return None


def check_clingo_strings(t: int, atoms) -> None:
    """Raise StreamError for an atom arriving at t that holds a string with a NUL or a lone
    surrogate (clingo cannot hold it)."""
    for atom in atoms:
        bad = unholdable(atom)
        if bad is not None:
            what = "a NUL character" if "\0" in bad else "a lone surrogate (no UTF-8 form)"
            message = f"string {ascii(bad)} in '{atom[0]}' at time {t} has {what}, which clingo cannot hold"
            raise StreamError(Diagnostic(message, notes=("the native engine (--engine native) holds any string",)))


def locate(err: StreamError, source: str, line: int) -> StreamError:
    """``err`` with its unlocated diagnostics placed at ``source:line`` (line 0: no line to name)."""
    if line <= 0:
        return err
    where = ast.Location(source, line, 1, line, 2)
    return StreamError([d if d.location is not None else replace(d, location=where) for d in err.diagnostics])
