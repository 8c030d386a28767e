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
    for alternatives in _solve(components, shown_in, facts, defined):
        if not alternatives:
            return None
        if len(alternatives) == 1:
            common.extend(alternatives[0])
        else:
            factors.append(alternatives)
    return SymbolFactors(common, factors)


def _solve(components: dict, shown_in: dict, facts: set, defined: set):
    """Per component, the distinct sets of its shown symbols over its answer sets.

    One Control holds every component, each guarded by an external atom: solving with only
    component i's guard true gives i's answer sets (the atoms of the others are all false),
    projected onto the shown atoms. Rules without free atoms (key None) are not guarded.
    Atoms keep the numbers of the recorded program; guards and helpers are numbered above."""
    ctl = clingo.Control(["--models=0", "--project=project"], logger=_quiet, message_limit=0)
    fresh = max((a for rules in components.values() for r in rules for a in r[4]), default=0)
    guards, shown = [], []
    with ctl.backend() as b:
        add_rule, add_weight_rule = b.add_rule, b.add_weight_rule
        for key, rules in components.items():
            g = None
            if key is not None:
                fresh += 1
                g = fresh
                b.add_external(g, clingo.TruthValue.False_)
                guards.append(g)
                shown.append(shown_in.get(key, ()))
            for choice, head, body, bound, _ in rules:
                if bound is None:
                    add_rule(head, body if g is None else body + [g], choice)
                    continue
                wbody = []
                for lit, weight in body:
                    a = lit if lit > 0 else -lit
                    if a in facts:   # a fact in a weight body: fixed true as an atom of its own
                        fresh += 1
                        add_rule([fresh])
                        lit = fresh if lit > 0 else -fresh
                    elif a not in defined:
                        if lit > 0:
                            continue
                        fresh += 1   # an atom without rules: false
                        lit = -fresh
                    wbody.append((lit, weight))
                if g is None:
                    add_weight_rule(head, bound, wbody, choice)
                else:   # a weight body cannot take the guard: w <-> the weight body; head :- w, guard
                    fresh += 1
                    add_weight_rule([fresh], bound, wbody)
                    add_rule(head, [fresh, g], choice)
        b.add_project([a for lits in shown for _, a in lits])
    ctl.ground([])
    if not guards:
        return [[]] if ctl.solve().unsatisfiable else []
    out = []
    for i, lits in enumerate(shown):
        if i:
            ctl.assign_external(guards[i - 1], False)
        ctl.assign_external(guards[i], True)
        ctl.configuration.solve.models = 0 if lits else 1
        alternatives = []
        with ctl.solve(yield_=True) as handle:
            for m in handle:
                is_true = m.is_true
                alternatives.append([symbol for symbol, x in lits if is_true(x)])
        out.append(alternatives)
        if not alternatives:
            break
    return out


def _quiet(code, message):
    pass
