"""Large programs: the sharding search equals the exhaustive one, and analysis stays linear.

The speed itself is measured by benchmarks/many_rules.py (docs/cli.md), not asserted here.
"""

from __future__ import annotations

import itertools

import pytest
from helpers import scaled
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import programs

from ticker_py import ast
from ticker_py.analysis import analyse
from ticker_py.analysis.sharding import shard_plan
from ticker_py.syntax import parse_program

# ------------------------------------------------ the exhaustive search, as first written


def _keyed(rule, keyed):
    for lit in rule.body:
        if not lit.is_comparison and lit.element.atom.predicate in keyed:
            yield lit.element.atom


def _fits(rule, key):
    variables = set()
    for atom in _keyed(rule, set(key)):
        arg = atom.args[key[atom.predicate]]
        if not isinstance(arg, ast.Variable):
            return False
        variables.add(arg.name)
    if len(variables) > 1:
        return False
    if rule.head is not None and rule.head.atom.predicate in key and variables:
        arg = rule.head.atom.args[key[rule.head.atom.predicate]]
        return isinstance(arg, ast.Variable) and arg.name in variables
    return True


def _exhaustive_key(analysis, streamed):
    keyed, changed = set(streamed), True
    while changed:
        changed = False
        for rule in analysis.program.proper_rules:
            if (
                rule.head is not None
                and rule.head.atom.predicate not in keyed
                and any(True for _ in _keyed(rule, keyed))
            ):
                keyed.add(rule.head.atom.predicate)
                changed = True
    if any(analysis.signatures[p] == 0 for p in keyed):
        return None
    if {p for e in analysis.negative_cycle for p in (e.head, e.body)} - keyed:
        return None
    preds = sorted(keyed)
    rules = [r for r in analysis.program.proper_rules if any(True for _ in _keyed(r, keyed))]
    for combo in itertools.product(*[range(analysis.signatures[p]) for p in preds]):
        key = dict(zip(preds, combo))
        if all(_fits(r, key) for r in rules):
            return key
    return None


def exhaustive_plan(analysis):
    """(key, broadcast) by trying every subset of stream predicates and every key assignment."""
    if analysis.tuple_lookback:
        return None, frozenset()
    streamed = sorted(set(analysis.extensional) - {a[0] for a in analysis.background})
    for size in range(len(streamed), 0, -1):
        for subset in itertools.combinations(streamed, size):
            key = _exhaustive_key(analysis, set(subset))
            if key is not None:
                return key, frozenset(streamed) - frozenset(subset)
    return None, frozenset()


# ------------------------------------------------ random programs made for key search

PREDS = {"p": 2, "q": 1, "r": 3, "s": 2, "u": 2, "v": 1}
HEADS = ("d", "e", "f")


@st.composite
def shard_programs(draw):
    arity = dict(PREDS, **{h: draw(st.integers(1, 3)) for h in HEADS})
    term = st.sampled_from(["A", "B", "C", "1", "k"])
    rules = []
    for _ in range(draw(st.integers(1, 5))):
        body = []
        for _ in range(draw(st.integers(1, 3))):
            pred = draw(st.sampled_from(sorted(arity)))
            args = [draw(st.sampled_from(["A", "B", "C"]))] + [draw(term) for _ in range(arity[pred] - 1)]
            args = draw(st.permutations(args))
            window = draw(st.sampled_from(["", " in [2]"] + ([" always [3]"] if pred in PREDS else [])))
            body.append(f"{pred}({', '.join(args)}){window}")
        head = draw(st.sampled_from(HEADS))
        used = sorted({a for b in body for a in "ABC" if a + "," in b or a + ")" in b})
        hargs = [draw(st.sampled_from(used or ["1"])) for _ in range(arity[head])]
        rules.append(f"{head}({', '.join(hargs)}) :- {', '.join(body)}.")
    return "\n".join(rules)


def _same_as_exhaustive(text):
    analysis = analyse(parse_program(text))
    plan = shard_plan(analysis)
    assert (plan.key, plan.broadcast if plan.key is not None else frozenset()) == exhaustive_plan(analysis), text


@settings(max_examples=300)
@given(shard_programs())
def test_key_search_equals_exhaustive_search(text):
    _same_as_exhaustive(text)


@settings(max_examples=100)
@given(programs())
def test_key_search_equals_exhaustive_search_on_random_programs(program):
    _same_as_exhaustive(str(program))


@pytest.mark.slow
@settings(max_examples=scaled(5000, 200))
@given(shard_programs())
def test_key_search_equals_exhaustive_search_many(text):
    _same_as_exhaustive(text)


def test_long_chains_are_keyed_and_analysed():
    """A derivation chain of 1,500 rules (recursion or a quadratic fixpoint would not finish)."""
    n = 1_500
    text = "d0(X, Y) :- s(X, Y) in [3].\n" + "".join(f"d{i}(X, Y) :- d{i - 1}(X, Y), t(Y, X).\n" for i in range(1, n))
    plan = shard_plan(analyse(parse_program(text)))
    assert plan.key == {"s": 0, "t": 1, **{f"d{i}": 0 for i in range(n)}} and not plan.broadcast
    clash = text + "bad(X) :- d7(X, Y), s(Y, X).\n"  # s cannot be keyed any more: broadcast
    plan = shard_plan(analyse(parse_program(clash)))
    assert plan.key == {"t": 1, "bad": 0, **{f"d{i}": 0 for i in range(1, n)}} and plan.broadcast == {"s"}


def test_key_search_gives_up_with_a_reason():
    """Many stream predicates that cannot all be keyed: the subset search is bounded."""
    text = "".join(f"d{i}(X) :- s{i}(X, Y), s{i + 1}(Y, X).\n" for i in range(60))
    plan = shard_plan(analyse(parse_program(text * 20)))
    assert plan.key is None and "search for a smaller key set stopped" in plan.reason
