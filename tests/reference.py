"""A slow, exhaustive reference evaluator for LARS programs: the test-suite's oracle.

Written straight from the definitions of SPEC.md §1 and §3 and deliberately independent of
the real engines: it uses neither clingo nor anything in ``ticker_py.encode`` or
``ticker_py.engines`` -- only the AST, the parser and the ground-term helpers.

API
---
``reference_eval(program, history, t, c) -> Result``
    The answer streams at one tick (t, c). ``history`` is a stream (see below); only the
    first ``c`` input atoms (arrival order over the whole stream) are used, and they must
    all have a time <= t.
``reference_results(program, stream, every="time") -> list[Result]``
    One Result per evaluation tick: ``every="time"`` once per time point after its last
    atom (pull); ``every="signal"`` after every single atom, and once for a time point
    without atoms (push).

``program`` is LARS source text or a parsed :class:`ticker_py.ast.Program`. A ``stream`` is
a list ``[(t, [atom, ...]), ...]`` of time points; atoms are ground tuples
(``("p", "a", 1)``) or strings in clingo syntax (``"p(a,1)"``). The same atom twice in one
time point counts once.

How an evaluation works (t, c)
------------------------------
*Interpretation.* An interpretation at t assigns a set of atoms to every time point
u in [0, t]: the input atom with its time, every background atom (facts) at every u, and
a set ``S`` of *derived* pairs ``(atom, u)`` of intensional atoms. Atoms pinned to u > t
(predictions) are also part of an answer stream, but no body reads them.

*Grounding.* Rather than instantiating over a Herbrand universe, each rule is grounded
relative to an interpretation by evaluating its body left to right with joins: a positive
extended atom binds its variables by matching the atoms that actually occur in its window
(its @-time variable ranges over the window's time points), ``V = expr`` binds ``V``, every
other comparison and every negated element is checked once its variables are bound. Ground
instances are taken w.r.t. the *upper bound* ``L0``: the least fixpoint of the program with
all negated elements ignored. Every positive element is monotone in the interpretation
(now, @, diamond and box all are), so an instance whose positive body fails in ``L0`` fails
in every interpretation below it; and every answer stream lies below ``L0`` (it is the least
model of its reduct, whose rules are all applied in ``L0``). So the instances kept are
exactly the ones that can ever matter -- no guess of a finite integer range is needed.

*Answer streams.* ``M`` is an answer stream iff it is a model of the ground program
(every rule whose body holds in M has its head in M; no constraint body holds) and a
⊆-minimal model of the FLP reduct (the rules whose body holds in M). Candidates are
enumerated exhaustively: ``M = K ∪ X`` for every subset X of the pairs in ``U \\ K``, where
``K ⊆ U`` are lower/upper bounds every answer stream lies between (below). Each candidate is
then checked against the definition, so the bounds can only lose answer streams if they
are wrong -- which ``prune=False`` (enumerate every subset of ``L0``) lets the tests check.

*Bounds* (alternating fixpoint): with N ⊆ every answer stream, the least fixpoint of the
rules whose negated elements are false in N -- evaluated with negation read in N --
contains every answer stream (negated elements are antimonotone); symmetrically the least
fixpoint with negation read in an upper bound is contained in every answer stream.
Starting from ``U = L0`` and alternating gives ``K ⊆ U``.

*Minimality.* For S' ⊆ M, the negated elements of reduct rules stay true (they are true in
M and antimonotone) and the positive ones are monotone, so the models of the reduct below
M are closed under intersection and the least one is reached by applying reduct rules from
the empty set. M is minimal iff that fixpoint is M. ``minimality="brute"`` instead checks
every proper subset of M (exponential; for cross-checking on tiny programs).

Output: ``Model.atoms`` = atoms of intensional predicates holding at t (derived, and --
see ``_model`` -- background facts of an intensional predicate), ``Model.pinned`` = the
derived pairs ``(atom, T)`` with T != t (past pins and predictions). Models come back
sorted and deduplicated; compare them as sets.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass

from ticker_py import ast
from ticker_py.semantics import (
    DEFAULT,
    Duplicates,
    FutureHeads,
    Origin,
    Persistence,
    Semantics,
    TupleScope,
    TupleTies,
    WindowBounds,
)
from ticker_py.streams.model import Model, Result
from ticker_py.syntax import parse_ground_atom, parse_program
from ticker_py.values import evaluate_arith, format_atom, from_ast_term, term_key

__all__ = [
    "reference_eval",
    "reference_results",
    "prepare",
    "ReferenceError",
    "TooManyCandidates",
    "window_points",
    "LIMIT",
]

#: at most this many undecided (atom, time) pairs are enumerated (2**LIMIT candidates)
LIMIT = 16

#: at most this many derivable (atom, time) pairs (guards against infinite groundings)
GROUND_LIMIT = 500

_UNDEF = object()  # an undefined arithmetic result


class ReferenceError(ValueError):
    """The program or stream is outside what the reference evaluator accepts."""


class TooManyCandidates(ReferenceError):
    """More undecided head atoms than ``LIMIT``: keep generated programs smaller."""


# ---------------------------------------------------------------- the program


@dataclass(frozen=True)
class Prepared:
    """A program split as the semantics needs it."""

    rules: tuple  # the rules that are not facts (constraints included)
    background: frozenset  # ground atoms of the facts, intervals expanded
    intensional: frozenset  # (name, arity) of the heads of the non-fact rules: p/1 and p/2 are two predicates


def prepare(program: str | ast.Program) -> Prepared:
    """Parse (if needed) and split a program into background facts and rules."""
    if isinstance(program, Prepared):
        return program
    if isinstance(program, str):
        program = parse_program(program)
    background = set()
    for rule in program.facts:
        background |= _expand_fact(rule.head.atom)
    rules = program.proper_rules
    intensional = frozenset(r.head.atom.signature for r in rules if r.head is not None)
    for rule in program.rules:
        for lit in rule.body:
            el = lit.element
            if isinstance(el, ast.ExtendedAtom) and el.window is not None:
                window_points(el.window)  # validates the unit
                if el.window.is_tuple and el.atom.signature in intensional:
                    raise ReferenceError(f"tuple window over intensional predicate {el.atom.predicate}")
    return Prepared(tuple(rules), frozenset(background), intensional)


def _expand_fact(atom: ast.Atom) -> set:
    """The ground atoms of a fact; ``p(0..2, a)`` gives three atoms."""
    choices = []
    for arg in atom.args:
        if ast.term_variables(arg):
            raise ReferenceError(f"fact {atom} is not ground")
        if isinstance(arg, ast.Interval):
            lo, hi = _eval(arg.low, {}), _eval(arg.high, {})
            if type(lo) is not int or type(hi) is not int:
                raise ReferenceError(f"bad interval in fact {atom}")
            choices.append(list(range(lo, hi + 1)))
        else:
            value = _eval(arg, {})
            if value is _UNDEF:
                return set()
            choices.append([value])
    return {(atom.predicate, *args) for args in itertools.product(*choices)}


def window_points(window: ast.Window) -> int:
    """The size of a time window in time points (clock: 1 time point = 1 sec)."""
    if window.unit is None or window.unit == "#":
        return window.size
    ms = window.size * ast.UNITS[window.unit]
    if ms % 1000:
        raise ReferenceError(f"window {window} is not a multiple of the clock (1 sec)")
    return ms // 1000


# ---------------------------------------------------------------- terms


def _eval(term, sigma):
    """The ground value of a term under a (complete for it) substitution, or _UNDEF."""
    if isinstance(term, ast.Variable):
        return sigma[term.name]
    if isinstance(term, (ast.Number, ast.Constant, ast.String)):
        return from_ast_term(term)
    if isinstance(term, ast.Function):
        args = [_eval(a, sigma) for a in term.args]
        return _UNDEF if any(a is _UNDEF for a in args) else (term.name, *args)
    if isinstance(term, ast.BinOp):
        a, b = _eval(term.left, sigma), _eval(term.right, sigma)
        if a is _UNDEF or b is _UNDEF:
            return _UNDEF
        value = evaluate_arith(term.op, a, b)
        return _UNDEF if value is None else value
    raise ReferenceError(f"unsupported term {term} (intervals only in facts)")


def _bound(term, sigma) -> bool:
    return ast.term_variables(term) <= sigma.keys()


def _match(term, value, sigma):
    """Extend ``sigma`` so that ``term`` equals the ground ``value``; None if impossible."""
    if isinstance(term, ast.Variable):
        if term.name in sigma:
            return sigma if _same(sigma[term.name], value) else None
        return {**sigma, term.name: value}
    if isinstance(term, ast.Function) and not _bound(term, sigma):
        if type(value) is not tuple or value[0] != term.name or len(value) != len(term.args) + 1:
            return None
        for arg, v in zip(term.args, value[1:]):
            sigma = _match(arg, v, sigma)
            if sigma is None:
                return None
        return sigma
    mine = _eval(term, sigma)
    return sigma if mine is not _UNDEF and _same(mine, value) else None


def _same(a, b) -> bool:
    return type(a) is type(b) and a == b


def _compare(op, a, b) -> bool:
    ka, kb = term_key(a), term_key(b)
    return {"=": ka == kb, "!=": ka != kb, "<": ka < kb, "<=": ka <= kb, ">": ka > kb, ">=": ka >= kb}[op]


# ---------------------------------------------------------------- the stream at (t, c)


class Stream:
    """The input at tick (t, c): atoms with their time and count, and the background.

    ``origin``: where windows clip (0, or the stream's first time point); ``fed``: derived
    ``(atom, u)`` pairs of earlier time points fed back into the stream (``persistence``).
    ``cut`` picks one of :meth:`tuple_alternatives` per tuple window (``tuple_ties=choice``).
    """

    def __init__(
        self, history, t: int, c: int, prep: Prepared, sem: Semantics = DEFAULT, origin: int = 0, fed=frozenset()
    ):
        self.t, self.c, self.sem, self.origin = t, c, sem, origin
        self.background = prep.background
        self.fed = frozenset(fed)
        self.counted = []  # (count, time, atom) for counts 1..c
        self.input = {u: set() for u in range(t + 1)}
        for atom, u in self.fed:
            self.input[u].add(atom)
        self.cut = {}
        for time, atoms in _normalise(history, sem.duplicates is Duplicates.BAG):
            for atom in atoms:
                if len(self.counted) == c:
                    break
                if time > t:
                    raise ReferenceError(f"atom {format_atom(atom)} #{len(self.counted) + 1} at {time} > t={t}")
                if (atom[0], len(atom) - 1) in prep.intensional:
                    raise ReferenceError(f"intensional atom {format_atom(atom)} in the stream")
                self.counted.append((len(self.counted) + 1, time, atom))
                self.input[time].add(atom)
        if len(self.counted) < c:
            raise ReferenceError(f"the stream has fewer than c={c} atoms")

    def tuple_alternatives(self, n: int, pred: str | None) -> list:
        """The possible ``[n #]`` windows at (t, c): (timeline start, {(atom, u)} contents).

        ``pred``: count only the atoms of this ``(name, arity)`` (``tuple_scope=predicate``), else all.
        With ``tuple_ties=arrival`` one window: the atoms with (scoped) count c-n+1 .. c
        (SPEC §3.3); with ``choice`` every way to take as many atoms of the boundary time
        point as arrival order would.
        """
        if n < 1:
            raise ReferenceError("tuple window [0 #]")
        counted = [(u, atom) for _, u, atom in self.counted if pred is None or (atom[0], len(atom) - 1) == pred]
        if len(counted) < n:
            return [(self.origin, frozenset((atom, u) for u, atom in counted))]
        first = len(counted) - n
        boundary = counted[first][0]
        if self.sem.tuple_ties is TupleTies.ARRIVAL:
            return [(boundary, frozenset((atom, u) for u, atom in counted[first:]))]
        later = frozenset((atom, u) for u, atom in counted if u > boundary)
        at_boundary = [atom for u, atom in counted if u == boundary]
        keep = sum(1 for u, _ in counted[first:] if u == boundary)
        cuts = {later | {(atom, boundary) for atom in chosen} for chosen in itertools.combinations(at_boundary, keep)}
        return [(boundary, cut) for cut in sorted(cuts, key=lambda x: sorted(map(repr, x)))]

    def tuple_window(self, n: int, pred: str | None = None):
        """The ``[n #]`` window chosen by ``cut`` (the only one under ``tuple_ties=arrival``)."""
        key = (n, pred)
        if key not in self.cut:
            self.cut[key] = self.tuple_alternatives(n, pred)[0]
        return self.cut[key]


def _normalise(stream, bag: bool = False):
    """``[(t, [atoms])]`` with tuple atoms; duplicates within a time point removed unless ``bag``."""
    out = []
    for time, atoms in stream:
        seen, row = set(), []
        for atom in atoms:
            if isinstance(atom, str):
                atom = parse_ground_atom(atom)
            if bag or atom not in seen:
                seen.add(atom)
                row.append(atom)
        out.append((time, row))
    return out


# A ground window is ("time", n), ("tuple", n, pred) or None (an @-atom without window: [origin, t]);
# pred is the counted predicate under tuple_scope=predicate, else None.
# A ground element is (modality, atom, time, window); time only for "at", else None.


class Interp:
    """An interpretation at t: the stream plus a set of derived (atom, u) pairs, u in [0, t]."""

    def __init__(self, stream: Stream, derived: Iterable):
        self.s = stream
        self.derived = frozenset(derived)
        self.by_time = {u: set(stream.input[u]) for u in range(stream.t + 1)}
        for atom, u in self.derived:
            self.by_time[u].add(atom)

    def timeline(self, window):
        """The time points a window covers at t."""
        t, origin = self.s.t, self.s.origin
        if window is None:
            return range(origin, t + 1)
        if window[0] == "time":
            n = window[1]
            lo = t - n + 1 if self.s.sem.window_bounds is WindowBounds.HALF_OPEN else t - n
            return range(max(origin, lo), t + 1)
        return range(self.s.tuple_window(*window[1:])[0], t + 1)

    def holds_at(self, atom, u, window) -> bool:
        """``atom`` at time point u, as seen through the window (u already in its timeline)."""
        if atom in self.s.background:
            return True
        if window is not None and window[0] == "tuple":
            return (atom, u) in self.s.tuple_window(*window[1:])[1]
        return atom in self.by_time[u]

    def atoms_at(self, u, window):
        """The atoms (background aside) at time point u through the window."""
        if window is not None and window[0] == "tuple":
            return [a for a, v in self.s.tuple_window(*window[1:])[1] if v == u]
        return self.by_time[u]

    def holds(self, element) -> bool:
        """Does a ground extended atom hold at t? (SPEC §1 table, §3.2-3.3)"""
        modality, atom, time, window = element
        if modality == ast.NOW:
            return self.holds_at(atom, self.s.t, None)
        points = self.timeline(window)
        if modality == ast.AT:
            return type(time) is int and time in points and self.holds_at(atom, time, window)
        if modality == ast.DIAMOND:
            return any(self.holds_at(atom, u, window) for u in points)
        if modality == ast.BOX:
            return all(self.holds_at(atom, u, window) for u in points)
        raise ReferenceError(f"unknown modality {modality}")


# ---------------------------------------------------------------- grounding


@dataclass(frozen=True)
class GroundRule:
    head: tuple | None  # (atom, T) or None for a constraint
    pos: tuple  # ground elements that must hold
    neg: tuple  # ground elements that must not hold


def _ground_window(window, pred, sem: Semantics):
    if window is None:
        return None
    if window.is_tuple:
        return ("tuple", window.size, pred if sem.tuple_scope is TupleScope.PREDICATE else None)
    n = window_points(window)
    if n == 0 and sem.window_bounds is WindowBounds.HALF_OPEN:
        raise ReferenceError("[0] is empty under half-open window bounds")
    return ("time", n)


def _ready(lit, sigma) -> bool:
    el = lit.element
    if lit.negated:
        return False  # checked once everything else is bound
    if isinstance(el, ast.Comparison):
        if el.op == "=":
            for var, other in ((el.left, el.right), (el.right, el.left)):
                if isinstance(var, ast.Variable) and _bound(other, sigma):
                    return True
        return _bound(el.left, sigma) and _bound(el.right, sigma)

    def bindable(term):  # a term that matching can bind: variables inside functions
        if isinstance(term, ast.Variable):
            return True
        if isinstance(term, ast.Function):
            return all(bindable(a) for a in term.args)
        return _bound(term, sigma)

    return all(bindable(a) for a in el.atom.args) and (el.time is None or bindable(el.time))


def _solve(lit, sigma, interp: Interp):
    """All extensions of sigma making the positive literal true, with its ground element."""
    el = lit.element
    if isinstance(el, ast.Comparison):
        left_var = isinstance(el.left, ast.Variable) and el.left.name not in sigma
        right_var = isinstance(el.right, ast.Variable) and el.right.name not in sigma
        if el.op == "=" and (left_var or right_var):
            var, other = (el.left, el.right) if left_var else (el.right, el.left)
            value = _eval(other, sigma)
            if value is not _UNDEF:
                yield {**sigma, var.name: value}, None
            return
        a, b = _eval(el.left, sigma), _eval(el.right, sigma)
        if a is not _UNDEF and b is not _UNDEF and _compare(el.op, a, b):
            yield sigma, None
        return
    window = _ground_window(el.window, el.atom.signature, interp.s.sem)
    pred, arity = el.atom.predicate, len(el.atom.args)
    if el.modality == ast.NOW:
        points = [interp.s.t]
    elif el.modality == ast.AT and _bound(el.time, sigma):
        points = [_eval(el.time, sigma)]
    else:
        points = interp.timeline(window)
    seen = set()
    for u in points:
        if type(u) is not int or u not in interp.timeline(window):
            continue
        atoms = set(interp.atoms_at(u, window)) | interp.s.background
        for atom in atoms:
            if atom[0] != pred or len(atom) != arity + 1:
                continue
            s2 = sigma
            for arg, value in zip(el.atom.args, atom[1:]):
                s2 = _match(arg, value, s2)
                if s2 is None:
                    break
            if s2 is None:
                continue
            time = None
            if el.modality == ast.AT:
                s2 = _match(el.time, u, s2)
                if s2 is None:
                    continue
                time = u
            ground = (el.modality, atom, time, window)
            key = (ground, tuple(sorted(s2.items(), key=lambda kv: kv[0])))
            if key not in seen and interp.holds(ground):
                seen.add(key)
                yield s2, ground


def _ground_negated(lit, sigma, interp):
    """The ground form of a negated literal: True/False for a comparison, an element else."""
    el = lit.element
    if not (ast.element_variables(el) <= sigma.keys()):
        raise ReferenceError(f"unsafe variable in negated element {lit}")
    if isinstance(el, ast.Comparison):
        a, b = _eval(el.left, sigma), _eval(el.right, sigma)
        return _UNDEF if _UNDEF in (a, b) else _compare(el.op, a, b)
    atom = (el.atom.predicate, *(_eval(a, sigma) for a in el.atom.args))
    if _UNDEF in atom:
        return _UNDEF
    time = None
    if el.modality == ast.AT:
        time = _eval(el.time, sigma)
        if time is _UNDEF:
            return _UNDEF
    return (el.modality, atom, time, _ground_window(el.window, el.atom.signature, interp.s.sem))


def ground_rule(rule: ast.Rule, interp: Interp) -> set:
    """The ground instances of a rule whose positive body holds in ``interp``."""
    out = set()

    def search(todo, sigma, pos):
        if any(not lit.negated for lit in todo):
            for i, lit in enumerate(todo):
                if _ready(lit, sigma):
                    rest = todo[:i] + todo[i + 1 :]
                    for s2, ground in _solve(lit, sigma, interp):
                        search(rest, s2, pos if ground is None else pos + (ground,))
                    return
            raise ReferenceError(f"unsafe rule (cannot bind {todo[0]}): {rule}")
        neg = []
        for lit in todo:
            g = _ground_negated(lit, sigma, interp)
            if g is _UNDEF or g is True:  # undefined: the instance does not apply
                return
            if g is not False:
                neg.append(g)
        head = None
        if rule.head is not None:
            if not (
                ast.atom_variables(rule.head.atom) | ast.term_variables(rule.head.time or ast.Number(0)) <= sigma.keys()
            ):
                raise ReferenceError(f"unsafe head variable in {rule}")
            atom = (rule.head.atom.predicate, *(_eval(a, sigma) for a in rule.head.atom.args))
            time = interp.s.t if rule.head.time is None else _eval(rule.head.time, sigma)
            if _UNDEF in atom or type(time) is not int or time < interp.s.origin:
                return  # undefined, not a time point, or pinned before the origin: dropped (SPEC §3.7)
            head = (atom, time)
        out.add(GroundRule(head, tuple(sorted(set(pos), key=repr)), tuple(sorted(set(neg), key=repr))))

    search(tuple(rule.body), {}, ())
    return out


# ---------------------------------------------------------------- answer streams


def _pos_holds(gr, interp):
    return all(interp.holds(e) for e in gr.pos)


def _body_holds(gr, interp, neg_interp=None):
    neg_interp = interp if neg_interp is None else neg_interp
    return _pos_holds(gr, interp) and not any(neg_interp.holds(e) for e in gr.neg)


def _lfp(rules, stream, neg_interp=None, ignore_neg=False):
    """Least set of derived pairs closed under ``rules`` (heads at u <= t only).

    Negated elements are read in ``neg_interp`` (fixed), in the growing set itself
    (``neg_interp=None``), or ignored."""
    t, derived = stream.t, set()
    while True:
        interp = Interp(stream, derived)
        new = set()
        for gr in rules:
            if gr.head is None or gr.head[1] > t or gr.head in derived:
                continue
            if gr.head[0] in stream.background:
                continue  # holds anyway
            ok = _pos_holds(gr, interp) if ignore_neg else _body_holds(gr, interp, neg_interp)
            if ok:
                new.add(gr.head)
        if not new:
            return frozenset(derived)
        derived |= new


def answer_streams(prep: Prepared, stream: Stream, prune=True, minimality="lfp", limit=None):
    """All answer streams at (t, c), as sets of derived pairs (atom, u), predictions included."""
    t = stream.t
    # upper bound L0 and the ground program relative to it (module docstring)
    upper = frozenset()
    while True:
        interp = Interp(stream, upper)
        ground = set()
        for rule in prep.rules:
            ground |= ground_rule(rule, interp)
        new = _lfp(ground, stream, ignore_neg=True)
        if len(new) > GROUND_LIMIT:
            raise TooManyCandidates(f"more than {GROUND_LIMIT} derivable atoms at t={t}: recursion through arithmetic?")
        if new == upper:
            break
        upper = new
    ground = sorted(ground, key=repr)
    lower = frozenset()
    if prune:
        while True:
            lower2 = _lfp(ground, stream, neg_interp=Interp(stream, upper))
            upper2 = _lfp(ground, stream, neg_interp=Interp(stream, lower2))
            if (lower2, upper2) == (lower, upper):
                break
            lower, upper = lower2, upper2
        if not lower <= upper:  # cannot happen when the bounds are right
            raise AssertionError("reference: lower bound not below upper bound")
    undecided = sorted(upper - lower, key=repr)
    limit = LIMIT if limit is None else limit
    if len(undecided) > limit:
        raise TooManyCandidates(f"{len(undecided)} undecided atoms at t={t} (limit {limit})")
    found = []
    for r in range(len(undecided) + 1):
        for extra in itertools.combinations(undecided, r):
            candidate = lower | frozenset(extra)
            m = _check(ground, stream, candidate, minimality)
            if m is not None:
                found.append(m)
    return found


def _check(ground, stream, s, minimality):
    """The answer stream with derived pairs ``s`` at u <= t, if it is one; else None."""
    t = stream.t
    interp = Interp(stream, s)
    reduct = [gr for gr in ground if _body_holds(gr, interp)]
    predictions = set()
    for gr in reduct:  # model check
        if gr.head is None:
            return None  # a constraint whose body holds
        atom, u = gr.head
        if u > t:
            if stream.sem.future_heads is FutureHeads.INCONSISTENT:
                return None  # strict LARS: the head is false on the timeline [0, t]
            predictions.add(gr.head)  # a model must contain it; minimality: nothing more
        elif gr.head not in s and atom not in stream.background:
            return None
    # minimality: no proper subset of s (predictions are forced, nothing reads them)
    if minimality == "lfp":
        if _lfp(reduct, stream) != s:
            return None
    else:
        items = sorted(s, key=repr)
        for r in range(len(items)):
            for sub in itertools.combinations(items, r):
                sub_interp = Interp(stream, sub)
                if all(
                    gr.head in sub
                    or gr.head[1] > t
                    or gr.head[0] in stream.background
                    or not _body_holds(gr, sub_interp)
                    for gr in reduct
                ):
                    return None
    return frozenset(s | predictions)


def _model(prep: Prepared, stream: Stream, derived) -> Model:
    """What an answer stream shows: intensional atoms at t; derived pins at T != t.

    A background fact of an intensional predicate (``a(1). a(X) :- p(X).``) holds at t
    in every answer stream and is shown in ``atoms``; it is not a pin, so it never
    appears in ``pinned``.
    """
    t = stream.t
    atoms = {a for a, u in derived if u == t}
    atoms |= {a for a in stream.background if (a[0], len(a) - 1) in prep.intensional}
    pinned = {(a, u) for a, u in derived if u != t and a not in stream.background} - stream.fed
    return Model(frozenset(atoms), frozenset(pinned))


def _model_key(m: Model):
    return (sorted(format_atom(a) for a in m.atoms), m.sorted_pinned())


def _tuple_windows(prep: Prepared, sem: Semantics) -> list:
    """The distinct ground tuple windows ``(n, pred)`` the program reads."""
    out = set()
    for rule in prep.rules:
        for lit in rule.body:
            el = lit.element
            if isinstance(el, ast.ExtendedAtom) and el.window is not None and el.window.is_tuple:
                out.add(_ground_window(el.window, el.atom.signature, sem)[1:])
    return sorted(out, key=repr)


def reference_eval(
    program,
    history,
    t: int,
    c: int,
    prune=True,
    minimality="lfp",
    limit=None,
    semantics: Semantics = DEFAULT,
    origin: int = 0,
    fed=frozenset(),
) -> Result:
    """The answer streams of ``program`` at tick (t, c) of ``history`` (see module doc).

    Under ``tuple_ties=choice`` the answer streams of every choice of tuple-window cuts."""
    prep = prepare(program)
    stream = Stream(history, t, c, prep, semantics, origin, fed)
    windows = _tuple_windows(prep, semantics)
    models = set()
    for cuts in itertools.product(*(stream.tuple_alternatives(*w) for w in windows)):
        stream.cut = dict(zip(windows, cuts))
        models |= {_model(prep, stream, d) for d in answer_streams(prep, stream, prune, minimality, limit)}
    return Result(t, c, tuple(sorted(models, key=_model_key)))


class FeedbackError(ReferenceError):
    """``persistence=feedback`` met a time point with several answer streams."""


def ticks(stream, every="time", bag=False):
    """The evaluation ticks (t, c) of a stream in pull (``time``) or push (``signal``) mode."""
    if every not in ("time", "signal"):
        raise ReferenceError(f"every must be 'time' or 'signal', not {every!r}")
    out, c = [], 0
    for time, atoms in _normalise(stream, bag):
        if every == "signal":
            for _ in atoms:
                c += 1
                out.append((time, c))
            if not atoms:
                out.append((time, c))
        else:
            c += len(atoms)
            out.append((time, c))
    return out


def reference_results(program, stream, every="time", semantics: Semantics = DEFAULT, **options) -> list:
    """One Result per evaluation tick of ``stream`` (time points consecutive).

    The stream starts at 0, or under ``origin=first`` at its first time point (nothing is
    evaluated before it). Under ``persistence=feedback`` the atoms derived at u (the last
    tick of u) are fed back at u before the next time point is evaluated; several answer streams
    there raise :class:`FeedbackError` then.
    """
    stream = _normalise(stream, semantics.duplicates is Duplicates.BAG)
    start = stream[0][0] if stream and semantics.origin is Origin.FIRST else 0
    if stream and stream[0][0] > start:  # origin zero: the time points before the first record are empty
        stream = [(u, []) for u in range(start, stream[0][0])] + stream
    for i, (time, _) in enumerate(stream, start):
        if time != i:
            raise ReferenceError(f"time points must be {start}, {start + 1}, ... consecutive, got {time}")
    prep = prepare(program)
    origin = start
    feedback = semantics.persistence is Persistence.FEEDBACK
    out, fed = [], set()
    all_ticks = ticks(stream, every, semantics.duplicates is Duplicates.BAG)
    for i, (t, c) in enumerate(all_ticks):
        result = reference_eval(prep, stream, t, c, semantics=semantics, origin=origin, fed=fed, **options)
        out.append(result)
        if feedback and i + 1 < len(all_ticks) and all_ticks[i + 1][0] != t:  # fed before the next time point
            if len(result.models) > 1:
                raise FeedbackError(f"persistence=feedback: {len(result.models)} answer streams at t={t}")
            for model in result.models:
                fed |= {(a, t) for a in model.atoms if a not in prep.background}
    return out
