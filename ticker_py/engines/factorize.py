"""Factorized enumeration: the answer sets of a ground program as a product of independent parts.

:func:`factorize` sets the fixed atoms aside (facts, atoms in no head), joins the atoms of each
remaining rule of the recorded ground program into components and enumerates each component's
alternatives. Sound by the splitting theorem: components share no free atom.
"""

from __future__ import annotations

from dataclasses import dataclass

import clingo

from ..streams.factorized import note_fallback

__all__ = ["Recorder", "SymbolFactors", "Unfactorizable", "factorize", "factorize_or_enumerate"]


class Unfactorizable(Exception):
    """The ground program uses a feature the factorized path does not handle (see the message)."""


#: observer callbacks of what the factorized path does not handle, and how a note names it
REFUSED = {
    "output_term": "#show of terms",
    "external": "external atoms",
    "minimize": "optimisation",
    "project": "projection",
    "assume": "assumptions",
    "acyc_edge": "acyclicity constraints",
    "theory_atom": "theory atoms",
    "theory_atom_with_guard": "theory atoms",
}


class Recorder(clingo.backend.Observer):
    """Records the ground program (``ctl.register_observer``): rules, weight rules and shown atoms."""

    def __init__(self):
        self.rules: list = []  # (choice, head, body, lower bound or None); weighted body: (lit, w)
        self.facts: set = set()  # atoms of rules ``a.`` (not in rules)
        self.shown: list = []  # (symbol, program atom; 0 for facts)
        self.unsupported = None  # why the program cannot be factorized

    def rule(self, choice, head, body):
        if body or choice or len(head) != 1:
            self.rules.append((choice, head, body, None))
        else:
            self.facts.add(head[0])

    def weight_rule(self, choice, head, lower_bound, body):
        self.rules.append((choice, head, body, lower_bound))

    def output_atom(self, symbol, atom):
        self.shown.append((symbol, atom))

    def _refuse(self, what):
        self.unsupported = self.unsupported or what


def _refusing(what):
    return lambda self, *args: self._refuse(what)


for _name, _what in REFUSED.items():
    setattr(Recorder, _name, _refusing(_what))


@dataclass(slots=True)
class SymbolFactors:
    """The answer sets of a program as ``common`` shown symbols and ``factors``: per component
    with more than one answer set, the distinct sets of shown symbols (alternatives)."""

    common: list
    factors: list


def _free_atoms(rules: list, facts: set, defined: set):
    """Per rule that can still apply, its free atoms: neither facts nor in no rule head."""
    for choice, head, body, bound in rules:
        if not choice and any(h in facts for h in head):
            continue  # satisfied in every answer set
        free = [h for h in head if h not in facts]
        if bound is not None:
            yield free + [a for a in (abs(l) for l, _ in body) if a in defined and a not in facts]
            continue
        for lit in body:
            a = lit if lit > 0 else -lit
            if a in facts:
                if lit < 0:
                    break  # body false
            elif a not in defined:
                if lit > 0:
                    break  # body false
            else:
                free.append(a)
        else:
            yield free


def _components(groups):
    """Union-find over ``groups`` of atoms: the function from an atom to its component's root."""
    parent: dict = {}
    get = parent.get

    def find(x):
        root = x
        while (p := get(root, root)) != root:
            root = p
        while x != root:
            parent[x], x = root, get(x, x)
        return root

    for free in groups:
        if len(free) > 1:
            first = find(free[0])
            for a in free[1:]:
                r = find(a)
                if r != first:
                    parent[r] = first
    return find


def factorize(recorder: Recorder, ctl: clingo.Control):
    """The factorized answer sets of the program recorded while ``ctl`` grounded it, or None if
    it has none (``ctl`` is solved, in projective enumeration mode).

    Raises :class:`Unfactorizable` for programs with externals, optimisation, projection,
    assumptions, theory atoms or shown terms."""
    if recorder.unsupported:
        raise Unfactorizable(recorder.unsupported)
    rules, facts = recorder.rules, recorder.facts
    defined = set(facts)
    for rule in rules:
        defined.update(rule[1])
    find = _components(_free_atoms(rules, facts, defined))
    common, shown_in = [], {}
    for sym, atom in recorder.shown:
        if atom == 0 or atom in facts:
            common.append(sym)
        elif atom in defined:
            shown_in.setdefault(find(atom), []).append((sym, atom))
    alternatives = _solve(ctl, list(shown_in.values()))
    if alternatives is None:
        return None
    factors = []
    for alts in alternatives:
        if len(alts) == 1:
            common.extend(alts[0])
        else:
            factors.append(alts)
    return SymbolFactors(common, factors)


def factorize_or_enumerate(control, read, engine: str):
    """``(common, factors)`` of the program ``control(observer)`` grounds (:func:`factorize`; for a
    program it does not handle, a fallback of ``engine``, noted: every answer set an alternative of
    one factor), each set of shown symbols read by ``read``; None if there is no answer set."""
    recorder = Recorder()
    ctl = control(recorder)
    try:
        found = factorize(recorder, ctl)
    except Unfactorizable as why:
        note_fallback(engine, str(why))
        ctl.configuration.solve.models = 0
        with ctl.solve(yield_=True) as handle:
            found = SymbolFactors([], [[list(m.symbols(shown=True)) for m in handle]])
    if found is None:
        return None
    return read(found.common), [[read(alt) for alt in f] for f in found.factors]


def _solve(ctl: clingo.Control, shown: list):
    """Per component (its shown ``(symbol, atom)`` pairs), the distinct sets of its shown symbols
    over the answer sets of the program in ``ctl``; None if there is none. With the other components'
    shown atoms assumed as in one answer set, those projected onto the shown atoms are exactly
    component i's alternatives (components share no free atom)."""
    ctl.configuration.solve.project = "show"  # projected onto the shown atoms (facts: fixed anyway)
    ctl.configuration.solve.models = 0
    fixed = [()]
    if len(shown) != 1:  # (one component: no other to fix)
        with ctl.solve(yield_=True) as handle:
            first = next(iter(handle), None)
            if first is None:
                return None
            fixed = [[a if first.is_true(a) else -a for _, a in lits] for lits in shown]
    alternatives = [
        _alternatives(ctl, lits, [lit for j, f in enumerate(fixed) if j != i for lit in f])
        for i, lits in enumerate(shown)
    ]
    return alternatives if all(alternatives) else None


def _alternatives(ctl: clingo.Control, lits: list, assume) -> list:
    """The shown symbols of ``lits`` true in each answer set under ``assume`` (distinct: the
    enumeration is projected onto the shown atoms)."""
    with ctl.solve(assumptions=assume, yield_=True) as handle:
        return [[symbol for symbol, a in lits if m.is_true(a)] for m in handle]
