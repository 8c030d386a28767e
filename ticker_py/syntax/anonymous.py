"""The anonymous variable ``_``: each occurrence is a fresh variable (``_Anon1``, ...), as in clingo;
it may stand in positive body atoms only (elsewhere it would be unsafe)."""

from __future__ import annotations

from itertools import count

from .. import ast
from ..errors import Diagnostic, ProgramError

__all__ = ["ANONYMOUS", "name_anonymous"]

ANONYMOUS = "_"


def _occurrences(term):
    """The ``_`` variables in a term."""
    stack = [term]
    while stack:
        t = stack.pop()
        if isinstance(t, ast.Variable) and t.name == ANONYMOUS:
            yield t
        elif isinstance(t, ast.Function):
            stack += t.args
        elif isinstance(t, ast.BinOp):
            stack += (t.left, t.right)
        elif isinstance(t, ast.Interval):
            stack += (t.low, t.high)


def _rename(term, fresh):
    if isinstance(term, ast.Variable) and term.name == ANONYMOUS:
        return ast.Variable(next(fresh), term.location)
    if isinstance(term, ast.Function):
        return term.replace(args=tuple(_rename(a, fresh) for a in term.args))
    if isinstance(term, ast.BinOp):
        return term.replace(left=_rename(term.left, fresh), right=_rename(term.right, fresh))
    if isinstance(term, ast.Interval):
        return term.replace(low=_rename(term.low, fresh), high=_rename(term.high, fresh))
    return term


def _terms(element):
    if isinstance(element, ast.Comparison):
        return [element.left, element.right]
    return list(element.atom.args) + ([element.time] if element.time is not None else [])


def name_anonymous(rule: ast.Rule) -> ast.Rule:
    """``rule`` with a fresh variable for each ``_``; raises ProgramError where ``_`` is unsafe."""
    misplaced = [(v, "a head") for t in _terms(rule.head) for v in _occurrences(t)] if rule.head else []
    found = False
    for lit in rule.body:
        where = "a negated literal" if lit.negated else "a comparison" if lit.is_comparison else None
        for t in _terms(lit.element):
            for v in _occurrences(t):
                found = True
                if where:
                    misplaced.append((v, where))
    if misplaced:
        raise ProgramError(
            [
                Diagnostic(
                    f"anonymous variable '_' in {where}",
                    v.location,
                    (
                        "'_' stands for a fresh variable: it may appear in positive body atoms only",
                        "name the variable and bind it in a positive body atom",
                    ),
                )
                for v, where in misplaced
            ]
        )
    if not found:
        return rule
    used = ast.rule_variables(rule)
    fresh = (name for name in (f"_Anon{i}" for i in count(1)) if name not in used)
    body = []
    for lit in rule.body:
        el = lit.element
        if not lit.is_comparison and not lit.negated:
            el = el.replace(
                atom=el.atom.replace(args=tuple(_rename(a, fresh) for a in el.atom.args)),
                time=None if el.time is None else _rename(el.time, fresh),
            )
        body.append(lit.replace(element=el))
    return rule.replace(body=tuple(body))
