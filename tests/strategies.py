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
- each name used with one arity, or with ``mixed`` (:func:`programs_and_streams`) some names
  with both arities 0 and 1: two predicates, and for some of those (``crossed``) one arity
  extensional and the other intensional (p/1 from the stream, p/0 derived; a/0 derived, a/1
  from the stream, under a tuple window too);
- no positive cycle through a box window (repaired by turning such a box into a diamond).
  The repairs and the checks below follow the dependencies per name and arity, as clingo
  does: a repair by name alone would hide every program whose names of two arities a check
  by name alone gets wrong.
``positive_only``: no ``not`` and no constraints. ``stratified_only``: no cycle through a
negated dependency in the predicate dependency graph (repaired by dropping the ``not``).
Non-stratified draws often contain even loops (several answer streams) and odd loops
(none): a gadget of that shape is added with some probability.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from hypothesis import strategies as st

from ticker_py import ast
from ticker_py.values import to_ast_term

__all__ = [
    "Vocabulary",
    "vocabularies",
    "programs",
    "streams",
    "programs_and_streams",
    "dependency_edges",
    "is_stratified",
    "has_box_cycle",
]

EXTENSIONAL = ("p", "q", "r")
INTENSIONAL = ("a", "b", "c")
DATA_VARS = ("X", "Y", "Z")
TIME_VARS = ("T", "T1", "T2")


#: the value domains: small numbers, constants, numbers and constants mixed (pins of mixed
#: types), integers next to and past clingo's 32 bits and 64 bits (sums, differences and products
#: with the drawn constants cross 2**31 and 2**63 both ways), and strings with clingo's escapes
DOMAINS = [
    (1, 2),
    ("x", "y"),
    (1, "x"),
    (2**31 - 1, 2**31 + 5),
    (-(2**31) - 1, 2**31 - 2),
    (2**63 - 1, -(2**63)),
    ('"a\\nb"', '"q\\"x\\\\"'),
]


# Drawing is the larger part of a property test's cost: a strategy built afresh for each draw
# is validated again each time, so the helpers below draw from strategies built once (the
# sub-strategies are plain functions of ``draw``, not nested composites).


@cache
def _integers(lo: int, hi: int):
    return st.integers(lo, hi)


def _int(draw, lo: int, hi: int) -> int:
    return draw(_integers(lo, hi))


def _pick(draw, options):
    """One of ``options`` (shrinks towards the first, as ``sampled_from``)."""
    return options[draw(_integers(0, len(options) - 1))]


_BOOLS = st.booleans()


def _bool(draw) -> bool:
    return draw(_BOOLS)


@cache
def _orders(n: int):
    return st.permutations(range(n))


def _shuffle(draw, items) -> list:
    """``items`` in a drawn order."""
    items = list(items)
    return [items[i] for i in draw(_orders(len(items)))]


@dataclass(frozen=True)
class Vocabulary:
    arity: dict  # predicate name -> 0 or 1
    domain: tuple  # ground values (see DOMAINS), as ground terms (strings quoted)
    mixed: frozenset = frozenset()  # names also used with the other arity (p/0 and p/1)
    crossed: frozenset = frozenset()  # names of ``mixed`` whose other arity has the other role

    def intensional(self, pred: str, arity: int) -> bool:
        """Whether ``pred/arity`` may be in a rule head (never in the stream or a tuple window)."""
        return (pred in INTENSIONAL) != (pred in self.crossed and arity != self.arity[pred])

    @property
    def head_names(self) -> tuple:
        return INTENSIONAL + tuple(sorted(self.crossed.difference(INTENSIONAL)))

    @property
    def numeric(self) -> bool:
        """Data arithmetic is drawn (domains of integers, or integers and constants)."""
        return type(self.domain[0]) is int

    def const(self, value):
        if type(value) is int:
            return ast.Number(value)
        return to_ast_term(value)  # a constant, or a string given quoted (as in streams)


_DOMAIN_CHOICES = DOMAINS[:2] * 3 + DOMAINS[2:]


@st.composite
def vocabularies(draw, mixed: bool = False) -> Vocabulary:
    """Arities per name; with ``mixed``, some names are used with both arities 0 and 1, some of
    those with one arity extensional and the other intensional."""
    arity = {name: _int(draw, 0, 1) for name in EXTENSIONAL + INTENSIONAL}
    both = frozenset(name for name in arity if mixed and _int(draw, 0, 2) == 0)
    crossed = frozenset(name for name in sorted(both) if _bool(draw))
    return Vocabulary(arity, _pick(draw, _DOMAIN_CHOICES), both, crossed)


def _arity(draw, voc: Vocabulary, pred: str) -> int:
    """The arity of one occurrence of ``pred`` (either, for a name of ``voc.mixed``)."""
    return _int(draw, 0, 1) if pred in voc.mixed else voc.arity[pred]


def _head_arity(draw, voc: Vocabulary, pred: str) -> int:
    """The arity of a head of ``pred``: an intensional one."""
    if pred not in voc.mixed:
        return voc.arity[pred]
    arities = [k for k in (0, 1) if voc.intensional(pred, k)]
    return arities[0] if len(arities) == 1 else _pick(draw, arities)


# ---------------------------------------------------------------- windows and elements

_UNITS = (None, None, None, "sec", "ms", "min")


def windows(draw, tuple_ok: bool) -> ast.Window:
    if tuple_ok and _bool(draw):
        return ast.Window(_int(draw, 1, 3), "#")
    n = _int(draw, 0, 3)
    unit = _pick(draw, _UNITS)
    if unit == "ms":
        return ast.Window(n * 1000, "ms")
    if unit == "min":
        return ast.Window(_int(draw, 0, 1), "min")
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
    kind = _pick(draw, options)
    if kind == "const":
        return voc.const(_pick(draw, voc.domain))
    if kind == "bound":
        return ast.Variable(_pick(draw, bound))
    name = next(v for v in DATA_VARS if v not in scope.data)
    scope.bind(name, "data")
    return ast.Variable(name)


def _time_term(draw, scope, binding: bool):
    options = ["const"] + (["bound"] * 2 if scope.time else [])
    if binding and len(scope.time) < len(TIME_VARS):
        options += ["fresh"] * 3
    kind = _pick(draw, options)
    if kind == "const":
        return ast.Number(_int(draw, 0, 4))
    if kind == "bound":
        return ast.Variable(_pick(draw, scope.time))
    name = next(v for v in TIME_VARS if v not in scope.time)
    scope.bind(name, "time")
    return ast.Variable(name)


_MODALITIES = (ast.NOW, ast.AT, ast.DIAMOND, ast.BOX, ast.AT)


def extended_atoms(draw, voc, scope, binding: bool, predicate=None) -> ast.ExtendedAtom:
    """An extended atom of any modality; ``binding``: it may introduce variables."""
    pred = predicate or _pick(draw, EXTENSIONAL + INTENSIONAL)
    args = tuple(_data_term(draw, voc, scope, binding) for _ in range(_arity(draw, voc, pred)))
    atom = ast.Atom(pred, args)
    modality = _pick(draw, _MODALITIES)
    tuple_ok = not voc.intensional(pred, len(args))
    if modality == ast.NOW:
        return ast.ExtendedAtom(atom)
    if modality == ast.AT:
        window = None if _bool(draw) else windows(draw, tuple_ok)
        return ast.ExtendedAtom(atom, ast.AT, window, _time_term(draw, scope, binding))
    return ast.ExtendedAtom(atom, modality, windows(draw, tuple_ok))


def _value_terms(draw, voc, scope):
    """Two comparable terms over bound variables (same kind, mostly)."""
    if scope.time and (not scope.data or _bool(draw)):
        left = ast.Variable(_pick(draw, scope.time))
        right = _pick(draw, [ast.Variable(v) for v in scope.time] + [ast.Number(k) for k in range(0, 4)])
    else:
        left = ast.Variable(_pick(draw, scope.data))
        right = _pick(draw, [ast.Variable(v) for v in scope.data] + [voc.const(v) for v in voc.domain])
    return left, right


def comparisons(draw, voc, scope) -> ast.Comparison:
    left, right = _value_terms(draw, voc, scope)
    return ast.Comparison(_pick(draw, ("=", "!=", "<", "<=", ">", ">=")), left, right)


def _binding_assignment(draw, voc, scope):
    """``V = expr`` binding a fresh variable from bound ones (time shift or arithmetic)."""
    if scope.time and len(scope.time) < len(TIME_VARS) and _bool(draw):
        base = ast.Variable(_pick(draw, scope.time))
        k = _int(draw, -2, 3)
        expr = ast.BinOp("+" if k >= 0 else "-", base, ast.Number(abs(k)))
        name = next(v for v in TIME_VARS if v not in scope.time)
        scope.bind(name, "time")
        return ast.Comparison("=", ast.Variable(name), expr)
    if voc.numeric and scope.data and len(scope.data) < len(DATA_VARS):
        base = ast.Variable(_pick(draw, scope.data))
        op = _pick(draw, ("+", "-", "*", "\\"))
        k = _int(draw, 1, 2)
        name = next(v for v in DATA_VARS if v not in scope.data)
        scope.bind(name, "data")
        scope.arith.add(name)
        return ast.Comparison("=", ast.Variable(name), ast.BinOp(op, base, ast.Number(k)))
    return None


# ---------------------------------------------------------------- rules and programs

_HEAD_TIMES = ("now", "now", "var", "var", "const")


def rules(draw, voc, head_pred=None, constraint=False, allow_neg=True, force_neg=None, min_pos=1) -> ast.Rule:
    scope, body = _Scope(), []
    for _ in range(_int(draw, min_pos, 2)):
        body.append(ast.Literal(extended_atoms(draw, voc, scope, binding=True)))
    if _int(draw, 0, 2) == 0:
        assignment = _binding_assignment(draw, voc, scope)
        if assignment is not None:
            body.append(ast.Literal(assignment))
    if (scope.data or scope.time) and _int(draw, 0, 2) == 0:
        body.append(ast.Literal(comparisons(draw, voc, scope), negated=allow_neg and _bool(draw)))
    if allow_neg:
        for _ in range(_int(draw, 0, 1)):
            body.append(ast.Literal(extended_atoms(draw, voc, scope, binding=False), negated=True))
    if force_neg is not None:
        if _bool(draw):  # plain `not b(..)`: the classic even/odd loop
            args = tuple(_data_term(draw, voc, scope, binding=False) for _ in range(_arity(draw, voc, force_neg)))
            element = ast.ExtendedAtom(ast.Atom(force_neg, args))
        else:
            element = extended_atoms(draw, voc, scope, binding=False, predicate=force_neg)
        body.append(ast.Literal(element, negated=True))
    body = _shuffle(draw, body)  # order is irrelevant to the semantics
    if constraint:
        return ast.Rule(None, tuple(body))
    pred = head_pred or _pick(draw, voc.head_names)
    args = tuple(_data_term(draw, voc, scope, binding=False, head=True) for _ in range(_head_arity(draw, voc, pred)))
    time = None
    kind = _pick(draw, _HEAD_TIMES)
    if kind == "var" and scope.time:
        time = ast.Variable(_pick(draw, scope.time))
    elif kind == "const":
        time = ast.Number(_int(draw, 0, 6))
    return ast.Rule(ast.Head(ast.Atom(pred, args), time), tuple(body))


def facts(draw, voc) -> ast.Rule:
    # facts of intensional predicates hold at every time point: read through @ and windows too
    pred = _pick(draw, EXTENSIONAL * 2 + INTENSIONAL)
    if _arity(draw, voc, pred) == 0:
        return ast.Rule(ast.Head(ast.Atom(pred)))
    if type(voc.domain[0]) is int and type(voc.domain[1]) is int and _bool(draw):
        arg = ast.Interval(ast.Number(1), ast.Number(_int(draw, 1, 2)))
    else:
        arg = voc.const(_pick(draw, voc.domain))
    return ast.Rule(ast.Head(ast.Atom(pred, (arg,))))


def even_loops(draw, voc, first, second):
    """``a(1) :- [e1,] not b(2).  b(2) :- [e2,] not a(1).`` with e1, e2 ground extended atoms
    (or nothing): two answer streams whenever e1 and e2 hold."""
    heads = [
        ast.Atom(pred, tuple(voc.const(_pick(draw, voc.domain)) for _ in range(voc.arity[pred])))
        for pred in (first, second)
    ]
    out = []
    for head, other in ((heads[0], heads[1]), (heads[1], heads[0])):
        body = [ast.Literal(ast.ExtendedAtom(other), negated=True)]
        if _bool(draw):
            body.append(ast.Literal(extended_atoms(draw, voc, _Scope(), binding=False)))
        out.append(ast.Rule(ast.Head(head), tuple(_shuffle(draw, body))))
    return out


def _signature(atom: ast.Atom) -> tuple:
    return atom.predicate, len(atom.args)


def dependency_edges(program: ast.Program):
    """``(head, body, negated, box)`` for every rule that is not a fact, the predicates as
    ``(name, arity)``: p/0 and p/1 are two predicates."""
    out = []
    for rule in program.proper_rules:
        if rule.head is None:
            continue
        for lit in rule.body:
            if isinstance(lit.element, ast.ExtendedAtom):
                out.append(
                    (
                        _signature(rule.head.atom),
                        _signature(lit.element.atom),
                        lit.negated,
                        lit.element.modality == ast.BOX,
                    )
                )
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
            if (
                isinstance(lit.element, ast.ExtendedAtom)
                and test(lit)
                and _reaches(edges, _signature(lit.element.atom), _signature(rule.head.atom))
            ):
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
        new = rule.replace(body=tuple(body))
        program = ast.Program(tuple(new if r is rule else r for r in program.rules))


_LOOPS = ("even", "even", "mutual", "odd")


@st.composite
def programs(
    draw, positive_only=False, stratified_only=False, vocabulary=None, max_rules=4, mixed=False
) -> ast.Program:
    """A program (module docstring) of up to 2 facts, 1 to ``max_rules`` rules, maybe a loop
    gadget and a constraint; ``mixed``: some names with two arities (without ``vocabulary``)."""
    voc = vocabulary or draw(vocabularies(mixed))
    allow_neg = not positive_only
    out = [facts(draw, voc) for _ in range(_int(draw, 0, 2))]
    out += [rules(draw, voc, allow_neg=allow_neg) for _ in range(_int(draw, 1, max_rules))]
    if allow_neg and _int(draw, 0, 2) == 0:
        # an even loop (a :- .., not b. b :- .., not a.) or an odd one (a :- .., not a.)
        first, second = _shuffle(draw, INTENSIONAL)[:2]
        kind = _pick(draw, _LOOPS)
        if kind == "even":
            out += even_loops(draw, voc, first, second)
        elif kind == "mutual":
            out.append(rules(draw, voc, head_pred=first, force_neg=second, min_pos=0))
            out.append(rules(draw, voc, head_pred=second, force_neg=first, min_pos=0))
        else:
            out.append(rules(draw, voc, head_pred=first, force_neg=first, min_pos=0))
    if allow_neg:
        out += [rules(draw, voc, constraint=True) for _ in range(_int(draw, 0, 1))]
    program = ast.Program(tuple(_shuffle(draw, out)))
    if stratified_only:
        program = _repair(program, lambda lit: lit.negated, lambda lit: lit.replace(negated=False))
    return _repair(
        program,
        _positive_box,
        lambda lit: lit.replace(element=lit.element.replace(modality=ast.DIAMOND)),
        positive_cycles=True,
    )


@st.composite
def streams(draw, voc: Vocabulary, max_time_points=5, start=0, unique=True):
    """``[(t, [atoms])]``: 1 to ``max_time_points`` time points from ``start`` on, up to 3 atoms
    each (distinct unless not ``unique``; a time point may be empty)."""
    names = EXTENSIONAL + INTENSIONAL
    arities = {
        p: {k for k in (voc.arity[p], *((0, 1) if p in voc.mixed else ())) if not voc.intensional(p, k)} for p in names
    }
    atoms = [(p,) for p in names if 0 in arities[p]] + [(p, v) for p in names if 1 in arities[p] for v in voc.domain]
    n = _int(draw, 1, max_time_points)
    return [(t, draw(_atom_lists(tuple(atoms), 3, unique))) for t in range(start, start + n)]


@cache
def _atom_lists(atoms: tuple, max_size: int, unique: bool):
    return st.lists(st.sampled_from(atoms), max_size=max_size, unique=unique)


@st.composite
def programs_and_streams(draw, positive_only=False, stratified_only=False, mixed=False):
    """``(program_text, stream)`` -- see the module docstring; ``mixed``: some names with two arities."""
    voc = draw(vocabularies(mixed))
    program = draw(programs(positive_only, stratified_only, vocabulary=voc))
    return str(program), draw(streams(voc))
