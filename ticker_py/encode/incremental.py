"""The incremental encoding (Ticker paper, Alg. 2): one ground program for every tick, switched by externals.

Atoms are pinned to reusable *slots* of time points (``p(args,S)``; ``_n`` for now), window atoms
over input predicates are external *instances* the engine switches, and every instance that can
matter is declared up front (``_dom_q``); see docs/incremental.md. A program whose times cannot be
slots has ``problems`` (the engine then solves the static encoding per tick).

>>> from ticker_py.syntax import parse_program
>>> from ticker_py.analysis import analyse
>>> enc = encode_incremental(analyse(parse_program("item(1..2). q(X) :- item(X), p(X) in [3], not r(X).")))
>>> print(enc.program.strip())
q(X,_n) :- item(X,_n), _d3_p(X), not r(X,_n).
#external item(A1,_n) : _dom_item(A1).
#external _d3_p(A1) : _dom_item(A1).
#external r(A1,_n) : _dom_item(A1).
item(A1,_n) :- _bg_item(A1).
_dom_item(A1) :- _bg_item(A1).
_bg_item(1).
_bg_item(2).
#show.
#show q/2.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import ast
from ..analysis import Analysis
from ..limits import fits_clingo
from ..semantics import DEFAULT, Semantics
from ..windows import Windows
from .asp import AspRule, NafLiteral, Show, program_text
from .static import background_fact, translate_literal, window_reach, window_uses
from .windows import encoder_for
from .windows.base import NOW, NOW_SLOT, S, arg_vars, member

__all__ = [
    "IncrementalEncoding",
    "Arrival",
    "Declaration",
    "encode_incremental",
    "arrival_source",
    "times_stay_relative",
    "slot_problems",
]

SLOT = "_slot"


@dataclass(frozen=True)
class Declaration:
    """``#external atom : condition.``: the atom is an external for every instance of the condition."""

    atom: ast.Atom
    condition: tuple = ()

    def __str__(self) -> str:
        cond = ", ".join(map(str, self.condition))
        return f"#external {self.atom} : {cond}." if cond else f"#external {self.atom}."


def times_stay_relative(rules) -> bool:
    """True if every time term of @-atoms and @-heads is a variable used only in @-positions."""
    for rule in rules:
        at_vars, other = set(), set()
        atoms = [] if rule.head is None else [(rule.head.atom, rule.head.time)]
        for lit in rule.body:
            el = lit.element
            if lit.is_comparison:
                other |= ast.element_variables(el)
            else:
                atoms.append((el.atom, el.time if el.modality == ast.AT else None))
        for atom, time in atoms:
            other |= ast.atom_variables(atom)
            if time is not None:
                if not isinstance(time, ast.Variable):
                    return False
                at_vars.add(time.name)
        if at_vars & other:
            return False
    return True


def slot_problems(analysis: Analysis, sem: Semantics = DEFAULT) -> list:
    """Why the program's time points cannot be slots (empty: they can)."""
    out = []
    if Windows(analysis, sem).lookback is None:
        out.append("an @-atom without window reads every time point so far")
    if not times_stay_relative(analysis.program.proper_rules):
        out.append("a time is used as a value (an argument, arithmetic, a comparison or a constant @ time)")
    bg = {a[0] for a in analysis.background}
    if any(enc.kind == ast.WindowKind.TUPLE and enc.at and p in bg for enc, p, _ in window_uses(analysis, sem)):
        out.append("a tuple @-window over background facts reads every time point of its timeline")
    return out


def _simple(term) -> bool:
    """A term clingo reads as written: no arithmetic, no integer beyond 32 bits."""
    t = type(term)
    if t is ast.Number:
        return fits_clingo(term.value)
    if t in (ast.Variable, ast.Constant, ast.String):
        return True
    if isinstance(term, ast.Function):
        return all(_simple(a) for a in term.args)
    return False


def _domain(pred: str, args) -> ast.Atom:
    return ast.Atom(f"_dom_{pred}", tuple(args))


#: the slot variable of a declaration that also holds a rule's variables (no LARS variable is
#: named so); :func:`_canonical` names it S
_SLOT = ast.Variable("__slot")


def _canonical(decl: Declaration) -> Declaration:
    """``decl`` with its variables renamed ``A1``, ``A2``, ... in order of appearance, the slot S."""
    names: dict = {_SLOT.name: S.name}
    for term in (*decl.atom.args, *(a for lit in decl.condition for a in lit.args)):
        for name in sorted(ast.term_variables(term), key=str):
            names.setdefault(name, f"A{len(names)}")

    def rename(node):
        return ast.Variable(names.get(node.name, node.name)) if type(node) is ast.Variable else None

    return Declaration(ast.transform(decl.atom, rename), ast.transform(decl.condition, rename))


def _condition(rule: ast.Rule, index: int, providers) -> tuple:
    """The domain of the input atom of body literal ``index``: ``(args, condition, open)``: the other
    positive body atoms over ``providers`` (predicates with background facts) that share variables
    with it, as ``_dom_q``; *open* if they leave one of its variables unbound (then also ``_dom_p``;
    docs/incremental.md, *The domain*)."""
    el = rule.body[index].element
    args = el.atom.args
    if not all(_simple(a) for a in args):
        args = arg_vars(len(args))
        return args, (_domain(el.atom.predicate, args),), True
    need = set().union(*(ast.term_variables(a) for a in args)) if args else set()
    others = []
    for j, lit in enumerate(rule.body):
        other = lit.element
        if j == index or lit.negated or lit.is_comparison or other.atom.predicate not in providers:
            continue
        if all(_simple(a) for a in other.atom.args):
            others.append((ast.atom_variables(other.atom), _domain(other.atom.predicate, other.atom.args)))
    chosen, bound, reach = [], set(), set(need)
    grew = True
    while grew:
        grew = False
        for names, lit in others:
            if lit not in chosen and names & reach:
                chosen.append(lit)
                bound |= names
                reach |= names
                grew = True
    if need <= bound:
        return args, tuple(chosen), False
    return args, (_domain(el.atom.predicate, args), *chosen), True


@dataclass(frozen=True)
class IncrementalEncoding:
    """The incremental encoding of a program, and what the engine needs to drive it.

    ``statements``, each with a note in ``annotated``; ``frame``: the slots; ``flow``: where the
    values of the instances come from (for :class:`~ticker_py.encode.exact.ExactProgram`);
    ``inputs``: per input predicate its window uses ``(encoder, n)``; ``domain``: the predicates
    whose atoms extend the declared domain (``_dom_p``); ``members``: the n of the ``_w{n}``
    externals; ``switched``: the names of the instances declared. ``problems``: why the program
    cannot use slots (then nothing else is filled in)."""

    statements: tuple = ()
    annotated: tuple = ()
    frame: str = ""
    flow: tuple = ()
    inputs: dict = field(default_factory=dict)
    now_inputs: frozenset = frozenset()
    domain: frozenset = frozenset()
    slots: int = 0
    reach: int = 0
    members: tuple = ()
    arrivals: tuple = ()
    switched: frozenset = frozenset()
    problems: tuple = ()
    split: tuple = (frozenset(), frozenset())

    @property
    def program(self) -> str:
        """The program text (without the frame)."""
        return program_text(self.statements)

    def __str__(self) -> str:
        lower, upper = (", ".join(sorted(s)) or "none" for s in self.split)
        lines = [
            "% incremental encoding (docs/incremental.md): grounded once, then only externals are switched",
            f"% default engine (native prefix): lower part evaluated natively: {lower};",
            f"% upper part and constraints solved by clingo: {upper}",
        ]
        if self.problems:
            lines += [f"% the time points cannot be slots: {p};" for p in self.problems]
            lines.append("% --engine incremental-pure solves the static encoding (ticker encode) at every tick")
            return "\n".join(lines) + "\n"
        lines += [
            "% (--engine incremental-pure solves all rules below with clingo)",
            "% p(args,_n): p at the current time point t; p(args,S): p at the time point the engine gave slot S",
        ]
        if self.slots:
            tuples = self.slots - self.reach - 1
            extra = f" and {tuples} for the time points of the atoms in tuple @-windows" if tuples else ""
            lines.append(f"% {self.slots} slots: {self.reach + 1} for the time points [t-{self.reach}, t]{extra}")
            lines.append(self.frame.rstrip("\n") + "  % the slots")
        lines += [f"{statement}  % {note}" if note else str(statement) for statement, note in self.annotated]
        return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Arrival:
    """Rule number ``index``, instantiated for each arriving atom of its one input window atom
    ``source`` (docs/incremental.md): ``table`` (``_fires{k}``) lists the head instances per atom,
    ``name`` is their external; ``pinned``: an @-head; ``statics``: the background predicates read."""

    index: int
    source: tuple
    table: str
    width: int
    arity: int
    name: str
    pinned: bool
    statics: frozenset


def arrival_source(rule: ast.Rule, analysis: Analysis) -> int | None:
    """The body position of the input window atom that alone decides ``rule`` with background
    facts and comparisons (see :class:`Arrival`), or None."""
    bg = {a[0] for a in analysis.background}
    source = None
    for i, lit in enumerate(rule.body):
        if lit.is_comparison:
            continue
        el = lit.element
        pred = el.atom.predicate
        if pred in analysis.intensional:
            return None
        if el.modality == ast.NOW and pred in bg:
            continue
        if el.modality == ast.NOW or lit.negated or pred in bg or source is not None:
            return None
        if not all(_simple(a) for a in el.atom.args):
            return None
        source = i
    return source


def _derived(pred: str) -> str:
    """The atoms the rules derive at t for a predicate also pinned by @-heads."""
    return f"_r_{pred}"


def slot_rule(rule: ast.Rule, analysis: Analysis, sem: Semantics = DEFAULT, derived=frozenset()) -> AspRule:
    """A LARS rule over slots: atoms at t pinned to ``_n``, an @-head to the slot of its time
    (the head at t of a predicate in ``derived`` is ``_r_p``)."""
    body = tuple(translate_literal(lit, analysis, NOW, sem) for lit in rule.body)
    head = rule.head
    if head is None:
        return AspRule(None, body)
    if head.time is not None:
        return AspRule(ast.Atom(head.atom.predicate, head.atom.args + (head.time,)), body)
    name = _derived(head.atom.predicate) if head.atom.predicate in derived else head.atom.predicate
    return AspRule(ast.Atom(name, head.atom.args + (NOW,)), body)


def _arrival(k: int, rule: ast.Rule, i: int, analysis: Analysis, sem: Semantics, both) -> tuple:
    """``(Arrival, annotated statements, value flow, open)`` of rule k decided by its body atom i:
    the table of its head instances per arriving atom, their external and the rule reading it."""
    lit = rule.body[i].element
    pred = lit.atom.predicate
    enc, n = encoder_for(lit), window_reach(lit, analysis, sem)
    bg = {a[0] for a in analysis.background}
    args, cond, is_open = _condition(rule, i, bg)
    head_args = () if rule.head is None else rule.head.atom.args
    body = [NafLiteral(c) for c in cond if is_open and c.predicate == f"_dom_{pred}"]
    statics = set()
    for j, other in enumerate(rule.body):
        el = other.element
        if j == i:
            continue
        if other.is_comparison:
            body.append(NafLiteral(el, other.negated))
        else:
            statics.add(el.atom.predicate)
            body.append(NafLiteral(ast.Atom(f"_bg_{el.atom.predicate}", el.atom.args), other.negated))
    table = AspRule(ast.Atom(f"_fires{k}", tuple(args) + tuple(head_args)), tuple(body))
    pinned = rule.head is not None and rule.head.time is not None
    target = "" if rule.head is None else rule.head.atom.predicate
    name = f"_i{k}_{target}" if target else f"_i{k}"
    h = arg_vars(len(head_args))
    w = tuple(ast.Variable(f"W{j}") for j in range(1, len(args) + 1))
    slot_cond = (ast.Atom(SLOT, (_SLOT,)),) if pinned else ()
    decl = _canonical(
        Declaration(ast.Atom(name, h + (_SLOT,) * pinned), (ast.Atom(table.head.predicate, w + h),) + slot_cond)
    )
    slot = (S,) if pinned else ()
    if rule.head is None:
        reads = AspRule.of(None, ast.Atom(name))
    else:
        head = _derived(target) if target in both and not pinned else target
        reads = AspRule.of(ast.Atom(head, h + (slot or (NOW,))), ast.Atom(name, h + slot))
    statements = [
        (reads, f"rule {k} ({rule}) instantiated for each arriving {pred} atom"),
        (table, f"rule {k}: its head instances per {pred} atom{' (the atoms seen)' if is_open else ''}"),
        (decl, f"rule {k}: a head instance holds while one of its {pred} atoms does ({enc.expiry(pred, n)})"),
    ]
    arrival = Arrival(
        k, (enc, pred, n), table.head.predicate, len(args), len(table.head.args), name, pinned, frozenset(statics)
    )
    return arrival, statements, AspRule.of(decl.atom, *decl.condition), is_open


def encode_incremental(analysis: Analysis, sem: Semantics = DEFAULT, demoted=frozenset()) -> IncrementalEncoding:
    """The incremental encoding of an analysed program; the rules numbered in ``demoted`` are not
    instantiated on arrival (:class:`Arrival`): a background predicate they read got a stream atom."""
    split = (analysis.lower, analysis.upper)
    problems = slot_problems(analysis, sem)
    if problems:
        return IncrementalEncoding(problems=tuple(problems), split=split)
    sigs, intensional, extensional = analysis.signatures, analysis.intensional, analysis.extensional
    bg_preds = sorted({a[0] for a in analysis.background})
    uses = window_uses(analysis, sem)
    rules = analysis.program.proper_rules
    members: set = set()
    annotated = []

    pinned = {r.head.atom.predicate for r in rules if r.head is not None and r.head.time is not None}
    both = pinned & {r.head.atom.predicate for r in rules if r.head is not None and r.head.time is None}
    timed = sorted({p for enc, p, _ in uses if p in intensional} | pinned)
    sources = {k: arrival_source(r, analysis) for k, r in enumerate(rules, 1) if k not in demoted}
    arrivals, flow, domain = [], [], set()
    for k, rule in enumerate(rules, 1):
        i = sources.get(k)
        if i is None:
            note = "rule, @-head: pinned to the slot of its time" if rule.head and rule.head.time else "rule"
            annotated.append((slot_rule(rule, analysis, sem, both), note))
            continue
        arrival, statements, value_flow, is_open = _arrival(k, rule, i, analysis, sem, both)
        arrivals.append(arrival)
        annotated += statements
        flow.append(value_flow)
        if is_open:  # its table reads _dom_p
            domain.add(arrival.source[1])

    inputs: dict = {}
    for enc, pred, n in uses:
        k = sigs[pred]
        if pred in intensional:
            members.add(n)
            note = f"window over a derived predicate: _w{n}(S) holds for the slots of [t-{n}, t]"
            annotated += [(r, note) for r in enc.slot_rules(pred, k, n)]
        else:
            inputs.setdefault(pred, []).append((enc, n))
            if pred in bg_preds:
                if enc.at:
                    members.add(n)
                annotated += [(r, "window over background facts") for r in enc.background_rules(pred, k, n)]

    # the instances of input atoms: declared for the values they can take (see _condition)
    declared, now_inputs = {}, set()
    providers = extensional & set(bg_preds)
    for k, rule in enumerate(rules, 1):
        for i, lit in enumerate(rule.body):
            el = lit.element
            if sources.get(k) is not None or lit.is_comparison or el.atom.predicate not in extensional:
                continue
            pred = el.atom.predicate
            args, cond, is_open = _condition(rule, i, providers)
            domain |= {a.predicate[len("_dom_") :] for a in cond}
            if el.modality == ast.NOW:
                now_inputs.add(pred)
                head, note = ast.Atom(pred, tuple(args) + (NOW,)), f"input at t: {pred} arrived at t"
            else:
                enc, n = encoder_for(el), window_reach(el, analysis, sem)
                slot = (_SLOT,) if enc.at else ()
                head = ast.Atom(enc.aux(pred, n), tuple(args) + slot)
                note = f"instance: on when its atom arrives, off when it expires ({enc.expiry(pred, n)})"
                cond += (ast.Atom(SLOT, (_SLOT,)),) if enc.at else ()
            note += "; declared for the atoms seen" if is_open else ""
            declared.setdefault(_canonical(Declaration(head, cond)), note)
    annotated += list(declared.items())

    for pred in bg_preds:
        k = sigs[pred]
        a = arg_vars(k)
        if pred in intensional or pred in now_inputs:
            annotated.append((AspRule.of(ast.Atom(pred, a + (NOW,)), ast.Atom(f"_bg_{pred}", a)), "background at t"))
        if pred in timed:
            n = max((n for _, p, n in uses if p == pred), default=0)
            members.add(n)
            rule = AspRule.of(ast.Atom(pred, a + (S,)), ast.Atom(f"_bg_{pred}", a), member(n))
            annotated.append((rule, "background at the time points windows read"))
        if pred in domain:
            annotated.append((AspRule.of(_domain(pred, a), ast.Atom(f"_bg_{pred}", a)), "the domain: background"))

    for pred in timed:
        a = arg_vars(sigs[pred])
        at_slot, at_now, slot = ast.Atom(pred, a + (S,)), ast.Atom(pred, a + (NOW,)), ast.Atom(NOW_SLOT, (S,))
        if pred in both:  # the rules at t derive _r_p: p(args,_n) and p(args,S) read it (no positive loop)
            derived = ast.Atom(_derived(pred), a + (NOW,))
            annotated += [
                (AspRule.of(at_now, derived), "derived at t"),
                (AspRule.of(at_now, at_slot, slot), "pinned to the slot of t"),
                (AspRule.of(at_slot, derived, slot), "derived at t, read at the slot of t"),
            ]
        elif pred in pinned:
            annotated.append((AspRule.of(at_now, at_slot, slot), "pinned to the slot of t"))
        else:
            annotated.append((AspRule.of(at_slot, at_now, slot), "read at the slot of t"))
    reach = Windows(analysis, sem).lookback or 0
    tuple_at = max((n for enc, p, n in uses if enc.at and enc.kind == ast.WindowKind.TUPLE), default=0)
    needs_slots = bool(timed) or any(enc.at for enc, _, _ in uses)
    slots = reach + 1 + tuple_at if needs_slots else 0
    frame = f"{SLOT}(0..{slots - 1}).\n" if slots else ""
    switched = [(Declaration(ast.Atom(NOW_SLOT, (S,)), (ast.Atom(SLOT, (S,)),)), "the slot of t")] if timed else []
    switched += [
        (Declaration(member(n), (ast.Atom(SLOT, (S,)),)), f"slot S holds a time point of [t-{n}, t]")
        for n in sorted(members)
    ]
    annotated = switched + annotated
    annotated += [(background_fact(a), "background") for a in analysis.background]
    annotated.append((Show(), ""))
    annotated += [(Show(p, sigs[p] + 1), "") for p in sorted(intensional)]

    flow += [AspRule.of(_domain(p, arg_vars(sigs[p])), ast.Atom(p, arg_vars(sigs[p] + 1))) for p in sorted(domain)]
    for pred, used in inputs.items():
        a = arg_vars(sigs[pred])
        for enc, n in used:
            slot = (S,) if enc.at else ()
            flow.append(AspRule.of(ast.Atom(enc.aux(pred, n), a + slot), ast.Atom(pred, a + (S,))))
    return IncrementalEncoding(
        statements=tuple(s for s, _ in annotated),
        annotated=tuple(annotated),
        frame=frame,
        flow=tuple(flow),
        inputs={p: tuple(u) for p, u in inputs.items()},
        now_inputs=frozenset(now_inputs),
        domain=frozenset(domain),
        slots=slots,
        reach=reach,
        members=tuple(sorted(members)),
        arrivals=tuple(arrivals),
        switched=frozenset(d.atom.predicate for d in declared),
        split=split,
    )
