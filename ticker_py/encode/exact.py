"""Exact arithmetic and comparisons in the clingo encodings, paid for only where needed.

clingo computes with 32-bit integers (a result beyond them wraps) and orders terms its own way.
The values ticker_py hands it are exact (an integer beyond 32 bits is the symbol ``_int("digits")``,
:mod:`ticker_py.values`), and an encoding's rules compute with them (``Y = X*X``, ``N-20 <= U``,
``U = N-n..N-1``) and compare them (``V > 100``). Where clingo's own operation could differ from
the exact one, the rule computes through a Python function instead, which the engine hands the
grounder (``@_mul(X,X,0)``, ``@_cmp(V,100,3) > 0``; :mod:`ticker_py.engines.wide`).

Which operations need it follows from the values. The *bound* of a value is the largest magnitude
of its integers, or :data:`UNSAFE` for anything clingo might compute or order wrongly: an integer
of 2**31 or more, a string or RDF literal (a literal may be a number; a string compared with a
number is reported), or what is not known. :class:`ExactProgram` takes the bounds of the facts the
engine passes (:class:`Bounds`, only ever growing, in steps: :func:`level`), computes the bounds of
every derived argument position (a fixpoint over the rules: ``X*Y`` is bounded by the product of
the bounds, ``X+Y`` by their sum, ...), and rewrites exactly the operations whose operands or
result might not fit. A program whose values stay small keeps its encoding word for word; a
grounder call per rule instance (about 5 µs against clingo's own fraction of one) is spent only
where a value could need it. The engines re-encode when the operations to rewrite change.

>>> from ticker_py.syntax import parse_program
>>> from ticker_py.analysis import analyse
>>> from ticker_py.encode import encode_static
>>> analysis = analyse(parse_program("q(Y) :- p(X), Y = X * X."))
>>> exact = ExactProgram(encode_static(analysis).statements)
>>> bounds = Bounds(exact, analysis.signatures)
>>> bounds.note_atoms([("p", 1000)])
>>> print(exact.text(bounds)[0].splitlines()[0])
q(Y,N) :- _now(N), p(X,N), Y = X*X.
>>> bounds.note_atoms([("p", 100000)])
>>> print(exact.text(bounds)[0].splitlines()[0])
q(Y,N) :- _now(N), p(X,N), Y = @_mul(X,X,0).
"""

from __future__ import annotations

from .. import ast
from ..limits import fits_clingo
from ..values import WIDE
from .asp import AspRule, ChoiceRule, Count, External, NafLiteral, Symbol, program_text

__all__ = ["UNSAFE", "ExactProgram", "Bounds", "value_bound", "level", "OPERATIONS", "COMPARE", "RANGE"]

#: the bound of a value clingo might compute with or order wrongly (the least integer magnitude
#: clingo cannot hold: -2**31 it holds, but is counted as unsafe too)
UNSAFE = 2**31

#: the Python functions standing for clingo's arithmetic (engines/wide.py implements them):
#: ``@_add(A,B,R)``, ...; the last argument R numbers the program's term (:attr:`ExactProgram.sites`)
OPERATIONS = {"+": "_add", "-": "_sub", "*": "_mul", "/": "_div", "\\": "_mod"}
#: ``@_cmp(A,B,R)``: -1, 0 or 1 as A orders before, with or after B
COMPARE = "_cmp"
#: ``@_range(A,B,R)``: the integers A..B
RANGE = "_range"

_ORDER = frozenset(("<", "<=", ">", ">="))
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
    bound = 0
    for arg in term[1:]:
        t = type(arg)
        if t is int:
            b = -arg if arg < 0 else arg
        elif t is tuple:
            b = _nested_bound(arg)
        else:
            continue
        if b > bound:
            bound = b
    return bound if bound < UNSAFE else UNSAFE


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


def _arith_bound(op: str, a: int, b: int) -> int:
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


def _bound(term, env: dict) -> int:
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
        return _arith_bound(term.op, _bound(term.left, env), _bound(term.right, env))
    if t is ast.Interval:
        return max(_bound(term.low, env), _bound(term.high, env))
    if t is Count:
        return _COUNT_BOUND
    if t is Symbol:
        return value_bound(term.value)
    if isinstance(term, ast.Function):
        if term.name in ("lit", "lang"):
            return UNSAFE
        # strings nested in a function term are never compared alone
        return max((0 if type(a) is ast.String else _bound(a, env) for a in term.args), default=0)
    return UNSAFE


def _variables(term) -> set:
    return set() if type(term) in (Count, Symbol) else ast.term_variables(term)


def _atom(lit):
    return lit.atom if isinstance(lit, NafLiteral) else lit


def _positive(lit) -> bool:
    return not (isinstance(lit, NafLiteral) and lit.negated)


def _has_operation(term) -> bool:
    t = type(term)
    if t in (ast.BinOp, ast.Interval):
        return True
    if t is ast.Number:
        return not fits_clingo(term.value)
    if t is Count:
        return any(_literal_operates(lit) for lit in term.condition)
    if isinstance(term, ast.Function):
        return any(_has_operation(a) for a in term.args)
    return False


def _literal_operates(lit) -> bool:
    el = _atom(lit)
    if isinstance(el, ast.Comparison):
        return el.op in _ORDER or _has_operation(el.left) or _has_operation(el.right)
    if isinstance(el, ast.Atom):
        return any(_has_operation(a) for a in el.args)
    return False


def _is_fact(statement) -> bool:
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


def _bindings(literals) -> tuple:
    """``(atoms, assignments)`` of positive literals: per atom its key, its plain variables by
    position and the variables nested in its function terms; the ``V = expr`` comparisons."""
    atoms, assignments = [], []
    for lit in literals:
        if not _positive(lit):
            continue
        el = _atom(lit)
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


def _environment(bindings: tuple, bound_of, env: dict | None = None) -> dict:
    """The bounds of the variables bound by the literals :func:`_bindings` read."""
    env = dict(env or ())
    atoms, assignments = bindings
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
                    env[var.name] = _bound(expr, env)
                    changed = True
    return env


class _Rule:
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
        self.bindings = _bindings(self.body)


class ExactProgram:
    """An encoding's statements (:mod:`~ticker_py.encode.asp` values), specialised to the bounds
    of the values they compute with. ``facts``: ground atoms given to clingo besides the
    statements (background facts of the incremental encoding), whose bounds are known now."""

    def __init__(self, statements, facts=()):
        self.statements = tuple(statements)
        self.fixed: dict = {}  # (name, arity) -> bounds of the facts known now
        for s in self.statements:
            if _is_fact(s) and type(s.head.value) is tuple:
                atom = s.head.value
                _join(self.fixed, (atom[0], len(atom) - 1), map(value_bound, atom[1:]), False)
        for atom in facts:
            _join(self.fixed, (atom[0], len(atom) - 1), map(value_bound, atom[1:]), False)
        self.rules = [
            _Rule(s) for s in self.statements if isinstance(s, (AspRule, ChoiceRule)) and not _is_fact(s)
        ]
        self.operates = any(_literal_operates(lit) for r in self.rules for lit in r.body) or any(
            _has_operation(a) for r in self.rules if r.head is not None for a in r.head.args
        )
        self.relevant = self._relevant() if self.operates else frozenset()
        self.sites: list = []  # the terms and comparisons computed by Python functions, by number
        self._numbers: dict = {}
        self._state = None  # the Bounds state of the last text
        self._texts: dict = {}  # the rewritten operations -> (text, external)
        self._last = None

    # ---------------------------------------------------------------- which values matter

    def _relevant(self) -> frozenset:
        """The argument positions ``(name, arity, i)`` whose bounds can decide an operation."""
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
                    el = _atom(lit)
                    if isinstance(el, ast.Atom) and _positive(lit):
                        for i, arg in enumerate(el.args):
                            pos = (el.predicate, len(el.args), i)
                            if pos not in positions and ast.term_variables(arg) & names:
                                positions.add(pos)
                                changed = True
        return frozenset(positions)

    @staticmethod
    def _operand_variables(rule: _Rule) -> set:
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
            el = _atom(lit)
            if isinstance(el, ast.Comparison):
                order = el.op in _ORDER
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
    def _assigned_from(rule: _Rule, names: set) -> set:
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

    # ---------------------------------------------------------------- bounds of derived values

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
                env = _environment(rule.bindings, bound_of)
                if _join(derived, rule.key, [_bound(a, env) for a in rule.head.args], rounds > _ROUNDS):
                    cache.pop(rule.key, None)
                    changed = True
        return bound_of

    # ---------------------------------------------------------------- the rewritten program

    def text(self, bounds: Bounds) -> tuple:
        """``(program text, whether it calls Python functions)`` for the values so far."""
        if not self.operates:
            if self._last is None:
                self._last = (program_text(self.statements), False)
            return self._last
        state = bounds.state()
        if state == self._state:
            return self._last
        bound_of = self.bounds(bounds.source)
        unsafe: set = set()
        for rule in self.rules:
            self._decide(rule, _environment(rule.bindings, bound_of), bound_of, unsafe)
        key = frozenset(unsafe)
        got = self._texts.get(key)
        if got is None:
            statements = (self._rewrite(s, unsafe) if isinstance(s, (AspRule, ChoiceRule)) else s for s in self.statements)
            got = self._texts[key] = (program_text(statements), bool(unsafe))
        self._state, self._last = state, got
        return got

    # deciding: which operations (by node identity within a rule) must compute exactly

    def _decide(self, rule: _Rule, env: dict, bound_of, unsafe: set) -> None:
        for lit in rule.body:
            el = _atom(lit)
            if isinstance(el, ast.Atom):
                for arg in el.args:
                    self._term_bound(arg, env, unsafe)
            elif isinstance(el, ast.Comparison):
                self._comparison_bound(el, env, bound_of, unsafe)
        if rule.head is not None:
            for arg in rule.head.args:
                self._term_bound(arg, env, unsafe)

    def _comparison_bound(self, cmp: ast.Comparison, env: dict, bound_of, unsafe: set) -> None:
        if type(cmp.right) is Count:  # X = #count{ K : condition }
            inner = _environment(_bindings(cmp.right.condition), bound_of, env)
            for lit in cmp.right.condition:
                el = _atom(lit)
                if isinstance(el, ast.Comparison):
                    self._comparison_bound(el, inner, bound_of, unsafe)
                elif isinstance(el, ast.Atom):
                    for arg in el.args:
                        self._term_bound(arg, inner, unsafe)
            return
        left = self._term_bound(cmp.left, env, unsafe)
        right = self._term_bound(cmp.right, env, unsafe)
        if cmp.op in _ORDER and (left >= UNSAFE or right >= UNSAFE):
            unsafe.add(id(cmp))

    def _term_bound(self, term, env: dict, unsafe: set) -> int:
        t = type(term)
        if t is ast.BinOp:
            bound = _arith_bound(
                term.op, self._term_bound(term.left, env, unsafe), self._term_bound(term.right, env, unsafe)
            )
            if bound >= UNSAFE:
                unsafe.add(id(term))
            return bound
        if t is ast.Interval:
            bound = max(self._term_bound(term.low, env, unsafe), self._term_bound(term.high, env, unsafe))
            if bound >= UNSAFE:
                unsafe.add(id(term))
            return bound
        if isinstance(term, ast.Function) and t is not ast.Iri:
            for arg in term.args:
                self._term_bound(arg, env, unsafe)
        return _bound(term, env)

    # rewriting: the decided operations as Python functions

    def _site(self, node) -> ast.Number:
        """The number of a term or comparison computed by a Python function (its last argument:
        reports name the program's term, located)."""
        number = self._numbers.get(node)
        if number is None:
            number = self._numbers[node] = len(self.sites)
            self.sites.append(node)
        return ast.Number(number)

    def _rewrite(self, statement, unsafe: set):
        if _is_fact(statement):
            return statement
        if isinstance(statement, ChoiceRule):
            return ChoiceRule(
                statement.bound,
                self._atom_of(statement.atom, unsafe),
                tuple(self._literal(lit, unsafe) for lit in statement.condition),
                tuple(self._literal(lit, unsafe) for lit in statement.body),
            )
        head = statement.head
        if isinstance(head, ast.Atom):
            head = self._atom_of(head, unsafe)
        return AspRule(head, tuple(self._literal(lit, unsafe) for lit in statement.body))

    def _atom_of(self, atom: ast.Atom, unsafe: set) -> ast.Atom:
        args = tuple(self._term(a, unsafe) for a in atom.args)
        return atom if all(a is b for a, b in zip(args, atom.args)) else ast.Atom(atom.predicate, args, atom.location)

    def _literal(self, lit, unsafe: set):
        """A literal (or a bare atom or comparison, as in an aggregate's condition) computed exactly."""
        el = _atom(lit)
        if isinstance(el, ast.Atom):
            new = self._atom_of(el, unsafe)
        elif isinstance(el, ast.Comparison):
            new = self._comparison(el, unsafe)
        else:
            return lit
        if new is el:
            return lit
        return NafLiteral(new, lit.negated) if isinstance(lit, NafLiteral) else new

    def _comparison(self, cmp: ast.Comparison, unsafe: set):
        if type(cmp.right) is Count:
            count = cmp.right
            condition = tuple(self._literal(lit, unsafe) for lit in count.condition)
            if all(a is b for a, b in zip(condition, count.condition)):
                return cmp
            return ast.Comparison(cmp.op, cmp.left, Count(count.term, condition), cmp.location)
        left, right = self._term(cmp.left, unsafe), self._term(cmp.right, unsafe)
        if id(cmp) in unsafe:
            call = External(COMPARE, (left, right, self._site(cmp)))
            return ast.Comparison(cmp.op, call, ast.Number(0), cmp.location)
        if left is cmp.left and right is cmp.right:
            return cmp
        return ast.Comparison(cmp.op, left, right, cmp.location)

    def _term(self, term, unsafe: set):
        """``term`` with its decided operations computed by Python functions."""
        t = type(term)
        if t is ast.BinOp:
            left, right = self._term(term.left, unsafe), self._term(term.right, unsafe)
            if id(term) in unsafe:
                return External(OPERATIONS[term.op], (left, right, self._site(term)))
            return term if left is term.left and right is term.right else ast.BinOp(term.op, left, right, term.location)
        if t is ast.Interval:
            low, high = self._term(term.low, unsafe), self._term(term.high, unsafe)
            if id(term) in unsafe:
                return External(RANGE, (low, high, self._site(term)))
            return term if low is term.low and high is term.high else ast.Interval(low, high, term.location)
        if t is ast.Number and not fits_clingo(term.value):
            return ast.Function(WIDE, (ast.String(str(term.value)),), term.location)
        if isinstance(term, ast.Function) and t is not ast.Iri:
            args = tuple(self._term(a, unsafe) for a in term.args)
            return term if all(a is b for a, b in zip(args, term.args)) else ast.Function(term.name, args, term.location)
        return term


class Bounds:
    """The bounds of the values an engine has handed to clingo so far, only ever growing (on the
    ladder of :func:`level`).

    ``signatures``: the arity of each predicate whose atoms the engine passes as facts
    (stream atoms, and the lower atoms of the default engine): ``p(args,U)`` and
    ``p(args,U,K)``; only the positions in ``exact.relevant`` are measured. The time, count and
    tick bounds cover ``_now``, ``_time``, ``_origin``, ``_cnt``, ``_tick`` and ``_g``."""

    __slots__ = ("time", "count", "tick", "args", "measured", "signatures", "version")

    def __init__(self, exact: ExactProgram, signatures: dict):
        self.time = self.count = self.tick = 0
        self.signatures = dict(signatures)
        self.args: dict = {}
        self.version = 0
        measured: dict = {}
        for name, arity, i in exact.relevant:
            k = self.signatures.get(name)
            if k is not None and arity in (k + 1, k + 2) and i < k:
                measured.setdefault(name, set()).add(i)
        self.measured = {p: tuple(sorted(ix)) for p, ix in measured.items()}

    def state(self) -> tuple:
        return (self.version, self.time, self.count, self.tick)

    def note_time(self, t: int) -> None:
        if t > self.time:
            self.time = level(t)

    def note_count(self, c: int) -> None:
        if c > self.count:
            self.count = level(c)

    def note_tick(self, e: int) -> None:
        if e > self.tick:
            self.tick = level(e)

    def note_atoms(self, atoms) -> None:
        """Measure the atoms' arguments at the relevant positions."""
        measured = self.measured
        if not measured:
            return
        for atom in atoms:
            positions = measured.get(atom[0])
            if positions is None:
                continue
            old = self.args.get(atom[0])
            if old is None:
                old = self.args[atom[0]] = [0] * self.signatures[atom[0]]
            for i in positions:
                b = value_bound(atom[i + 1])
                if b > old[i]:
                    old[i] = level(b)
                    self.version += 1

    def source(self, key):
        """The bounds of the facts of ``key = (name, arity)`` that the engine passes, or None."""
        name, arity = key
        if name in ("_now", "_time", "_origin"):
            return [self.time] + [self.tick] * (arity - 1)
        if name == "_cnt":
            return [self.count] + [self.tick] * (arity - 1)
        if name == "_tick":
            return [self.time, self.count][:arity]
        if name == "_g":
            return [self.tick] * arity
        k = self.signatures.get(name)
        if k is None or arity not in (k + 1, k + 2):
            return None
        args = self.args.get(name) or [0] * k
        return list(args) + [self.time, self.count][: arity - k]
