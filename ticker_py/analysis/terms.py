"""The walks over a rule's terms that the analysis makes: its terms, their subterms, IRIs as plain terms."""

from __future__ import annotations

from .. import ast

__all__ = ["rule_terms", "subterms", "has_subterm", "without_iris"]


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


def without_iris(node):
    """``node`` with every :class:`ast.Iri` as its plain function term ``iri("...")``, as the ASP
    encoders print it."""
    return ast.transform(node, lambda n: ast.Function(n.name, n.args, n.location) if isinstance(n, ast.Iri) else None)
