"""Analysis: roles, safety, fragments, strata, look-back and sharding."""

from __future__ import annotations

import pytest
import strategies
from hypothesis import given, settings

from ticker_py.analysis import GENERAL, POSITIVE, STRATIFIED, analyse
from ticker_py.analysis.sharding import shard_of, shard_plan
from ticker_py.errors import ProgramError
from ticker_py.syntax import parse_program


def A(text, clock_ms=1000):
    return analyse(parse_program(text), clock_ms)


@pytest.mark.parametrize(
    "text,fragment",
    [
        ("q(X) :- p(X) in [3].", POSITIVE),
        ("r(X,Z) :- r(X,Y), e(Y,Z). r(X,Y) :- e(X,Y).", POSITIVE),
        ("a :- p, not q.", STRATIFIED),
        ("a :- p. b :- not a.", STRATIFIED),
        ("a :- not b. b :- not a.", GENERAL),
        ("a :- p. :- a.", STRATIFIED),
        ("a :- not a.", GENERAL),
    ],
)
def test_fragment(text, fragment):
    assert A(text).fragment == fragment


def test_roles_and_background():
    a = A("value(0..2). edge(a,b). high :- value(V), alpha(V), V > 1. edge(X,Y) :- link(X,Y).")
    assert a.intensional == {"high", "edge"}
    assert a.extensional == {"value", "alpha", "link"}
    assert set(a.background) == {("value", 0), ("value", 1), ("value", 2), ("edge", "a", "b")}


def test_choice_and_split():
    a = A("a :- not b, s. b :- not a. s :- p. c :- a. d :- s. e :- c, not d.")
    assert a.choice == {"a", "b"}
    assert (a.lower, a.upper) == ({"s", "d"}, {"a", "b", "c", "e"})
    assert A("a :- p. b :- not a. :- b.").upper == frozenset()


@settings(max_examples=150, deadline=None)
@given(strategies.programs(mixed=True))
def test_choice_and_split_match_their_definition(program):
    """Per name and arity (the strategies' edges are between ``(name, arity)`` pairs; a name of
    two arities is one internal name per arity in the analysis)."""
    a = analyse(program)
    sig = {p: (a.renamed.get(p, p), n) for p, n in a.signatures.items()}
    intensional = {sig[p] for p in a.intensional}
    deps = {(h, b) for h, b, _, _ in strategies.dependency_edges(program)}

    def reaches(src, dst):  # src depends on dst (or is dst)
        return strategies._reaches(deps, src, dst)

    negative = [(h, b) for h, b, neg, _ in strategies.dependency_edges(program) if neg and b in intensional]
    choice = {p for p in intensional if any(reaches(b, h) and reaches(p, h) and reaches(h, p) for h, b in negative)}
    assert {sig[p] for p in a.choice} == choice
    assert {sig[p] for p in a.upper} == {p for p in intensional if any(reaches(p, q) for q in choice)}
    assert a.lower == a.intensional - a.upper


def test_strata_order_dependencies_first():
    a = A("c :- b. b :- a. a :- p.")
    assert list(a.strata) == [("a",), ("b",), ("c",)]


def test_lookback_and_window_sizes():
    a = A("a :- p in [3]. b :- q always [2 min]. c :- r in [5 #].")
    assert (a.lookback, a.tuple_lookback) == (120, 5)
    assert A("a(T) :- p at T.").lookback is None
    assert A("a :- p in [1500 ms].", clock_ms=500).lookback == 3


def test_safety_allows_assignments_and_function_terms():
    A("h(T) :- p(f(X), Y) in [2], T = X + Y.")
    A("h(Y) :- p(X), Y = X * 2, not q(Y).")
    with pytest.raises(ProgramError, match="unsafe variable 'X'"):
        A("h :- p(X+1).")
    with pytest.raises(ProgramError, match="unsafe variable 'T'"):
        A("h at T :- p.")


def test_all_problems_are_reported_at_once():
    with pytest.raises(ProgramError) as info:
        A("a(X) :- b. c :- not d(Y) [2 #]. d(1) :- e.")
    messages = [d.message for d in info.value.diagnostics]
    # in source order: the tuple window (from the atom's start, column 16) before its Y (column 22)
    assert messages == ["unsafe variable 'X'", "tuple window over intensional predicate 'd/1'", "unsafe variable 'Y'"]


def test_problems_keep_their_order_in_the_one_walk():
    with pytest.raises(ProgramError) as info:
        A("p(1). p(1,2). a(X) :- b. c :- not d(Y) [2 #]. e(Z) :- f. d(1) :- e, g [3 #]. h :- q [4 #], r(1, 2).")
    messages = [d.message for d in info.value.diagnostics]
    assert messages == [  # in source order; p/1 and p/2, e/0 and e/1 are different predicates
        "unsafe variable 'X'",
        "tuple window over intensional predicate 'd/1'",
        "unsafe variable 'Y'",
        "unsafe variable 'Z'",
    ]
    assert str(info.value.diagnostics[0].location).endswith(":1:17-18")


@pytest.mark.parametrize(
    "text,key,reason",
    [
        ("q(A,B) :- p(A,B) in [3].", {"p": 0, "q": 0}, ""),
        ("q(B) :- p(A,B) in [3], r(B).", {"p": 1, "q": 0, "r": 0}, ""),
        ("q(A,C) :- p(A,B) in [3], p(B,C) in [3].", None, "joins keyed atoms on different variables"),
        ("q(X) :- p(X) in [3 #].", None, "tuple window"),
        ("alarm :- p(X) always [3].", None, "'alarm/0'"),
        # r cannot be keyed with p: it is broadcast to every shard
        ("q(A) :- p(A,B) in [3], r(B).", {"p": 0, "q": 0}, ""),
    ],
)
def test_shard_plan(text, key, reason):
    plan = shard_plan(A(text))
    assert plan.key == key
    assert reason in plan.reason


def test_shard_of_is_stable_and_in_range():
    key = {"p": 0}
    shards = {shard_of(("p", f"a{i}", 1), key, 4) for i in range(50)}
    assert shards == {0, 1, 2, 3}
    assert shard_of(("p", "a1", 2), key, 4) == shard_of(("p", "a1", 9), key, 4)
    assert shard_of(("r", 1), key, 4) is None
