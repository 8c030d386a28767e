"""The one definition of a window (ticker_py.windows), and exact times on the native engine and
the native part of the default engine."""

from __future__ import annotations

import pytest
import reference as ref

from ticker_py import Reasoner, ast
from ticker_py.api import load_program
from ticker_py.semantics import PROFILES, resolve
from ticker_py.syntax import parse_ground_atom
from ticker_py.windows import (
    Span,
    Windows,
    before_now,
    covers,
    first_point,
    last_covering,
    on_timeline,
    reach,
    tuple_first,
    tuple_full,
    tuple_holds,
    tuple_windows,
)

U, N, C, K = (ast.Variable(v) for v in "UNCK")


# ---------------------------------------------------------------- the module


@pytest.mark.parametrize("profile", list(PROFILES))
@pytest.mark.parametrize("size", [0, 1, 2, 5])
def test_time_spans_equal_the_reference_under_every_profile(profile, size):
    """[n] at t covers what the reference evaluator's timeline says (it is the definition)."""
    semantics = PROFILES[profile].semantics
    if size == 0 and semantics.window_bounds.value == "half-open":
        return  # refused: empty
    prep = ref.prepare("q :- p in [1].")
    for origin in (0, 2):
        for t in range(origin, origin + 8):
            stream = ref.Stream([], t, 0, prep, semantics, origin)
            expected = list(ref.Interp(stream, ()).timeline(("time", size)))
            r = reach(size, semantics)
            lo = first_point(t, r, origin)
            assert list(range(lo, t + 1)) == expected
            assert [u for u in range(t + 1) if u >= origin and all(covers(u, t, r))] == expected
            assert all(last_covering(u, r) >= t for u in expected)
            assert list(range(origin, t + 1)) == list(ref.Interp(stream, ()).timeline(None))


def test_the_same_bounds_as_terms():
    """The encoders' comparisons are the same formulas over terms."""
    assert [str(c) for c in covers(U, N, 3)] == ["N-3 <= U", "U <= N"]
    assert [str(x) for x in before_now(N, 3)] == ["N-3", "N-1"]
    assert [str(c) for c in on_timeline(U, N, ast.Number(0))] == ["0 <= U", "U <= N"]
    assert str(tuple_first(C, 3)) == "C-3+1" and tuple_first(10, 3) == 8
    assert str(tuple_full(C, 3)) == "C >= 3" and tuple_full(2, 3) is False
    assert str(tuple_holds(K, C, 3)) == "K > C-3" and tuple_holds(8, 10, 3) and not tuple_holds(7, 10, 3)


def _history(stream):
    out, k = [], 0
    for u, atoms in stream:
        for a in atoms:
            k += 1
            out.append((u, k, parse_ground_atom(a)))
    return out


@pytest.mark.parametrize("profile", ["default", "lars", "ticker", "cql"])
def test_tuple_windows_equal_the_reference(profile):
    """Every content of a tuple window, under every tuple knob, is the reference's."""
    semantics = PROFILES[profile].semantics
    stream = [(1, ["p(1)", "q", "p(2)"]), (2, ["p(3)", "q", "p(1)"]), (3, []), (4, ["q", "p(2)"])]
    history = _history(stream)
    prep = ref.prepare("a :- p(X) in [2 #]. b :- q in [1 #].")
    for t, c in [(1, 1), (1, 3), (2, 4), (2, 6), (3, 6), (4, 8)]:
        rs = ref.Stream(stream, t, c, prep, semantics, 1 if semantics.origin.value == "first" else 0)
        for n in (1, 2, 3, 5):
            for pred in ("p", "q"):
                # the reference scopes by (name, arity); windows.py by the (engine's) name
                scoped = (pred, int(pred == "p")) if semantics.tuple_scope.value == "predicate" else None
                expected = {(start, contents) for start, contents in rs.tuple_alternatives(n, scoped)}
                got = {
                    (w.span.lo, frozenset((a, u) for u, _, a in w.entries))
                    for w in tuple_windows(history, n, t, c, rs.origin, semantics, pred)
                }
                assert got == expected, (t, c, n, pred)


def test_span_text():
    assert str(Span(1, 3)) == "[1, 3]"
    assert str(Span(1, 3, 4, 5)) == "[1, 3] (atoms #4..#5)"
    assert str(Span(0, 3, 1, 0)) == "[0, 3] (no atoms)"
    assert str(Span(1, 3, 4, 6, (3,))) == "[1, 3] (atoms up to #6; of time point 1 the cut keeps #3)"


def test_program_lookback_under_half_open_bounds():
    analysis = load_program("q :- p in [3]. r :- s always [5 sec]. u :- v in [2 #].")
    assert (Windows(analysis).lookback, Windows(analysis, resolve("r4")).lookback) == (5, 4)
    assert Windows(load_program("q(T) :- p at T."), resolve("r4")).lookback is None
    assert Windows(analysis).tuple_lookback == Windows(analysis, resolve("r4")).tuple_lookback == 2


# ---------------------------------------------------------------- exact times


TIMES = [2**30 + 5, 2**31, 2**62, 10**20]

# (program, [(time offset, atoms appended)], [(time offset evaluated, atoms, pins (atom, offset))]);
# offsets are added to a huge time T (an offset "0-" is time 0 itself)
EXACT = [
    ("b. q :- b.", [], [("0-", {"q"}, set()), (0, {"q"}, set())]),
    (
        "q :- p in [3].",
        [("0-", ["p"]), (0, ["p"])],
        [("0-", {"q"}, set()), (0, {"q"}, set()), (3, {"q"}, set()), (4, set(), set())],
    ),
    (
        "q :- p always [2].",
        [(0, ["p"]), (1, ["p"]), (2, ["p"])],
        [(0, set(), set()), (1, set(), set()), (2, {"q"}, set()), (3, set(), set())],
    ),
    (
        "q(U) :- p at U. r(U) :- p at U in [5].",
        [("0-", ["p"]), (0, ["p"])],
        [(0, {"q(0)", "q(T)", "r(T)"}, set()), (5, {"q(0)", "q(T)", "r(T)"}, set()), (6, {"q(0)", "q(T)"}, set())],
    ),
    (
        "s at U :- p at T in [2], U = T + 2. w :- s.",
        [(0, ["p"])],
        [(0, set(), {("s", 2)}), (2, {"s", "w"}, set()), (3, set(), set())],
    ),
    (
        "q(X) :- p(X) in [2 #].",
        [("0-", ["p(1)"]), (0, ["p(2)"]), (1, ["p(3)"])],
        [(0, {"q(1)", "q(2)"}, set()), (1, {"q(2)", "q(3)"}, set()), (9, {"q(2)", "q(3)"}, set())],
    ),
    ("b. q(U) :- b at U in [1].", [], [("0-", {"q(0)"}, set()), (0, {"q(T-1)", "q(T)"}, set())]),
    (
        "d at T :- p at T in [5]. e :- d always [2].",
        [(0, ["p"]), (1, ["p"]), (2, ["p"])],
        [(1, {"d"}, {("d", 0)}), (2, {"d", "e"}, {("d", 0), ("d", 1)}), (3, set(), {("d", 0), ("d", 1), ("d", 2)})],
    ),
]


def _at(offset, big: int) -> int:
    return 0 if offset == "0-" else big + offset


def _atoms(texts, big: int) -> frozenset:
    out = set()
    for text in texts:
        text = text.replace("T-1", str(big - 1)).replace("T", str(big))
        out.add(parse_ground_atom(text))
    return frozenset(out)


def run_exact(reasoner, case: int, big: int) -> int:
    """Run EXACT[case] with T = big; assert each answer; return how many were checked."""
    program, appended, evaluated = EXACT[case]
    todo = [(_at(o, big), 0, a) for o, a in appended] + [(_at(o, big), 1, (a, p)) for o, a, p in evaluated]
    checked = 0
    for t, kind, item in sorted(todo, key=lambda x: x[:2]):
        if kind == 0:
            reasoner.append(t, item)
            continue
        atoms, pins = item
        (model,) = reasoner.evaluate(t).models
        assert model.atoms == _atoms(atoms, big), (t, program)
        assert model.pinned == {((a,), big + u) for a, u in pins}, (t, program)
        checked += 1
    return checked


@pytest.mark.parametrize("engine", ["native", "incremental"])
@pytest.mark.parametrize("big", TIMES)
@pytest.mark.parametrize("case", range(len(EXACT)))
def test_times_are_exact_across_a_huge_jump(engine, big, case):
    """Any integer time works: a horizon never collides with 'forever' (the native engine packed
    ticks as t * 2**32 + j, which passed its INF = 2**62 from t = 2**30 on: `b. q :- b.` lost q).
    (The clingo-solved engines and parts keep times as clingo numbers: their cases are the
    values developer's.)"""
    reasoner = Reasoner(EXACT[case][0], engine=engine)
    assert reasoner.engine_name == engine
    assert run_exact(reasoner, case, big) == len(EXACT[case][2])


@pytest.mark.parametrize("case", range(len(EXACT)))
def test_exact_cases_equal_clingo_where_clingo_holds_the_times(case):
    """The expected answers above are clingo's, with a small T (clingo grounds every time point of
    an @-atom's timeline)."""
    assert run_exact(Reasoner(EXACT[case][0], engine="clingo"), case, 50) == len(EXACT[case][2])
