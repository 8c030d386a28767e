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

import re
from dataclasses import dataclass

from ..analysis import Analysis
from ..analysis.graph import dependency_edges, strongly_connected
from ..errors import InternalError
from ..values import format_atom, format_term
from .static import translate_rule, window_uses
from .windows.base import arg_vars, args_with
from .windows.tuple import contents_rules, start_rules

__all__ = ["IncrementalEncoding", "encode_incremental", "TickIndexer", "choice_predicates", "split_predicates"]

TICK = "_e"         # the part parameter: the evaluation tick's sequence number
GUARD = "_g"        # _g(e): the tick is current (released after it)


_TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|[A-Za-z_][A-Za-z0-9_\']*|\d+|:-|\.\.|<=|>=|!=|==|\S')
_COMPARISON = {"=", "!=", "==", "<", "<=", ">", ">="}


class TickIndexer:
    """Pins ASP rules to the evaluation tick: appends ``e`` to every non-shared atom.

    The rules are those the encoders write (plain rules and constraints over atoms and
    comparisons), read token by token: an atom is a name where a literal starts (the head,
    after ``:-``, ``,``, ``;``, ``not``) that is not the left side of a comparison.
    """

    def __init__(self, shared: set):
        self.shared = shared

    def __call__(self, text: str, guard: bool = False) -> list:
        out, start = [], 0
        tokens = [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]
        depth, first = 0, 0
        for k, (tok, a, b) in enumerate(tokens):
            if tok in "([{":
                depth += 1
            elif tok in ")]}":
                depth -= 1
            elif tok == "." and depth == 0:
                out.append(self._pin(text[start:b].strip(), tokens[first:k + 1], guard))
                start, first = b, k + 1
        if text[start:].strip():
            raise InternalError(f"unterminated rule in the encoding: {text[start:]!r}")
        return out

    def _pin(self, rule: str, tokens: list, guard: bool) -> str:
        inserts = []                   # (position in rule, text)
        base = tokens[0][1]
        depth, literal = 0, True
        i = 0
        while i < len(tokens):
            tok = tokens[i][0]
            if tok in "([{":
                depth += 1
            elif tok in ")]}":
                depth -= 1
            elif depth == 0 and tok in (":-", ",", ";"):
                literal = True
                i += 1
                continue
            elif depth == 0 and tok == "not":
                i += 1
                continue
            elif depth == 0 and literal and (tok[0].islower() or tok[0] == "_"):
                end, arity = i, 0
                if i + 1 < len(tokens) and tokens[i + 1][0] == "(":
                    end, arity = self._arguments(tokens, i + 1)
                if end + 1 < len(tokens) and tokens[end + 1][0] in _COMPARISON:
                    literal = False
                    i = end + 1
                    continue
                if (tok, arity) not in self.shared:
                    if arity:
                        inserts.append((tokens[end][1] - base, f",{TICK}"))
                    else:
                        inserts.append((tokens[i][2] - base, f"({TICK})"))
                literal = False
                i = end + 1
                continue
            literal = False
            i += 1
        for pos, ins in sorted(inserts, reverse=True):
            rule = rule[:pos] + ins + rule[pos:]
        if guard:
            g = f"{GUARD}({TICK})"
            rule = rule.replace(":-", f":- {g},", 1) if ":-" in rule else f"{rule[:-1]} :- {g}."
        return rule

    @staticmethod
    def _arguments(tokens: list, open_at: int) -> tuple:
        """The index of the ``)`` closing ``tokens[open_at]`` and the number of arguments."""
        depth, commas = 0, 0
        for k in range(open_at, len(tokens)):
            tok = tokens[k][0]
            if tok in "([{":
                depth += 1
            elif tok in ")]}":
                depth -= 1
                if depth == 0:
                    empty = k == open_at + 1
                    return k, 0 if empty else commas + 1
            elif tok in (",", ";") and depth == 1:
                commas += 1
        raise InternalError("unbalanced parentheses in the encoding")


def choice_predicates(analysis: Analysis) -> frozenset:
    """Intensional predicates in a cycle through negation: the only ones the solver guesses."""
    edges = dependency_edges(analysis.program, analysis.intensional)
    deps: dict = {}
    for e in edges:
        deps.setdefault(e.head, set()).add(e.body)
    out = set()
    for scc in strongly_connected(sorted(analysis.intensional), deps):
        members = set(scc)
        if any(e.negative and e.head in members and e.body in members for e in edges):
            out |= members
    return frozenset(out)


def split_predicates(analysis: Analysis) -> tuple:
    """``(lower, upper)`` intensional predicates: upper = the cycles through negation and every
    predicate depending on them; the engine evaluates lower natively (see docs/incremental.md)."""
    upper = set(choice_predicates(analysis))
    edges = dependency_edges(analysis.program, analysis.intensional)
    changed = True
    while changed:
        changed = False
        for e in edges:
            if e.body in upper and e.head not in upper:
                upper.add(e.head)
                changed = True
    return frozenset(analysis.intensional - upper), frozenset(upper)


@dataclass(frozen=True)
class IncrementalEncoding:
    """The tick-pinned program and its annotations.

    ``program`` is the ``#program`` part grounded once per evaluation tick with parameter
    ``_e`` (facts ``_now(t,_e)``, ``_cnt(c,_e)`` and ``#external _g(_e)`` come with it);
    ``show_inputs`` the ``#show`` terms for input atoms at t (``--show all``);
    ``background`` the shared facts grounded once; ``timed_background`` the
    background atoms to pin to every time point; ``tick_pinned`` the predicates whose
    input atoms also carry their count.
    """

    program: str
    show_inputs: str
    background: str
    timed_background: tuple
    tick_pinned: frozenset
    annotated: tuple
    split: tuple = (frozenset(), frozenset())

    def __str__(self) -> str:
        lower, upper = (", ".join(sorted(s)) or "none" for s in self.split)
        lines = ["% incremental encoding: rules pinned to evaluation tick _e (time t, count c);",
                 "% per tick: _now(t,_e). _cnt(c,_e). #external _g(_e).",
                 "% shared facts, added once: input p(args,U) [and p(args,U,K), _tick(U,K)], background",
                 f"% default engine (native prefix): lower part evaluated natively: {lower};",
                 f"% upper part and constraints solved by clingo per tick: {upper}",
                 "% (--no-native-prefix solves all rules below with clingo)"]
        for rule, note in self.annotated:
            lines.append(f"{rule}  % {note}" if note else rule)
        return "\n".join(lines) + "\n"


def encode_incremental(analysis: Analysis) -> IncrementalEncoding:
    """The incremental encoding of an analysed program (Alg. 2)."""
    sigs = analysis.signatures
    bg_preds = sorted({a[0] for a in analysis.background})
    uses = window_uses(analysis)
    tick_pinned = frozenset(p for enc, p, n in uses if enc.kind == "tuple")
    shared = {("_tick", 2)} | {(f"_bg_{p}", sigs[p]) for p in bg_preds}
    for p in analysis.extensional:
        shared |= {(p, sigs[p] + 1), (p, sigs[p] + 2)}
    pin = TickIndexer(shared)
    choice = choice_predicates(analysis)
    annotated = []

    for rule in analysis.program.proper_rules:
        guarded = rule.head is None or rule.head.atom.predicate in choice
        note = "tick rule, duration 0" + (", guarded" if guarded else "")
        annotated += [(r, note) for r in pin(translate_rule(rule, analysis), guard=guarded)]

    for n in sorted({n for enc, _, n in uses if enc.kind == "tuple"}):
        annotated += [(r, f"tuple window start: atom C-{n}+1 expires at count C+1")
                      for r in pin("\n".join(start_rules(n)))]
    for pred, n in sorted({(p, n) for enc, p, n in uses if enc.kind == "tuple"}):
        annotated += [(r, f"tuple window contents: {pred} atom with count K expires at count K+{n}")
                      for r in pin("\n".join(contents_rules(pred, sigs[pred], n, pred in bg_preds)))]
    for enc, pred, n in uses:
        annotated += enc.incremental_rules(pred, sigs[pred], n, pred in bg_preds, pin)

    for pred in bg_preds:
        if pred in analysis.intensional:
            a = arg_vars(sigs[pred])
            annotated += [(r, "background of an intensional predicate")
                          for r in pin(f"{pred}{args_with(a, 'N')} :- _bg_{pred}{args_with(a)}, _now(N).")]
    timed = tuple(a for a in analysis.background if a[0] not in analysis.intensional)

    annotated.append(("#show.", "only the current tick's atoms are shown:"))
    for p in sorted(analysis.intensional):
        v = arg_vars(sigs[p] + 1)
        annotated.append((f"#show {p}{args_with(v)} : {p}{args_with(v, TICK)}, {GUARD}({TICK}).", ""))
    show_inputs = []
    for p in sorted(analysis.extensional):
        v = arg_vars(sigs[p] + 1)
        show_inputs.append(f"#show {p}{args_with(v)} : {p}{args_with(v)}, _now({v[-1]},{TICK}), {GUARD}({TICK}).")

    program = "\n".join(r for r, _ in annotated) + "\n"
    background = "".join(f"_bg_{format_atom(a)}.\n" for a in analysis.background)
    annotated += [(f"_bg_{format_atom(a)}.", "shared") for a in analysis.background]
    annotated += [(f"{a[0]}{args_with([format_term(x) for x in a[1:]], 'U')}.",
                   "shared, added for every time point U") for a in timed]
    return IncrementalEncoding(program, "\n".join(show_inputs) + "\n", background, timed, tick_pinned,
                               tuple(annotated), split_predicates(analysis))
