"""Exact arithmetic and comparisons in the clingo encodings, paid for only where needed.

clingo computes with 32-bit integers (a result beyond them wraps) and orders terms its own way.
The values ticker_py hands it are exact (an integer beyond 32 bits is the symbol ``_int("digits")``,
:mod:`ticker_py.values`), and an encoding's rules compute with them (``Y = X*X``, ``N-20 <= U``,
``U = N-n..N-1``) and compare them (``V > 100``). Where clingo's own operation could differ from
the exact one, the rule computes through a Python function instead, which the engine hands the
grounder (``@_mul(X,X)``, ``@_cmp(V,100,3) > 0``; :mod:`ticker_py.engines.wide`).

Which operations need it follows from the values: the *width* of a value is the number of bits
of its integers (0 to 31), or :data:`UNSAFE` for anything clingo might compute or order wrongly —
an integer beyond 31 bits, a string or RDF literal (a literal may be a number; a string compared
with a number is reported), or what is not known. :class:`ExactProgram` takes the widths of the
facts the engine passes (:class:`Widths`, only ever growing), computes the widths of every
derived argument position (a fixpoint over the rules: ``X*Y`` has at most the sum of the widths,
``X+Y`` one bit more than the wider, ...), and rewrites exactly the operations whose operands or
result might not fit. A program whose values stay small keeps its encoding word for word; a
grounder call per rule instance (about 5 µs against clingo's own fraction of one) is spent only
where a value could need it. The engines re-encode when a width grows (at most 32 times per
argument position over a run).

>>> from ticker_py.syntax import parse_program
>>> from ticker_py.analysis import analyse
>>> from ticker_py.encode import encode_static
>>> analysis = analyse(parse_program("q(Y) :- p(X), Y = X * X."))
>>> exact = ExactProgram(encode_static(analysis).statements)
>>> widths = Widths(exact, analysis.signatures)
>>> widths.note_atoms([("p", 1000)])
>>> print(exact.text(widths)[0].splitlines()[0])
q(Y,N) :- _now(N), p(X,N), Y = X*X.
>>> widths.note_atoms([("p", 100000)])
>>> print(exact.text(widths)[0].splitlines()[0])
q(Y,N) :- _now(N), p(X,N), Y = @_mul(X,X,0).
"""

from __future__ import annotations

from .. import ast
from ..limits import fits_clingo
from ..values import WIDE
from .asp import AspRule, ChoiceRule, Count, External, NafLiteral, Symbol, program_text

__all__ = ["UNSAFE", "ExactProgram", "Widths", "value_width", "OPERATIONS", "COMPARE", "RANGE"]

#: the width of a value clingo might compute with or order wrongly
UNSAFE = 32

#: the Python functions standing for clingo's arithmetic (engines/wide.py implements them):
#: ``@_add(A,B,R)``, ...; the last argument R numbers the program's term (:attr:`ExactProgram.sites`)
OPERATIONS = {"+": "_add", "-": "_sub", "*": "_mul", "/": "_div", "\\": "_mod"}
#: ``@_cmp(A,B,R)``: -1, 0 or 1 as A orders before, with or after B
COMPARE = "_cmp"
#: ``@_range(A,B,R)``: the integers A..B
RANGE = "_range"

_ORDER = frozenset(("<", "<=", ">", ">="))
_COUNT_WIDTH = 31  # a #count is a number of ground elements


def _int_width(value: int) -> int:
    bits = value.bit_length()
    return bits if bits < UNSAFE else UNSAFE


def _nested_width(term: tuple) -> int:
    if term[0] in ("lit", "lang", WIDE):
        return UNSAFE
    width = 0
    for arg in term[1:]:
        t = type(arg)
        if t is int:
            w = _int_width(arg)
        elif t is tuple:
            w = _nested_width(arg)
        else:
            continue
        if w > width:
            width = w
    return width


def value_width(term) -> int:
    """The width of a ground value: the bits of its integers, or :data:`UNSAFE` (an integer
    beyond 31 bits, a string, an RDF literal or language-tagged string anywhere in it)."""
    t = type(term)
    if t is int:
        return _int_width(term)
    if t is str:
        return UNSAFE if term[:1] == '"' else 0
    return _nested_width(term)


def _arith_width(op: str, a: int, b: int) -> int:
    if a >= UNSAFE or b >= UNSAFE:
        return UNSAFE
    if op in "+-":
        w = max(a, b) + 1
    elif op == "*":
        w = a + b
    elif op == "/":
        w = a  # |a / b| <= |a|
    else:
        w = min(a, b)  # |a mod b| <= |a| and < |b|
    return min(w, UNSAFE)


def _width(term, env: dict) -> int:
    """The width of a term's values under the widths ``env`` of its variables."""
    t = type(term)
    if t is ast.Variable:
        return env.get(term.name, UNSAFE)
    if t is ast.Number:
        return _int_width(term.value)
    if t is ast.Constant:
        return 0
    if t is ast.String:
        return UNSAFE
    if t is ast.BinOp:
        return _arith_width(term.op, _width(term.left, env), _width(term.right, env))
    if t is ast.Interval:
        return max(_width(term.low, env), _width(term.high, env))
    if t is Count:
        return _COUNT_WIDTH
    if t is Symbol:
        return value_width(term.value)
    if isinstance(term, ast.Function):
        if term.name in ("lit", "lang"):
            return UNSAFE
        return max((_inner_width(a, env) for a in term.args), default=0)
    return UNSAFE


def _inner_width(term, env: dict) -> int:
    """The width of a term nested in a function term (strings there are never compared alone)."""
    return 0 if type(term) is ast.String else _width(term, env)


def _bind(term, width: int, env: dict) -> None:
    """The variables a positive atom's argument binds, with the width of the position."""
    t = type(term)
    if t is ast.Variable:
        if width < env.get(term.name, UNSAFE + 1):
            env[term.name] = width
    elif isinstance(term, ast.Function):
        for arg in term.args:  # a variable inside a function term: its own values are not measured
            _bind(arg, UNSAFE, env)


def _variables(term) -> set:
    if type(term) is Count:
        return set()
    if type(term) is Symbol:
        return set()
    return ast.term_variables(term)


def _atom(lit):
    return lit.atom if isinstance(lit, NafLiteral) else lit


def _environment(literals, width_of, env: dict | None = None) -> dict:
    """The widths of the variables the positive literals bind (atoms, then ``V = expr``)."""
    env = dict(env or ())
    assignments = []
    for lit in literals:
        negated = isinstance(lit, NafLiteral) and lit.negated
        el = _atom(lit)
        if negated:
            continue
        if isinstance(el, ast.Atom):
            widths = width_of((el.predicate, len(el.args)))
            for arg, w in zip(el.args, widths):
                _bind(arg, w, env)
        elif isinstance(el, ast.Comparison) and el.op in ("=", "=="):
            assignments.append(el)
    changed = bool(assignments)
    while changed:
        changed = False
        for cmp in assignments:
            for var, expr in ((cmp.left, cmp.right), (cmp.right, cmp.left)):
                if type(var) is ast.Variable and var.name not in env and _variables(expr) <= env.keys():
                    env[var.name] = _width(expr, env)
                    changed = True
    return env


def _has_operation(term) -> bool:
    t = type(term)
    if t in (ast.BinOp, ast.Interval):
        return True
    if t is ast.Number:
        return _int_width(term.value) >= UNSAFE
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


def _body(statement) -> tuple:
    """The literals that bind a statement's variables (a choice rule's condition included)."""
    if isinstance(statement, ChoiceRule):
        return tuple(statement.body) + tuple(statement.condition)
    return tuple(statement.body)


def _head(statement):
    if isinstance(statement, ChoiceRule):
        return statement.atom
    return statement.head if isinstance(statement.head, ast.Atom) else None


def _is_fact(statement) -> bool:
    return isinstance(statement, AspRule) and isinstance(statement.head, Symbol) and not statement.body


def _join(table: dict, key, widths) -> bool:
    """Widen ``table[key]`` to ``widths`` (elementwise); True if it grew."""
    old = table.get(key)
    if old is None:
        table[key] = list(widths)
        return True
    grew = False
    for i, w in enumerate(widths):
        if w > old[i]:
            old[i] = w
            grew = True
    return grew


class ExactProgram:
    """An encoding's statements (:mod:`~ticker_py.encode.asp` values), specialised to the widths
    of the values they compute with. ``facts``: ground atoms given to clingo besides the
    statements (background facts of the incremental encoding), whose widths are known now."""

    def __init__(self, statements, facts=()):
        self.statements = tuple(statements)
        self.fixed: dict = {}  # (name, arity) -> widths of the facts known now
        for s in self.statements:
            if _is_fact(s) and type(s.head.value) is tuple:
                atom = s.head.value
                _join(self.fixed, (atom[0], len(atom) - 1), map(value_width, atom[1:]))
        for atom in facts:
            _join(self.fixed, (atom[0], len(atom) - 1), map(value_width, atom[1:]))
        self.rules = [s for s in self.statements if isinstance(s, (AspRule, ChoiceRule)) and not _is_fact(s)]
        self.operates = any(_literal_operates(lit) for r in self.rules for lit in _body(r)) or any(
            _has_operation(a) for r in self.rules if _head(r) is not None for a in _head(r).args
        )
        self.relevant = self._relevant() if self.operates else frozenset()
        self.sites: list = []  # the terms and comparisons computed by Python functions, by number
        self._numbers: dict = {}
        self._plain = None
        self._last = None  # (widths, text, external)

    # ---------------------------------------------------------------- which values matter

    def _relevant(self) -> frozenset:
        """The argument positions ``(name, arity, i)`` whose widths can decide an operation."""
        needed = set()
        for rule in self.rules:
            needed |= {(id(rule), v) for v in self._operand_variables(rule)}
        positions: set = set()
        changed = True
        while changed:
            changed = False
            for rule in self.rules:
                head = _head(rule)
                names = {v for r, v in needed if r == id(rule)}
                if head is not None:
                    key = (head.predicate, len(head.args))
                    for i, arg in enumerate(head.args):
                        if (*key, i) in positions:
                            names |= ast.term_variables(arg)
                names = self._assigned_from(rule, names)
                for lit in _body(rule):
                    el = _atom(lit)
                    if isinstance(el, ast.Atom) and not (isinstance(lit, NafLiteral) and lit.negated):
                        for i, arg in enumerate(el.args):
                            pos = (el.predicate, len(el.args), i)
                            if pos not in positions and ast.term_variables(arg) & names:
                                positions.add(pos)
                                changed = True
        return frozenset(positions)

    @staticmethod
    def _operand_variables(rule) -> set:
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

        for lit in _body(rule):
            literal(lit)
        head = _head(rule)
        if head is not None:
            for arg in head.args:
                operands(arg, False)
        return out

    @staticmethod
    def _assigned_from(rule, names: set) -> set:
        """``names`` and the variables their assignments (``V = expr``) compute them from."""
        names = set(names)
        changed = True
        while changed:
            changed = False
            for lit in _body(rule):
                el = _atom(lit)
                if isinstance(el, ast.Comparison) and el.op in ("=", "=="):
                    for var, expr in ((el.left, el.right), (el.right, el.left)):
                        if type(var) is ast.Variable and var.name in names:
                            more = _variables(expr) - names
                            if more:
                                names |= more
                                changed = True
        return names

    # ---------------------------------------------------------------- widths of derived values

    def widths(self, source):
        """A function ``(name, arity) -> widths`` of every argument position: the facts known
        now, those ``source(name, arity)`` gives (a list, or None), and what the rules derive."""
        derived: dict = {}
        cache: dict = {}

        def width_of(key):
            got = cache.get(key)
            if got is None:
                parts = [w for w in (self.fixed.get(key), source(key), derived.get(key)) if w is not None]
                got = [max(ws) for ws in zip(*parts)] if parts else [0] * key[1]
                cache[key] = got
            return got

        changed = True
        while changed:
            changed = False
            for rule in self.rules:
                head = _head(rule)
                if head is None:
                    continue
                env = _environment(_body(rule), width_of)
                key = (head.predicate, len(head.args))
                if _join(derived, key, [_width(a, env) for a in head.args]):
                    cache.pop(key, None)
                    changed = True
        return width_of

    # ---------------------------------------------------------------- the rewritten program

    def text(self, widths: Widths) -> tuple:
        """``(program text, whether it calls Python functions)`` for the values so far."""
        if not self.operates:
            if self._plain is None:
                self._plain = (program_text(self.statements), False)
            return self._plain
        state = widths.state()
        last = self._last
        if last is not None and last[0] == state:
            return last[1], last[2]
        width_of = self.widths(widths.source)
        self.external = False
        text = program_text(self._rewrite(s, width_of) for s in self.statements)
        self._last = (state, text, self.external)
        return text, self.external

    def _rewrite(self, statement, width_of):
        if _is_fact(statement) or not isinstance(statement, (AspRule, ChoiceRule)):
            return statement
        env = _environment(_body(statement), width_of)
        if isinstance(statement, ChoiceRule):
            atom = self._atom(statement.atom, env)
            condition = tuple(self._literal(lit, env, width_of) for lit in statement.condition)
            body = tuple(self._literal(lit, env, width_of) for lit in statement.body)
            return ChoiceRule(statement.bound, atom, condition, body)
        head = statement.head
        if isinstance(head, ast.Atom):
            head = self._atom(head, env)
        return AspRule(head, tuple(self._literal(lit, env, width_of) for lit in statement.body))

    def _atom(self, atom: ast.Atom, env: dict) -> ast.Atom:
        args = tuple(self._term(a, env)[0] for a in atom.args)
        return atom if args == atom.args else ast.Atom(atom.predicate, args, atom.location)

    def _literal(self, lit, env: dict, width_of):
        """A literal (or a bare atom or comparison, as in an aggregate's condition) computed exactly."""
        el = _atom(lit)
        if isinstance(el, ast.Atom):
            new = self._atom(el, env)
        elif isinstance(el, ast.Comparison):
            new = self._comparison(el, env, width_of)
        else:
            return lit
        if new is el:
            return lit
        return NafLiteral(new, lit.negated) if isinstance(lit, NafLiteral) else new

    def _comparison(self, cmp: ast.Comparison, env: dict, width_of):
        if type(cmp.right) is Count:  # X = #count{ K : condition }
            count = cmp.right
            inner = _environment(count.condition, width_of, env)
            condition = tuple(self._literal(lit, inner, width_of) for lit in count.condition)
            if condition == tuple(count.condition):
                return cmp
            return ast.Comparison(cmp.op, cmp.left, Count(count.term, condition), cmp.location)
        left, lw = self._term(cmp.left, env)
        right, rw = self._term(cmp.right, env)
        if cmp.op in _ORDER and (lw >= UNSAFE or rw >= UNSAFE):
            self.external = True
            call = External(COMPARE, (left, right, self._site(cmp)))
            return ast.Comparison(cmp.op, call, ast.Number(0), cmp.location)
        if left is cmp.left and right is cmp.right:
            return cmp
        return ast.Comparison(cmp.op, left, right, cmp.location)

    def _site(self, node) -> ast.Number:
        """The number of a term or comparison computed by a Python function (its last argument:
        reports name the program's term, located)."""
        number = self._numbers.get(node)
        if number is None:
            number = self._numbers[node] = len(self.sites)
            self.sites.append(node)
        return ast.Number(number)

    def _term(self, term, env: dict) -> tuple:
        """``(term computed exactly, its width)``."""
        t = type(term)
        if t is ast.BinOp:
            left, lw = self._term(term.left, env)
            right, rw = self._term(term.right, env)
            width = _arith_width(term.op, lw, rw)
            if width < UNSAFE:
                same = left is term.left and right is term.right
                return (term if same else ast.BinOp(term.op, left, right, term.location)), width
            self.external = True
            return External(OPERATIONS[term.op], (left, right, self._site(term))), width
        if t is ast.Interval:
            low, lw = self._term(term.low, env)
            high, hw = self._term(term.high, env)
            width = max(lw, hw)
            if width < UNSAFE:
                same = low is term.low and high is term.high
                return (term if same else ast.Interval(low, high, term.location)), width
            self.external = True
            return External(RANGE, (low, high, self._site(term))), width
        if t is ast.Number:
            width = _int_width(term.value)
            if not fits_clingo(term.value):
                return ast.Function(WIDE, (ast.String(str(term.value)),), term.location), width
            return term, width
        if isinstance(term, ast.Function) and t is not ast.Iri:
            args = tuple(self._term(a, env)[0] for a in term.args)
            new = term if args == term.args else ast.Function(term.name, args, term.location)
            return new, _width(term, env)
        return term, _width(term, env)


class Widths:
    """The widths of the values an engine has handed to clingo so far, only ever growing.

    ``signatures``: the arity of each predicate whose atoms the engine passes as facts
    (stream atoms, and the lower atoms of the default engine): ``p(args,U)`` and
    ``p(args,U,K)``; only the positions in ``exact.relevant`` are measured. The time, count and
    tick widths cover ``_now``, ``_time``, ``_origin``, ``_cnt``, ``_tick`` and ``_g``."""

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
        w = _int_width(t)
        if w > self.time:
            self.time = w

    def note_count(self, c: int) -> None:
        w = _int_width(c)
        if w > self.count:
            self.count = w

    def note_tick(self, e: int) -> None:
        w = _int_width(e)
        if w > self.tick:
            self.tick = w

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
                w = value_width(atom[i + 1])
                if w > old[i]:
                    old[i] = w
                    self.version += 1

    def source(self, key):
        """The widths of the facts of ``key = (name, arity)`` that the engine passes, or None."""
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
