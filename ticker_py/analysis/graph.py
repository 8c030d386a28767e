"""The predicate dependency graph: SCCs, stratification and box cycles."""

from __future__ import annotations

from typing import NamedTuple

from .. import ast
from ..errors import Diagnostic

__all__ = ["Edge", "dependency_edges", "strongly_connected", "within_components", "stratify", "check_box_cycles"]


class Edge(NamedTuple):
    """``head`` depends on ``body``; ``negative`` under 'not'; ``box`` through a box window."""

    head: str
    body: str
    negative: bool
    box: bool
    element: ast.ExtendedAtom


def dependency_edges(program: ast.Program, intensional: frozenset) -> list:
    """Edges between intensional predicates, one per body occurrence."""
    return [
        Edge(rule.head.atom.predicate, el.atom.predicate, lit.negated, el.modality == ast.BOX, el)
        for rule in program.proper_rules
        if rule.head is not None
        for lit in rule.body
        if type(el := lit.element) is not ast.Comparison and el.atom.predicate in intensional
    ]


def strongly_connected(nodes, edges) -> list:
    """Tarjan's SCCs of ``nodes`` (``edges``: node -> the nodes it depends on), each listed after
    every SCC it depends on; iterative, so that a long chain of rules needs no deep recursion."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(node) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        work.append((node, iter(edges.get(node, ()))))

    for root in nodes:
        if root in index:
            continue
        work: list = []
        visit(root)
        while work:
            node, it = work[-1]
            for nxt in it:
                if nxt not in index:
                    visit(nxt)
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:  # every successor done
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = set()
                    while node not in comp:
                        comp.add(stack.pop())
                    on_stack -= comp
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
    """``(strata, negative_cycle, choice, lower, upper)``: the SCCs of the intensional predicates,
    dependencies first; the negative edges inside an SCC (none iff the program is stratified);
    the predicates of their SCCs, which a solver guesses; ``upper``, those and every predicate
    depending on them, and ``lower``, the other intensional predicates."""
    strata, inside = within_components(intensional, edges)
    bad = [e for e, _ in inside if e.negative]
    heads = {e.head for e in bad}
    choice = frozenset(p for comp in strata if heads.intersection(comp) for p in comp)
    deps, upper = _adjacency(edges), set()
    for comp in strata:  # dependencies first: one pass finds every SCC that reads upper
        if any(p in choice or upper.intersection(deps.get(p, ())) for p in comp):
            upper.update(comp)
    return strata, bad, choice, frozenset(intensional) - upper, frozenset(upper)


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
