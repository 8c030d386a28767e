"""The incremental encoding (Ticker paper, Alg. 2): annotated rules for multi-shot solving.

Atoms are split in two kinds:

- *shared* atoms never change once known and live as facts in one clingo Control across
  evaluation ticks: input atoms pinned to their time ``p(args,U)`` and count
  ``p(args,U,K)``, ``_tick(U,K)``, background facts ``_bg_p(args)`` and the background
  atoms pinned to every time point ``p(args,U)``;
- *tick* atoms are the derived ones (intensional atoms, window atoms, ``_now/_cnt/_time``):
  each rule is pinned to its evaluation tick by one extra argument ``_e`` (the tick's
  sequence number), so its atoms are new at every tick and expire with it (duration 0).

The window rules are the static ones (:mod:`ticker_py.encode.windows`) pinned to the tick;
each encoder states how long the input atoms they read stay relevant (time windows: n time
points after U; tuple windows: until n more atoms arrived), which is when the engine
forgets them. Rules that can make a choice (in a cycle through negation) and constraints are
guarded by ``_g(_e)``, released after the tick, so that expired ticks stay fixed.

>>> from ticker_py.syntax import parse_program
>>> from ticker_py.analysis import analyse
>>> print(encode_incremental(analyse(parse_program("q(X) :- p(X) in [3]."))).program.strip())
q(X,N,_e) :- _now(N,_e), _d3_p(X,_e).
_d3_p(A1,_e) :- _now(N,_e), p(A1,U), N-3 <= U, U <= N.
#show.
#show q(A1,A2) : q(A1,A2,_e), _g(_e).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, partial

from .. import ast
from ..analysis import Analysis
from ..semantics import DEFAULT, Semantics
from ..windows import Windows, before_now, from_origin
from .asp import AspRule, NafLiteral, ShowNothing, ShowTerm, Symbol, program_text
from .static import background_fact, background_rules, translate_rule, window_uses
from .windows.base import N, U, arg_vars, now
from .windows.tuple import contents_rules, start_rules

__all__ = ["IncrementalEncoding", "encode_incremental", "pin_rule", "TICK", "GUARD"]

TICK = "_e"  # the part parameter: the evaluation tick's sequence number
GUARD = "_g"  # _g(e): the tick is current (released after it)

_TICK = ast.Variable(TICK)
_GUARDED = NafLiteral(ast.Atom(GUARD, (_TICK,)))


def _pin_atom(atom: ast.Atom, shared) -> ast.Atom:
    return atom if atom.signature in shared else ast.Atom(atom.predicate, atom.args + (_TICK,))


def pin_rule(rule: AspRule, shared, guard: bool = False) -> AspRule:
    """``rule`` pinned to the evaluation tick: ``_e`` appended to every atom whose signature
    is not in ``shared`` (comparisons unchanged); with ``guard`` the body starts with ``_g(_e)``."""
    head = None if rule.head is None else _pin_atom(rule.head, shared)
    body = tuple(
        NafLiteral(_pin_atom(lit.atom, shared), lit.negated) if isinstance(lit.atom, ast.Atom) else lit
        for lit in rule.body
    )
    return AspRule(head, (_GUARDED,) + body if guard else body)


@dataclass(frozen=True)
class IncrementalEncoding:
    """The tick-pinned program and its annotations.

    ``program`` is the ``#program`` part grounded once per evaluation tick with parameter
    ``_e`` (facts ``_now(t,_e)``, ``_cnt(c,_e)`` and ``#external _g(_e)`` come with it);
    ``show_inputs`` the ``#show`` terms for input atoms at t (``--show all``);
    ``background_atoms`` the background atoms, shared facts ``_bg_p(args)`` grounded once
    (:attr:`background`); ``timed_background`` those to pin to every time point;
    ``tick_pinned`` the predicates whose input atoms also carry their count; ``annotated``
    every tick statement
    (:mod:`~ticker_py.encode.asp` value) with its note; ``split`` the ``(lower, upper)``
    predicates of the analysis.
    """

    program: str
    show_inputs: str
    background_atoms: tuple
    timed_background: tuple
    tick_pinned: frozenset
    annotated: tuple
    split: tuple = (frozenset(), frozenset())

    @cached_property
    def background(self) -> str:
        """The shared background facts' text."""
        return program_text(background_fact(a) for a in self.background_atoms)

    def shared(self) -> list:
        """The shared facts as statements with their notes (built when printed: the engine needs none)."""
        every_time = ast.Variable("U")
        return [(background_fact(a), "shared") for a in self.background_atoms] + [
            (AspRule(ast.Atom(a[0], tuple(map(Symbol, a[1:])) + (every_time,))), "shared, added for every time point U")
            for a in self.timed_background
        ]

    def __str__(self) -> str:
        lower, upper = (", ".join(sorted(s)) or "none" for s in self.split)
        lines = [
            "% incremental encoding: rules pinned to evaluation tick _e (time t, count c);",
            "% per tick: _now(t,_e). _cnt(c,_e). #external _g(_e).",
            "% shared facts, added once: input p(args,U) [and p(args,U,K), _tick(U,K)], background",
            f"% default engine (native prefix): lower part evaluated natively: {lower};",
            f"% upper part and constraints solved by clingo per tick: {upper}",
            "% (--engine incremental-pure solves all rules below with clingo)",
        ]
        for statement, note in list(self.annotated) + self.shared():
            lines.append(f"{statement}  % {note}" if note else str(statement))
        return "\n".join(lines) + "\n"


def past_background_rule(pred: str, arity: int, lookback) -> AspRule:
    """``p(A..,U) :- _bg_p(A..), _now(N), U = N-l..N-1, U >= 0.``: a background atom of an
    intensional predicate at the past time points a window or @-atom reads (l: the look-back)."""
    a = arg_vars(arity)
    low, high = before_now(N, 0 if lookback is None else lookback)
    return AspRule.of(
        ast.Atom(pred, a + (U,)),
        ast.Atom(f"_bg_{pred}", a),
        now(),
        ast.Comparison("=", U, ast.Interval(ast.Number(0) if lookback is None else low, high)),
        from_origin(U, 0),
    )


def encode_incremental(analysis: Analysis, sem: Semantics = DEFAULT) -> IncrementalEncoding:
    """The incremental encoding of an analysed program (Alg. 2), under the semantics knobs the
    incremental engines run (window bounds; duplicates live in the stream)."""
    sigs = analysis.signatures
    bg_preds = sorted({a[0] for a in analysis.background})
    uses = window_uses(analysis, sem)
    tuples = sorted({(p, n) for enc, p, n in uses if enc.kind == ast.WindowKind.TUPLE})
    shared = {("_tick", 2)} | {(f"_bg_{p}", sigs[p]) for p in bg_preds}
    for p in analysis.extensional:
        shared |= {(p, sigs[p] + 1), (p, sigs[p] + 2)}
    pin = partial(pin_rule, shared=shared)
    annotated = []

    for rule in analysis.program.proper_rules:
        guarded = rule.head is None or rule.head.atom.predicate in analysis.choice
        note = "tick rule, duration 0" + (", guarded" if guarded else "")
        annotated.append((pin(translate_rule(rule, analysis, sem), guard=guarded), note))

    for n in sorted({n for _, n in tuples}):
        annotated += [(pin(r), f"tuple window start: atom C-{n}+1 expires at count C+1") for r in start_rules(n)]
    for pred, n in tuples:
        annotated += [
            (pin(r), f"tuple window contents: {pred} atom with count K expires at count K+{n}")
            for r in contents_rules(pred, sigs[pred], n, pred in bg_preds)
        ]
    for enc, pred, n in uses:
        annotated += enc.incremental_rules(pred, sigs[pred], n, pred in bg_preds, pin)

    timed_preds = {p for enc, p, n in uses if enc.kind in ("time", "none")}
    for pred in bg_preds:
        if pred in analysis.intensional:
            annotated.append((pin(background_rules(pred, sigs[pred])[0]), "background of an intensional predicate"))
            if pred in timed_preds:  # read at past time points too (through @ or a time window)
                annotated.append(
                    (
                        pin(past_background_rule(pred, sigs[pred], Windows(analysis, sem).lookback)),
                        "background of an intensional predicate, at the past time points read",
                    )
                )
    timed = tuple(a for a in analysis.background if a[0] not in analysis.intensional)

    annotated.append((ShowNothing(), "only the current tick's atoms are shown:"))
    for p in sorted(analysis.intensional):
        v = arg_vars(sigs[p] + 1)
        annotated.append((ShowTerm(ast.Atom(p, v), (NafLiteral(ast.Atom(p, v + (_TICK,))), _GUARDED)), ""))
    show_inputs = []
    for p in sorted(analysis.extensional):
        v = arg_vars(sigs[p] + 1)
        now = NafLiteral(ast.Atom("_now", (v[-1], _TICK)))
        show_inputs.append(ShowTerm(ast.Atom(p, v), (NafLiteral(ast.Atom(p, v)), now, _GUARDED)))

    program = program_text(s for s, _ in annotated)
    return IncrementalEncoding(
        program,
        program_text(show_inputs),
        analysis.background,
        timed,
        frozenset(p for p, _ in tuples),
        tuple(annotated),
        (analysis.lower, analysis.upper),
    )
