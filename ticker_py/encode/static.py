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

from .. import ast
from ..analysis import Analysis
from ..values import format_atom, format_term
from .windows import ENCODERS, encoder_for
from .windows.base import arg_vars, args_with
from .windows.tuple import contents_rules, start_rules

__all__ = ["StaticEncoding", "encode_static", "fresh_variable", "translate_rule"]


@dataclass(frozen=True)
class StaticEncoding:
    """The ASP rules of a program plus what is needed to write a tick's facts."""

    rules: str
    tick_pinned: frozenset
    background: tuple

    def facts(self, t: int, c: int, lo: int, atoms) -> str:
        """The facts for tick (t, c): ``atoms`` are ``(U, K, atom)`` in the covered range."""
        out = [f"_now({t}). _cnt({c}). _time({lo}..{t})."]
        tick = bool(self.tick_pinned)
        for u, k, atom in atoms:
            args = ",".join(format_term(a) for a in atom[1:])
            sep = "," if args else ""
            out.append(f"{atom[0]}({args}{sep}{u}).")
            if atom[0] in self.tick_pinned:
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


def translate_literal(lit: ast.Literal, analysis: Analysis, now: str) -> str:
    """One body literal in ASP, reading the evaluation time from variable ``now``."""
    el = lit.element
    neg = "not " if lit.negated else ""
    if isinstance(el, ast.Comparison):
        return f"{neg}{el}"
    if el.modality == ast.NOW:
        return f"{neg}{el.atom.predicate}{args_with(el.atom.args, now)}"
    n = analysis.size(el.window) if el.window is not None else 0
    return f"{neg}{encoder_for(el).use(el.atom.predicate, n, el.atom.args, el.time)}"


def translate_rule(rule: ast.Rule, analysis: Analysis) -> str:
    """A LARS rule as an ASP rule over time-pinned atoms."""
    now = fresh_variable(rule, "N")
    body = [f"_now({now})"] + [translate_literal(lit, analysis, now) for lit in rule.body]
    if rule.head is None:
        return f":- {', '.join(body)}."
    head = rule.head
    if head.time is None:
        return f"{head.atom.predicate}{args_with(head.atom.args, now)} :- {', '.join(body)}."
    body.append(f"{head.time} >= 0")
    return f"{head.atom.predicate}{args_with(head.atom.args, head.time)} :- {', '.join(body)}."


def window_uses(analysis: Analysis):
    """The distinct (encoder, predicate, size) triples of the program's window atoms."""
    seen = {}
    for rule in analysis.program.proper_rules:
        for lit in rule.body:
            el = lit.element
            if isinstance(el, ast.Comparison) or el.modality == ast.NOW:
                continue
            n = analysis.size(el.window) if el.window is not None else 0
            enc = encoder_for(el)
            seen[(enc.kind, enc.modality, el.atom.predicate, n)] = (enc, el.atom.predicate, n)
    return list(seen.values())


def encode_static(analysis: Analysis) -> StaticEncoding:
    """Translate an analysed program (Alg. 1)."""
    sigs = analysis.signatures
    bg_preds = sorted({a[0] for a in analysis.background})
    uses = window_uses(analysis)
    lines = [translate_rule(r, analysis) for r in analysis.program.proper_rules]

    tuple_sizes = sorted({n for enc, _, n in uses if enc.kind == "tuple"})
    for n in tuple_sizes:
        lines += start_rules(n)
    for pred, n in sorted({(p, n) for enc, p, n in uses if enc.kind == "tuple"}):
        lines += contents_rules(pred, sigs[pred], n, pred in bg_preds)
    for enc, pred, n in uses:
        lines += enc.static_rules(pred, sigs[pred], n, pred in bg_preds)

    timed = {p for enc, p, n in uses if enc.kind in ("time", "none")}
    for pred in bg_preds:
        a = arg_vars(sigs[pred])
        lines.append(f"{pred}{args_with(a, 'N')} :- _bg_{pred}{args_with(a)}, _now(N).")
        if pred in timed:
            lines.append(f"{pred}{args_with(a, 'U')} :- _bg_{pred}{args_with(a)}, _time(U).")
    for atom in analysis.background:
        lines.append(f"_bg_{format_atom(atom)}.")
    lines += [f"#show {p}/{k + 1}." for p, k in sorted(sigs.items(), key=lambda x: (x[0] not in analysis.intensional, x[0]))]
    tick_pinned = frozenset(p for enc, p, n in uses if enc.kind == "tuple")
    return StaticEncoding("\n".join(lines) + "\n", tick_pinned, analysis.background)
