"""Rule safety: every variable must be bound by a positive body atom (or ``V = expr``)."""

from __future__ import annotations

from .. import ast
from ..errors import Diagnostic
from .terms import rule_terms, subterms

__all__ = ["check_safety", "unsafe_variables"]


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
    while changed:  # V = expr binds V once expr's variables are bound
        changed = False
        for cmp in assignments:
            for var, expr in ((cmp.left, cmp.right), (cmp.right, cmp.left)):
                if isinstance(var, ast.Variable) and var.name not in bound and ast.term_variables(expr) <= bound:
                    bound.add(var.name)
                    changed = True
    return bound


def _first_location(rule: ast.Rule, name: str):
    terms = subterms(rule_terms(rule))
    return next((t.location for t in terms if type(t) is ast.Variable and t.name == name and t.location), rule.location)


def check_safety(rule: ast.Rule, diagnostics: list) -> bool:
    """Report each unsafe variable of a rule, located at its first occurrence; of a fact, which
    must be ground, the first by name, located at the fact. False if the rule has one."""
    unsafe = unsafe_variables(rule)
    if unsafe and rule.is_fact:
        why = ("a fact must be ground: it holds at every time point",)
        diagnostics.append(Diagnostic(f"unsafe variable '{min(unsafe)}' in a fact", rule.head.atom.location, why))
        return False
    for name in sorted(unsafe):
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
    return not unsafe


def unsafe_variables(rule: ast.Rule) -> set:
    """The variables of a rule that its positive body does not bind."""
    names = ast.rule_variables(rule)
    return names - bound_variables(rule) if names else names  # most facts have none
