"""The value model (docs/semantics.md, "Values and limits"): every engine gives the native
engine's exact answer, or refuses with a located error naming the value and clingo's range.

Wide integers (outside clingo's 32 bits) that clingo-solved rules only pass through are
carried exactly; where such a rule computes or compares with them, the clingo-based engines
refuse. Keywords and tuple atoms are covered too.
"""

from __future__ import annotations

import pytest

from ticker_py import Reasoner, run
from ticker_py.errors import EngineUnsupported, StreamError, TickerError

ENGINES = ["clingo", "incremental", "incremental-pure", "native", "auto"]
W = 1_700_000_000_123  # an epoch-millisecond value
RANGE = "clingo's integer range -2147483648..2147483647"


def outcome(program, stream, engine):
    """The answer streams at every tick (printed), or the refusal's first line."""
    try:
        results = run(program, stream, engine=engine, models=0)
    except TickerError as err:
        return "refused: " + str(err).splitlines()[0]
    return [sorted(tuple(m.sorted_atoms() + m.sorted_pinned()) for m in r.models) for r in results]


#: program, stream, exact answers at each tick: every engine must give them
PASS_THROUGH = {
    "copy": ("q(X) :- p(X).", [(0, [f"p({W})", "p(3)", f"p({-W})"])], [[(f"q({-W})", f"q({W})", "q(3)")]]),
    "join": (
        "q(X,Y) :- p(X), r(X,Y).",
        [(0, [f"p({W})", f"r({W},{W + 1})", "r(5,6)", "p(5)"])],
        [[(f"q({W},{W + 1})", "q(5,6)")]],
    ),
    "no-wrap-collision": ("q(X) :- p(X), r(X).", [(0, [f"p({2**32 + 7})", "r(7)"])], [[()]]),
    "equality": (
        f"q(X) :- p(X), X = {W}.\nr(X) :- p(X), X != {W}.",
        [(0, [f"p({W})", "p(3)"])],
        [[(f"q({W})", "r(3)")]],
    ),
    "nested": ("q(f(X)) :- p(g(X)).", [(0, [f"p(g({W}))"])], [[(f"q(f({W}))",)]]),
    "program-fact": (f"big({W}). q(X) :- p(X), big(X).", [(0, [f"p({W})", "p(2)"])], [[(f"q({W})",)]]),
    "huge-literal": ("p(99999999999999999999999). q(X) :- p(X), s.", [(0, ["s"])], [[("q(99999999999999999999999)",)]]),
    "window": (
        "q(X) :- p(X) in [2].",
        [(0, [f"p({W})"]), (1, []), (2, []), (3, [])],
        [[(f"q({W})",)], [(f"q({W})",)], [(f"q({W})",)], [()]],
    ),
    "tuple-window": (
        "q(X) :- p(X) in [1 #].",
        [(0, [f"p({W})", "p(1)"]), (1, [f"p({W})"])],
        [[("q(1)",)], [(f"q({W})",)]],
    ),
    "near-the-limit": (
        "q(X) :- p(X), X > 2147483646.",
        [(0, ["p(2147483647)", "p(-2147483648)"])],
        [[("q(2147483647)",)]],
    ),
}

#: general programs (clingo-solved, not native): the same exact answers on every engine that runs them
GENERAL = {
    "choice-pass-through": (
        "q(X) :- p(X), not r(X).\nr(X) :- p(X), not q(X).",
        [(0, [f"p({W})"])],
        [[(f"q({W})",), (f"r({W})",)]],
    )
}

#: a clingo-solved rule computes or compares with a wide value: the clingo engines refuse,
#: naming the value; native (and auto, which picks it) gives the exact answer
COMPUTED = {
    "compare": ("q(X) :- p(X), X > 5.", [(0, [f"p({W})", "p(3)"])], [[(f"q({W})",)]], str(W)),
    "compare-through-a-rule": (
        "s(X) :- p(X).\nq(X) :- s(X), X > 5.",
        [(0, [f"p({W})"])],
        [[(f"q({W})", f"s({W})")]],
        str(W),
    ),
    "equal-then-compare": ("q(Y) :- p(X), Y = X, Y < 0.", [(0, [f"p({-W})"])], [[(f"q({-W})",)]], str(-W)),
    "arithmetic": ("q(Y) :- p(X), Y = X + 1.", [(0, [f"p({W})"])], [[(f"q({W + 1})",)]], str(W)),
    "at-head-time": ("p at T :- a(T).", [(0, [f"a({W})"])], [[(f"p at {W}",)]], str(W)),
    "literal-in-comparison": (f"q(X) :- p(X), X < {W}.", [(0, ["p(3)"])], [[("q(3)",)]], str(W)),
    "literal-at-time": ("q :- p at 4294967296.", [(0, ["p"])], [[()]], "4294967296"),
    "window-size": ("q :- p in [4294967297].", [(0, ["p"])], [[("q",)]], "4294967297"),
    "window-size-unit": ("q :- p in [1000 h].", [(0, ["p"])], [[("q",)]], "3600000000"),
    "tuple-window-size": ("q :- p in [3000000000 #].", [(0, ["p"])], [[("q",)]], "3000000000"),
    "program-fact-compared": (f"lim({W}). q(X) :- p(X), lim(L), X < L.", [(0, ["p(3)"])], [[("q(3)",)]], str(W)),
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", sorted(PASS_THROUGH))
def test_wide_integers_passed_through_are_exact_everywhere(case, engine):
    program, stream, expected = PASS_THROUGH[case]
    assert outcome(program, stream, engine) == expected


@pytest.mark.parametrize("engine", [e for e in ENGINES if e != "native"])
@pytest.mark.parametrize("case", sorted(GENERAL))
def test_wide_integers_in_general_programs(case, engine):
    program, stream, expected = GENERAL[case]
    assert outcome(program, stream, engine) == expected


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", sorted(COMPUTED))
def test_wide_integers_computed_with_are_exact_or_refused(case, engine):
    program, stream, expected, value = COMPUTED[case]
    clock = "1ms" if "h]" in program else "1s"
    try:
        results = run(program, stream, engine=engine, models=0, clock=clock)
    except (StreamError, EngineUnsupported) as err:
        assert engine in ("clingo", "incremental", "incremental-pure"), "native and auto compute exactly"
        assert value in str(err) and RANGE in str(err)
        assert err.diagnostics[0].location is not None or "at time 0" in str(err)
        return
    assert engine in ("native", "auto", "incremental"), (
        "only the native engine (also as the default engine's lower part) computes with wide values"
    )
    assert [sorted(tuple(m.sorted_atoms() + m.sorted_pinned()) for m in r.models) for r in results] == expected


@pytest.mark.parametrize("engine", [e for e in ENGINES if e != "native"])
def test_wide_value_reaching_the_solved_part_is_refused(engine):
    # l is evaluated natively by the default engine, but the choice rules compare with its value
    program = "l(X) :- p(X).\nq(X) :- l(X), not r(X), X > 3.\nr(X) :- l(X), not q(X)."
    assert outcome(program, [(0, ["p(5)"])], engine) == [[("l(5)", "q(5)"), ("l(5)", "r(5)")]]
    text = outcome(program, [(0, [f"p({W})"])], engine)
    assert text.startswith("refused: ") and str(W) in text and RANGE in text


def test_refused_record_is_located_in_the_stream_file(tmp_path):
    from ticker_py.api import records_from

    stream = tmp_path / "s.stream"
    stream.write_text(f"0: p(1)\n1: p({W})\n2: p(3)\n")
    reasoner = Reasoner("q(X) :- p(X), X > 5.", engine="clingo")
    seen = []
    with pytest.raises(StreamError) as err:
        for result in reasoner.feed(records_from(stream)):
            seen.append(result.t)
    assert seen == [0]  # everything before the refused record is evaluated, nothing after it
    assert str(err.value).startswith(f"{stream}:2:1-2: error: value {W} in 'p({W})' at time 1 is outside {RANGE}")
    assert "the clingo-solved rule 'q(X) :- p(X), X > 5.' computes or compares with argument 1 of 'p'" in str(err.value)


@pytest.mark.parametrize("engine", ["clingo", "incremental-pure"])
def test_time_points_and_counts_beyond_clingos_range_are_refused(engine):
    r = Reasoner("q :- p.", engine=engine)
    with pytest.raises(StreamError, match="time point 3000000000 is outside clingo's integer range"):
        r.append(3_000_000_000, ["p"])
    r = Reasoner("q :- p.", engine=engine)
    r.engine.history.count = 2**31 - 1
    with pytest.raises(StreamError, match="atom count 2147483648 is outside clingo's integer range"):
        r.append(0, ["p"])


@pytest.mark.parametrize("engine", ["native", "incremental"])
def test_exact_engines_take_any_time_point(engine):
    r = Reasoner("q :- p.\nw(T) :- p at T in [1].", engine=engine)
    r.append(3_000_000_000, ["p"])
    assert r.evaluate().models[0].sorted_atoms() == ["q", "w(3000000000)"]


@pytest.mark.parametrize("engine", ENGINES)
def test_keywords_and_tuple_atoms_are_the_same_everywhere(engine):
    # keywords are refused as stream constants on every engine; tuple atoms carry any value
    r = Reasoner("q(X) :- p(X).", engine=engine)
    with pytest.raises(StreamError, match="is a keyword"):
        r.append(0, ["p(not)"])
    r.append(0, [("p", W), ("p", ("f", "a", '"s"'))])
    assert r.evaluate(0).models[0].sorted_atoms() == [f"q({W})", 'q(f(a,"s"))']
