"""The predicate dependency graph: SCCs, stratification and box cycles."""

from __future__ import annotations

from typing import NamedTuple

from .. import ast
from ..errors import Diagnostic

__all__ = [
    "Edge",
    "dependency_edges",
    "strongly_connected",
    "within_components",
    "stratify",
    "check_box_cycles",
    "choice_predicates",
    "split_predicates",
]


class Edge(NamedTuple):
    """``head`` depends on ``body``; ``negative`` under 'not'; ``box`` through a box window."""

    head: str
    body: str
    negative: bool
    box: bool
    element: ast.ExtendedAtom


def dependency_edges(program: ast.Program, intensional: frozenset) -> list:
    """Edges between intensional predicates, one per body occurrence."""
    out = []
    for rule in program.proper_rules:
        if rule.head is None:
            continue
        h = rule.head.atom.predicate
        for lit in rule.body:
            el = lit.element
            if type(el) is not ast.Comparison and el.atom.predicate in intensional:
                out.append(Edge(h, el.atom.predicate, lit.negated, el.modality == ast.BOX, el))
    return out


def strongly_connected(nodes, edges) -> list:
    """Tarjan's SCCs in reverse topological order of the 'depends on' relation.

    ``edges`` maps a node to the nodes it depends on; the result lists every SCC after
    all SCCs it depends on (dependencies first).
    """
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        if root not in edges:  # depends on nothing: an SCC of its own, at once
            index[root] = low[root] = counter
            counter += 1
            out.append((root,))
            continue
        work = [(root, iter(edges.get(root, ())))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(edges.get(nxt, ()))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    x = stack.pop()
                    on_stack.discard(x)
                    comp.append(x)
                    if x == node:
                        break
                out.append(tuple(sorted(comp)))
    return out


def _adjacency(edges) -> dict:
    adj: dict = {}
    for e in edges:
        adj.setdefault(e.head, []).append(e.body)
    return adj


def within_components(intensional, edges) -> tuple:
    """``(components, inside)``: the SCCs of ``edges`` (dependencies first) and the edges inside one."""
    comps = strongly_connected(sorted(intensional), _adjacency(edges))
    comp_of = {p: i for i, comp in enumerate(comps) for p in comp}
    return comps, [(e, comps[comp_of[e.head]]) for e in edges if comp_of[e.head] == comp_of[e.body]]


def stratify(intensional, edges) -> tuple:
    """Return ``(strata, negative_cycle_edges)``.

    ``strata`` lists the SCCs of intensional predicates, dependencies first; the second
    item lists negative edges inside an SCC (empty iff the program is stratified).
    """
    comps, inside = within_components(intensional, edges)
    return comps, [e for e, _ in inside if e.negative]


def choice_predicates(strata, negative_cycle) -> frozenset:
    """The SCCs with a negative edge inside (``stratify``'s result): the predicates the solver guesses."""
    heads = {e.head for e in negative_cycle}
    return frozenset(p for comp in strata if heads.intersection(comp) for p in comp)


def split_predicates(strata, edges, choice) -> tuple:
    """``(lower, upper)``: upper = the ``choice`` predicates and every predicate depending on them.

    ``strata`` lists the SCCs dependencies first, so one pass finds every SCC that reads upper.
    """
    if not choice:
        return frozenset(p for comp in strata for p in comp), frozenset()
    deps = _adjacency(edges)
    upper: set = set()
    for comp in strata:
        if any(p in choice or upper.intersection(deps.get(p, ())) for p in comp):
            upper.update(comp)
    return frozenset(p for comp in strata for p in comp) - upper, frozenset(upper)


def check_box_cycles(intensional, edges, signatures: dict, diagnostics: list) -> None:
    """A positive cycle through a box window has no well-defined encoding: report it."""
    positive = [e for e in edges if not e.negative]
    if not any(e.box for e in positive):
        return
    for e, comp in within_components(intensional, positive)[1]:
        if e.box:
            cycle = ", ".join(f"{p}/{signatures[p]}" for p in comp)
            diagnostics.append(
                Diagnostic(
                    f"positive cycle through a box window: '{e.head}/{signatures[e.head]}' depends on '{e.element}'",
                    e.element.location,
                    (
                        f"predicates on the cycle: {cycle}",
                        "a box window atom may not depend positively on the rule's own head",
                    ),
                )
            )
