"""Background facts: the ground atoms of a program's facts (the analysis finds the other roles)."""

from __future__ import annotations

import itertools

from .. import ast
from ..errors import Diagnostic, StreamError
from ..limits import MAX_FACT_ATOMS
from ..values import TooManyValues, expanded

__all__ = ["background_atoms"]


def background_atoms(facts, diagnostics: list) -> tuple:
    """The ground atoms of ground ``facts``, intervals expanded; facts hold at every time point."""
    out = []
    for rule in facts:
        atom = rule.head.atom
        choices = _choices(atom, diagnostics)
        if choices is not None:
            out.extend((atom.predicate, *combo) for combo in itertools.product(*choices))
    return tuple(dict.fromkeys(out))


def _choices(atom: ast.Atom, diagnostics: list) -> list | None:
    """The values of each argument of a ground fact; None once the first problem is reported."""
    choices, size = [], 1
    for arg in atom.args:
        try:
            values = expanded(arg)
        except TooManyValues:
            values = ()
        except StreamError as err:  # a value longer than any integer may be
            diagnostics.extend(err.diagnostics)
            return None
        size *= len(values or ())
        if values == () or size > MAX_FACT_ATOMS:
            diagnostics.append(
                Diagnostic(
                    f"fact '{atom}' has more than {MAX_FACT_ATOMS:,} instances",
                    atom.location,
                    (
                        "intervals in facts are expanded when the program is loaded",
                        "give large domains as a stream or background file instead",
                    ),
                )
            )
            return None
        if values is None:
            diagnostics.append(Diagnostic(f"cannot evaluate term '{arg}' in a fact", atom.location))
            return None
        choices.append(values)
    return choices
