"""Predicates by name and arity: ``p/1`` and ``p/2`` are two predicates, as in clingo.

Everything below the analysis identifies a predicate by its name alone, so a name used with
several arities is analysed as one internal name per arity (``p'1``, ``p'2``: primes are allowed
in clingo's names, and no name of the program is one), and :class:`Renaming` maps the atoms at the
boundary: stream atoms in, results out.
"""

from __future__ import annotations

import re
from dataclasses import replace

from .. import ast
from ..errors import Diagnostic

__all__ = ["internal_names", "names_out", "named", "Renaming"]


def _atoms(program: ast.Program):
    for rule in program.rules:
        if rule.head is not None:
            yield rule.head.atom
        for lit in rule.body:
            if not lit.is_comparison:
                yield lit.element.atom


def _blocked(names) -> set:
    """``names`` and their prefixes before a prime (``p'2`` of ``p'2'x``): no internal name is one."""
    return {*names, *(n[:i] for n in names if "'" in n for i, c in enumerate(n) if c == "'")}


def _fresh(name: str, arity: int, taken: set) -> str:
    """``name'arity`` (``name'arity'k`` if that is taken), added to ``taken``: it ends with a
    digit, so that :func:`names_out` can tell a prime after it (a quote) from a longer name."""
    new, k = f"{name}'{arity}", 0
    while new in taken:
        k += 1
        new = f"{name}'{arity}'{k}"
    taken.add(new)
    return new


def internal_names(program: ast.Program) -> tuple:
    """``(program, renamed)``: the program with every predicate name of several arities replaced
    by one name per arity, and ``renamed`` mapping each new name to the name it stands for."""
    arities: dict = {}
    for atom in _atoms(program):
        arities.setdefault(atom.predicate, set()).add(len(atom.args))
    taken = _blocked(arities)
    inward: dict = {}
    for name, used in arities.items():
        if len(used) < 2:
            continue
        for arity in sorted(used):
            inward[(name, arity)] = _fresh(name, arity, taken)
    if not inward:
        return program, {}

    def renamed(node):
        new = inward.get((node.predicate, len(node.args))) if isinstance(node, ast.Atom) else None
        return None if new is None else node.replace(predicate=new)

    return program.replace(rules=ast.transform(program.rules, renamed)), {
        new: name for (name, _), new in inward.items()
    }


def names_out(renamed: dict):
    """A function giving a text with the program's names for the internal ones of ``renamed``
    (``p'2(a,b)`` is ``p(a,b)``, ``'p'2/2'`` is ``'p/2'``): a prime that no name character
    precedes or follows is a quote (no program name is an internal one with more after a prime:
    :func:`_blocked`)."""
    alternatives = "|".join(map(re.escape, sorted(renamed, key=len, reverse=True)))
    pattern = re.compile(f"(?<![A-Za-z0-9_])(?<![A-Za-z0-9_']')({alternatives})(?![A-Za-z0-9_])(?!'[A-Za-z0-9_'])")
    return lambda text: pattern.sub(lambda m: renamed[m.group(1)], text)


def named(renamed: dict, item):
    """``item``, a text or a :class:`Diagnostic`, with the program's names (:func:`names_out`)."""
    out = names_out(renamed)
    if isinstance(item, Diagnostic):
        return replace(item, message=out(item.message), notes=tuple(map(out, item.notes)))
    return out(item)


class Renaming:
    """The atoms of a program's names of several arities, between the stream's names (``p``) and
    the analysis' internal ones (``p'2``); ``renamed`` as :func:`internal_names` returns it."""

    def __init__(self, renamed: dict, signatures: dict):
        self.outward = dict(renamed)
        self.inward = {(name, signatures[new]): new for new, name in renamed.items()}
        self.taken = _blocked({*signatures, *renamed.values()})
        self.learnt = 0  # how many pairs of the foreign list learn() took

    def foreign(self, name: str, arity: int) -> None:
        """Stream atoms ``name/arity`` of a program name, with an arity the program does not use:
        another predicate, which no rule reads, under a name of its own (an engine sees every
        atom of a name with one arity)."""
        new = self.inward[(name, arity)] = _fresh(name, arity, self.taken)
        self.outward[new] = name

    def learn(self, foreign: list) -> bool:
        """Take the ``(name, arity)`` pairs of ``foreign`` (a list that only grows) not yet taken;
        True if there were any."""
        known = self.learnt
        for name, arity in foreign[known:]:
            self.foreign(name, arity)
        self.learnt = len(foreign)
        return len(foreign) > known

    def atom_in(self, atom: tuple) -> tuple:
        new = self.inward.get((atom[0], len(atom) - 1))
        return atom if new is None else (new, *atom[1:])

    def atoms_in(self, atoms) -> list:
        inward = self.inward
        return [a if (a[0], len(a) - 1) not in inward else self.atom_in(a) for a in atoms]

    def atom_out(self, atom: tuple) -> tuple:
        name = self.outward.get(atom[0])
        return atom if name is None else (name, *atom[1:])
