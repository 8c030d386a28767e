"""Why a tick has no answer stream, as far as it can be found cheaply.

One step of the alternating fixpoint: ``upper`` is the least fixpoint with every ``not`` true (no
answer stream derives more), ``lower`` the least fixpoint with ``not`` read in ``upper`` (every
answer stream derives at least this). A constraint whose body holds between them rules out every
answer stream. Else every choice among up to :data:`CHOICES` undecided atoms is tried (stable: it
derives exactly itself), naming the constraints that fail in each; beyond that, the cycles through
negation and the constraints are listed.
"""

from __future__ import annotations

from itertools import chain, combinations

from ..analysis import Analysis
from ..values import format_atom
from .build import Builder, binding_text
from .text import prefixed
from .world import World

__all__ = ["no_answer_notes", "fixpoint"]

#: the diagnosis gives up beyond this many derivable atoms
LIMIT = 5000
#: the diagnosis tries every choice among at most this many undecided atoms
CHOICES = 10


def fixpoint(analysis: Analysis, world_of, negation=None, ignore_negation=False):
    """The least set of derived (atom, time) pairs closed under the rules, ``not`` read in the
    world ``negation`` (or ignored); None beyond LIMIT. ``world_of(derived)``: the world at the tick."""
    derived: set = set()
    rules = [r for r in analysis.program.proper_rules if r.head is not None]
    bg = set(analysis.background)
    while True:
        builder = Builder(world_of(derived), negation, ignore_negation)
        heads = (head for rule in rules for head in builder.heads(rule))
        new = {(atom, u) for atom, u in heads if u >= 0 and atom not in bg} - derived
        if not new:
            return derived
        derived |= new
        if len(derived) > LIMIT:
            return None


def no_answer_notes(analysis: Analysis, history, t: int, c: int, windows, origin: int) -> list:
    """Notes naming what leaves no answer stream (the module doc says how)."""
    prefixes = analysis.program.prefixes

    def world_of(derived) -> World:
        return World(analysis, history, t, c, derived, windows, origin)

    upper = fixpoint(analysis, world_of, ignore_negation=True)
    if upper is None:
        return ["too many derivable atoms to look for the cause"]
    upper_world = world_of(upper)
    lower = fixpoint(analysis, world_of, negation=upper_world)
    lower_world = world_of(lower)
    constraints = [r for r in analysis.program.rules if r.head is None]
    notes = []
    for rule in constraints:
        found = _violation(rule, Builder(lower_world, upper_world))
        if found is not None:
            notes.append(
                f"{rule.location}: the constraint '{rule}'{_with(found, prefixes)} is violated in every candidate"
            )
    if notes:  # (lower lies within upper: it never grows beyond LIMIT)
        return notes
    undecided = sorted(upper - lower, key=lambda au: (au[1], format_atom(au[0])))
    shown = _atoms_text(undecided, prefixes)
    if undecided and len(undecided) <= CHOICES:
        return _choice_notes(analysis, world_of, lower, undecided, constraints, shown)
    stable = "no choice among them is stable and satisfies the constraints"
    notes = [f"undecided atoms: {shown}; {stable}"] if undecided else []
    notes += _cycles(analysis)
    notes += [f"{r.location}: constraint '{r}' may rule out the remaining choices" for r in constraints]
    return notes or ["the cause was not found cheaply"]


def _cycles(analysis) -> list:
    return [
        f"{e.element.location}: '{e.head}' depends negatively on '{e.body}' through a cycle"
        for e in analysis.negative_cycle
    ]


def _violation(rule, builder: Builder):
    return next((sigma for sigma, _ in builder.holding(rule)), None)


def _with(sigma, prefixes) -> str:
    return f" with {prefixed(binding_text(sigma), prefixes)}" if sigma else ""


def _atoms_text(pairs, prefixes, limit: int = 8) -> str:
    text = ", ".join(prefixed(f"{format_atom(a)} at {u}", prefixes) for a, u in pairs[:limit])
    return text + (" ..." if len(pairs) > limit else "")


def _choice_notes(analysis, world_of, lower, undecided, constraints, shown) -> list:
    """Every choice among the undecided atoms: which are stable, and which constraints rule out each."""
    prefixes = analysis.program.prefixes
    stable, failing = [], {}
    for chosen in chain.from_iterable(combinations(undecided, k) for k in range(len(undecided) + 1)):
        candidate = lower | set(chosen)
        world = world_of(candidate)
        if fixpoint(analysis, world_of, negation=world) != candidate:
            continue  # not stable: it does not derive exactly itself
        stable.append(chosen)
        for rule in constraints:
            found = _violation(rule, Builder(world))
            if found is not None:
                failing.setdefault(rule, []).append((chosen, found))
    if not stable:
        return [
            f"undecided atoms: {shown}; no choice among them is stable, with or without the constraints "
            "(a cycle through negation with an odd number of negations)",
            *_cycles(analysis),
        ]
    notes = [
        f"undecided atoms: {shown}; {len(stable)} choice{'s' * (len(stable) != 1)} among them "
        f"{'are' if len(stable) != 1 else 'is'} stable, and constraints rule out every one"
    ]
    for rule, killed in failing.items():
        chosen, sigma = killed[0]
        example = _atoms_text(sorted(chosen, key=lambda au: (au[1], format_atom(au[0]))), prefixes) or "none"
        notes.append(
            f"{rule.location}: the constraint '{rule}' fails in {len(killed)} of them"
            f" (e.g. choosing {example}{_with(sigma, prefixes)})"
        )
    if len({chosen for killed in failing.values() for chosen, _ in killed}) < len(stable):
        notes.append("a stable choice satisfies every constraint here: the cause was not found cheaply")
    return notes
