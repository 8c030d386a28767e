"""Background facts: the ground atoms of a program's facts (the analysis finds the other roles)."""

from __future__ import annotations

import itertools
import math

from .. import ast
from ..errors import Diagnostic, StreamError
from ..limits import MAX_FACT_ATOMS
from ..values import computed, from_ast_term

__all__ = ["background_atoms"]


def background_atoms(program: ast.Program, diagnostics: list) -> tuple:
    """The ground atoms of all facts, intervals expanded; facts hold at every time point."""
    out = []
    for rule in program.facts:
        atom = rule.head.atom
        if ast.atom_variables(atom):
            var = sorted(ast.atom_variables(atom))[0]
            diagnostics.append(
                Diagnostic(
                    f"unsafe variable '{var}' in a fact",
                    atom.location,
                    ("a fact must be ground: it holds at every time point",),
                )
            )
            continue
        choices = []
        ok = True
        size = 1
        for arg in atom.args:
            try:
                values = _expand(arg)
            except _TooMany:
                values = ()
            except StreamError as err:  # a value longer than any integer may be
                diagnostics.extend(err.diagnostics)
                ok = False
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
                ok = False
                break
            if values is None:
                diagnostics.append(Diagnostic(f"cannot evaluate term '{arg}' in a fact", atom.location))
                ok = False
                break
            choices.append(values)
        if ok:
            out.extend((atom.predicate, *combo) for combo in itertools.product(*choices))
    return tuple(dict.fromkeys(out))


class _TooMany(Exception):
    """An interval of a fact is longer than MAX_FACT_ATOMS."""


def _expand(term):
    """All ground values of a fact argument (intervals give several)."""
    if isinstance(term, ast.Interval):
        lo, hi = _expand(term.low), _expand(term.high)
        if not lo or not hi or len(lo) != 1 or len(hi) != 1 or type(lo[0]) is not int or type(hi[0]) is not int:
            return None
        if hi[0] - lo[0] >= MAX_FACT_ATOMS:
            raise _TooMany
        return list(range(lo[0], hi[0] + 1))
    if isinstance(term, ast.BinOp):
        a, b = _expand(term.left), _expand(term.right)
        if a is None or b is None:
            return None
        if len(a) * len(b) > MAX_FACT_ATOMS:
            raise _TooMany
        vals = [computed(term.op, x, y, term) for x in a for y in b]
        return None if any(v is None for v in vals) else vals
    if isinstance(term, ast.Function):
        parts = [_expand(a) for a in term.args]
        if any(p is None for p in parts):
            return None
        if math.prod(map(len, parts)) > MAX_FACT_ATOMS:
            raise _TooMany
        return [(term.name, *combo) for combo in itertools.product(*parts)]
    return [from_ast_term(term)]
