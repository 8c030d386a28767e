"""The walks over a rule's terms that the analysis makes: its terms, their subterms, IRIs as plain terms."""

from __future__ import annotations

from operator import is_

from .. import ast
from ..node import Node

__all__ = ["rule_terms", "subterms", "has_subterm", "transform", "without_iris"]


def rule_terms(rule: ast.Rule) -> list:
    """The outermost terms of a rule: arguments and @-times of its atoms, sides of its comparisons."""
    terms = []
    if rule.head is not None:
        terms += rule.head.atom.args
        if rule.head.time is not None:
            terms.append(rule.head.time)
    for lit in rule.body:
        el = lit.element
        if type(el) is ast.Comparison:
            terms += (el.left, el.right)
        else:
            terms += el.atom.args
            if el.time is not None:
                terms.append(el.time)
    return terms


def subterms(terms):
    """Every term of ``terms`` and inside them, each before its parts, in the order they are written."""
    stack = list(reversed(terms))
    while stack:
        term = stack.pop()
        yield term
        if isinstance(term, ast.Function):
            stack += reversed(term.args)
        elif type(term) is ast.BinOp:
            stack += (term.right, term.left)
        elif type(term) is ast.Interval:
            stack += (term.high, term.low)


def has_subterm(terms, kind) -> bool:
    """True if a term of ``kind`` (a class or a tuple of them) occurs in ``terms`` or inside them."""
    return any(isinstance(term, kind) for term in subterms(terms))


def transform(node, change):
    """``node`` (a rule, any part of it, or a tuple of them) with each part p for which ``change(p)``
    is not None replaced by that; the same object where nothing changes."""
    new = change(node)
    if new is not None:
        return new
    if isinstance(node, tuple):
        new = tuple(transform(part, change) for part in node)
        return node if all(map(is_, new, node)) else new
    if not isinstance(node, Node):  # a name, a number, a window kind, ...
        return node
    old = [getattr(node, name) for name in node._fields]
    new = [transform(value, change) for value in old]
    return node if all(map(is_, new, old)) else type(node)(*new)


def without_iris(node):
    """``node`` with every :class:`ast.Iri` as its plain function term ``iri("...")``, as the ASP
    encoders print it."""
    return transform(node, lambda n: ast.Function(n.name, n.args, n.location) if isinstance(n, ast.Iri) else None)
