"""The static encoding (Ticker paper, Alg. 1): a LARS program as ASP for one evaluation tick.

The rules are the same at every tick; only the facts change: ``_now(t)``, ``_cnt(c)``,
``_time(lo..t)`` and the stream atoms in the window-covered range, time-pinned
``p(args,U)`` and, for predicates under tuple windows, tick-pinned ``p(args,U,K)`` with
``_tick(U,K)``.

>>> from ticker_py.syntax import parse_program
>>> from ticker_py.analysis import analyse
>>> enc = encode_static(analyse(parse_program("q(X) :- p(X) in [3].")))
>>> print(enc.rules.strip())
q(X,N) :- _now(N), _d3_p(X).
_d3_p(A1) :- _now(N), p(A1,U), N-3 <= U, U <= N.
#show q/2.
#show p/2.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from .. import ast
from ..analysis import Analysis
from ..limits import CLINGO_MAX
from ..semantics import DEFAULT, FutureHeads, Semantics, TupleScope
from ..values import clingo_atom, format_term, int_text
from ..windows import Windows, from_origin
from .asp import AspRule, NafLiteral, Show, Symbol, program_text, time_facts
from .windows import encoder_for
from .windows.base import N, U, arg_vars, now, origin
from .windows.tuple import contents_rules, scope_rules, start_rules

__all__ = ["StaticEncoding", "encode_static", "fresh_variable", "translate_rule", "window_uses", "background_rules"]


@dataclass(frozen=True)
class StaticEncoding:
    """The ASP statements of a program, and the predicates whose atoms are also tick-pinned."""

    statements: tuple
    tick_pinned: frozenset

    @cached_property
    def rules(self) -> str:
        """The program text."""
        return program_text(self.statements)

    @cached_property
    def timeline(self) -> bool:
        """Whether a rule reads the timeline ``_time(U)`` (then the facts list its time points)."""
        return any(
            isinstance(lit.atom, ast.Atom) and lit.atom.predicate == "_time"
            for s in self.statements
            if isinstance(s, AspRule)
            for lit in s.body
        )

    def facts(self, t: int, c: int | None, lo: int, atoms, origin: int | None = None, fed=(), d: int = 0) -> str:
        """The facts for tick (t, c), one a line: ``atoms`` are ``(U, K, atom)`` in the covered
        range, as clingo holds them; ``c`` None: no count is written; ``origin``: the
        ``_origin(o)`` fact; ``fed``: ``(U, atom)`` pairs fed back (``persistence=feedback``);
        ``d``: times are written less d. Integers beyond 32 bits are written as ``_int`` symbols."""
        text = str if t - d <= CLINGO_MAX and (c or 0) <= CLINGO_MAX else int_text
        out = [f"_now({text(t - d)})." + ("" if c is None else f" _cnt({text(c)}).")]
        if self.timeline:
            out.append(time_facts(lo - d, t - d))
        if origin is not None:
            out.append(f"_origin({text(origin)}).")
        for u, atom in fed:
            args = ",".join(format_term(a) for a in atom[1:]) + ("," if len(atom) > 1 else "")
            out.append(f"{atom[0]}({args}{text(u)}).")
        pinned, tick = self.tick_pinned, c is not None and bool(self.tick_pinned)
        for u, k, atom in atoms:
            args = ",".join(format_term(a) for a in atom[1:])
            sep = "," if args else ""
            u, k = text(u - d), text(k)
            out.append(f"{atom[0]}({args}{sep}{u}).")
            if atom[0] in pinned:
                out.append(f"{atom[0]}({args}{sep}{u},{k}).")
            if tick:
                out.append(f"_tick({u},{k}).")
        return "\n".join(out)


def fresh_variable(rule: ast.Rule, base: str) -> str:
    """A variable name not used in ``rule``: ``base``, ``base0``, ``base1``, ..."""
    used = ast.rule_variables(rule)
    name, i = base, 0
    while name in used:
        name, i = f"{base}{i}", i + 1
    return name


def window_reach(el: ast.ExtendedAtom, analysis: Analysis, sem: Semantics = DEFAULT) -> int:
    """The n of an extended atom's window in the encodings (:meth:`ticker_py.windows.Windows.reach`; 0: none)."""
    return Windows(analysis, sem).reach(el.window) or 0


def translate_literal(lit: ast.Literal, analysis: Analysis, now_var: ast.Variable, sem: Semantics = DEFAULT):
    """One body literal in ASP (a :class:`NafLiteral`), reading the evaluation time from ``now_var``."""
    el = lit.element
    if isinstance(el, ast.Comparison):
        return NafLiteral(el, lit.negated)
    if el.modality == ast.NOW:
        return NafLiteral(ast.Atom(el.atom.predicate, el.atom.args + (now_var,)), lit.negated)
    n = window_reach(el, analysis, sem)
    return NafLiteral(encoder_for(el).head(el.atom.predicate, n, el.atom.args, el.time), lit.negated)


def _body(rule: ast.Rule, analysis: Analysis, sem: Semantics) -> tuple:
    """The variable of the evaluation time and the rule's body in ASP, ``_now`` first."""
    now_var = ast.Variable(fresh_variable(rule, "N"))
    return now_var, [NafLiteral(ast.Atom("_now", (now_var,)))] + [
        translate_literal(lit, analysis, now_var, sem) for lit in rule.body
    ]


def translate_rule(rule: ast.Rule, analysis: Analysis, sem: Semantics = DEFAULT) -> AspRule:
    """A LARS rule as an ASP rule over time-pinned atoms (pins before the origin dropped)."""
    now_var, body = _body(rule, analysis, sem)
    head = rule.head
    if head is None:
        return AspRule(None, tuple(body))
    if head.time is not None:
        start, known = origin(sem, ast.Variable(fresh_variable(rule, "O")))
        body += [*known, NafLiteral(from_origin(head.time, start))]
    time = now_var if head.time is None else head.time
    return AspRule(ast.Atom(head.atom.predicate, head.atom.args + (time,)), tuple(body))


def future_constraint(rule: ast.Rule, analysis: Analysis, sem: Semantics = DEFAULT) -> AspRule:
    """``future_heads=inconsistent``: no answer stream where the body holds and the @-head lies beyond t."""
    now_var, body = _body(rule, analysis, sem)
    return AspRule(None, tuple(body) + (NafLiteral(ast.Comparison(">", rule.head.time, now_var)),))


def window_uses(analysis: Analysis, sem: Semantics = DEFAULT):
    """The distinct (encoder, predicate, n) triples of the program's window atoms (n: :func:`window_reach`)."""
    return list(
        dict.fromkeys(
            (encoder_for(el), el.atom.predicate, window_reach(el, analysis, sem))
            for rule in analysis.program.proper_rules
            for el in (lit.element for lit in rule.body)
            if not isinstance(el, ast.Comparison) and el.modality != ast.NOW
        )
    )


def background_rules(pred: str, arity: int) -> tuple:
    """``p(A..,N) :- _bg_p(A..), _now(N).`` and ``p(A..,U) :- _bg_p(A..), _time(U).``"""
    a = arg_vars(arity)
    bg = ast.Atom(f"_bg_{pred}", a)
    return (
        AspRule.of(ast.Atom(pred, a + (N,)), bg, now()),
        AspRule.of(ast.Atom(pred, a + (U,)), bg, ast.Atom("_time", (U,))),
    )


def background_fact(atom: tuple) -> AspRule:
    """``_bg_p(args).`` for a background atom ``p(args)``, as clingo holds it."""
    return AspRule(Symbol(clingo_atom((f"_bg_{atom[0]}",) + atom[1:])))


def encode_static(analysis: Analysis, sem: Semantics = DEFAULT) -> StaticEncoding:
    """Translate an analysed program (Alg. 1), under the semantics knobs ``sem``."""
    sigs = analysis.signatures
    bg_preds = sorted({a[0] for a in analysis.background})
    uses = window_uses(analysis, sem)
    out = [translate_rule(r, analysis, sem) for r in analysis.program.proper_rules]
    if sem.future_heads is FutureHeads.INCONSISTENT:
        out += [
            future_constraint(r, analysis, sem)
            for r in analysis.program.proper_rules
            if r.head is not None and r.head.time is not None
        ]

    tuple_uses = sorted({(p, n) for enc, p, n in uses if enc.kind == ast.WindowKind.TUPLE})
    if sem.tuple_scope is TupleScope.PREDICATE:
        for pred in sorted({p for p, _ in tuple_uses}):
            out += scope_rules(pred, sigs[pred])
        for pred, n in tuple_uses:
            out += start_rules(n, sem, pred)
    else:
        for n in sorted({n for _, n in tuple_uses}):
            out += start_rules(n, sem)
    for pred, n in tuple_uses:
        out += contents_rules(pred, sigs[pred], n, pred in bg_preds, sem)
    for enc, pred, n in uses:
        out += enc.static_rules(pred, sigs[pred], n, sem)

    timed = {p for enc, p, n in uses if enc.kind != ast.WindowKind.TUPLE}
    for pred in bg_preds:  # at every time point only where a time window reads it
        out += background_rules(pred, sigs[pred])[: 2 if pred in timed else 1]
    out += [background_fact(atom) for atom in analysis.background]
    out += [Show(p, k + 1) for p, k in sorted(sigs.items(), key=lambda x: (x[0] not in analysis.intensional, x[0]))]
    tick_pinned = frozenset(p for enc, p, n in uses if enc.kind == ast.WindowKind.TUPLE)
    return StaticEncoding(tuple(out), tick_pinned)
