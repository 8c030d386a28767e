"""The ``--atoms`` selection of a picture: ``alarm/0,q(a,_)``.

>>> select("q(_),p/0").matches(("q", 7)), select("q(a,_)").matches(("q", "b", 1))
(True, False)
>>> check_selection(select("q/3"), {("q", 2), ("p", 0)})
Traceback (most recent call last):
ticker_py.errors.UsageError: error: --atoms 'q/3': the program has no predicate q/3
  note: did you mean q/2?
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from ..ast import Location
from ..errors import Diagnostic, UsageError
from ..values import format_term

__all__ = ["Selection", "select", "check_selection"]

_TOKEN = re.compile(r"""\s*(?:(/)|(\()|(\))|(,)|(_)(?![\w'])|([a-z][\w']*)|(-?\d+)|("(?:[^"\\]|\\.)*")|(\S))""")
_ANY = object()


@dataclass(frozen=True)
class Selection:
    """The atoms an ``--atoms`` pattern selects: ``name/N`` (a predicate), ``name`` (a predicate
    of any arity) or an atom whose arguments may be ``_`` (any term), comma-separated."""

    text: str
    items: tuple  # ("pred", name, arity or None) | ("atom", name, argument patterns)
    where: str = "--atoms"  # the option or parameter that gave the pattern

    @property
    def parts(self) -> tuple:
        """The text of each comma-separated item (``("alarm/0", "q(a,_)")``)."""
        return tuple(_item_text(item) for item in self.items)

    def names(self, item: tuple, name: str, arity: int) -> bool:
        """Whether ``item`` names the predicate ``name/arity``."""
        if item[1] != name:
            return False
        return item[2] is None or item[2] == arity if item[0] == "pred" else len(item[2]) == arity

    def matches(self, atom: tuple, only: tuple | None = None) -> bool:
        """Whether some item (or the item ``only``) selects ``atom``."""
        return any(
            self.names(item, atom[0], len(atom) - 1)
            and (item[0] == "pred" or all(map(_term_matches, item[2], atom[1:])))
            for item in (self.items if only is None else (only,))
        )


def _item_text(item: tuple) -> str:
    if item[0] == "pred":
        return item[1] if item[2] is None else f"{item[1]}/{item[2]}"
    return item[1] + ("(" + ",".join(map(_pattern_text, item[2])) + ")" if item[2] else "")


def _pattern_text(pattern) -> str:
    if pattern is _ANY:
        return "_"
    if isinstance(pattern, tuple):
        return _item_text(("atom", pattern[0], pattern[1:]))
    return pattern


def check_selection(selection: Selection | None, known, what: str = "the program has") -> None:
    """Refuse a selection with an item that names no predicate of ``known`` (``(name, arity)`` pairs),
    with a "did you mean": a typo would otherwise draw an empty picture."""
    if selection is None:
        return
    known = set(known)
    for item, part in zip(selection.items, selection.parts):
        if any(selection.names(item, name, arity) for name, arity in known):
            continue
        what_item = f"{item[1]}/{len(item[2])}" if item[0] == "atom" else part
        candidates = sorted({f"{n}/{k}" for n, k in known} | {n for n, _ in known})
        close = difflib.get_close_matches(what_item, candidates, n=1, cutoff=0.6)
        notes = (f"did you mean {close[0]}?",) if close else ()
        if not close and known:
            listed = sorted(f"{n}/{k}" for n, k in known)
            notes = ("its predicates: " + ", ".join(listed[:12]) + (", ..." if len(listed) > 12 else ""),)
        raise UsageError(
            Diagnostic(f"{selection.where} '{selection.text}': {what} no predicate {what_item}", notes=notes)
        )


def _term_matches(pattern, value) -> bool:
    if pattern is _ANY:
        return True
    if isinstance(pattern, tuple):
        return (
            type(value) is tuple
            and value[0] == pattern[0]
            and len(value) == len(pattern)
            and all(map(_term_matches, pattern[1:], value[1:]))
        )
    return format_term(value) == pattern


def select(text: str | None, where: str = "--atoms") -> Selection | None:
    """The :class:`Selection` of a pattern such as ``alarm/0,q(a,_)`` (None for None or empty);
    a bad pattern is a UsageError located in it."""
    if text is None or not text.strip():
        return None
    tokens = [(m.lastindex, m.group(m.lastindex), m.start(m.lastindex)) for m in _TOKEN.finditer(text) if m.lastindex]
    tokens.append((0, "", len(text)))  # the end
    pos = 0

    def fail(message: str):
        col = tokens[pos][2]
        raise UsageError(
            Diagnostic(
                f"bad atom pattern '{text}': {message}",
                Location(where, 1, col + 1, 1, col + 2),
                ("write e.g. alarm/0,q(a,_): a predicate name/arity, a name, or an atom with _ for any term",),
            )
        )

    def take(kind: int) -> str | None:
        """The next token's text if it is of ``kind`` (passed), else None."""
        nonlocal pos
        if tokens[pos][0] != kind:
            return None
        pos += 1
        return tokens[pos - 1][1]

    def term():
        kind, value, _ = tokens[pos]
        if kind not in (5, 6, 7, 8):
            fail("a term is missing" if kind == 0 else f"unexpected '{value}'")
        take(kind)
        if kind == 6:
            args = arguments()
            return (value, *args) if args else value
        return _ANY if kind == 5 else value

    def arguments() -> list:
        if take(2) is None:
            return []
        args = [term()]
        while take(4):
            args.append(term())
        if take(3) is None:
            fail("')' expected")
        return args

    items = []
    while True:
        name = take(6)
        if name is None:
            fail("a predicate name expected")
        if take(1):
            arity = tokens[pos][1]
            if tokens[pos][0] != 7 or arity.startswith("-"):
                fail("an arity (0, 1, ...) expected after '/'")
            take(7)
            items.append(("pred", name, int(arity)))
        elif tokens[pos][0] == 2:
            items.append(("atom", name, tuple(arguments())))
        else:
            items.append(("pred", name, None))
        if tokens[pos][0] == 0:
            return Selection(text, tuple(items), where)
        if not take(4):
            fail(f"unexpected '{tokens[pos][1]}'")
