"""Exact values on the clingo-solved side: integers clingo cannot hold (32 bits) never wrap.

clingo's integers are 32-bit. Where a clingo-solved rule only passes a wide integer through
(joins, equality, output), the engines hand it to clingo as the reserved function symbol
``_int("digits")`` (names starting with ``_`` are not LARS names) and read it back as the
integer: clingo compares such symbols for equality exactly. Where a clingo-solved rule
computes or compares with a value (arithmetic, ``<``, ``<=``, ``>``, ``>=``, an @-head time),
a wide integer would give a wrong answer: :class:`ClingoValues` finds the argument positions
whose values can reach such a rule, and the engines refuse a stream atom with a wide integer
there (or a program with one as a literal there) with an error naming the value and the rule.
Time points, tuple counts and window sizes are always numbers in the encodings: beyond
clingo's range they are refused too. See docs/semantics.md, "Values and limits".
"""

from __future__ import annotations

from dataclasses import replace

from .. import ast
from ..analysis import Analysis, analyse
from ..errors import Diagnostic, EngineUnsupported, StreamError
from ..limits import CLINGO_MAX, CLINGO_MIN
from ..values import UNHOLDABLE

__all__ = [
    "WIDE",
    "ClingoValues",
    "wide_term",
    "clingo_atom",
    "exact_atom",
    "clingo_analysis",
    "check_clingo_number",
    "check_clingo_strings",
    "locate",
]

#: the reserved function symbol that carries a wide integer through clingo
WIDE = "_int"
RANGE = f"clingo's integer range {CLINGO_MIN}..{CLINGO_MAX}"
NATIVE_NOTE = "the native engine (--engine native; auto for programs in its fragment) computes with any integer exactly"
_ORDER = {"<", "<=", ">", ">="}


def _is_wide(value) -> bool:
    return type(value) is int and not CLINGO_MIN <= value <= CLINGO_MAX


def wide_term(value: int) -> tuple:
    """The ground term that stands for a wide integer inside clingo."""
    return (WIDE, f'"{value}"')


def _has_wide(term) -> bool:
    t = type(term)
    if t is int:
        return not CLINGO_MIN <= term <= CLINGO_MAX
    return t is tuple and any(_has_wide(a) for a in term[1:])


def _map(term):
    t = type(term)
    if t is int:
        return term if CLINGO_MIN <= term <= CLINGO_MAX else wide_term(term)
    if t is tuple:
        return (term[0], *(_map(a) for a in term[1:]))
    return term


def clingo_atom(atom: tuple) -> tuple:
    """``atom`` with every wide integer replaced by its ``_int`` symbol (the atom itself if none)."""
    for a in atom[1:]:
        if _has_wide(a):
            return _map(atom)
    return atom


def check_clingo_number(value: int, what: str, where: str = "") -> None:
    """Refuse a time point or count that the encodings would hand to clingo as a number."""
    if not CLINGO_MIN <= value <= CLINGO_MAX:
        raise StreamError(
            Diagnostic(
                f"{what} {value} is outside {RANGE}{where}",
                notes=("the clingo-based engines keep time points and counts as clingo numbers", NATIVE_NOTE),
            )
        )


# ---------------------------------------------------------------- where values are computed with


def _variables(term) -> set:
    return ast.term_variables(term)


def _leaves(term):
    """``(leaf, computed)`` for each variable and number in ``term``; computed: under arithmetic."""
    stack = [(term, False)]
    while stack:
        t, under = stack.pop()
        if isinstance(t, (ast.Variable, ast.Number)):
            yield t, under
        elif isinstance(t, ast.Function):
            stack += [(a, under) for a in t.args]
        elif isinstance(t, ast.BinOp):
            stack += [(t.left, True), (t.right, True)]
        elif isinstance(t, ast.Interval):
            stack += [(t.low, True), (t.high, True)]


def _arith_variables(term) -> set:
    """Variables that occur under an arithmetic operator or an interval in ``term``."""
    return {t.name for t, under in _leaves(term) if under and isinstance(t, ast.Variable)}


def _literals(term):
    """``(Number, computed)`` for each integer literal in ``term``."""
    return [(t, under) for t, under in _leaves(term) if isinstance(t, ast.Number)]


def _numeric_variables(rule: ast.Rule) -> set:
    """Variables a rule computes or compares with (in clingo's encoding of it)."""
    numeric, links = set(), []
    if rule.head is not None:
        for arg in rule.head.atom.args:
            numeric |= _arith_variables(arg)
        if rule.head.time is not None:
            numeric |= _variables(rule.head.time)  # pinned times are compared (T >= 0)
    for lit in rule.body:
        el = lit.element
        if isinstance(el, ast.Comparison):
            if el.op in _ORDER:
                numeric |= _variables(el.left) | _variables(el.right)
            else:
                arith = _arith_variables(el.left) | _arith_variables(el.right)
                numeric |= arith
                if not arith:
                    links.append(_variables(el.left) | _variables(el.right))
        else:
            for arg in el.atom.args:
                numeric |= _arith_variables(arg)
            if el.time is not None:
                numeric |= _arith_variables(el.time)
    changed = True
    while changed:  # X = Y (or X = f(Y)) shares the values: both are computed with, or neither
        changed = False
        for group in links:
            if group & numeric and not group <= numeric:
                numeric |= group
                changed = True
    return numeric


def _body_positions(rule: ast.Rule):
    """``((predicate, index), variables)`` for each argument of each body atom."""
    for lit in rule.body:
        el = lit.element
        if not isinstance(el, ast.Comparison):
            for i, arg in enumerate(el.atom.args):
                yield (el.atom.predicate, i), _variables(arg)


class ClingoValues:
    """Which argument positions carry values that clingo-solved rules compute or compare with.

    ``rules`` are all rules of the program (values flow through every rule), ``solved`` those
    clingo solves (only they compute in 32 bits). ``sensitive`` maps ``(predicate, index)`` to
    the clingo-solved rule that computes with the values there.
    """

    def __init__(self, rules, solved):
        solved = list(solved)
        self.sensitive: dict = {}
        for rule in solved:
            numeric = _numeric_variables(rule)
            for pos, names in _body_positions(rule):
                if names & numeric:
                    self.sensitive.setdefault(pos, rule)
        heads = [r for r in rules if r.head is not None and r.body]
        changed = True
        while changed:  # a head position that is computed with makes its body sources so too
            changed = False
            for rule in heads:
                atom = rule.head.atom
                flowing = set()
                for j, arg in enumerate(atom.args):
                    reason = self.sensitive.get((atom.predicate, j))
                    if reason is not None:
                        flowing |= {(name, reason) for name in _variables(arg)}
                for name, reason in flowing:
                    for pos, names in _body_positions(rule):
                        if name in names and pos not in self.sensitive:
                            self.sensitive[pos] = reason
                            changed = True
        self.solved = solved
        self.predicates = frozenset(p for p, _ in self.sensitive)

    def check(self, atom: tuple, where: str = "") -> None:
        """Raise StreamError if ``atom`` has a wide integer where a clingo-solved rule computes with it."""
        if atom[0] not in self.predicates:
            return
        for i, arg in enumerate(atom[1:]):
            rule = self.sensitive.get((atom[0], i))
            if rule is not None and _has_wide(arg):
                raise StreamError(self.diagnostic(atom, i, where))

    def diagnostic(self, atom: tuple, i: int, where: str = "", location=None) -> Diagnostic:
        from ..values import format_atom, format_term

        rule = self.sensitive[(atom[0], i)]
        text = f"'{atom[0]}'" if None in atom else f"'{format_atom(atom)}'"
        return Diagnostic(
            f"value {format_term(atom[i + 1])} in {text}{where} is outside {RANGE}",
            location,
            (
                f"{rule.location}: the clingo-solved rule '{rule}' computes or compares with argument {i + 1}"
                f" of '{atom[0]}'",
                NATIVE_NOTE,
            ),
        )

    def program_diagnostics(self, analysis: Analysis) -> list:
        """Wide literals and window sizes the clingo-solved rules would compute with."""
        out = []
        for fact in analysis.program.facts:
            atom = fact.head.atom
            for j, arg in enumerate(atom.args):
                if (atom.predicate, j) in self.sensitive:
                    out += [
                        self.diagnostic((atom.predicate,) + (None,) * j + (n.value,), j, location=n.location)
                        for n, _ in _literals(arg)
                        if _is_wide(n.value)
                    ]
        for rule in self.solved:
            terms = []  # (term, always computed with)
            if rule.head is not None:
                atom = rule.head.atom
                terms += [(a, (atom.predicate, j) in self.sensitive) for j, a in enumerate(atom.args)]
                if rule.head.time is not None:
                    terms.append((rule.head.time, True))
            for lit in rule.body:
                el = lit.element
                if isinstance(el, ast.Comparison):
                    terms += [(el.left, el.op in _ORDER), (el.right, el.op in _ORDER)]
                else:
                    terms += [(a, False) for a in el.atom.args]
                    if el.time is not None:
                        terms.append((el.time, True))
                    if el.window is not None and analysis.size(el.window) > CLINGO_MAX:
                        out.append(
                            Diagnostic(
                                f"window {el.window} covers {analysis.size(el.window)} "
                                f"{'atoms' if el.window.is_tuple else 'time points'}, outside {RANGE}",
                                el.window.location,
                                ("the clingo encodings keep window sizes as clingo numbers", NATIVE_NOTE),
                            )
                        )
            for term, computed in terms:
                for number, under in _literals(term):
                    if _is_wide(number.value) and (computed or under):
                        out.append(
                            Diagnostic(
                                f"integer {number.value} is outside {RANGE}, and the clingo-solved rule computes"
                                " or compares with it",
                                number.location,
                                (f"in rule '{rule}'", NATIVE_NOTE),
                            )
                        )
        return out


# ---------------------------------------------------------------- the program handed to clingo


def _wide_ast(term):
    if isinstance(term, ast.Number) and _is_wide(term.value):
        return ast.Function(WIDE, (ast.String(str(term.value)),), term.location)
    if isinstance(term, ast.Function):
        return ast.Function(term.name, tuple(_wide_ast(a) for a in term.args), term.location)
    return term


def _wide_atom(atom: ast.Atom) -> ast.Atom:
    return ast.Atom(atom.predicate, tuple(_wide_ast(a) for a in atom.args), atom.location)


def _wide_rule(rule: ast.Rule) -> ast.Rule:
    head = rule.head
    if head is not None:
        head = ast.Head(_wide_atom(head.atom), head.time, head.location)
    body = []
    for lit in rule.body:
        el = lit.element
        if isinstance(el, ast.Comparison):
            el = ast.Comparison(el.op, _wide_ast(el.left), _wide_ast(el.right), el.location)
        else:
            el = ast.ExtendedAtom(_wide_atom(el.atom), el.modality, el.window, el.time, el.location)
        body.append(ast.Literal(el, lit.negated, lit.location))
    return ast.Rule(head, tuple(body), rule.location)


def _has_wide_literal(rule: ast.Rule) -> bool:
    terms = []
    if rule.head is not None:
        terms += rule.head.atom.args
    for lit in rule.body:
        el = lit.element
        terms += (el.left, el.right) if isinstance(el, ast.Comparison) else el.atom.args
    return any(_is_wide(n.value) for t in terms for n, _ in _literals(t))


def clingo_analysis(analysis: Analysis, solved=None, rules=None) -> tuple:
    """``(analysis for the encoders, ClingoValues)`` of the rules clingo solves.

    ``solved`` defaults to every rule of ``analysis``, ``rules`` (all rules values flow
    through) to ``solved``. Raises EngineUnsupported, located, where a clingo-solved rule
    would compute with a value clingo cannot hold. The returned analysis is ``analysis``
    itself unless the program has wide integer literals, which it carries as ``_int`` symbols.
    """
    program = analysis.program
    solved = list(program.proper_rules if solved is None else solved)
    values = ClingoValues(program.proper_rules if rules is None else rules, solved)
    diags = values.program_diagnostics(analysis)
    if diags:
        raise EngineUnsupported(diags)
    if not any(_has_wide_literal(r) for r in program.rules):
        return analysis, values
    wide = analyse(ast.Program(tuple(_wide_rule(r) for r in program.rules), program.file), analysis.clock_ms)
    # the window sizes the engines run (half-open bounds change them, semantics.under) carry over
    sizes = {w: analysis.window_sizes.get(w, n) for w, n in wide.window_sizes.items()}
    return replace(wide, window_sizes=sizes, lookback=analysis.lookback), values


def term_from_wide(name: str, args) -> int | None:
    """The integer an ``_int("digits")`` symbol stands for (None for other symbols)."""
    if name == WIDE and len(args) == 1:
        text = args[0]
        if type(text) is str and text.startswith('"'):
            return int(text[1:-1])
    return None


def exact_atom(atom: tuple) -> tuple:
    """The inverse of :func:`clingo_atom`: ``_int`` symbols back to integers."""

    def exact(term):
        if type(term) is tuple:
            value = term_from_wide(term[0], term[1:])
            return value if value is not None else (term[0], *(exact(a) for a in term[1:]))
        return term

    return (atom[0], *(exact(a) for a in atom[1:]))


def unholdable(term) -> str | None:
    """The first quoted string among the arguments of ``term`` (an atom or a function term) that
    clingo cannot hold, or None (names and constants are identifiers: they hold neither)."""
    for arg in term[1:]:
        t = type(arg)
        if t is str:
            if arg[0] == '"' and UNHOLDABLE.search(arg):
                return arg
        elif t is tuple:
            found = unholdable(arg)
            if found is not None:
                return found
    return None


def check_clingo_strings(atom: tuple, where: str = "") -> None:
    """Raise StreamError if ``atom`` holds a string with a NUL or a lone surrogate (clingo cannot hold it)."""
    bad = unholdable(atom)
    if bad is not None:
        what = "a NUL character" if "\0" in bad else "a lone surrogate (no UTF-8 form)"
        raise StreamError(
            Diagnostic(
                f"string {ascii(bad)} in '{atom[0]}'{where} has {what}, which clingo cannot hold",
                notes=("the native engine (--engine native) holds any string",),
            )
        )


def locate(err: StreamError, source: str, line: int) -> StreamError:
    """``err`` with its unlocated diagnostics placed at ``source:line`` (line 0: no line to name)."""
    from dataclasses import replace

    from ..ast import Location

    if line <= 0:
        return err
    where = Location(source, line, 1, line, 2)
    return StreamError([d if d.location is not None else replace(d, location=where) for d in err.diagnostics])
