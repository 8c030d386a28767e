"""Ground atoms as plain Python values, shared by streams and every engine.

A ground term is an ``int`` (number), a ``str`` (a symbolic constant ``a``, or a quoted
string ``'"text"'`` kept with its quotes and escapes, exactly as clingo prints it), or a
``tuple`` ``(name, arg1, ..., argk)`` for a function term with k >= 1.
A ground atom is a tuple ``(predicate, arg1, ..., argk)``.
"""

from __future__ import annotations

import re

from . import ast

__all__ = [
    "format_atom",
    "format_term",
    "term_key",
    "from_ast_term",
    "from_ast_atom",
    "to_ast_atom",
    "signature",
    "SURROGATE",
    "UNHOLDABLE",
]

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
    """A sort key reproducing clingo's total order of symbols.

    Numbers < constants < strings < function terms (by arity, then name, then arguments).
    """
    t = type(term)
    if t is int:
        return (0, term)
    if t is str:
        if term.startswith('"'):
            return (2, _unquote(term))  # clingo orders strings by their content, not their escapes
        return (1, term)
    return (3, len(term) - 1, term[0], tuple(term_key(a) for a in term[1:]))


def from_ast_term(term):
    """Convert a ground AST term (no variables, arithmetic evaluated by the caller)."""
    if isinstance(term, ast.Number):
        return term.value
    if isinstance(term, ast.Constant):
        return term.name
    if isinstance(term, ast.String):
        return ast.quote(term.value)
    if isinstance(term, ast.Function):
        return (term.name, *(from_ast_term(a) for a in term.args))
    if isinstance(term, ast.BinOp):
        return evaluate_arith(term.op, from_ast_term(term.left), from_ast_term(term.right))
    raise ValueError(f"not a ground term: {term}")


def evaluate_arith(op: str, a, b):
    """Integer arithmetic as clingo does it (truncating division and modulo); None if undefined."""
    if type(a) is not int or type(b) is not int:
        return None
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if b == 0:
        return None
    q = abs(a) // abs(b)
    if (a < 0) != (b < 0):
        q = -q
    return q if op == "/" else a - q * b


def from_ast_atom(atom: ast.Atom) -> tuple:
    return (atom.predicate, *(from_ast_term(a) for a in atom.args))


def to_ast_term(term):
    if type(term) is int:
        return ast.Number(term)
    if type(term) is str:
        if term.startswith('"'):
            return ast.String(_unquote(term))
        return ast.Constant(term)
    return ast.Function(term[0], tuple(to_ast_term(a) for a in term[1:]))


def to_ast_atom(atom: tuple) -> ast.Atom:
    return ast.Atom(atom[0], tuple(to_ast_term(a) for a in atom[1:]))


def _unquote(text: str) -> str:
    body = text[1:-1]
    out, i = [], 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            out.append({"n": "\n", "\\": "\\", '"': '"'}.get(nxt, nxt))
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)
