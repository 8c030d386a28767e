"""The value model (docs/semantics.md, "Values and limits"): every engine gives the same exact
answers. Integers outside clingo's 32 bits are carried exactly, computed with exactly and
compared exactly by every engine; time points and counts may be any integer >= 0. Only windows
wider than clingo's integers are refused by the clingo encodings, located. Keywords and tuple
atoms are covered too.
"""

from __future__ import annotations

import pytest

from ticker_py import Reasoner, run
from ticker_py.errors import EngineUnsupported, StreamError, TickerError

ENGINES = ["clingo", "incremental", "incremental-pure", "native", "auto"]
SOLVERS = ["clingo", "incremental", "incremental-pure"]
W = 1_700_000_000_123  # an epoch-millisecond value
RANGE = "clingo's integer range -2147483648..2147483647"


def outcome(program, stream, engine, **options):
    """The answer streams at every tick (printed), or the refusal's first line."""
    try:
        results = run(program, stream, engine=engine, models=0, **options)
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

#: rules compute or compare with values beyond 32 bits: the same exact answers everywhere
COMPUTED = {
    "compare": ("q(X) :- p(X), X > 5.", [(0, [f"p({W})", "p(3)", f"p({-W})"])], [[(f"q({W})",)]]),
    "compare-through-a-rule": ("s(X) :- p(X).\nq(X) :- s(X), X > 5.", [(0, [f"p({W})"])], [[(f"q({W})", f"s({W})")]]),
    "equal-then-compare": ("q(Y) :- p(X), Y = X, Y < 0.", [(0, [f"p({-W})"])], [[(f"q({-W})",)]]),
    "arithmetic": ("q(Y) :- p(X), Y = X + 1.", [(0, [f"p({W})"])], [[(f"q({W + 1})",)]]),
    "at-head-time": ("p at T :- a(T).", [(0, [f"a({W})"])], [[(f"p at {W}",)]]),
    "literal-in-comparison": (f"q(X) :- p(X), X < {W}.", [(0, ["p(3)", f"p({W})"])], [[("q(3)",)]]),
    "literal-at-time": ("q :- p at 4294967296.", [(0, ["p"])], [[()]]),
    "program-fact-compared": (f"lim({W}). q(X) :- p(X), lim(L), X < L.", [(0, ["p(3)"])], [[("q(3)",)]]),
    # issue rows: a product of 32-bit values past 32 bits, never wrapped
    "square": (
        "sq(Y) :- m(X), Y = X * X.",
        [(0, ["m(100000)"]), (1, ["m(3)"])],
        [[("sq(10000000000)",)], [("sq(9)",)]],
    ),
    "past-64-bits": (
        "q(Z) :- p(X), Z = X * X * X - X / 3 + X \\ 7.",
        [(0, [f"p({2**40 + 3})", "p(-7)"])],
        [[("q(-341)", f"q({(2**40 + 3) ** 3 - (2**40 + 3) // 3 + (2**40 + 3) % 7})")]],
    ),
    "wrap-around-compare": ("q(X) :- p(X), X * 2 < 0.", [(0, ["p(1073741824)", "p(-1)"])], [[("q(-1)",)]]),
    "division-by-zero": ("q(Y) :- p(X), Y = X / 0.\nr :- p(X), not X \\ 0 > 1.", [(0, [f"p({W})"])], [[()]]),
}

#: window sizes clingo's integers cannot count: refused by the clingo encodings, located
WINDOW_SIZES = {
    "window-size": ("q :- p in [4294967297].", [(0, ["p"])], [[("q",)]], "4294967297"),
    "window-size-unit": ("q :- p in [1000 h].", [(0, ["p"])], [[("q",)]], "3600000000"),
    "tuple-window-size": ("q :- p in [3000000000 #].", [(0, ["p"])], [[("q",)]], "3000000000"),
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
def test_wide_integers_computed_with_are_exact_everywhere(case, engine):
    program, stream, expected = COMPUTED[case]
    assert outcome(program, stream, engine) == expected


@pytest.mark.parametrize("engine", SOLVERS)
def test_intervals_are_exact(engine):
    assert outcome("q(Y) :- p(X), Y = X..X+1.", [(0, [f"p({W})", "p(2147483647)"])], engine) == [
        [("q(1700000000123)", "q(1700000000124)", "q(2147483647)", "q(2147483648)")]
    ]


@pytest.mark.parametrize("engine", SOLVERS)
def test_computed_in_the_solved_part_is_exact(engine):
    # an even loop puts the rule in the clingo-solved part of the default engine too (issue row)
    program = "sq(Y) :- m(X), Y = X * X, not blocked.\nblocked :- not free.\nfree :- not blocked."
    assert outcome(program, [(0, ["m(100000)"])], engine) == [[("blocked",), ("free", "sq(10000000000)")]]
    program = "l(X) :- p(X).\nq(X) :- l(X), not r(X), X > 3.\nr(X) :- l(X), not q(X)."
    assert outcome(program, [(0, ["p(5)"])], engine) == [[("l(5)", "q(5)"), ("l(5)", "r(5)")]]
    assert outcome(program, [(0, [f"p({W})", f"p({-W})"])], engine) == [
        [(f"l({-W})", f"l({W})", f"q({W})", f"r({-W})"), (f"l({-W})", f"l({W})", f"r({-W})", f"r({W})")]
    ]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", sorted(WINDOW_SIZES))
def test_windows_wider_than_clingos_integers(case, engine):
    program, stream, expected, value = WINDOW_SIZES[case]
    clock = "1ms" if "h]" in program else "1s"
    try:
        results = run(program, stream, engine=engine, models=0, clock=clock)
    except EngineUnsupported as err:
        assert engine in ("clingo", "incremental-pure"), "the native engine takes windows of any size"
        assert value in str(err) and RANGE in str(err)
        assert err.diagnostics[0].location is not None
        return
    assert engine in ("native", "auto", "incremental")
    assert [sorted(tuple(m.sorted_atoms()) for m in r.models) for r in results] == expected


def test_wide_values_from_a_stream_file_are_exact(tmp_path):
    from ticker_py.api import records_from

    stream = tmp_path / "s.stream"
    stream.write_text(f"0: p(1)\n1: p({W})\n2: p(3)\n")
    reasoner = Reasoner("q(X) :- p(X), X > 5.", engine="clingo")
    got = [(r.t, r.models[0].sorted_atoms()) for r in reasoner.feed(records_from(stream))]
    assert got == [(0, []), (1, [f"q({W})"]), (2, [])]


TIMES = [2**30 + 5, 2**31 - 1, 2**31, 2**62, 10**20]


@pytest.mark.parametrize("engine", ["clingo", "incremental-pure", "incremental"])
@pytest.mark.parametrize("t", TIMES)
def test_any_time_point_after_zero(engine, t):
    # issue 28: evaluate(0), then a time point at or past 2**30 (incremental-pure ran out of memory);
    # for the default engine q is in its clingo-solved part (an even loop): its native part is
    # the native engine's own test
    general = engine == "incremental"
    program = "b. q :- b, not x.\nx :- not y.\ny :- not x." if general else "b. q :- b."
    r = Reasoner(program, engine=engine, models=0)
    r.evaluate(0)
    answers = sorted(m.sorted_atoms() for m in r.evaluate(t).models)
    assert answers == ([["q", "y"], ["x"]] if general else [["q"]])


#: time values used as data, in arithmetic, in @-heads, windows of every kind; ``not blocked``
#: (an even loop) puts every rule in the clingo-solved part of the default engine
PAST_32 = """q(T) :- p at T in [2], not blocked.
r(U) :- p at T in [2], U = T + 1, not blocked.
s :- p in [3], not blocked.
b :- p always [1], not blocked.
c :- v(X) in [2 #], X > 1, not blocked.
later at U :- p at T in [1], U = T + 5, not blocked.
blocked :- not free.
free :- not blocked.
"""


@pytest.mark.parametrize("engine", SOLVERS)
@pytest.mark.parametrize("t", TIMES[1:])
def test_time_values_past_32_bits_are_exact(engine, t):
    r = Reasoner(PAST_32, engine=engine, show="all", models=0)

    def free(u):
        models = [m for m in r.evaluate(u).models if ("free",) in m.atoms]
        assert len(models) == 1
        return models[0]

    r.append(t, ["p", "v(2)"])
    got = free(t)
    assert got.sorted_atoms() == ["c", "free", "p", f"q({t})", f"r({t + 1})", "s", "v(2)"]
    assert got.sorted_pinned() == [f"later at {t + 5}"]
    r.append(t + 1, ["p"])
    got = free(t + 1)
    assert got.sorted_atoms() == sorted(
        ["b", "c", "free", "p", f"q({t})", f"q({t + 1})", f"r({t + 1})", f"r({t + 2})", "s"]
    )
    assert free(t + 3).sorted_atoms() == sorted(["c", "free", f"q({t + 1})", f"r({t + 2})", "s"])


@pytest.mark.parametrize("engine", SOLVERS)
def test_listing_the_whole_timeline_is_bounded(engine):
    # a background atom under an @-atom without a window holds at every time point: the clingo
    # encodings list them, up to a million per evaluation (incremental-pure ran out of memory)
    r = Reasoner("b. q(T) :- b at T, T > 5, not x.\nx :- not y.\ny :- not x.", engine=engine, models=0)
    r.evaluate(0)
    assert sorted(len(m.atoms) for m in r.evaluate(7).models) == [1, 3]
    with pytest.raises(StreamError, match="would list the 2147483649 time points 0..2147483648, more than 1000000"):
        r.evaluate(2**31)


@pytest.mark.parametrize("engine", ["clingo", "incremental-pure"])
def test_counts_past_32_bits_are_exact(engine):
    r = Reasoner("q(X) :- p(X) in [2 #].", engine=engine)
    r.engine.history.count = 2**31 - 2
    r.append(0, ["p(1)", "p(2)", "p(3)"])
    assert r.evaluate(0).models[0].sorted_atoms() == ["q(2)", "q(3)"]
    assert r.engine.count == 2**31 + 1


@pytest.mark.parametrize("engine", ENGINES)
def test_keywords_and_tuple_atoms_are_the_same_everywhere(engine):
    # keywords are refused as stream constants on every engine; tuple atoms carry any value
    r = Reasoner("q(X) :- p(X).", engine=engine)
    with pytest.raises(StreamError, match="is a keyword"):
        r.append(0, ["p(not)"])
    r.append(0, [("p", W), ("p", ("f", "a", '"s"'))])
    assert r.evaluate(0).models[0].sorted_atoms() == [f"q({W})", 'q(f(a,"s"))']


# ---------------------------------------------------------------- integers longer than any may be

BIG = int("7" * 3001)  # 3,001 digits: its square has 6,002, more than an integer may have (4,300)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_computed_integer_too_long_to_print_is_refused_located_everywhere(engine):
    """An integer has at most Python's 4,300 digits, in the input and in what a rule computes: a
    rule computing a longer one is refused on every engine, located at its term, naming the
    values (the native engine computed it, and printing it raised ValueError: internal error)."""
    program = "q(Y) :- p(X), Y = X*X.\nr(Y) :- p(X), Y = X+1."
    reasoner = Reasoner(program, engine=engine, models=0)
    reasoner.append(0, [("p", 3)])
    first = reasoner.evaluate(0)
    reasoner.append(1, [("p", BIG)])
    with pytest.raises(StreamError) as err:
        reasoner.evaluate(1)
    (diagnostic,) = err.value.diagnostics
    assert diagnostic.message == (
        "'X*X' computes 77777777777777777777... (3001 digits) * 77777777777777777777... (3001 digits),"
        " an integer of more than 4300 digits"
    )
    assert (diagnostic.location.line, diagnostic.location.column) == (1, 19)
    assert repr(first) and outcome(program, [(0, [("p", BIG)])], engine).startswith("refused: <string>:1:19-22: ")
    # a value as long as an integer may be passes through, and its successor is computed exactly
    assert outcome("r(Y) :- p(X), Y = X+1.", [(0, [("p", 10**4300 - 2)])], engine) == [[(f"r({10**4300 - 1})",)]]
    assert outcome("r(Y) :- p(X), Y = X+1.", [(0, [("p", 10**4300 - 1)])], engine).startswith("refused: ")


def test_a_fact_too_long_to_print_is_refused_located():
    from ticker_py.errors import ProgramError

    with pytest.raises(ProgramError, match=r"<string>:1:3-6006: error: '7{45}\.\.\.7{12}' computes .* 4300 digits"):
        run(f"f({'7' * 3001}*{'7' * 3001}).", [], engine="native")


def test_the_cli_refuses_it_with_status_2(tmp_path, capsys):
    from helpers import ticker

    prog, stream = tmp_path / "big.lars", tmp_path / "big.stream"
    prog.write_text("q(Y) :- p(X), Y = X*X.\n")
    stream.write_text(f"0: p(3)\n1: p({BIG})\n")
    for engine in ("native", "clingo", "incremental"):
        code, out, err = ticker(capsys, "run", prog, "--stream", stream, "--engine", engine, "--format", "text")
        assert (code, out) == (2, "t=0 c=1: {q(9)}\n"), err
        assert err.startswith(f"{prog}:1:19-22: error: 'X*X' computes 77777777777777777777... (3001 digits)")
