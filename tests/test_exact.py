"""Exact values on every engine, against Python's own arithmetic (docs/semantics.md, "Values and
limits"): random operands around 2**31 and 2**63 through every arithmetic operation and
comparison, in rules the default engine evaluates natively and in rules clingo solves; time
points past 32 bits (answers shift with the stream); the encodings are rewritten only where a
value could need it."""

from __future__ import annotations

import pytest
from helpers import scaled
from hypothesis import given, settings
from hypothesis import strategies as st

from ticker_py import Reasoner, run
from ticker_py.analysis import analyse
from ticker_py.encode import encode_static
from ticker_py.encode.exact import UNSAFE, Bounds, ExactProgram, level, value_bound
from ticker_py.syntax import parse_program

ENGINES = ["clingo", "incremental", "incremental-pure", "native"]
EDGES = [0, 1, -1, 2, -3, 7, 46340, 46341, 65536, 2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 3 * 10**9]
EDGES += [2**62, 2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 10**20]
operands = st.one_of(st.sampled_from(EDGES), st.integers(-(2**66), 2**66), st.integers(-100, 100))
#: an even loop: with ``not blocked`` a rule is solved by clingo in every engine but native
LOOP = "blocked :- not free.\nfree :- not blocked.\n"


def _arith(op: str, x: int, y: int):
    """clingo's integer arithmetic, exactly: truncating division and modulo; None if undefined."""
    if op == "+":
        return x + y
    if op == "-":
        return x - y
    if op == "*":
        return x * y
    if y == 0:
        return None
    q = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
    return q if op == "/" else x - q * y


_CMP = {"<": int.__lt__, "<=": int.__le__, ">": int.__gt__, ">=": int.__ge__, "=": int.__eq__, "!=": int.__ne__}


@settings(max_examples=scaled(300, 60), deadline=None)
@given(
    xs=st.lists(operands, min_size=1, max_size=3, unique=True),
    ys=st.lists(operands, min_size=1, max_size=3, unique=True),
    op=st.sampled_from(["+", "-", "*", "/", "\\"]),
    cmp=st.sampled_from(sorted(_CMP)),
    engine=st.sampled_from(ENGINES),
    solved=st.booleans(),
)
def test_arithmetic_and_comparisons_are_exact(xs, ys, op, cmp, engine, solved):
    if solved and engine == "native":
        engine = "clingo"
    guard = ", not blocked" if solved else ""
    program = (
        f"z(X,Y,Z) :- p(X), r(Y), Z = X {op} Y{guard}.\n"
        f"c(X,Y) :- p(X), r(Y), X {cmp} Y{guard}.\n"
        f"s(X,W) :- p(X), W = (X * X - 3) {op} 2{guard}.\n" + (LOOP if solved else "")
    )
    stream = [(0, [f"p({x})" for x in xs] + [f"r({y})" for y in ys])]
    expected = {f"z({x},{y},{_arith(op, x, y)})" for x in xs for y in ys if _arith(op, x, y) is not None}
    expected |= {f"c({x},{y})" for x in xs for y in ys if _CMP[cmp](x, y)}
    expected |= {f"s({x},{_arith(op, x * x - 3, 2)})" for x in xs}
    (result,) = run(program, stream, engine=engine, models=0)
    models = [set(m.sorted_atoms()) - {"free", "blocked"} for m in result.models]
    assert expected in models, (program, stream)


#: every rule clingo-solved in every engine (``not blocked``): the native engine's own time
#: points are tested with the native engine
SHIFTED = (
    """q(T) :- p(X) at T in [2], X > 0, not blocked.
r(U) :- p(X) at T in [2], U = T + X, not blocked.
d(X) :- p(X) in [3], not blocked.
b :- e always [1], not blocked.
c(X) :- p(X) in [2 #], X < 5, not blocked.
later(X) at U :- p(X) at T in [1], U = T + 5, not blocked.
"""
    + LOOP
)


def _shift(atom: str, base: int, to: int) -> str:
    """``q(T)``, ``r(U)`` and pins from base ``base`` to base ``to``."""
    for name in ("q(", "r("):
        if atom.startswith(name):
            return f"{name}{int(atom[2:-1]) - base + to})"
    if " at " in atom:
        head, at = atom.split(" at ")
        return f"{head} at {int(at) - base + to}"
    return atom


@settings(max_examples=scaled(40, 10), deadline=None)
@given(
    base=st.sampled_from([2**31 - 2, 2**31, 2**32 + 7, 2**62, 2**63 - 1, 10**20]),
    steps=st.lists(
        st.tuples(
            st.integers(0, 2), st.lists(st.sampled_from(["p(1)", "p(7)", "p(-2)", "e"]), max_size=3, unique=True)
        ),
        min_size=1,
        max_size=4,
    ),
    engine=st.sampled_from(["clingo", "incremental-pure", "incremental"]),
)
def test_answers_shift_with_the_stream_past_32_bits(base, steps, engine):
    # the same stream from time point 1000 and from a time point past 32 bits: the same answers,
    # time values shifted (the program reads no constant time and nothing reaches back to 0)
    def answers(start):
        r = Reasoner(SHIFTED, engine=engine, models=0)
        t, out = start, []
        for gap, atoms in steps:
            t += gap
            r.append(t, atoms)
            result = r.evaluate(t)
            out.append(
                sorted(sorted(_shift(a, start, 0) for a in m.sorted_atoms() + m.sorted_pinned()) for m in result.models)
            )
        return out

    assert answers(base) == answers(1000)


# ---------------------------------------------------------------- where the encodings change


def _exact(program: str, **values):
    analysis = analyse(parse_program(program))
    exact = ExactProgram(encode_static(analysis).statements)
    bounds = Bounds(analysis.signatures)
    for name, atoms in values.items():
        bounds.note_atoms([(name, v) for v in atoms])
    return exact, bounds, encode_static(analysis).rules


def test_small_values_keep_the_encoding_word_for_word():
    for program in ["q(X) :- p(X) in [3], X > 5.", "q(Y) :- p(X), Y = X * X.", "q :- p at T in [2], T > 3."]:
        exact, bounds, plain = _exact(program, p=[1, -7, 32767])
        bounds.note_time(1_700_000_000)  # epoch seconds: window arithmetic still fits
        assert exact.text(bounds) == (plain, False), program


def test_values_that_could_leave_32_bits_are_computed_exactly():
    exact, bounds, plain = _exact("q(Y) :- p(X), Y = X * X.\nr(X) :- p(X), X > 5.", p=[46341])
    text, external = exact.text(bounds)
    assert external and "@_mul(X,X,0)" in text and "X > 5" in text  # the product could wrap, not the comparison
    bounds.note_atoms([("p", 2**31)])
    text, _ = exact.text(bounds)
    assert "@_cmp(X,5,1) > 0" in text
    exact, bounds, plain = _exact("q :- p(X) in [3], X > 5.")
    bounds.note_time(2**31 - 2)  # window arithmetic on time points at the end of 32 bits
    text, external = exact.text(bounds)
    assert external and "@_cmp(@_sub(N,3,0),U,1) <= 0" in text


def test_recursion_through_arithmetic_is_computed_exactly():
    exact, bounds, plain = _exact("s(0). s(X+1) :- s(X), X < 10.\nq(Y) :- s(Y).", p=[])
    text, external = exact.text(bounds)
    assert external and "@_add(X,1,0)" in text


def test_value_bounds_and_their_ladder():
    assert [value_bound(v) for v in (0, 5, -5, 2**31 - 1, -(2**31), 2**40, "a", '"s"')] == [0, 5, 5] + [2**31 - 1] + [
        UNSAFE
    ] * 2 + [0, UNSAFE]
    assert value_bound(("f", 3, '"s"', ("g", -(2**20)))) == 2**20
    assert value_bound(("iri", '"http://x"')) == 0
    assert value_bound(("lit", '"4.5"', '"http://www.w3.org/2001/XMLSchema#decimal"')) == UNSAFE
    assert [level(m) for m in (0, 1, 5, 2**26, 2**26 + 1, 1_700_000_000, 2**31 - 1)] == [
        0,
        1,
        8,
        2**26,
        2**26 + 2**24,
        102 * 2**24,
        UNSAFE,
    ]


@pytest.mark.parametrize("engine", ["clingo", "incremental-pure", "incremental"])
def test_strict_refuses_a_comparison_of_a_number_with_a_string(engine):
    from ticker_py.errors import StreamError, TickerWarning

    program = "q(X) :- p(X), X > 5, not b.\nb :- not c.\nc :- not b."
    with pytest.warns(TickerWarning, match=r"'X > 5' compares the number 5 with \"7\", a string"):
        (result,) = run(program, [(0, ['p("7")', "p(9)", "p(1)"])], engine=engine, models=0)
    assert ("q", '"7"') in set().union(*(m.atoms for m in result.models))
    with pytest.raises(StreamError, match=r"1:15-20: error: 'X > 5' compares the number 5"):
        run(program, [(0, ['p("7")'])], engine=engine, strict=True)
