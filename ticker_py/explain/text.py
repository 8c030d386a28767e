"""Atoms as explanations print and read them: IRIs as the program writes them.

An IRI is the term ``iri("http://ex.org/s#t1")`` for every engine; an explanation prints it with
the program's ``@prefix`` names (``s:t1``), or as ``<http://ex.org/s#t1>`` when no prefix covers
it, and reads ``ATOM`` in the same syntax (:func:`parse_program_atom`).

>>> prefixed('hot(iri("http://ex.org/s#t1"),"iri(\\\\"x\\\\")")', (("s", "http://ex.org/s#"),))
'hot(s:t1,"iri(\\\\"x\\\\")")'
>>> prefixed('p(iri("http://other.org/a b"))', ())
'p(iri("http://other.org/a b"))'
>>> prefixed('p(iri("http://other.org/a"))', ())
'p(<http://other.org/a>)'
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..analysis.arities import names_out
from ..values import from_ast_atom

__all__ = ["prefixed", "as_written", "parse_program_atom"]

#: a string literal (skipped whole: nothing inside it is a term), or an IRI term
_TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|\biri\("([^"\\<>{}|^`\x00-\x20]*)"\)')
#: the local part of a prefixed name the program parser reads (lars.lark, PNAME_LN)
_LOCAL = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_\-]*")


def _iri_text(iri: str, prefixes) -> str:
    for name, namespace in sorted(prefixes, key=lambda p: -len(p[1])):
        local = iri[len(namespace) :]
        if iri.startswith(namespace) and _LOCAL.fullmatch(local):
            return f"{name}:{local}"
    return f"<{iri}>"


def prefixed(text: str, prefixes) -> str:
    """``text`` (clingo syntax, perhaps within prose) with each IRI term ``iri("…")`` written as the
    program writes IRIs: ``name:local`` by ``prefixes`` (``(name, namespace)`` pairs), else ``<…>``."""
    if "iri(" not in text:
        return text
    return _TOKEN.sub(lambda m: m.group() if m.group(1) is None else _iri_text(m.group(1), prefixes), text)


def as_written(root, prefixes, renamed: dict):
    """The tree ``root`` (shared nodes stay shared) with IRIs :func:`prefixed` and the program's names
    for the internal ones of a name of several arities (``p'2(a,b)`` is ``p(a,b)``)."""
    if not (prefixes or renamed):
        return root
    names = names_out(renamed) if renamed else str
    made: dict = {}

    def visit(node):
        if id(node) not in made:
            text = names(prefixed(node.text, prefixes) if prefixes else node.text)
            made[id(node)] = replace(node, text=text, children=tuple(visit(child) for child in node.children))
        return made[id(node)]

    return visit(root)


def parse_program_atom(text: str, prefixes) -> tuple | None:
    """The ground atom ``text`` written as in the program (prefixed names, ``<…>`` IRIs, with
    ``prefixes``); None if it is not one."""
    from ..errors import TickerError
    from ..syntax import parse_program

    head = "".join(f"@prefix {name}: <{namespace}> .\n" for name, namespace in prefixes)
    try:
        (rule,) = parse_program(f"{head}{text}.", "<atom>").rules
        return from_ast_atom(rule.head.atom) if rule.is_fact and rule.head.time is None else None
    except (TickerError, RecursionError, ValueError):  # not one fact; ValueError: a variable, not ground
        return None
