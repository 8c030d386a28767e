"""Compiling a rule into join plans: one generated Python function per driving literal.

A plan ``fn(D, out, now)`` joins each ``(instance, horizon)`` pair of the delta ``D`` of one positive
body literal with the other literals' facts (through indexes on the bound positions), checks
comparisons and negated literals once their variables are bound, and appends ``(head, horizon)`` to
``out``: the minimum of the body's horizons (``now`` for a transient rule); an @-head is ``(atom, T)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import repeat
from operator import itemgetter

from ... import ast
from ...errors import Diagnostic, EngineUnsupported, InternalError
from ...values import COMPUTE, compare, from_ast_term
from .store import INF

__all__ = ["StoreLiteral", "RulePlan", "compile_rule", "constants", "delta_groups", "unsupported"]

_first = itemgetter(0)


@dataclass
class StoreLiteral:
    """A body atom bound to the store it reads."""

    store: object
    atom: ast.Atom
    time: object = None  # the @-time term of an at-store instance
    negated: bool = False
    box: bool = False

    def positions(self):
        """``(position, term)`` pairs: the atom's arguments, then the @-time."""
        out = list(enumerate(self.atom.args))
        if self.store.shape == "at":
            out.append((len(self.atom.args), self.time))
        return out


@dataclass
class RulePlan:
    """The compiled rule: ``drivers`` are ``(store, fn)``; ``full`` evaluates from scratch."""

    rule: ast.Rule
    head_store: object
    drivers: list = field(default_factory=list)
    full: object = None  # fn for a transient rule, driven by ``full_store`` (or once)
    full_store: object = None
    box_stores: tuple = ()
    transient: bool = False
    sources: list = field(default_factory=list)  # each plan's source (a skipping plan's: :class:`_Skipping`)

    @property
    def source(self) -> str:
        """The generated functions' sources (a skipping plan's is generated if not yet compiled)."""
        return "\n".join(s if type(s) is str else s.source() for s in self.sources)


def unsupported(rule, why) -> EngineUnsupported:
    """The native engine's refusal of ``rule``, saying why."""
    return EngineUnsupported(Diagnostic(f"the native engine cannot run rule '{rule}'", rule.location, (why,)))


def _variables(term) -> set:
    return ast.term_variables(term) if term is not None else set()


def is_constant(term) -> bool:
    """Whether a term is a constant without arithmetic (number, name, string, or a function of those)."""
    if isinstance(term, (ast.Number, ast.Constant, ast.String)):
        return True
    return type(term) is ast.Function and all(is_constant(a) for a in term.args)


def constants(terms) -> dict:
    """position -> value of the constant terms among ``terms``."""
    return {i: from_ast_term(t) for i, t in enumerate(terms) if is_constant(t)}


def _constant_code(term) -> str:
    return repr(from_ast_term(term))


def _comparison_code(op, left, right, where: str = "None") -> str:
    """A comparison in clingo's order of terms (numbers before everything else, numeric literals
    among them: :func:`ticker_py.values.compare`, which also reports a number compared with a
    literal for the program's comparison ``where``)."""
    if op in ("=", "!="):
        return f"{left} {'==' if op == '=' else '!='} {right}"
    flip = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
    for var, const, o in ((left, right, op), (right, left, flip[op])):
        try:
            int(const)
        except ValueError:
            continue
        return f"(({var} {o} {const}) if type({var}) is int else _cmp({o!r}, {var}, {const}, {where}))"
    return f"(({left} {op} {right}) if type({left}) is int and type({right}) is int else _cmp({op!r}, {left}, {right}, {where}))"


class _PlanWriter:
    """Emits the body of one plan function, literal by literal."""

    def __init__(self, rule: RulePlan, ns: dict, general: bool = False):
        self.plan, self.ns = rule, ns
        self.general = general  # no shortcuts: no early exits from loops
        self.loop = None  # the innermost loop: (variables bound, horizon) before it
        self.lines: list = []
        self.depth = 1
        self.bound: dict = {}  # LARS variable -> Python name
        self.tmp = 0
        self.h = "now"
        self.hc = None  # the count horizon, once a counted literal is joined
        self.skips = False  # an extended driving fact skips what it cannot extend (_skips)
        self.pending: list = []  # functions that emit a check if they can, and say whether they did

    # -- emission helpers
    def emit(self, line):
        self.lines.append("    " * self.depth + line)

    def guard(self, cond):
        self.emit(f"if not ({cond}): continue")

    def fresh(self, base="t"):
        self.tmp += 1
        return f"{base}{self.tmp}"

    def name(self, obj, prefix):
        key = f"{prefix}{id(obj)}"
        self.ns[key] = obj
        return key

    def computable(self, term) -> bool:
        return _variables(term) <= set(self.bound)

    def value(self, term) -> str:
        """A Python expression for a term whose variables are bound (arithmetic guarded)."""
        if isinstance(term, ast.Variable):
            return self.bound[term.name]
        if isinstance(term, (ast.Number, ast.Constant, ast.String)):
            return _constant_code(term)
        if isinstance(term, ast.Function):
            return f"({term.name!r}, {', '.join(self.value(a) for a in term.args)},)"
        if isinstance(term, ast.BinOp):
            left, right = self.value(term.left), self.value(term.right)
            v = self.fresh()
            where = self.name(term, "W")  # a result too long for any integer is refused there
            self.emit(f"{v} = {self.name(COMPUTE[term.op], 'A')}({left}, {right}, {where})")
            self.guard(f"{v} is not None")
            return v
        raise unsupported(self.plan.rule, f"term '{term}' is not supported in a rule")

    def bind(self, var, expr):
        py = f"v{len(self.bound)}"
        self.bound[var] = py
        self.emit(f"{py} = {expr}")

    # -- matching an instance against a pattern
    def match(self, term, val):
        if isinstance(term, ast.Variable):
            if term.name in self.bound:
                self.guard(f"{val} == {self.bound[term.name]}")
            else:
                self.bind(term.name, val)
        elif self.computable(term):
            self.guard(f"{val} == {self.value(term)}")
        elif isinstance(term, ast.Function):
            v = self.fresh("f")
            self.emit(f"{v} = {val}")
            self.guard(f"type({v}) is tuple and len({v}) == {len(term.args) + 1} and {v}[0] == {term.name!r}")
            for i, arg in enumerate(term.args):
                self.match(arg, f"{v}[{i + 1}]")
        elif isinstance(term, ast.BinOp):
            v = self.fresh("e")
            self.emit(f"{v} = {val}")
            self.when_bound(_variables(term), lambda: self.guard(f"{v} == {self.value(term)}"))
        else:
            raise unsupported(self.plan.rule, f"term '{term}' is not supported in a rule body")

    def accessor(self, lit: StoreLiteral, inst: str, pos: int) -> str:
        if lit.store.shape == "at":
            return f"{inst}[1]" if pos == len(lit.atom.args) else f"{inst}[0][{pos + 1}]"
        return f"{inst}[{pos + 1}]"

    def atom_code(self, atom: ast.Atom) -> str:
        """The atom tuple, its variables bound."""
        return f"({', '.join([repr(atom.predicate)] + [self.value(a) for a in atom.args])},)"

    def full_key(self, lit: StoreLiteral) -> str:
        atom = self.atom_code(lit.atom)
        if lit.store.shape == "at":
            return f"({atom}, {self.value(lit.time)})"
        return atom

    def minimum(self, old, new: str, base: str) -> str:
        """A variable for the smaller of ``old`` and ``new`` (``new`` if ``old`` is None)."""
        if old is None:
            return new
        v = self.fresh(base)
        self.emit(f"{v} = {old} if {old} < {new} else {new}")
        return v

    def set_h(self, hv, counted=False):
        if counted:
            hc = self.fresh("c")
            self.emit(f"{hv}, {hc} = {hv}")
            self.hc = self.minimum(self.hc, hc, "c")
        if not self.plan.transient:
            self.h = self.minimum(None if self.h == "now" else self.h, hv, "h")  # "now": the first literal

    # -- the steps of a plan
    def drive(self, lit: StoreLiteral, inst: str, hv: str, matched=None):
        """Bind the driving literal from instance ``inst`` with horizon ``hv`` (the constant at
        position ``matched`` is already matched)."""
        for pos, term in lit.positions():
            if pos != matched:
                self.match(term, self.accessor(lit, inst, pos))
        self.set_h(hv, lit.store.counted)
        self.flush()

    def probe(self, lit: StoreLiteral, exclude: bool = False):
        """Join ``lit``; with ``exclude`` skip instances of the driving delta (semi-naive:
        a literal before the driver reading the same store sees only the old facts)."""
        facts = self.name(lit.store.facts, "F")
        positions = lit.positions()
        known = [p for p, term in positions if self.computable(term)]
        hv = self.fresh("h")
        if len(known) == len(positions):
            key = self.fresh("k")
            self.emit(f"{key} = {self.full_key(lit)}")
            self.emit(f"{hv} = {facts}.get({key})")
            self.guard(f"{hv} is not None")
            if exclude:
                self.guard(f"{key} not in _ds")
        else:
            inst = self.fresh("x")
            if known:
                # the index's dict for the literal's constants, keyed by the other known positions
                idx, free = lit.store.index(tuple(known), constants(t for _, t in positions))
                idx = self.name(idx, "I")
                keys = [self.value(dict(positions)[p]) for p in free]
                key = keys[0] if len(keys) == 1 else f"({', '.join(keys)},)" if keys else "()"
                b = self.fresh("b")
                self.emit(f"{b} = {idx}.get({key})")
                self.guard(f"{b} is not None")
                # a key with one instance holds the instance itself (Store._indexed)
                self.emit(f"for {inst} in ({b} if type({b}) is dict else ({b},)):")
            else:
                self.emit(f"for {inst}, {hv} in {facts}.items():")
            self.depth += 1
            self.loop = (set(self.bound), self.h)
            if exclude:
                self.guard(f"{inst} not in _ds")
            if known:
                self.emit(f"{hv} = {facts}[{inst}]")
            for pos, term in positions:
                if pos not in known:
                    self.match(term, self.accessor(lit, inst, pos))
        if self.skips:
            # only a fact ending before the driving one can be skipped: look the pair up then
            self.emit(f"if {hv} < h0:")
            self.emit("    if _ho is None: _ho = _bg(id(_p), -1)")
            self.emit(f"    if {hv} <= _ho: continue")
        self.set_h(hv, lit.store.counted)
        self.flush()

    def when_bound(self, need: set, emit) -> None:
        """Call ``emit()`` (a check) once the variables ``need`` are bound."""
        self.pending.append(lambda: need <= self.bound.keys() and (emit() or True))

    def flush(self):
        """Emit every pending check that can be (a check or an assignment that emitted says True)."""
        while done := [item for item in list(self.pending) if item()]:
            for item in done:
                self.pending.remove(item)

    def add_comparison(self, cmp: ast.Comparison, negated: bool):
        def check():
            cond = _comparison_code(cmp.op, self.value(cmp.left), self.value(cmp.right), self.name(cmp, "C"))
            self.guard(f"not ({cond})" if negated else cond)

        def assign():
            for var, expr in ((cmp.left, cmp.right), (cmp.right, cmp.left)):
                if isinstance(var, ast.Variable) and var.name not in self.bound and self.computable(expr):
                    self.bind(var.name, self.value(expr))
                    return True
            return self.computable(cmp.left) and self.computable(cmp.right) and (check() or True)

        if cmp.op == "=" and not negated:
            self.pending.append(assign)
        else:
            self.when_bound(_variables(cmp.left) | _variables(cmp.right), check)

    def add_negated(self, lit: StoreLiteral):
        facts = self.name(lit.store.facts, "F")
        need = ast.atom_variables(lit.atom) | _variables(lit.time)
        self.when_bound(need, lambda: self.guard(f"{self.full_key(lit)} not in {facts}"))

    def head(self):
        rule = self.plan.rule
        if self.pending:
            raise unsupported(rule, "a comparison or negated atom has variables no positive atom binds")
        atom = rule.head.atom
        head = self.atom_code(atom)
        if rule.head.time is not None:
            tv = self.value(rule.head.time)
            self.guard(f"type({tv}) is int and {tv} >= 0")
            head = f"({head}, {tv})"
        if self.plan.head_store.counted:
            self.emit(f"_ap(({head}, ({self.h}, {self.hc if self.hc is not None else '_INF'})))")
        elif self.hc is not None:
            raise InternalError(f"rule '{rule}' reads counted facts into an uncounted store")
        else:
            self.emit(f"_ap(({head}, {self.h}))")
            self.exit_early(ast.atom_variables(atom) | _variables(rule.head.time))

    def exit_early(self, head_vars: set):
        """Leave the innermost loop once it derived its head with the horizon it had before the
        loop: the head does not depend on the loop, and later instances can only derive it again
        with that horizon or an earlier one, which the head store would not take."""
        if self.general or self.loop is None or not head_vars <= self.loop[0]:
            return
        self.emit("break" if self.plan.transient else f"if {self.h} == {self.loop[1]}: break")


def delta_groups():
    """``delta_groups(D, key)``: the pairs of delta ``D`` grouped by ``key(instance)`` (``key``
    None: the set of D's instances), remembered per key for the next plan that gets the same delta
    (deltas only grow: the same list and length, the same groups). One for all the rules of a
    program: the rules driven by one store's delta group it once; the sets are one per rule."""
    last: dict = {}

    def delta_groups(D, key=None):
        e = last.get(key)
        if e is None or e[0] is not D or e[1] != len(D):
            if key is None:
                groups = set(map(_first, D))
            else:
                groups = {}
                for pair in D:
                    k = key(pair[0])
                    g = groups.get(k)
                    if g is None:
                        groups[k] = [pair]
                    else:
                        g.append(pair)
            last[key] = e = (D, len(D), groups)
        return e[2]

    return delta_groups


def _skips(plan: RulePlan, driver, positives, rank) -> bool:
    """Whether the plan driven by ``driver`` may skip, for a driving fact extended in this
    evaluation from horizon h (``Store.before``), the joins whose other facts hold until h or
    earlier (docs/native.md, *Extended facts*, says why and where that is sound)."""
    if len(positives) < 2 or plan.transient or plan.head_store.counted:
        return False
    scc = plan.head_store.scc
    return all(lit.store.scc is None or lit.store.scc != scc for lit in positives) and not any(
        lit.store is driver.store and rank[id(lit)] > rank[id(driver)] for lit in positives
    )


class _Skipping:
    """A driver's plan that skips what an extension cannot extend (:func:`_skips`), compiled on
    first use: until a fact of the driver's store is extended (``Store.before``), the plain plan
    runs; then the skipping one is compiled and takes this one's place in ``plan.drivers``."""

    def __init__(self, plan: RulePlan, body, driver, ns: dict, plain, slot: int):
        self.plan, self.body, self.driver, self.ns, self.plain, self.slot = plan, body, driver, ns, plain, slot
        self.before = driver.store.before
        self.fn = None
        self.text = None  # generated when first needed: most plans never see an extended fact

    def source(self) -> str:
        """The skipping plan's source."""
        if self.text is None:
            self.text = _plan_source(self.plan, self.body, self.driver, self.ns, skipping=True)
        return self.text

    def compiled(self):
        """The skipping plan (compiled now if not yet), in this one's place in ``plan.drivers``."""
        if self.fn is None:
            code = compile(self.source(), f"<plan {self.plan.rule}>", "exec")  # names its stores in ns
            env = dict(self.ns, _plain=self.plain)
            exec(code, env)
            self.fn = env["plan"]
            self.plan.drivers[self.slot] = (self.driver.store, self.fn)
        return self.fn

    def __call__(self, D, _out, now):
        if self.fn is None and not self.before:
            return self.plain(D, _out, now)
        return self.compiled()(D, _out, now)


def _join_order(driver, positives):
    """Greedy join order: next the literal with the most bound argument positions."""
    bound = set() if driver is None else (ast.atom_variables(driver.atom) | _variables(driver.time))
    rest = [p for p in positives if p is not driver]
    out = []
    while rest:

        def score(lit):
            pos = lit.positions()
            known = sum(1 for _, term in pos if _variables(term) <= bound)  # noqa: B023 - used before bound changes
            return (known == len(pos), known)

        best = max(rest, key=score)
        rest.remove(best)
        out.append(best)
        bound |= ast.atom_variables(best.atom) | _variables(best.time)
    return out


def _plan_source(plan: RulePlan, body, driver, ns, full=False, general=False, skipping=False) -> str:
    """The plan's source (``skipping``: the variant that skips what an extension cannot extend,
    where :func:`_skips`; it leaves an evaluation without extensions to ``_plain``)."""
    gen = _PlanWriter(plan, ns, general)
    positives = [b for b in body if isinstance(b, StoreLiteral) and not b.negated]
    for b in body:
        if isinstance(b, StoreLiteral) and b.negated:
            gen.add_negated(b)
        elif not isinstance(b, StoreLiteral):
            gen.add_comparison(*b)
    lines_head = ["def plan(D, _out, now):", "    _ap = _out.append"]
    order = _join_order(driver, positives)
    rank = {id(lit): i for i, lit in enumerate(positives)}
    excluded = (
        []
        if driver is None or full
        else [lit for lit in order if lit.store is driver.store and rank[id(lit)] < rank[id(driver)]]
    )
    if excluded:
        lines_head.append("    _ds = _delta_set(D)")
    if skipping:
        before = gen.name(driver.store.before, "B")
        lines_head.insert(1, f"    if not {before}: return _plain(D, _out, now)   # no fact extended")
        lines_head.append(f"    _bg = {before}.get")
        gen.skips = True
    grouped = None
    if driver is not None and not full:
        # iterate only the delta instances with the driver's first constant (grouped once a delta)
        grouped = next((pos for pos, term in driver.positions() if is_constant(term)), None)
    pairs = "_p" if gen.skips else "x0, h0"  # a skipping plan looks its pairs up in Store.before
    if grouped is None:
        lines_head.append(f"    for {pairs} in D:")
    else:
        key = gen.name(driver.store.key((grouped,)), "K")
        const = _constant_code(dict(driver.positions())[grouped])
        lines_head.append(f"    for {pairs} in _delta_groups(D, {key}).get({const}, ()):")
    gen.depth = 2
    if gen.skips:
        gen.emit("x0, h0 = _p")
    if driver is not None:
        gen.drive(driver, "x0", "h0", grouped)
        if gen.skips:
            gen.emit("_ho = None   # the horizon an extension extended (Store.before), looked up once needed")
    else:
        gen.flush()
    for lit in order:
        gen.probe(lit, exclude=any(lit is e for e in excluded))
    gen.head()
    return "\n".join(lines_head + gen.lines) + "\n"


def _projection_source(plan: RulePlan, body: list, ns: dict):
    """A plan in whole-delta operations (C loops, no Python code per instance) for a rule whose
    body is one positive literal of distinct variables and at most one constant, and whose head
    only rearranges them (constants allowed; an @-head at the literal's @-time); else None."""
    if len(body) != 1 or not isinstance(body[0], StoreLiteral) or body[0].negated:
        return None
    lit, head = body[0], plan.rule.head
    shape_at = lit.store.shape == "at"
    at_pos = len(lit.atom.args)
    where: dict = {}  # variable -> position in the instance
    grouped = None
    for pos, term in lit.positions():
        if isinstance(term, ast.Variable) and term.name not in where and term.name != "_":
            where[term.name] = pos
        elif is_constant(term) and grouped is None and not (shape_at and pos == at_pos):
            grouped = pos
        else:
            return None
    if head.time is not None and not (
        shape_at and isinstance(head.time, ast.Variable) and where.get(head.time.name) == at_pos
    ):
        return None
    columns = [f"_rp({head.atom.predicate!r})"]
    for term in head.atom.args:
        pos = where.get(term.name) if isinstance(term, ast.Variable) else None
        if pos is not None:
            columns.append("map(_second, A)" if pos == at_pos else f"map(_ig({pos + 1}), M)")
        elif is_constant(term):
            columns.append(f"_rp({_constant_code(term)})")
        else:
            return None
    lines = ["def plan(D, _out, now):"]
    if grouped is None:
        lines.append("    X = D")
    else:
        key = f"K{id(lit.store)}_{grouped}"
        ns[key] = lit.store.key((grouped,))
        lines.append(f"    X = _delta_groups(D, {key}).get({_constant_code(dict(lit.positions())[grouped])}, ())")
    lines.append("    A = list(map(_first, X))")
    lines.append("    M = list(map(_first, A))" if shape_at else "    M = A")
    heads = f"zip({', '.join(columns)})"
    if head.time is not None:
        heads = f"zip({heads}, map(_second, A))"
    lines.append(f"    _out.extend(zip({heads}, map(_second, X)))")
    return "\n".join(lines) + "\n"


def compile_rule(rule: ast.Rule, body: list, head_store, general: bool = False, groups=None) -> RulePlan:
    """Compile ``rule`` whose body elements are :class:`StoreLiteral` or ``(Comparison, negated)``
    (``general``: never as a projection, never leaving a loop early: the paths the fast ones are
    tested against; ``groups``: the program's :func:`delta_groups`, else the rule's own)."""
    positives = [b for b in body if isinstance(b, StoreLiteral) and not b.negated]
    transient = not positives or any(isinstance(b, StoreLiteral) and b.negated for b in body)
    plan = RulePlan(rule, head_store, transient=transient, box_stores=tuple(b.store for b in positives if b.box))
    ns = {
        "_cmp": compare,
        "_delta_set": delta_groups(),
        "_delta_groups": groups or delta_groups(),
        "_rp": repeat,
        "_ig": itemgetter,
        "_first": _first,
        "_second": itemgetter(1),
        "_INF": INF,
    }
    rank = {id(lit): i for i, lit in enumerate(positives)}

    def define(driver, full=False):
        src = None if full or general else _projection_source(plan, body, ns)
        if src is None:
            src = _plan_source(plan, body, driver, ns, full, general)
        plan.sources.append(src)
        env = dict(ns)
        exec(compile(src, f"<plan {rule}>", "exec"), env)
        if full or general or not _skips(plan, driver, positives, rank):
            return env["plan"]
        skipping = _Skipping(plan, body, driver, ns, env["plan"], len(plan.drivers))
        plan.sources.append(skipping)
        return skipping

    for lit in positives:
        plan.drivers.append((lit.store, define(lit)))
    if transient:
        driver = positives[0] if positives else None
        plan.full = define(driver, full=True)
        plan.full_store = driver.store if driver is not None else None
    return plan
