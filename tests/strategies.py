"""Hypothesis strategies: small random *valid* LARS programs and streams.

``programs_and_streams(positive_only=False, stratified_only=False)`` draws
``(program_text, stream)``; ``stream`` is ``[(t, [atom tuple, ...]), ...]`` for t = 0..T.
``programs(...)`` draws the program alone (as an :class:`ticker_py.ast.Program`) and
``streams(vocabulary)`` a stream for a vocabulary.

The vocabulary is tiny so that the reference evaluator's brute force stays fast:
extensional predicates p, q, r and intensional a, b, c (arity 0 or 1, fixed per example),
constants 1, 2 or x, y, windows [0..3] (time, sometimes with a unit) and [1..3 #] (tuple),
at most 5 time points with at most 3 atoms each.

Programs are valid by construction:
- safe: every variable of a rule is bound by a positive extended atom (its arguments, or
  the @-time of an @-atom) or by ``V = expr`` over bound variables; negated elements,
  other comparisons and the head only use bound variables; an @-head's time is a bound
  time variable or a number;
- tuple windows only over extensional predicates (p, q, r -- never in a head);
- each predicate used with one arity; facts only over extensional predicates;
- no positive cycle through a box window (repaired by turning such a box into a diamond).
``positive_only``: no ``not`` and no constraints. ``stratified_only``: no cycle through a
negated dependency in the predicate dependency graph (repaired by dropping the ``not``).
Non-stratified draws often contain even loops (several answer streams) and odd loops
(none): a gadget of that shape is added with some probability.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from hypothesis import strategies as st

from ticker_py import ast
from ticker_py.values import to_ast_term

__all__ = ["Vocabulary", "vocabularies", "programs", "streams", "programs_and_streams",
           "dependency_edges", "is_stratified", "has_box_cycle"]

EXTENSIONAL = ("p", "q", "r")
INTENSIONAL = ("a", "b", "c")
DATA_VARS = ("X", "Y", "Z")
TIME_VARS = ("T", "T1", "T2")


#: the value domains: small numbers, constants, numbers and constants mixed (pins of mixed
#: types), integers next to and past clingo's 32 bits, and strings with clingo's escapes
DOMAINS = [(1, 2), ("x", "y"), (1, "x"), (2 ** 31 - 1, 2 ** 31 + 5), ('"a\\nb"', '"q\\"x\\\\"')]
#: domains whose values clingo cannot compute with: no arithmetic and only = and != on data
WIDE = (2 ** 31 - 1, 2 ** 31 + 5)


@dataclass(frozen=True)
class Vocabulary:
    arity: dict       # predicate name -> 0 or 1
    domain: tuple     # ground values (see DOMAINS), as ground terms (strings quoted)

    @property
    def numeric(self) -> bool:
        """Data arithmetic and order comparisons are drawn (not for wide values)."""
        return type(self.domain[0]) is int and not self.wide

    @property
    def wide(self) -> bool:
        return self.domain == WIDE

    def const(self, value):
        if type(value) is int:
            return ast.Number(value)
        return to_ast_term(value)   # a constant, or a string given quoted (as in streams)


@st.composite
def vocabularies(draw) -> Vocabulary:
    arity = {name: draw(st.integers(0, 1)) for name in EXTENSIONAL + INTENSIONAL}
    domain = draw(st.sampled_from(DOMAINS[:2] * 3 + DOMAINS[2:]))
    return Vocabulary(arity, domain)


# ---------------------------------------------------------------- windows and elements

@st.composite
def windows(draw, tuple_ok: bool) -> ast.Window:
    if tuple_ok and draw(st.booleans()):
        return ast.Window(draw(st.integers(1, 3)), "#")
    n = draw(st.integers(0, 3))
    unit = draw(st.sampled_from([None, None, None, "sec", "ms", "min"]))
    if unit == "ms":
        return ast.Window(n * 1000, "ms")
    if unit == "min":
        return ast.Window(draw(st.integers(0, 1)), "min")
    return ast.Window(n, unit)


class _Scope:
    """Variables bound so far in a rule body (data and time variables apart)."""

    def __init__(self):
        self.data, self.time = [], []
        self.arith = set()  # data variables bound by arithmetic: never in a head, so that
        #                     recursion through arithmetic cannot make the grounding infinite

    def bind(self, var, kind):
        names = self.data if kind == "data" else self.time
        if var not in names:
            names.append(var)


def _data_term(draw, voc, scope, binding: bool, head=False):
    """An argument: a bound variable, a constant, or (if binding) a fresh variable."""
    bound = [v for v in scope.data if not (head and v in scope.arith)]
    options = ["const"] + (["bound"] * 2 if bound else [])
    if binding and len(scope.data) < len(DATA_VARS):
        options += ["fresh"] * 3
    kind = draw(st.sampled_from(options))
    if kind == "const":
        return voc.const(draw(st.sampled_from(voc.domain)))
    if kind == "bound":
        return ast.Variable(draw(st.sampled_from(bound)))
    name = next(v for v in DATA_VARS if v not in scope.data)
    scope.bind(name, "data")
    return ast.Variable(name)


def _time_term(draw, scope, binding: bool):
    options = ["const"] + (["bound"] * 2 if scope.time else [])
    if binding and len(scope.time) < len(TIME_VARS):
        options += ["fresh"] * 3
    kind = draw(st.sampled_from(options))
    if kind == "const":
        return ast.Number(draw(st.integers(0, 4)))
    if kind == "bound":
        return ast.Variable(draw(st.sampled_from(scope.time)))
    name = next(v for v in TIME_VARS if v not in scope.time)
    scope.bind(name, "time")
    return ast.Variable(name)


@st.composite
def extended_atoms(draw, voc, scope, binding: bool, predicate=None) -> ast.ExtendedAtom:
    """An extended atom of any modality; ``binding``: it may introduce variables."""
    pred = predicate or draw(st.sampled_from(EXTENSIONAL + INTENSIONAL))
    args = tuple(_data_term(draw, voc, scope, binding) for _ in range(voc.arity[pred]))
    atom = ast.Atom(pred, args)
    modality = draw(st.sampled_from([ast.NOW, ast.AT, ast.DIAMOND, ast.BOX, ast.AT]))
    tuple_ok = pred in EXTENSIONAL
    if modality == ast.NOW:
        return ast.ExtendedAtom(atom)
    if modality == ast.AT:
        window = draw(st.none() | windows(tuple_ok))
        return ast.ExtendedAtom(atom, ast.AT, window, _time_term(draw, scope, binding))
    return ast.ExtendedAtom(atom, modality, draw(windows(tuple_ok)))


def _value_terms(draw, voc, scope):
    """Two comparable terms over bound variables (same kind, mostly)."""
    if scope.time and (not scope.data or draw(st.booleans())):
        left = ast.Variable(draw(st.sampled_from(scope.time)))
        right = draw(st.sampled_from([ast.Variable(v) for v in scope.time]
                                     + [ast.Number(k) for k in range(0, 4)]))
    else:
        left = ast.Variable(draw(st.sampled_from(scope.data)))
        right = draw(st.sampled_from([ast.Variable(v) for v in scope.data]
                                     + [voc.const(v) for v in voc.domain]))
    return left, right


@st.composite
def comparisons(draw, voc, scope) -> ast.Comparison:
    left, right = _value_terms(draw, voc, scope)
    ops = ["=", "!="] if voc.wide and left.name in scope.data else ["=", "!=", "<", "<=", ">", ">="]
    return ast.Comparison(draw(st.sampled_from(ops)), left, right)


def _binding_assignment(draw, voc, scope):
    """``V = expr`` binding a fresh variable from bound ones (time shift or arithmetic)."""
    if scope.time and len(scope.time) < len(TIME_VARS) and draw(st.booleans()):
        base = ast.Variable(draw(st.sampled_from(scope.time)))
        k = draw(st.integers(-2, 3))
        expr = ast.BinOp("+" if k >= 0 else "-", base, ast.Number(abs(k)))
        name = next(v for v in TIME_VARS if v not in scope.time)
        scope.bind(name, "time")
        return ast.Comparison("=", ast.Variable(name), expr)
    if voc.numeric and scope.data and len(scope.data) < len(DATA_VARS):
        base = ast.Variable(draw(st.sampled_from(scope.data)))
        op = draw(st.sampled_from(["+", "-", "*", "\\"]))
        k = draw(st.integers(1, 2))
        name = next(v for v in DATA_VARS if v not in scope.data)
        scope.bind(name, "data")
        scope.arith.add(name)
        return ast.Comparison("=", ast.Variable(name), ast.BinOp(op, base, ast.Number(k)))
    return None


# ---------------------------------------------------------------- rules and programs

@st.composite
def rules(draw, voc, head_pred=None, constraint=False, allow_neg=True, force_neg=None,
          min_pos=1) -> ast.Rule:
    scope, body = _Scope(), []
    for _ in range(draw(st.integers(min_pos, 2))):
        body.append(ast.Literal(draw(extended_atoms(voc, scope, binding=True))))
    if draw(st.integers(0, 2)) == 0:
        assignment = _binding_assignment(draw, voc, scope)
        if assignment is not None:
            body.append(ast.Literal(assignment))
    if (scope.data or scope.time) and draw(st.integers(0, 2)) == 0:
        body.append(ast.Literal(draw(comparisons(voc, scope)), negated=allow_neg and draw(st.booleans())))
    if allow_neg:
        for _ in range(draw(st.integers(0, 1))):
            body.append(ast.Literal(draw(extended_atoms(voc, scope, binding=False)), negated=True))
    if force_neg is not None:
        if draw(st.booleans()):  # plain `not b(..)`: the classic even/odd loop
            args = tuple(_data_term(draw, voc, scope, binding=False) for _ in range(voc.arity[force_neg]))
            element = ast.ExtendedAtom(ast.Atom(force_neg, args))
        else:
            element = draw(extended_atoms(voc, scope, binding=False, predicate=force_neg))
        body.append(ast.Literal(element, negated=True))
    body = draw(st.permutations(body))  # order is irrelevant to the semantics
    if constraint:
        return ast.Rule(None, tuple(body))
    pred = head_pred or draw(st.sampled_from(INTENSIONAL))
    args = tuple(_data_term(draw, voc, scope, binding=False, head=True) for _ in range(voc.arity[pred]))
    time = None
    kind = draw(st.sampled_from(["now", "now", "var", "var", "const"]))
    if kind == "var" and scope.time:
        time = ast.Variable(draw(st.sampled_from(scope.time)))
    elif kind == "const":
        time = ast.Number(draw(st.integers(0, 6)))
    return ast.Rule(ast.Head(ast.Atom(pred, args), time), tuple(body))


@st.composite
def facts(draw, voc) -> ast.Rule:
    # facts of intensional predicates hold at every time point: read through @ and windows too
    pred = draw(st.sampled_from(EXTENSIONAL * 2 + INTENSIONAL))
    if voc.arity[pred] == 0:
        return ast.Rule(ast.Head(ast.Atom(pred)))
    if type(voc.domain[0]) is int and type(voc.domain[1]) is int and draw(st.booleans()):
        arg = ast.Interval(ast.Number(1), ast.Number(draw(st.integers(1, 2))))
    else:
        arg = voc.const(draw(st.sampled_from(voc.domain)))
    return ast.Rule(ast.Head(ast.Atom(pred, (arg,))))


@st.composite
def even_loops(draw, voc, first, second):
    """``a(1) :- [e1,] not b(2).  b(2) :- [e2,] not a(1).`` with e1, e2 ground extended atoms
    (or nothing): two answer streams whenever e1 and e2 hold."""
    heads = [ast.Atom(pred, tuple(voc.const(draw(st.sampled_from(voc.domain)))
                                  for _ in range(voc.arity[pred]))) for pred in (first, second)]
    out = []
    for head, other in ((heads[0], heads[1]), (heads[1], heads[0])):
        body = [ast.Literal(ast.ExtendedAtom(other), negated=True)]
        if draw(st.booleans()):
            body.append(ast.Literal(draw(extended_atoms(voc, _Scope(), binding=False))))
        out.append(ast.Rule(ast.Head(head), tuple(draw(st.permutations(body)))))
    return out


def dependency_edges(program: ast.Program):
    """``(head_pred, body_pred, negated, box)`` for every rule that is not a fact."""
    out = []
    for rule in program.proper_rules:
        if rule.head is None:
            continue
        for lit in rule.body:
            if isinstance(lit.element, ast.ExtendedAtom):
                out.append((rule.head.atom.predicate, lit.element.atom.predicate, lit.negated,
                            lit.element.modality == ast.BOX))
    return out


def _reaches(edges, src, dst) -> bool:
    seen, todo = set(), [src]
    while todo:
        node = todo.pop()
        if node == dst:
            return True
        if node not in seen:
            seen.add(node)
            todo.extend(b for a, b in edges if a == node)
    return False


def _bad_literals(program, test, positive_cycles=False):
    """Literals on an edge (head -> pred) selected by ``test`` that lies on a cycle
    (of positive edges only, with ``positive_cycles``)."""
    edges = [(h, b) for h, b, neg, _ in dependency_edges(program) if not (positive_cycles and neg)]
    bad = set()
    for rule in program.proper_rules:
        if rule.head is None:
            continue
        for i, lit in enumerate(rule.body):
            if (isinstance(lit.element, ast.ExtendedAtom) and test(lit)
                    and _reaches(edges, lit.element.atom.predicate, rule.head.atom.predicate)):
                bad.add((rule, i))
    return bad


def is_stratified(program: ast.Program) -> bool:
    return not _bad_literals(program, lambda lit: lit.negated)


def has_box_cycle(program: ast.Program) -> bool:
    return bool(_bad_literals(program, _positive_box, positive_cycles=True))


def _positive_box(lit) -> bool:
    return not lit.negated and lit.element.modality == ast.BOX


def _repair(program, test, fix, positive_cycles=False):
    while True:
        bad = _bad_literals(program, test, positive_cycles)
        if not bad:
            return program
        rule, i = min(bad, key=lambda ri: (program.rules.index(ri[0]), ri[1]))
        body = list(rule.body)
        body[i] = fix(body[i])
        new = replace(rule, body=tuple(body))
        program = ast.Program(tuple(new if r is rule else r for r in program.rules))


@st.composite
def programs(draw, positive_only=False, stratified_only=False, vocabulary=None) -> ast.Program:
    voc = vocabulary or draw(vocabularies())
    allow_neg = not positive_only
    out = [draw(facts(voc)) for _ in range(draw(st.integers(0, 2)))]
    out += [draw(rules(voc, allow_neg=allow_neg)) for _ in range(draw(st.integers(1, 4)))]
    if allow_neg and draw(st.integers(0, 2)) == 0:
        # an even loop (a :- .., not b. b :- .., not a.) or an odd one (a :- .., not a.)
        first, second = draw(st.permutations(INTENSIONAL))[:2]
        kind = draw(st.sampled_from(["even", "even", "mutual", "odd"]))
        if kind == "even":
            out += draw(even_loops(voc, first, second))
        elif kind == "mutual":
            out.append(draw(rules(voc, head_pred=first, force_neg=second, min_pos=0)))
            out.append(draw(rules(voc, head_pred=second, force_neg=first, min_pos=0)))
        else:
            out.append(draw(rules(voc, head_pred=first, force_neg=first, min_pos=0)))
    if allow_neg:
        out += [draw(rules(voc, constraint=True)) for _ in range(draw(st.integers(0, 1)))]
    program = ast.Program(tuple(draw(st.permutations(out))))
    if stratified_only:
        program = _repair(program, lambda lit: lit.negated, lambda lit: replace(lit, negated=False))
    return _repair(program, _positive_box,
                   lambda lit: replace(lit, element=replace(lit.element, modality=ast.DIAMOND)),
                   positive_cycles=True)


@st.composite
def streams(draw, voc: Vocabulary, max_time_points=5):
    """``[(t, [atoms])]``: up to 5 time points, up to 3 distinct atoms each (gaps allowed)."""
    atoms = [(p,) if voc.arity[p] == 0 else (p, v) for p in EXTENSIONAL
             for v in (voc.domain if voc.arity[p] else (None,))]
    n = draw(st.integers(1, max_time_points))
    return [(t, draw(st.lists(st.sampled_from(atoms), max_size=3, unique=True))) for t in range(n)]


@st.composite
def programs_and_streams(draw, positive_only=False, stratified_only=False):
    """``(program_text, stream)`` -- see the module docstring."""
    voc = draw(vocabularies())
    program = draw(programs(positive_only, stratified_only, vocabulary=voc))
    return str(program), draw(streams(voc))
