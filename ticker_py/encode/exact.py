"""Exact arithmetic and comparisons in the clingo encodings, paid for only where needed.

clingo's integers are 32-bit and it orders terms its own way. Where an operation or comparison
might not fit 32 bits, by the *bounds* of the values (the largest magnitude of their integers, or
:data:`UNSAFE`), :class:`ExactProgram` has the rule call a Python function instead
(``@_mul(X,X,0)``: :mod:`ticker_py.engines.wide`); a program whose values stay small keeps its
encoding word for word.

>>> from ticker_py.syntax import parse_program
>>> from ticker_py.analysis import analyse
>>> from ticker_py.encode import encode_static
>>> analysis = analyse(parse_program("q(Y) :- p(X), Y = X * X."))
>>> exact = ExactProgram(encode_static(analysis).statements)
>>> bounds = Bounds(analysis.signatures)
>>> bounds.note_atoms([("p", 1000)])
>>> print(exact.text(bounds)[0].splitlines()[0])
q(Y,N) :- _now(N), p(X,N), Y = X*X.
>>> bounds.note_atoms([("p", 100000)])
>>> print(exact.text(bounds)[0].splitlines()[0])
q(Y,N) :- _now(N), p(X,N), Y = @_mul(X,X,0).
"""

from __future__ import annotations

import itertools

from .. import ast
from ..limits import fits_clingo
from ..values import WIDE
from .asp import AspRule, ChoiceRule, Count, External, NafLiteral, Symbol, program_text

__all__ = ["ExactProgram", "Bounds", "ValueFlow", "OPERATIONS", "COMPARE", "RANGE", "UNSAFE", "level", "value_bound"]

#: the Python functions standing for clingo's arithmetic: ``@_add(A,B,R)``, ...; R numbers the
#: program's term (:attr:`ExactProgram.sites`)
OPERATIONS = {"+": "_add", "-": "_sub", "*": "_mul", "/": "_div", "\\": "_mod"}
#: ``@_cmp(A,B,R)``: -1, 0 or 1 as A orders before, with or after B
COMPARE = "_cmp"
#: ``@_range(A,B,R)``: the integers A..B
RANGE = "_range"


#: the bound of a value clingo might compute with or order wrongly (the least integer magnitude
#: clingo cannot hold: -2**31 it holds, but is counted as unsafe too)
UNSAFE = 2**31
#: the order comparisons
ORDER = frozenset(("<", "<=", ">", ">="))

_COUNT_BOUND = UNSAFE - 1  # a #count is a number of ground elements
_ROUNDS = 40  # fixpoint rounds before a bound still growing (recursion through arithmetic) is unsafe


def level(m: int) -> int:
    """A bound of at least ``m`` from a fixed ladder, so that a growing bound changes seldom: a
    power of two up to 2**26, then a multiple of 2**24 (fine where 32 bits end), then UNSAFE."""
    if m <= 0:
        return 0
    if m <= 1 << 26:
        return 1 << (m - 1).bit_length()
    if m >= UNSAFE:
        return UNSAFE
    return -(-m >> 24) << 24


def value_bound(term) -> int:
    """The bound of a ground value: the largest magnitude of its integers, or :data:`UNSAFE`
    (an integer of 2**31 or more, a string, an RDF literal or language-tagged string in it)."""
    t = type(term)
    if t is int:
        b = -term if term < 0 else term
        return b if b < UNSAFE else UNSAFE
    if t is str:
        return UNSAFE if term[:1] == '"' else 0
    if term[0] in ("lit", "lang", WIDE):
        return UNSAFE
    return max((value_bound(arg) for arg in term[1:] if type(arg) is not str), default=0)


def arith_bound(op: str, a: int, b: int) -> int:
    """The bound of ``x op y`` for values bounded by ``a`` and ``b``."""
    if a >= UNSAFE or b >= UNSAFE:
        return UNSAFE
    if op in "+-":
        r = a + b
    elif op == "*":
        r = a * b
    elif op == "/":
        r = a  # |a / b| <= |a|
    else:
        r = min(a, b)  # |a mod b| <= |a| and < |b|
    return r if r < UNSAFE else UNSAFE


def term_bound(term, env: dict) -> int:
    """The bound of a term's values under the bounds ``env`` of its variables."""
    t = type(term)
    if t is ast.Variable:
        return env.get(term.name, UNSAFE)
    if t is ast.Number:
        return value_bound(term.value)
    if t is ast.Constant:
        return 0
    if t is ast.String:
        return UNSAFE
    if t is ast.BinOp:
        return arith_bound(term.op, term_bound(term.left, env), term_bound(term.right, env))
    if t is ast.Interval:
        return max(term_bound(term.low, env), term_bound(term.high, env))
    if t is Count:
        return _COUNT_BOUND
    if t is Symbol:
        return value_bound(term.value)
    if isinstance(term, ast.Function):
        if term.name in ("lit", "lang"):
            return UNSAFE
        # strings nested in a function term are never compared alone
        return max((0 if type(a) is ast.String else term_bound(a, env) for a in term.args), default=0)
    return UNSAFE


def _variables(term) -> set:
    return set() if type(term) in (Count, Symbol) else ast.term_variables(term)


def element(lit):
    """The atom or comparison of a literal (or the bare one, as in an aggregate's condition)."""
    return lit.atom if isinstance(lit, NafLiteral) else lit


def is_fact(statement) -> bool:
    return isinstance(statement, AspRule) and isinstance(statement.head, Symbol) and not statement.body


def _join(table: dict, key, bounds, widen: bool) -> bool:
    """Raise ``table[key]`` to ``bounds`` (elementwise; with ``widen`` a rise goes to UNSAFE at once)."""
    old = table.get(key)
    if old is None:
        table[key] = list(bounds)
        return True
    grew = False
    for i, b in enumerate(bounds):
        if b > old[i]:
            old[i] = UNSAFE if widen else b
            grew = True
    return grew


def bindings(literals) -> tuple:
    """``(atoms, assignments)`` of positive literals: per atom its key, its plain variables by
    position and the variables nested in its function terms; the ``V = expr`` comparisons."""
    atoms, assignments = [], []
    for lit in literals:
        if isinstance(lit, NafLiteral) and lit.negated:
            continue
        el = element(lit)
        if isinstance(el, ast.Atom):
            plain, nested = [], []
            for i, arg in enumerate(el.args):
                if type(arg) is ast.Variable:
                    plain.append((i, arg.name))
                elif isinstance(arg, ast.Function):
                    nested += ast.term_variables(arg)
            atoms.append(((el.predicate, len(el.args)), plain, nested))
        elif isinstance(el, ast.Comparison) and el.op in ("=", "=="):
            assignments.append(el)
    return atoms, assignments


def environment(binding: tuple, bound_of, env: dict | None = None) -> dict:
    """The bounds of the variables bound by the literals :func:`bindings` read."""
    env = dict(env or ())
    atoms, assignments = binding
    for key, plain, nested in atoms:
        bounds = bound_of(key)
        for i, name in plain:
            b = bounds[i]
            if b < env.get(name, UNSAFE + 1):
                env[name] = b
        for name in nested:  # a variable inside a function term: its own values are not measured
            env.setdefault(name, UNSAFE)
    changed = bool(assignments)
    while changed:
        changed = False
        for cmp in assignments:
            for var, expr in ((cmp.left, cmp.right), (cmp.right, cmp.left)):
                if type(var) is ast.Variable and var.name not in env and _variables(expr) <= env.keys():
                    env[var.name] = term_bound(expr, env)
                    changed = True
    return env


class Rule:
    """A rule or choice rule of an encoding, with what the analysis needs of it precomputed."""

    __slots__ = ("statement", "head", "key", "body", "bindings")

    def __init__(self, statement):
        self.statement = statement
        if isinstance(statement, ChoiceRule):
            self.head = statement.atom
            self.body = tuple(statement.body) + tuple(statement.condition)
        else:
            self.head = statement.head if isinstance(statement.head, ast.Atom) else None
            self.body = tuple(statement.body)
        self.key = None if self.head is None else (self.head.predicate, len(self.head.args))
        self.bindings = bindings(self.body)


class ValueFlow:
    """The rules of an encoding (:mod:`~ticker_py.encode.asp` statements) as value flow."""

    def __init__(self, statements):
        self.fixed: dict = {}  # (name, arity) -> bounds of the facts among the statements
        for s in statements:
            if is_fact(s) and type(s.head.value) is tuple:
                atom = s.head.value
                _join(self.fixed, (atom[0], len(atom) - 1), map(value_bound, atom[1:]), False)
        self.rules = [Rule(s) for s in statements if isinstance(s, (AspRule, ChoiceRule)) and not is_fact(s)]

    def bounds(self, source):
        """A function ``(name, arity) -> bounds`` of every argument position: the facts known
        now, those ``source(name, arity)`` gives (a list, or None), and what the rules derive."""
        derived: dict = {}
        cache: dict = {}
        fixed = self.fixed

        def bound_of(key):
            got = cache.get(key)
            if got is None:
                parts = [b for b in (fixed.get(key), source(key), derived.get(key)) if b is not None]
                got = [max(bs) for bs in zip(*parts)] if len(parts) > 1 else list(parts[0]) if parts else [0] * key[1]
                cache[key] = got
            return got

        heads = [rule for rule in self.rules if rule.head is not None]
        for rounds in itertools.count(1):
            changed = False
            for rule in heads:
                env = environment(rule.bindings, bound_of)
                if _join(derived, rule.key, [term_bound(a, env) for a in rule.head.args], rounds > _ROUNDS):
                    cache.pop(rule.key, None)
                    changed = True
            if not changed:
                return bound_of


class ExactProgram:
    """An encoding's statements, specialised to the bounds of their values (``flow``: rules that
    only say where the values of the atoms the engine switches come from). ``operates``: some
    operation might not fit; ``sites``: the terms computed by Python functions, by number."""

    def __init__(self, statements, flow=()):
        self.statements = tuple(statements)
        self.flow = ValueFlow(self.statements + tuple(flow))
        self._rules = {id(rule.statement): rule for rule in self.flow.rules}
        self.sites: list = []
        self._numbers: dict = {}
        self._state = None  # the Bounds state of the last text
        self._last = None
        self._calls = False  # the text being written calls a Python function
        self.operates = any(self._rewrite(s, lambda key: [UNSAFE] * key[1]) != s for s in self.statements)
        self.sites.clear()  # numbered as the values need them
        self._numbers.clear()

    def text(self, bounds: Bounds) -> tuple:
        """``(program text, whether it calls Python functions)`` for the values so far."""
        if not self.operates:
            if self._last is None:
                self._last = (program_text(self.statements), False)
            return self._last
        state = bounds.state()
        if state != self._state:
            bound_of = self.flow.bounds(bounds.source)
            self._calls = False
            statements = [self._rewrite(s, bound_of) for s in self.statements]
            self._state, self._last = state, (program_text(statements), self._calls)
        return self._last

    def _site(self, node) -> ast.Number:
        """The number of a term or comparison computed by a Python function (its last argument)."""
        self._calls = True
        number = self._numbers.get(node)
        if number is None:
            number = self._numbers[node] = len(self.sites)
            self.sites.append(node)
        return ast.Number(number)

    def _rewrite(self, statement, bound_of):
        """A rule with its operations that might not fit 32 bits computed by Python functions."""
        rule = self._rules.get(id(statement))
        if rule is None:  # a fact, a directive or a declaration
            return statement
        env = environment(rule.bindings, bound_of)
        head = self._atom(rule.head, env) if rule.head is not None else statement.head  # numbered first
        literals = tuple(self._literal(lit, env, bound_of) for lit in rule.body)
        if isinstance(statement, ChoiceRule):
            n = len(statement.body)
            return ChoiceRule(statement.bound, head, literals[n:], literals[:n])
        return AspRule(head, literals)

    def _atom(self, atom: ast.Atom, env: dict) -> ast.Atom:
        args = tuple(self._term(a, env) for a in atom.args)
        return atom if all(a is b for a, b in zip(args, atom.args)) else ast.Atom(atom.predicate, args, atom.location)

    def _literal(self, lit, env: dict, bound_of):
        """A literal (or a bare atom or comparison, as in an aggregate's condition) computed exactly."""
        el = element(lit)
        if isinstance(el, ast.Atom):
            new = self._atom(el, env)
        elif isinstance(el, ast.Comparison):
            new = self._comparison(el, env, bound_of)
        else:
            return lit
        if new is el:
            return lit
        return NafLiteral(new, lit.negated) if isinstance(lit, NafLiteral) else new

    def _comparison(self, cmp: ast.Comparison, env: dict, bound_of):
        if type(cmp.right) is Count:  # X = #count{ K : condition }
            count = cmp.right
            inner = environment(bindings(count.condition), bound_of, env)
            condition = tuple(self._literal(lit, inner, bound_of) for lit in count.condition)
            if all(a is b for a, b in zip(condition, count.condition)):
                return cmp
            return ast.Comparison(cmp.op, cmp.left, Count(count.term, condition), cmp.location)
        left, right = self._term(cmp.left, env), self._term(cmp.right, env)
        if cmp.op in ORDER and max(term_bound(cmp.left, env), term_bound(cmp.right, env)) >= UNSAFE:
            call = External(COMPARE, (left, right, self._site(cmp)))
            return ast.Comparison(cmp.op, call, ast.Number(0), cmp.location)
        if left is cmp.left and right is cmp.right:
            return cmp
        return ast.Comparison(cmp.op, left, right, cmp.location)

    def _term(self, term, env: dict):
        """``term`` with its operations that might not fit computed by Python functions."""
        t = type(term)
        if t is ast.BinOp or t is ast.Interval:
            parts = (term.left, term.right) if t is ast.BinOp else (term.low, term.high)
            new = tuple(self._term(p, env) for p in parts)
            if term_bound(term, env) >= UNSAFE:
                name = OPERATIONS[term.op] if t is ast.BinOp else RANGE
                return External(name, (*new, self._site(term)))
            if all(a is b for a, b in zip(new, parts)):
                return term
            return ast.BinOp(term.op, *new, term.location) if t is ast.BinOp else ast.Interval(*new, term.location)
        if t is ast.Number and not fits_clingo(term.value):
            return ast.Function(WIDE, (ast.String(str(term.value)),), term.location)
        if isinstance(term, ast.Function) and t is not ast.Iri:
            args = tuple(self._term(a, env) for a in term.args)
            return (
                term if all(a is b for a, b in zip(args, term.args)) else ast.Function(term.name, args, term.location)
            )
        return term


class Bounds:
    """The bounds of the values an engine has handed to clingo so far, only ever growing (on the
    ladder of :func:`level`): of the atoms of ``signatures`` (unless ``measure`` is false), of the
    times and of the counts."""

    __slots__ = ("time", "count", "args", "measured", "signatures", "version")

    def __init__(self, signatures: dict, measure: bool = True):
        self.time = self.count = 0
        self.signatures = dict(signatures)
        self.measured = self.signatures if measure else {}
        self.args: dict = {}
        self.version = 0

    def state(self) -> tuple:
        return (self.version, self.time, self.count)

    def note_time(self, t: int) -> None:
        if t > self.time:
            self.time = level(t)

    def note_count(self, c: int) -> None:
        if c > self.count:
            self.count = level(c)

    def note_atoms(self, atoms) -> None:
        """Measure the atoms' arguments."""
        measured = self.measured
        if not measured:
            return
        for atom in atoms:
            k = measured.get(atom[0])
            if not k:
                continue
            old = self.args.get(atom[0])
            if old is None:
                old = self.args[atom[0]] = [0] * k
            for i in range(k):
                b = value_bound(atom[i + 1])
                if b > old[i]:
                    old[i] = level(b)
                    self.version += 1

    def source(self, key):
        """The bounds of the facts of ``key = (name, arity)`` that the engine passes, or None."""
        name, arity = key
        if name in ("_now", "_time", "_origin"):
            return [self.time] + [0] * (arity - 1)
        if name == "_cnt":
            return [self.count] + [0] * (arity - 1)
        if name == "_tick":
            return [self.time, self.count][:arity]
        k = self.signatures.get(name)
        if k is None or arity not in (k + 1, k + 2):
            return None
        args = self.args.get(name) or [0] * k
        return list(args) + [self.time, self.count][: arity - k]
