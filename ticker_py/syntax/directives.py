"""The directives of a program: ``#include``, ``#const`` (values put in place of the names) and
``#show`` (collected). A problem that leaves the rest readable is collected, so that
:func:`load_source` returns every problem of a program at once.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from .. import ast
from ..errors import Diagnostic, ProgramError, UsageError, with_excerpt
from ..limits import integral
from ..values import computed
from .tokens import KEYWORDS, is_name

__all__ = ["Loaded", "load_source", "const_term", "in_source_order", "MAX_ERRORS"]

#: at most this many errors of a program are reported (clingo reports every error it can; a
#: generated program with one mistake repeated should not fill the terminal)
MAX_ERRORS = 20

CONST_NOTE = "define it in the program ('#const {0} = 10.') or on the command line ('-c {0}=10')"


@dataclass
class Loaded:
    """A program with its directives applied, the problems found (in source order) and the text of
    every file read (``file -> text``)."""

    program: ast.Program
    problems: list = field(default_factory=list)
    sources: dict = field(default_factory=dict)


def load_source(text: str, file: str, parse_unit, read, const: dict | None = None) -> Loaded:
    """Parse ``text`` with ``parse_unit(text, file) -> (program, Found)``, its ``#include`` files read
    with ``read(path, what)``, then put the ``#const`` values (``const`` overrides) in place."""
    loaded = Loaded(ast.Program(file=file))
    state = _Merge(loaded, parse_unit, read)
    state.unit(text, file, ())
    program = loaded.program.replace(
        rules=tuple(state.rules),
        prefixes=tuple(state.prefixes.items()),
        shows=None if state.shows is None else tuple(sorted(state.shows)),
        show_at=tuple(state.show_at.items()),
    )
    values = _const_values(state.consts, const or {}, state.problems)
    loaded.program = _put_consts(program, values, state.problems)
    loaded.problems = in_source_order([_excerpt(d, loaded.sources) for d in state.problems], loaded.sources)
    return loaded


def _excerpt(diag: Diagnostic, sources: dict) -> Diagnostic:
    source = sources.get(diag.location.file) if diag.location is not None else None
    return diag if source is None else with_excerpt(diag, source)


def in_source_order(diagnostics, sources: dict | None = None) -> list:
    """``diagnostics`` sorted by file (in ``sources``' order), line and column; unlocated ones last."""
    order = {f: i for i, f in enumerate(sources or ())}

    def key(d: Diagnostic):
        loc = d.location
        if loc is None:
            return (2, 0, 0, 0)
        return (0 if loc.file in order else 1, order.get(loc.file, 0), loc.line, loc.column)

    return sorted(diagnostics, key=key)


class _Merge:
    """The rules and directives of a file and the files it includes (each file once)."""

    def __init__(self, loaded: Loaded, parse_unit, read):
        self.loaded, self.parse_unit, self.read_source = loaded, parse_unit, read
        self.rules: list = []
        self.prefixes: dict = {}
        self.consts: list = []
        self.shows: set | None = None
        self.show_at: dict = {}  # (name, arity) -> its first #show, for warnings
        self.problems: list = []
        self.read: set = set()  # real paths of the files read

    def unit(self, text: str, file: str, stack: tuple) -> None:
        self.loaded.sources.setdefault(file, text)
        program, found = self.parse_unit(text, file)
        self.rules += program.rules
        for signature, location in program.show_at:
            self.show_at.setdefault(signature, location)
        for name, iri in program.prefixes:
            self.prefixes.setdefault(name, iri)
        self.problems += found.problems
        self.consts += found.consts
        if found.shows is not None:
            self.shows = (self.shows or set()) | set(found.shows)
        for include in found.includes:
            self.include(include, file, stack)

    def include(self, include, file: str, stack: tuple) -> None:
        base = os.path.dirname(file) if os.path.exists(file) else ""
        path = os.path.join(base, include.path)
        real = os.path.realpath(path)
        here = os.path.realpath(file) if os.path.exists(file) else file
        if real in stack or real == here:
            chain = " -> ".join((*(os.path.basename(s) for s in (*stack, here)), os.path.basename(real)))
            self.problems.append(
                Diagnostic(f"#include cycle: '{include.path}' is being read already", include.location, (chain,))
            )
            return
        if real in self.read:  # included already: once is enough (as clingo)
            return
        try:
            text = self.read_source(path, "included file")
        except UsageError as err:
            diag = err.diagnostics[0]
            where = diag.location if diag.location is not None else include.location
            self.problems.append(Diagnostic(diag.message, where, diag.notes))
            return
        self.read.add(real)
        self.unit(text, path, (*stack, here))


def const_term(name: str, value, parse_term) -> ast.Term:
    """The term of a constant given outside a program (an int, or text parsed by ``parse_term``)."""
    if not isinstance(name, str) or not is_name(name):
        raise UsageError(
            Diagnostic(
                f"constant name {name!r} is not a name",
                notes=(f"a name starts with a lower-case letter and is no keyword ({', '.join(sorted(KEYWORDS))})",),
            )
        )
    if not isinstance(value, str):
        number = integral(value)  # an int, or what stands for one (numpy's integers), as for times
        if number is None:
            raise UsageError(Diagnostic(f"constant '{name}' is an int or term text, not {value!r}"))
        return ast.Number(number)
    term = parse_term(value)
    if term is None:
        raise UsageError(Diagnostic(f"constant '{name}': '{value}' is not a term", notes=("e.g. -c n=20",)))
    return term


def _const_values(consts: list, overrides: dict, problems: list) -> dict:
    """name -> ground value term of the program's ``#const`` with ``overrides`` in their place; a
    value may use other constants, evaluated first (as clingo's), but not itself."""
    defined: dict = {}
    for const in consts:
        first = defined.setdefault(const.name, const)
        if first is not const and first.value != const.value and const.name not in overrides:
            problems.append(
                Diagnostic(
                    f"constant '{const.name}' defined again with another value",
                    const.location,
                    (f"{first.location}: first defined as {first.value} here",),
                )
            )
    terms = {c.name: c.value for c in defined.values() if c.name not in overrides} | overrides
    uses = {name: [n for n in _constant_names(term) if n in terms] for name, term in terms.items()}
    values: dict = {}
    done: dict = {}  # name -> False while its uses are evaluated, True when it is
    for root in terms:  # a depth-first walk of the uses: each constant after those it uses
        if root in done:
            continue
        done[root], path = False, [(root, iter(uses[root]))]
        while path:
            name, used = path[-1]
            for other in used:
                if other not in done:
                    done[other] = False
                    path.append((other, iter(uses[other])))
                    break
                if not done[other]:  # on the path: a cycle
                    names = [n for n, _ in path]
                    problems.append(_cycle(names[names.index(other) :], defined))
            else:
                path.pop()
                done[name] = True
                values[name] = _fold(_put(terms[name], values, []) if uses[name] else terms[name])
    return values


def _cycle(names: list, defined: dict) -> Diagnostic:
    """The error for constants ``names`` each using the next (the last the first), told from the
    one defined first."""

    def key(i: int) -> tuple:
        loc = defined[names[i]].location if names[i] in defined else None
        return (0, loc.file, loc.line, loc.column) if loc is not None else (1, "", 0, 0)

    first = min(range(len(names)), key=key)
    names = names[first:] + names[:first]
    where = defined[names[0]].location if names[0] in defined else None
    return Diagnostic(
        f"constant '{names[0]}' is defined through itself: {' -> '.join([*names, names[0]])}",
        where,
        ("a constant's value may use other constants, but none that uses it",),
    )


def _constant_names(term) -> list:
    """The names of the constants in ``term``."""
    names, stack = [], [term]
    while stack:
        node = stack.pop()
        if type(node) is ast.Constant:
            names.append(node.name)
        elif isinstance(node, tuple):
            stack += node
        elif isinstance(node, (ast.Function, ast.BinOp, ast.Interval)):
            stack += [getattr(node, f) for f in node._fields if f != "location"]
    return names


def _fold(term):
    """``term`` with its ground integer arithmetic computed (``2*10`` is ``20``)."""
    value = _integer(term)
    return ast.Number(value, term.location) if value is not None else term


def _integer(term):
    if isinstance(term, ast.Number):
        return term.value
    if isinstance(term, ast.BinOp):
        left, right = _integer(term.left), _integer(term.right)
        if left is not None and right is not None:
            value = computed(term.op, left, right, term, ProgramError)  # no value too long to print
            return value if type(value) is int else None
    return None


def _put_consts(program: ast.Program, values: dict, problems: list) -> ast.Program:
    """The rules with the constants' values in place of their names (a window size too)."""
    named_windows = False
    if not values:  # only a window named by a constant needs a look
        named_windows = any(
            not lit.is_comparison and lit.element.window is not None and type(lit.element.window.size) is str
            for rule in program.rules
            for lit in rule.body
        )
        if not named_windows:
            return program
    rules = _put(program.rules, values, problems)
    consts = tuple((name, values[name]) for name in values)
    return program.replace(rules=rules, consts=consts)


def _put(node, values: dict, problems: list):
    """``node`` with the constants' ``values`` in place of their names."""

    def change(node):
        if type(node) is ast.Constant:
            value = values.get(node.name)
            return node if value is None else value.replace(location=node.location)
        return _window(node, values, problems) if isinstance(node, ast.Window) else None

    return ast.transform(node, change)


def _window(window: ast.Window, values: dict, problems: list) -> ast.Window:
    """A window whose size a constant names, with its value (a problem if it is no size)."""
    if type(window.size) is not str:
        return window
    name = window.size
    value = values.get(name)
    if value is None:
        problems.append(
            Diagnostic(f"undefined constant '{name}' as a window size", window.location, (CONST_NOTE.format(name),))
        )
        return window.replace(size=1)
    least = 1 if window.unit == "#" else 0
    if not isinstance(value, ast.Number) or value.value < least:
        problems.append(
            Diagnostic(
                f"window size '{name}' is {value}, not a number >= {least}",
                window.location,
                (f"a window [n{' #' if least else ''}] needs a number n >= {least}",),
            )
        )
        return window.replace(size=1)
    return window.replace(size=value.value)


def raise_problems(loaded: Loaded) -> None:
    """Raise the ProgramError of ``loaded``'s problems, if it has any (MAX_ERRORS at most)."""
    if loaded.problems:
        raise ProgramError(capped(loaded.problems))


def capped(diagnostics: list) -> list:
    """The first MAX_ERRORS diagnostics, and a line saying how many more there are."""
    if len(diagnostics) <= MAX_ERRORS:
        return list(diagnostics)
    more = len(diagnostics) - MAX_ERRORS
    return [*diagnostics[:MAX_ERRORS], Diagnostic(f"too many errors: {more} more not shown")]
