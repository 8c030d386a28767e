"""Explanations: why an atom holds in an answer stream at tick (t, c), and why another does not.

An explanation is a function of the program, the window-covered stream up to (t, c) and the
answer stream at t, so it does not matter which engine computed the answer stream (docs/explain.md).

>>> from ticker_py.api import load_program
>>> from ticker_py.streams.model import Model
>>> a = load_program("alarm :- temp(V) in [2], V > 100.")
>>> e = explain(a, TickAnswer([(0, 1, ("temp", 120))], 1, 1, (Model(frozenset({("alarm",)})),)), "alarm")
>>> print(e)
why alarm: t=1 c=1, answer stream 1 of 1
  alarm at 1  <-  alarm :- temp(V) in [2], V > 100.  [V=120]  (<string>:1)
    temp(120) in [2]: window [0, 1], witness
      temp(120) arrived at t=0
    120 > 100: true
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product

from ..analysis import Analysis
from ..ast import Location
from ..errors import InternalError, UsageError
from ..semantics import DEFAULT, Persistence, Semantics
from ..streams.model import Model, in_printed_order
from ..syntax import parse_ground_atom
from ..syntax.ground_atoms import GroundSyntaxError
from ..values import format_atom
from ..windows import Windows
from .build import MAX_CANDIDATES, WHY_NOT_DEPTH, Builder
from .diagnose import no_answer_notes
from .text import as_written, parse_program_atom, prefixed
from .tree import Explanation, Node, node
from .world import World

__all__ = ["explain", "TickAnswer", "parse_query", "Explanation", "Node", "World", "MAX_CANDIDATES", "WHY_NOT_DEPTH"]

_AT = re.compile(r"^(.*\S)\s+at\s+(-?\d+)\s*$", re.S)


def parse_query(text: str | tuple, analysis: Analysis, where: str = "<atom>"):
    """``(atom, time or None)`` from ``"p(a,1)"`` or ``"p(a,1) at 7"``; checked against the program."""
    if isinstance(text, tuple):
        return _checked(text, None, analysis, where)
    time = None
    m = _AT.match(text)
    if m:
        text, time = m.group(1), int(m.group(2))
    try:
        atom = parse_ground_atom(text.strip())
    except GroundSyntaxError as err:
        atom = parse_program_atom(text.strip(), analysis.program.prefixes)  # s:t1, <http://…>
        if atom is None:
            col = err.column + 1
            loc = Location(where, 1, col, 1, col + 1)
            note = "give a ground atom such as p(a,1), optionally followed by 'at T'"
            raise UsageError.at(loc, f"bad atom '{text}': {err.message}", note) from None
    return _checked(atom, time, analysis, where)


def _checked(atom: tuple, time, analysis: Analysis, where: str):
    """``(atom, time)`` checked against the program's predicates."""
    sigs = analysis.signatures
    loc = Location(where, 1, 1, 1, len(format_atom(atom)) + 1)
    for new, name in analysis.renamed.items():  # p/2 of a name of several arities: its internal name
        if name == atom[0] and sigs[new] == len(atom) - 1:
            atom = (new, *atom[1:])
    if atom[0] not in sigs:
        note = f"the program's predicates: {', '.join(f'{p}/{k}' for p, k in sorted(sigs.items()))}"
        raise UsageError.at(loc, f"unknown predicate '{atom[0]}/{len(atom) - 1}'", note)
    if sigs[atom[0]] != len(atom) - 1:
        raise UsageError.at(loc, f"'{atom[0]}' has arity {sigs[atom[0]]} in the program, not {len(atom) - 1}")
    if time is not None and time < 0:
        raise UsageError.at(loc, f"time {time} is negative")
    return atom, time


@dataclass(frozen=True)
class TickAnswer:
    """The answer streams at tick (t, c) and what an explanation reads of the run that gave them:
    ``history``, ``(u, k, atom)`` stream atoms up to (t, c) (at least the window-covered ones), the
    ``semantics`` and where the timeline starts (``origin``)."""

    history: Sequence[tuple]
    t: int
    c: int
    models: Sequence[Model] | None
    semantics: Semantics = DEFAULT
    origin: int = 0


def explain(
    analysis: Analysis, tick: TickAnswer, atom, model: int = 1, why_not: bool = False, all_models: bool = True
) -> Explanation:
    """Explain ``atom`` (a tuple, or text ``"p(1)"`` / ``"p(1) at 3"``) in answer stream ``model``
    (1-based, in printed order) at ``tick``; ``all_models`` False: the first models an engine found.
    A UsageError says why a question has no explanation (for no answer stream: what makes it so)."""
    history, t, c, models = tick.history, tick.t, tick.c, tick.models
    if tick.semantics.persistence is Persistence.FEEDBACK:
        raise UsageError.at(
            None,
            "explanations do not read the atoms fed back under persistence=feedback (--persistence feedback)",
            "explain the program under persistence=recompute (--persistence recompute)",
        )
    atom, time = parse_query(atom, analysis)
    time = t if time is None else time
    windows = Windows(analysis, tick.semantics)
    if models is None:
        raise UsageError.at(None, "the answer streams at this tick were not kept (changes-only mode)")
    if not models:
        notes = no_answer_notes(analysis, history, t, c, windows, tick.origin)
        raise UsageError.at(None, f"no answer stream at t={t} c={c}: nothing to explain", *notes)
    if not 1 <= model <= len(models):
        there = "is 1 answer stream" if len(models) == 1 else f"are {len(models)} answer streams"
        message = f"answer stream {model} is out of range: there {there} at t={t}"
        raise UsageError.at(None, message, f"use 1..{len(models)}")
    models, bg = in_printed_order(set(models)), set(analysis.background)
    chosen = models[model - 1]  # its derived atoms (background and stream atoms left out) at t, and its pins
    derived = {(a, t) for a in chosen.atoms if a[0] in analysis.intensional and a not in bg}
    derived |= {(a, u) for a, u in chosen.pinned if a not in bg}
    world = with_cut(World(analysis, history, t, c, derived, windows, tick.origin))
    builder = Builder(world)
    stream_atom = atom[0] not in analysis.intensional
    holds = (
        atom in world.background
        or (atom, time) in world.derived
        or (stream_atom and any(o.time == time for o in world.occ.get(atom, ())))
    )
    prefixes = analysis.program.prefixes
    text = prefixed(format_atom(atom), prefixes)
    shown = text + ("" if time == t else f" at {time}")
    if why_not and holds:
        raise UsageError.at(None, f"{shown} holds at t={t} in answer stream {model}: ask why, not why not")
    if not why_not and not holds:
        note = "ask why it does not (--why-not; why_not=True in the API)"
        raise UsageError.at(None, f"{shown} does not hold at t={t} in answer stream {model}", note)
    if why_not:
        root = builder.why_not(atom, time, WHY_NOT_DEPTH)
    elif atom in world.background:
        root = node("fact", f"{text}: background fact", atom=atom)
    elif stream_atom:
        o = next(o for o in world.occ[atom] if o.time == time)
        root = node("input", f"{text} arrived at t={time} (#{o.count})", atom=atom, time=time, count=o.count)
    else:
        root = builder.why(atom, time)
    root = as_written(root, prefixes, analysis.renamed)
    atom = (analysis.renamed.get(atom[0], atom[0]), *atom[1:])
    question = "why-not" if why_not else "why"
    assumed = tuple(builder.assumptions)
    return Explanation(question, atom, time, t, c, model, len(models), root, assumed, all_models, prefixes)


def with_cut(world: World) -> World:
    """The world with the contents of the tuple windows (several under ``tuple_ties=choice``) under
    which its answer stream is one of the program."""
    keys = world.tuple_keys()
    alternatives = [world.tuple_alternatives(k) for k in keys]
    if all(len(a) <= 1 for a in alternatives):
        return world
    for contents in product(*alternatives):
        chosen = world.with_cut(dict(zip(keys, contents)))
        if Builder(chosen).is_answer_stream():
            return chosen
    raise InternalError(
        f"the answer stream at t={world.t} c={world.c} is not one of the program under any choice of the"
        " tuple windows' contents"
    )
