"""The anonymous variable ``_``: each occurrence is a fresh variable (``_Anon1``, ...), as in clingo;
it may stand in positive body atoms only (elsewhere it would be unsafe)."""

from __future__ import annotations

from itertools import count

from .. import ast
from ..errors import Diagnostic, ProgramError

__all__ = ["ANONYMOUS", "name_anonymous"]

ANONYMOUS = "_"


def name_anonymous(rule: ast.Rule) -> ast.Rule:
    """``rule`` with a fresh variable for each ``_``; raises ProgramError where ``_`` is unsafe."""
    used = ast.rule_variables(rule)
    fresh = (name for name in (f"_Anon{i}" for i in count(1)) if name not in used)
    misplaced = []  # (the variable, where it stands)

    def renamed(element, where: str | None):
        def rename(term):
            if type(term) is ast.Variable and term.name == ANONYMOUS:
                if where:
                    misplaced.append((term, where))
                return ast.Variable(next(fresh), term.location)
            return None

        return ast.transform(element, rename)

    if rule.head is not None:
        renamed(rule.head, "a head")
    body = []
    for lit in rule.body:
        where = "a negated literal" if lit.negated else "a comparison" if lit.is_comparison else None
        body.append(lit.replace(element=renamed(lit.element, where)))
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
    return rule.replace(body=tuple(body))
