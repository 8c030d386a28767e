"""ASP values: the statements the encoders build, each printing as clingo syntax.

Terms, atoms and comparisons are the LARS ones (:mod:`ticker_py.ast`), which print in clingo
syntax; this module adds literals, rules, aggregates and ``#show`` directives.

>>> X = ast.Variable("X")
>>> str(AspRule(ast.Atom("q", (X,)), (NafLiteral(ast.Atom("p", (X,))), NafLiteral(ast.Atom("r"), negated=True))))
'q(X) :- p(X), not r.'
>>> [str(AspRule(Symbol(atom))) for atom in [("flag",), ("v", '"a,b"', ("f", -1))]]
['flag.', 'v("a,b",f(-1)).']
>>> program_text([Show(), Show("q", 1)])
'#show.\\n#show q/1.\\n'
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import ast
from ..errors import Diagnostic, StreamError
from ..limits import CLINGO_MAX, MAX_FACT_ATOMS
from ..values import format_atom, int_text

__all__ = [
    "time_facts",
    "Symbol",
    "NafLiteral",
    "AspRule",
    "Show",
    "Count",
    "External",
    "ChoiceRule",
    "atom",
    "program_text",
]


@dataclass(frozen=True, slots=True)
class Symbol:
    """A ground term or atom as a plain value (:mod:`ticker_py.values`): ``1``, ``'a'``, ``('f', 1)``
    (``('p',)`` prints as ``p``)."""

    value: object

    def __str__(self) -> str:
        return format_atom(self.value) if type(self.value) is tuple else str(self.value)


@dataclass(frozen=True, slots=True)
class NafLiteral:
    """A body literal: an atom or a comparison, possibly under default negation (``not``)."""

    atom: ast.Atom | ast.Comparison | Symbol
    negated: bool = False

    def __str__(self) -> str:
        return f"not {self.atom}" if self.negated else str(self.atom)


@dataclass(frozen=True, slots=True)
class AspRule:
    """``head :- body.``; a fact has an empty body, a constraint no head."""

    head: ast.Atom | Symbol | None
    body: tuple = ()

    @classmethod
    def of(cls, head: ast.Atom | None, *body) -> AspRule:
        """A rule whose body atoms and comparisons not yet in a :class:`NafLiteral` are positive."""
        return cls(head, tuple(b if isinstance(b, NafLiteral) else NafLiteral(b) for b in body))

    def __str__(self) -> str:
        body = ", ".join(map(str, self.body))
        if self.head is None:
            return f":- {body}."
        return f"{self.head} :- {body}." if body else f"{self.head}."


@dataclass(frozen=True, slots=True)
class Count:
    """The aggregate ``#count{ term : condition }`` (a term, e.g. the right side of ``X = ...``)."""

    term: object
    condition: tuple

    def __str__(self) -> str:
        return f"#count{{ {self.term} : {', '.join(map(str, self.condition))} }}"


@dataclass(frozen=True, slots=True)
class External:
    """``@name(args)``: a term computed by a Python function (:mod:`ticker_py.encode.exact`)."""

    name: str
    args: tuple

    def __str__(self) -> str:
        return f"@{self.name}({','.join(map(str, self.args))})"


@dataclass(frozen=True, slots=True)
class ChoiceRule:
    """``bound { atom : condition } bound :- body.``: exactly ``bound`` of the atoms."""

    bound: object
    atom: ast.Atom
    condition: tuple
    body: tuple

    def __str__(self) -> str:
        cond = ", ".join(map(str, self.condition))
        return f"{self.bound} {{ {self.atom} : {cond} }} {self.bound} :- {', '.join(map(str, self.body))}."


@dataclass(frozen=True, slots=True)
class Show:
    """``#show name/arity.``; without a name ``#show.``, which hides every atom a later directive
    does not show."""

    name: str | None = None
    arity: int = 0

    def __str__(self) -> str:
        return "#show." if self.name is None else f"#show {self.name}/{self.arity}."


def atom(name: str, *args) -> ast.Atom:
    """``name(args)``: ``atom('p', ast.Variable('X'), ast.Number(1))``."""
    return ast.Atom(name, args)


def program_text(statements) -> str:
    """The clingo source of a sequence of statements, one a line."""
    return "".join(f"{s}\n" for s in statements)


def time_facts(lo: int, hi: int) -> str:
    """``_time(lo..hi).``, with ``hi`` = 2^31 - 1 written on its own: clingo's interval loop never
    ends when its upper bound is the largest 32-bit integer; time points beyond 32 bits one by one."""
    if hi - lo + 1 > MAX_FACT_ATOMS:
        raise StreamError(
            Diagnostic(
                f"the clingo encodings would list the {hi - lo + 1} time points {lo}..{hi}, more than {MAX_FACT_ATOMS}",
                notes=(
                    "a background atom read through an @-atom without a window holds at every time point so far",
                    "the native engine (--engine native) does not list them",
                ),
            )
        )
    if hi < CLINGO_MAX:
        return f"_time({lo}..{hi})."
    out = [f"_time({lo}..{CLINGO_MAX - 1}). _time({CLINGO_MAX})."] if lo < CLINGO_MAX else []
    if lo == CLINGO_MAX:
        out.append(f"_time({CLINGO_MAX}).")
    out += [f"_time({int_text(u)})." for u in range(max(lo, CLINGO_MAX + 1), hi + 1)]
    return " ".join(out)
