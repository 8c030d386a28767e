"""The LARS abstract syntax: frozen values (:class:`~ticker_py.node.Node`) whose ``str()`` is valid LARS source.

``parse_program(str(program)) == program`` holds for every program (locations are
ignored by equality).
"""

from __future__ import annotations

import operator
from enum import Enum

from .node import Node, field

__all__ = [
    "Location",
    "Variable",
    "Number",
    "Constant",
    "String",
    "Function",
    "Iri",
    "BinOp",
    "Interval",
    "Term",
    "Atom",
    "Window",
    "ExtendedAtom",
    "Comparison",
    "Literal",
    "Head",
    "Rule",
    "Program",
    "UNITS",
    "DIAMOND",
    "BOX",
    "AT",
    "NOW",
    "Modality",
    "WindowKind",
]


class Location(Node):
    """A source span: 1-based lines and columns, end column exclusive."""

    file: str
    line: int
    column: int
    end_line: int
    end_column: int

    def __str__(self) -> str:
        if self.end_line == self.line:
            return f"{self.file}:{self.line}:{self.column}-{self.end_column}"
        return f"{self.file}:{self.line}:{self.column}-{self.end_line}:{self.end_column}"


def _loc() -> Location | None:
    return field(default=None, compare=False, repr=False)


# ---------------------------------------------------------------- terms


class Variable(Node):
    """A variable: ``X``, ``_Y``."""

    name: str
    location: Location | None = _loc()

    def __str__(self) -> str:
        return self.name


class Number(Node):
    """An integer constant."""

    value: int
    location: Location | None = _loc()

    def __str__(self) -> str:
        return str(self.value)


class Constant(Node):
    """A symbolic constant: ``a1``."""

    name: str
    location: Location | None = _loc()

    def __str__(self) -> str:
        return self.name


class String(Node):
    """A quoted string; ``value`` is the unescaped content."""

    value: str
    location: Location | None = _loc()

    def __str__(self) -> str:
        return quote(self.value)


class Function(Node):
    """A function term ``f(t1,...,tk)`` with k >= 1."""

    name: str
    args: tuple
    location: Location | None = _loc()

    def __str__(self) -> str:
        return f"{self.name}({','.join(map(str, self.args))})"


class Iri(Function):
    """An IRI ``<http://ex.org/a>`` or a prefixed name ``ex:a``: the function term
    ``iri("http://ex.org/a")`` for every engine, printed as written (``text``)."""

    text: str | None = field(default=None, compare=False)

    @classmethod
    def of(cls, iri: str, text: str | None = None, location: Location | None = None) -> Iri:
        return cls("iri", (String(iri),), location, text)

    @property
    def iri(self) -> str:
        return self.args[0].value

    def __str__(self) -> str:
        return self.text or f"<{self.iri}>"


_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "\\": 2}


class BinOp(Node):
    """Integer arithmetic: ``+ - * / \\`` (``\\`` is modulo, ``/`` integer division)."""

    op: str
    left: Term
    right: Term
    location: Location | None = _loc()

    def __str__(self) -> str:
        prec = _PRECEDENCE[self.op]
        left = str(self.left)
        if isinstance(self.left, BinOp) and _PRECEDENCE[self.left.op] < prec:
            left = f"({left})"
        right = str(self.right)
        if isinstance(self.right, BinOp) and _PRECEDENCE[self.right.op] <= prec:
            right = f"({right})"
        if right.startswith("-"):
            right = f"({right})"
        return f"{left}{self.op}{right}"


class Interval(Node):
    """An interval ``lo..hi``; allowed in facts (``value(0..30).``)."""

    low: Term
    high: Term
    location: Location | None = _loc()

    def __str__(self) -> str:
        return f"{self.low}..{self.high}"


Term = Variable | Number | Constant | String | Function | BinOp | Interval


#: the escapes of clingo's strings (and so of ours): every engine reads them the same
ESCAPES = {"n": "\n", "\\": "\\", '"': '"'}


def quote(text: str) -> str:
    """Quote a string the way clingo prints it."""
    return '"' + text.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"') + '"'


# ---------------------------------------------------------------- atoms and windows


class Atom(Node):
    """An atom ``p`` or ``p(t1,...,tk)``."""

    predicate: str
    args: tuple = ()
    location: Location | None = _loc()

    @property
    def signature(self) -> tuple:
        """``(name, arity)``."""
        return (self.predicate, len(self.args))

    def __str__(self) -> str:
        if not self.args:
            return self.predicate
        return f"{self.predicate}({','.join(map(str, self.args))})"


UNITS = {"ms": 1, "sec": 1000, "min": 60_000, "h": 3_600_000}


class Window(Node):
    """A sliding window: ``[n]``, ``[n sec]`` (time) or ``[n #]`` (tuple).

    ``unit`` is ``None`` (time points), one of ``UNITS``, or ``"#"`` for a tuple window.
    """

    #: an int; a name (str) only between parsing and putting the ``#const`` values in place
    size: int
    unit: str | None = None
    location: Location | None = _loc()

    @property
    def is_tuple(self) -> bool:
        return self.unit == "#"

    @property
    def kind(self) -> WindowKind:
        return WindowKind.TUPLE if self.unit == "#" else WindowKind.TIME

    def __str__(self) -> str:
        return f"[{self.size}]" if self.unit is None else f"[{self.size} {self.unit}]"


class _Word(str, Enum):
    def __str__(self) -> str:
        return self.value


class Modality(_Word):
    """How an extended atom reads its atom: now, somewhere in a window, everywhere in it, at a time."""

    NOW = "now"
    DIAMOND = "diamond"
    BOX = "box"
    AT = "at"


class WindowKind(_Word):
    """Which window an extended atom reads through: a time window, a tuple window, or none."""

    TIME = "time"
    TUPLE = "tuple"
    NONE = "none"


NOW = Modality.NOW
DIAMOND = Modality.DIAMOND
BOX = Modality.BOX
AT = Modality.AT


class ExtendedAtom(Node):
    """An atom under a modality: ``p`` (now: at the evaluation time), ``p in [n]`` (diamond: at some
    point of the window), ``p always [n]`` (box: at every point of it), ``p at T`` or ``p at T in [n]``
    (at: at T, in the window or in [0, t])."""

    atom: Atom
    modality: Modality = NOW
    window: Window | None = None
    time: Term | None = None
    location: Location | None = _loc()

    def __post_init__(self):
        if not isinstance(self.modality, Modality):
            object.__setattr__(self, "modality", Modality(self.modality))

    @property
    def window_kind(self) -> WindowKind:
        """The kind of window this atom reads through (``NONE`` without one)."""
        return WindowKind.NONE if self.window is None else self.window.kind

    def __str__(self) -> str:
        if self.modality == NOW:
            return str(self.atom)
        if self.modality == DIAMOND:
            return f"{self.atom} in {self.window}"
        if self.modality == BOX:
            return f"{self.atom} always {self.window}"
        text = f"{self.atom} at {self.time}"
        return text if self.window is None else f"{text} in {self.window}"


class Comparison(Node):
    """A comparison ``l op r`` with op in ``= != < <= > >=``."""

    op: str
    left: Term
    right: Term
    location: Location | None = _loc()

    def __str__(self) -> str:
        return f"{self.left} {self.op} {self.right}"


class Literal(Node):
    """A body element, possibly under default negation."""

    element: ExtendedAtom | Comparison
    negated: bool = False
    location: Location | None = _loc()

    @property
    def is_comparison(self) -> bool:
        return isinstance(self.element, Comparison)

    def __str__(self) -> str:
        return f"not {self.element}" if self.negated else str(self.element)


class Head(Node):
    """A rule head: ``p(X)`` (holds now) or ``p(X) at T`` (pinned to T)."""

    atom: Atom
    time: Term | None = None
    location: Location | None = _loc()

    def __str__(self) -> str:
        return str(self.atom) if self.time is None else f"{self.atom} at {self.time}"


class Rule(Node):
    """``head :- body.``; a fact has an empty body, a constraint no head."""

    head: Head | None
    body: tuple = ()
    location: Location | None = _loc()

    @property
    def is_fact(self) -> bool:
        return self.head is not None and not self.body and self.head.time is None

    @property
    def is_constraint(self) -> bool:
        return self.head is None

    def __str__(self) -> str:
        body = ", ".join(map(str, self.body))
        if self.head is None:
            return f":- {body}."
        if not self.body:
            return f"{self.head}."
        return f"{self.head} :- {body}."


class Program(Node):
    """A LARS program: a sequence of rules (those of ``#include``d files in place), with its
    directives: ``@prefix`` declarations, ``#const`` values (already put in place of the names
    in the rules) and ``#show`` signatures."""

    rules: tuple = ()
    file: str = field(default="<string>", compare=False)
    #: ``@prefix`` declarations ``(name, IRI)`` in source order
    prefixes: tuple = ()
    #: ``#const`` values ``(name, term)``, in the order of their first definition
    consts: tuple = ()
    #: the ``(name, arity)`` signatures of ``#show p/n.`` (sorted), ``()`` for ``#show.`` alone,
    #: None without ``#show`` (every atom as ``show`` says)
    shows: tuple | None = None
    #: ``((name, arity), location)`` of the first ``#show`` of each signature, for warnings
    show_at: tuple = field(default=(), compare=False, repr=False)

    __slots__ = ("_split_rules",)  # not a field: the facts and proper rules, once computed

    @property
    def facts(self) -> tuple:
        return self._split()[0]

    @property
    def proper_rules(self) -> tuple:
        """Rules that are not facts."""
        return self._split()[1]

    def _split(self) -> tuple:
        """``(facts, proper rules)``, computed once per program (kept beside the fields)."""
        split = getattr(self, "_split_rules", None)
        if split is None:
            facts, proper = [], []
            for r in self.rules:
                (facts if not r.body and r.head is not None and r.head.time is None else proper).append(r)
            split = (tuple(facts), tuple(proper))
            object.__setattr__(self, "_split_rules", split)
        return split

    def __str__(self) -> str:
        decls = "".join(f"@prefix {name}: <{iri}> .\n" for name, iri in self.prefixes)
        decls += "".join(f"#const {name} = {value}.\n" for name, value in self.consts)
        if self.shows is not None:
            decls += "".join(f"#show {name}/{arity}.\n" for name, arity in self.shows) or "#show.\n"
        return decls + "".join(f"{r}\n" for r in self.rules)


def transform(node, change):
    """``node`` (a node, a tuple of them or a leaf value) with each part for which ``change`` returns
    a value (not None) replaced by it; unchanged parts stay the same objects."""
    new = change(node)
    if new is not None:
        return new
    if type(node) is tuple:
        items = tuple(transform(x, change) for x in node)
        return node if all(map(operator.is_, items, node)) else items
    if not isinstance(node, Node) or isinstance(node, (Variable, Number, String, Location)):
        return node
    changes = {}
    for name in node._fields:
        value = getattr(node, name)
        new = transform(value, change)
        if new is not value:
            changes[name] = new
    return node.replace(**changes) if changes else node


# ---------------------------------------------------------------- variables


def _variables(terms, out: set) -> set:
    """Add the variable names in ``terms`` to ``out``."""
    stack = list(terms)
    while stack:
        term = stack.pop()
        cls = type(term)
        if cls is Variable:
            out.add(term.name)
        elif isinstance(term, Function):
            stack += term.args
        elif cls is BinOp:
            stack += (term.left, term.right)
        elif cls is Interval:
            stack += (term.low, term.high)
    return out


def term_variables(term) -> set:
    """The variable names occurring in a term."""
    return _variables((term,), set())


def atom_variables(atom: Atom) -> set:
    return _variables(atom.args, set())


def element_variables(element) -> set:
    """Variables of an extended atom or comparison."""
    if isinstance(element, Comparison):
        return _variables((element.left, element.right), set())
    out = _variables(element.atom.args, set())
    return out if element.time is None else _variables((element.time,), out)


def rule_variables(rule: Rule) -> set:
    """All variable names of a rule (head, head time and body)."""
    out = set() if rule.head is None else _variables((*rule.head.atom.args, rule.head.time), set())
    for lit in rule.body:
        out |= element_variables(lit.element)
    return out
