"""Rule safety: every variable must be bound by a positive body atom (or ``V = expr``)."""

from __future__ import annotations

from .. import ast
from ..errors import Diagnostic

__all__ = ["binding_variables", "check_safety", "unsafe_variables"]


def _binding_vars(terms, out: set) -> set:
    """Add the variables the terms bind when matched to ``out``: plain variables and those
    inside function terms (not in arithmetic)."""
    stack = list(terms)
    while stack:
        term = stack.pop()
        if type(term) is ast.Variable:
            out.add(term.name)
        elif isinstance(term, ast.Function):
            stack += term.args
    return out


def binding_variables(element: ast.ExtendedAtom) -> set:
    """Variables bound by a positive extended atom."""
    out = _binding_vars(element.atom.args, set())
    return out if element.time is None else _binding_vars((element.time,), out)


def bound_variables(rule: ast.Rule) -> set:
    """The variables of a rule that its positive body binds (assignments to a fixpoint)."""
    bound: set = set()
    assignments = []
    for lit in rule.body:
        if lit.negated:
            continue
        el = lit.element
        if type(el) is ast.Comparison:
            if el.op == "=":
                assignments.append(el)
        else:
            _binding_vars(el.atom.args, bound)
            if el.time is not None:
                _binding_vars((el.time,), bound)
    changed = bool(assignments)
    while changed:
        changed = False
        for cmp in assignments:
            for var, expr in ((cmp.left, cmp.right), (cmp.right, cmp.left)):
                if isinstance(var, ast.Variable) and var.name not in bound and ast.term_variables(expr) <= bound:
                    bound.add(var.name)
                    changed = True
    return bound


def _occurrences(term, name):
    if isinstance(term, ast.Variable) and term.name == name:
        yield term
    for child in getattr(term, "args", ()) or ():
        yield from _occurrences(child, name)
    for attr in ("left", "right", "low", "high"):
        child = getattr(term, attr, None)
        if child is not None:
            yield from _occurrences(child, name)


def _first_location(rule: ast.Rule, name: str):
    terms = []
    if rule.head is not None:
        terms += list(rule.head.atom.args) + ([rule.head.time] if rule.head.time is not None else [])
    for lit in rule.body:
        el = lit.element
        if isinstance(el, ast.Comparison):
            terms += [el.left, el.right]
        else:
            terms += list(el.atom.args) + ([el.time] if el.time is not None else [])
    for t in terms:
        for occ in _occurrences(t, name):
            if occ.location is not None:
                return occ.location
    return rule.location


def check_safety(rule: ast.Rule, diagnostics: list) -> None:
    """Report each unsafe variable of a (non-fact) rule, located at its first occurrence."""
    for name in sorted(unsafe_variables(rule)):
        if name.startswith("_") and name.strip("_") == "":
            continue
        diagnostics.append(
            Diagnostic(
                f"unsafe variable '{name}'",
                _first_location(rule, name),
                (
                    f"in rule: {rule}",
                    "a variable must occur in a positive body atom (not only under 'not', in comparisons"
                    " or in arithmetic), or be assigned with 'V = expression' from bound variables",
                ),
            )
        )


def unsafe_variables(rule: ast.Rule) -> set:
    """``rule_variables(rule) - bound_variables(rule)`` in one walk: the variables a positive
    atom binds at a plain argument need no second look."""
    bound: set = set()
    rest: list = []  # terms whose variables must be bound
    assignments = False
    head = rule.head
    if head is not None:
        rest += head.atom.args
        if head.time is not None:
            rest.append(head.time)
    for lit in rule.body:
        el = lit.element
        if type(el) is ast.Comparison:
            rest += (el.left, el.right)
            assignments = assignments or (el.op == "=" and not lit.negated)
            continue
        if lit.negated:
            rest += el.atom.args
        else:
            for arg in el.atom.args:
                if type(arg) is ast.Variable:
                    bound.add(arg.name)
                else:
                    rest.append(arg)
                    _binding_vars((arg,), bound)
        if el.time is not None:
            rest.append(el.time)
            if not lit.negated:
                _binding_vars((el.time,), bound)
    unsafe = ast.variables_of(rest) - bound
    if unsafe and assignments:
        unsafe -= bound_variables(rule)
    return unsafe
