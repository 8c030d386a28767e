"""Background facts: the ground atoms of a program's facts (the analysis finds the other roles)."""

from __future__ import annotations

import itertools

from ..errors import Diagnostic, StreamError
from ..limits import MAX_FACT_ATOMS
from ..values import TooManyValues, expanded

__all__ = ["background_atoms"]


def background_atoms(facts, diagnostics: list) -> tuple:
    """The ground atoms of ground ``facts``, intervals expanded; facts hold at every time point.
    A fact too large or not evaluable is reported (once) and left out."""
    out = []
    for rule in facts:
        atom, choices, size = rule.head.atom, [], 1
        for arg in atom.args:
            try:
                values = expanded(arg)
            except TooManyValues:
                values = ()
            except StreamError as err:  # a value longer than any integer may be
                diagnostics.extend(err.diagnostics)
                break
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
                break
            if values is None:
                diagnostics.append(Diagnostic(f"cannot evaluate term '{arg}' in a fact", atom.location))
                break
            choices.append(values)
        else:
            out.extend((atom.predicate, *combo) for combo in itertools.product(*choices))
    return tuple(dict.fromkeys(out))
