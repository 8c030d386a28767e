"""Why a tick has no answer stream, as far as it can be found cheaply.

One step of the alternating fixpoint: ``upper`` is the least fixpoint with every ``not`` taken
as true (no answer stream derives more), ``lower`` the least fixpoint with ``not`` read in
``upper`` (every answer stream derives at least this). A constraint whose positive body holds
in ``lower`` and whose ``not`` literals hold in ``upper`` rules out every answer stream;
otherwise the atoms between the bounds are the undecided ones and the cycles through negation
among them are named.
"""

from __future__ import annotations

from ..analysis import Analysis
from ..values import format_atom
from .build import Builder, binding_text
from .world import UNDEF, World, value

__all__ = ["no_answer_notes", "fixpoint"]

#: the diagnosis gives up beyond this many derivable atoms
LIMIT = 5000


def fixpoint(analysis: Analysis, history, t: int, c: int, negation=None, ignore_negation=False):
    """The least set of derived (atom, time) pairs closed under the rules, ``not`` read in the
    world ``negation`` (or ignored); None if it grows beyond LIMIT."""
    derived: set = set()
    rules = [r for r in analysis.program.proper_rules if r.head is not None]
    bg = set(analysis.background)
    while True:
        world = World(analysis, history, t, c, derived)
        builder = Builder(world, negation, ignore_negation)
        new = set()
        for rule in rules:
            for sigma, _, failed in builder.search(rule, {}):
                if failed:
                    continue
                args = [value(a, sigma) for a in rule.head.atom.args]
                u = t if rule.head.time is None else value(rule.head.time, sigma)
                if UNDEF in args or type(u) is not int or u < 0:
                    continue
                atom = (rule.head.atom.predicate, *args)
                if atom not in bg and (atom, u) not in derived:
                    new.add((atom, u))
        if not new:
            return derived
        derived |= new
        if len(derived) > LIMIT:
            return None


def no_answer_notes(analysis: Analysis, history, t: int, c: int) -> list:
    """Notes saying which constraint or cycle through negation leaves no answer stream."""
    upper = fixpoint(analysis, history, t, c, ignore_negation=True)
    if upper is None:
        return ["too many derivable atoms to look for the cause"]
    upper_world = World(analysis, history, t, c, upper)
    lower = fixpoint(analysis, history, t, c, negation=upper_world)
    lower_world = World(analysis, history, t, c, lower)
    notes = []
    for rule in analysis.program.rules:
        if rule.head is not None:
            continue
        builder = Builder(lower_world, upper_world)
        for sigma, _, failed in builder.search(rule, {}):
            if not failed:
                bind = f" with {binding_text(sigma)}" if sigma else ""
                notes.append(f"{rule.location}: the constraint '{rule}'{bind} is violated in every candidate")
                break
    if notes:
        return notes
    undecided = sorted(upper - lower, key=lambda au: (au[1], format_atom(au[0])))
    if undecided:
        shown = ", ".join(f"{format_atom(a)} at {u}" for a, u in undecided[:8])
        notes.append(
            f"undecided atoms: {shown}{' ...' if len(undecided) > 8 else ''}; no choice among them"
            " is stable and satisfies the constraints"
        )
    for e in analysis.negative_cycle:
        notes.append(
            f"{e.element.location}: '{e.head}' depends negatively on '{e.body}' through a cycle"
            " (an odd cycle through negation has no answer stream)"
        )
    constraints = [r for r in analysis.program.rules if r.head is None]
    for r in constraints:
        notes.append(f"{r.location}: constraint '{r}' may rule out the remaining choices")
    return notes or ["the cause was not found cheaply"]
