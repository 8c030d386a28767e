"""How values flow through an encoding's rules: bounds of the values at every argument position.

The *bound* of a value is the largest magnitude of its integers, or :data:`UNSAFE` for anything
clingo might compute or order wrongly (an integer of 2**31 or more, a string or RDF literal, what
is not known). :class:`ValueFlow` derives every argument position's bound from those of the facts
(a fixpoint over the rules; recursion through arithmetic is unbounded).
"""

from __future__ import annotations

from .. import ast
from ..limits import fits_clingo
from ..values import WIDE
from .asp import AspRule, ChoiceRule, Count, NafLiteral, Symbol

__all__ = [
    "UNSAFE",
    "ORDER",
    "ValueFlow",
    "Rule",
    "level",
    "value_bound",
    "term_bound",
    "arith_bound",
    "element",
    "bindings",
    "environment",
    "is_fact",
]

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


def _nested_bound(term: tuple) -> int:
    if term[0] in ("lit", "lang", WIDE):
        return UNSAFE
    return max((value_bound(arg) for arg in term[1:] if type(arg) is not str), default=0)


def value_bound(term) -> int:
    """The bound of a ground value: the largest magnitude of its integers, or :data:`UNSAFE`
    (an integer of 2**31 or more, a string, an RDF literal or language-tagged string in it)."""
    t = type(term)
    if t is int:
        b = -term if term < 0 else term
        return b if b < UNSAFE else UNSAFE
    if t is str:
        return UNSAFE if term[:1] == '"' else 0
    return _nested_bound(term)


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


def _positive(lit) -> bool:
    return not (isinstance(lit, NafLiteral) and lit.negated)


def is_fact(statement) -> bool:
    return isinstance(statement, AspRule) and isinstance(statement.head, Symbol) and not statement.body


def has_operation(term) -> bool:
    """Whether a term holds arithmetic, an interval or an integer beyond 32 bits."""
    t = type(term)
    if t in (ast.BinOp, ast.Interval):
        return True
    if t is ast.Number:
        return not fits_clingo(term.value)
    if t is Count:
        return any(literal_operates(lit) for lit in term.condition)
    if isinstance(term, ast.Function):
        return any(has_operation(a) for a in term.args)
    return False


def literal_operates(lit) -> bool:
    """Whether a literal computes or orders values."""
    el = element(lit)
    if isinstance(el, ast.Comparison):
        return el.op in ORDER or has_operation(el.left) or has_operation(el.right)
    if isinstance(el, ast.Atom):
        return any(has_operation(a) for a in el.args)
    return False


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
        if not _positive(lit):
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
    """The rules of an encoding (:mod:`~ticker_py.encode.asp` statements) as value flow. ``facts``:
    ground atoms given to clingo besides the statements (background facts of the incremental
    encoding), whose bounds are known now. ``operates``: some rule computes or orders values;
    ``relevant``: the argument positions ``(name, arity, i)`` whose bounds can decide an operation."""

    def __init__(self, statements, facts=()):
        self.fixed: dict = {}  # (name, arity) -> bounds of the facts known now
        for s in statements:
            if is_fact(s) and type(s.head.value) is tuple:
                atom = s.head.value
                _join(self.fixed, (atom[0], len(atom) - 1), map(value_bound, atom[1:]), False)
        for atom in facts:
            _join(self.fixed, (atom[0], len(atom) - 1), map(value_bound, atom[1:]), False)
        self.rules = [Rule(s) for s in statements if isinstance(s, (AspRule, ChoiceRule)) and not is_fact(s)]
        self.operates = any(literal_operates(lit) for r in self.rules for lit in r.body) or any(
            has_operation(a) for r in self.rules if r.head is not None for a in r.head.args
        )
        self.relevant = self._relevant() if self.operates else frozenset()

    def _relevant(self) -> frozenset:
        needed = {id(rule): self._assigned_from(rule, self._operand_variables(rule)) for rule in self.rules}
        positions: set = set()
        changed = True
        while changed:
            changed = False
            for rule in self.rules:
                names = needed[id(rule)]
                if rule.head is not None:
                    more = set()
                    for i, arg in enumerate(rule.head.args):
                        if (*rule.key, i) in positions:
                            more |= ast.term_variables(arg)
                    if more - names:
                        names = needed[id(rule)] = self._assigned_from(rule, names | more)
                for lit in rule.body:
                    el = element(lit)
                    if isinstance(el, ast.Atom) and _positive(lit):
                        for i, arg in enumerate(el.args):
                            pos = (el.predicate, len(el.args), i)
                            if pos not in positions and ast.term_variables(arg) & names:
                                positions.add(pos)
                                changed = True
        return frozenset(positions)

    @staticmethod
    def _operand_variables(rule: Rule) -> set:
        out: set = set()

        def operands(term, under: bool) -> None:
            t = type(term)
            if t is ast.Variable:
                if under:
                    out.add(term.name)
            elif t in (ast.BinOp, ast.Interval):
                for child in (term.left, term.right) if t is ast.BinOp else (term.low, term.high):
                    operands(child, True)
            elif t is Count:
                for lit in term.condition:
                    literal(lit)
            elif isinstance(term, ast.Function):
                for arg in term.args:
                    operands(arg, under)

        def literal(lit) -> None:
            el = element(lit)
            if isinstance(el, ast.Comparison):
                order = el.op in ORDER
                operands(el.left, order)
                operands(el.right, order)
            elif isinstance(el, ast.Atom):
                for arg in el.args:
                    operands(arg, False)

        for lit in rule.body:
            literal(lit)
        if rule.head is not None:
            for arg in rule.head.args:
                operands(arg, False)
        return out

    @staticmethod
    def _assigned_from(rule: Rule, names: set) -> set:
        """``names`` and the variables their assignments (``V = expr``) compute them from."""
        names = set(names)
        changed = True
        while changed:
            changed = False
            for el in rule.bindings[1]:
                for var, expr in ((el.left, el.right), (el.right, el.left)):
                    if type(var) is ast.Variable and var.name in names:
                        more = _variables(expr) - names
                        if more:
                            names |= more
                            changed = True
        return names

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
        rounds = 0
        changed = True
        while changed:
            changed = False
            rounds += 1
            for rule in heads:
                env = environment(rule.bindings, bound_of)
                if _join(derived, rule.key, [term_bound(a, env) for a in rule.head.args], rounds > _ROUNDS):
                    cache.pop(rule.key, None)
                    changed = True
        return bound_of
