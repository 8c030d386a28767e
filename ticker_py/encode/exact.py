"""Exact arithmetic and comparisons in the clingo encodings, paid for only where needed.

clingo's integers are 32-bit and it orders terms its own way. Where an encoding's operation or
comparison might not fit 32 bits, by the bounds of the values (:mod:`ticker_py.encode.bounds`),
:class:`ExactProgram` has the rule call a Python function instead (``@_mul(X,X,0)``,
``@_cmp(V,100,3) > 0``: :mod:`ticker_py.engines.wide`), so a program whose values stay small keeps
its encoding word for word. The engines re-encode when the operations to rewrite change.

>>> from ticker_py.syntax import parse_program
>>> from ticker_py.analysis import analyse
>>> from ticker_py.encode import encode_static
>>> analysis = analyse(parse_program("q(Y) :- p(X), Y = X * X."))
>>> exact = ExactProgram(encode_static(analysis).statements)
>>> bounds = Bounds(exact.flow.relevant, analysis.signatures)
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
from .asp import AspRule, ChoiceRule, Count, External, NafLiteral, program_text
from .bounds import ORDER, UNSAFE, ValueFlow, bindings, element, environment, level, term_bound, value_bound

__all__ = ["ExactProgram", "Bounds", "OPERATIONS", "COMPARE", "RANGE"]

#: the Python functions standing for clingo's arithmetic (engines/wide.py implements them):
#: ``@_add(A,B,R)``, ...; the last argument R numbers the program's term (:attr:`ExactProgram.sites`)
OPERATIONS = {"+": "_add", "-": "_sub", "*": "_mul", "/": "_div", "\\": "_mod"}
#: ``@_cmp(A,B,R)``: -1, 0 or 1 as A orders before, with or after B
COMPARE = "_cmp"
#: ``@_range(A,B,R)``: the integers A..B
RANGE = "_range"


class ExactProgram:
    """An encoding's statements (:mod:`~ticker_py.encode.asp` values), specialised to the bounds
    of the values they compute with (``facts``: as for :class:`~ticker_py.encode.bounds.ValueFlow`;
    ``flow``: rules that only say where the values of atoms the engine switches come from).
    ``sites``: the program's terms and comparisons computed by Python functions, by number."""

    def __init__(self, statements, facts=(), flow=()):
        self.statements = tuple(statements)
        self.flow = ValueFlow(self.statements + tuple(flow), facts)
        self._rules = {id(rule.statement): rule for rule in self.flow.rules}
        self.sites: list = []
        self._numbers: dict = {}
        self._state = None  # the Bounds state of the last text
        self._last = None
        self._calls = False  # the text being written calls a Python function

    def text(self, bounds: Bounds) -> tuple:
        """``(program text, whether it calls Python functions)`` for the values so far."""
        if not self.flow.operates:
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
        """The number of a term or comparison computed by a Python function (its last argument:
        reports name the program's term, located)."""
        self._calls = True
        number = self._numbers.get(node)
        if number is None:
            number = self._numbers[node] = len(self.sites)
            self.sites.append(node)
        return ast.Number(number)

    def _rewrite(self, statement, bound_of):
        """A rule with its operations that might not fit 32 bits, by the bounds of its variables'
        values, computed by Python functions."""
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
    ladder of :func:`level`).

    ``signatures``: the arity of each predicate whose atoms the engine passes as facts
    (stream atoms, and the lower atoms of the default engine): ``p(args,U)`` and
    ``p(args,U,K)``; only the positions ``relevant`` (:attr:`ValueFlow.relevant`) are measured. The
    time and count bounds cover ``_now``, ``_time``, ``_origin``, ``_cnt`` and ``_tick``."""

    __slots__ = ("time", "count", "args", "measured", "signatures", "version")

    def __init__(self, relevant, signatures: dict):
        self.time = self.count = 0
        self.signatures = dict(signatures)
        self.args: dict = {}
        self.version = 0
        measured: dict = {}
        for name, arity, i in relevant:
            k = self.signatures.get(name)
            if k is not None and arity in (k + 1, k + 2) and i < k:
                measured.setdefault(name, set()).add(i)
        self.measured = {p: tuple(sorted(ix)) for p, ix in measured.items()}

    def state(self) -> tuple:
        return (self.version, self.time, self.count)

    def note_time(self, t: int) -> None:
        if t > self.time:
            self.time = level(t)

    def note_count(self, c: int) -> None:
        if c > self.count:
            self.count = level(c)

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
