"""Factorized enumeration: the answer sets of a ground program as a product of independent parts.

:class:`Recorder` (a clingo ground-program observer, registered before grounding) records the
ground program; :func:`factorize` then

1. sets aside the *fixed* atoms: facts (true in every answer set) and atoms in no rule head
   (false in every one); a rule with a true head atom or a false body literal is dropped, fixed
   literals are removed from the rest;
2. joins into one component every atom a remaining rule or constraint mentions (union-find);
3. enumerates each component's answer sets alone (a fresh clingo Control over its rules,
   projected onto its shown atoms) and returns the shown atoms of each as alternatives.

Soundness (splitting theorem): the components share no atom that is not fixed, so each is a
module of its own and the answer sets of the program are exactly the unions of the facts
with one answer set of every component. A component without an answer set makes the whole
program unsatisfiable. Components merge whenever one rule mentions atoms of both: a
constraint across two groups of choices yields one component, which is still exact.
"""

from __future__ import annotations

import clingo

__all__ = ["Recorder", "SymbolFactors", "Unfactorizable", "factorize"]


class Unfactorizable(Exception):
    """The ground program uses a feature the factorized path does not handle (see the message)."""


class Recorder(clingo.backend.Observer):
    """Records the ground program: rules, weight rules and shown atoms."""

    def __init__(self):
        self.rules: list = []      # (choice, head, body, lower bound or None); weighted body: (lit, w)
        self.shown: list = []      # (symbol, program atom; 0 for facts)
        self.unsupported = None    # why the program cannot be factorized

    def rule(self, choice, head, body):
        self.rules.append((choice, head, body, None))

    def weight_rule(self, choice, head, lower_bound, body):
        self.rules.append((choice, head, body, lower_bound))

    def output_atom(self, symbol, atom):
        self.shown.append((symbol, atom))

    def _refuse(self, what):
        self.unsupported = self.unsupported or what

    def output_term(self, symbol, condition):
        self._refuse("#show of terms")

    def external(self, atom, value):
        self._refuse("external atoms")

    def minimize(self, priority, literals):
        self._refuse("optimisation")

    def project(self, atoms):
        self._refuse("projection")

    def assume(self, literals):
        self._refuse("assumptions")

    def acyc_edge(self, node_u, node_v, condition):
        self._refuse("acyclicity constraints")

    def theory_atom(self, atom_id_or_zero, term_id, elements):
        self._refuse("theory atoms")

    def theory_atom_with_guard(self, atom_id_or_zero, term_id, elements, operator_id, right_hand_side_id):
        self._refuse("theory atoms")


class SymbolFactors:
    """The answer sets of a program as ``common`` shown symbols and ``factors``: per component
    with more than one answer set, the distinct sets of shown symbols (alternatives)."""

    __slots__ = ("common", "factors")

    def __init__(self, common: list, factors: list):
        self.common, self.factors = common, factors


class _UnionFind:
    def __init__(self):
        self.parent: dict = {}

    def find(self, x):
        parent = self.parent
        root = x
        while parent.get(root, root) != root:
            root = parent[root]
        while x != root:
            parent[x], x = root, parent.get(x, x)
        return root

    def union(self, atoms) -> None:
        it = iter(atoms)
        first = self.find(next(it))
        for a in it:
            r = self.find(a)
            if r != first:
                self.parent[r] = first


def factorize(recorder: Recorder):
    """The factorized answer sets of the recorded program, or None if it has none.

    Raises :class:`Unfactorizable` for programs with externals, optimisation, projection,
    assumptions, theory atoms or shown terms."""
    if recorder.unsupported:
        raise Unfactorizable(recorder.unsupported)
    rules = recorder.rules
    facts = set()
    defined = set()
    for choice, head, body, bound in rules:
        defined.update(head)
        if not body and not choice and bound is None and len(head) == 1:
            facts.add(head[0])
    uf = _UnionFind()
    kept = []          # (choice, head, body, bound, free atoms)
    for choice, head, body, bound in rules:
        if not choice and any(h in facts for h in head):
            continue   # satisfied in every answer set (facts included)
        if choice:
            head = [h for h in head if h not in facts]
            if not head:
                continue
        if bound is None:
            lits = []
            for lit in body:
                a = lit if lit > 0 else -lit
                if a in facts:
                    if lit < 0:
                        break        # body false
                elif a not in defined:
                    if lit > 0:
                        break        # body false
                else:
                    lits.append(lit)
            else:
                free = list(head) + [abs(l) for l in lits]
                kept.append((choice, head, lits, None, free))
                if free:
                    uf.union(free)
            continue
        free = list(head) + [abs(l) for l, _ in body if abs(l) in defined and abs(l) not in facts]
        kept.append((choice, head, body, bound, free))
        if free:
            uf.union(free)
    components: dict = {}
    for rule in kept:
        key = uf.find(rule[4][0]) if rule[4] else None
        components.setdefault(key, []).append(rule)
    common, shown_in = [], {}
    for symbol, atom in recorder.shown:
        if atom == 0 or atom in facts:
            common.append(symbol)
        elif atom in defined:
            shown_in.setdefault(uf.find(atom), []).append((symbol, atom))
    factors = []
    for key, comp in components.items():
        alternatives = _solve(comp, shown_in.get(key, ()), facts, defined)
        if not alternatives:
            return None
        if len(alternatives) == 1:
            common.extend(alternatives[0])
        else:
            factors.append(alternatives)
    return SymbolFactors(common, factors)


def _solve(rules: list, shown, facts: set, defined: set) -> list:
    """The distinct sets of shown symbols over the answer sets of one component's rules."""
    ctl = clingo.Control(["--models=0"], logger=_quiet, message_limit=0)
    local: dict = {}
    with ctl.backend() as b:
        add_atom = b.add_atom

        def atom(a):
            x = local.get(a)
            if x is None:
                x = local[a] = add_atom()
                if a in facts:
                    b.add_rule([x])
            return x

        for choice, head, body, bound, _ in rules:
            h = [atom(a) for a in head]
            if bound is None:
                b.add_rule(h, [atom(l) if l > 0 else -atom(-l) for l in body], choice)
            else:
                b.add_weight_rule(h, bound, [(atom(l) if l > 0 else -atom(-l), w) for l, w in body
                                             if abs(l) in defined or l < 0], choice)
        lits = [(symbol, atom(a)) for symbol, a in shown]
        if lits:
            b.add_project([x for _, x in lits])
    if lits:
        ctl.configuration.solve.project = "project"
    else:
        ctl.configuration.solve.models = 1
    ctl.ground([])
    out = []
    with ctl.solve(yield_=True) as handle:
        for m in handle:
            is_true = m.is_true
            out.append([symbol for symbol, x in lits if is_true(x)])
    return out


def _quiet(code, message):
    pass

