"""The incremental engine agrees with the static ClingoEngine at every tick (all answer streams)."""

import pytest
from helpers import scaled
from hypothesis import given, settings
from strategies import programs_and_streams

from ticker_py.api import load_program
from ticker_py.compare import answer_set
from ticker_py.encode.incremental import encode_incremental
from ticker_py.engines import EngineOptions, create_engine
from ticker_py.engines.clingo_engine import ClingoEngine
from ticker_py.engines.hybrid import HybridEngine, times_stay_relative
from ticker_py.engines.incremental import REBUILD_EVERY, PureIncrementalEngine
from ticker_py.syntax import parse_ground_atom
from ticker_py.workloads import generate, program


def incremental(analysis, options=EngineOptions(), prefix=True, rebuild_every=REBUILD_EVERY):
    """``incremental`` as the registry creates it (prefix) or ``incremental-pure``; a pure
    engine, also the registry's fallback, rebuilds its Control every ``rebuild_every`` ticks."""
    if prefix:
        eng = create_engine("incremental", analysis, options)
        if isinstance(eng, HybridEngine):
            return eng
    return PureIncrementalEngine(analysis, options, rebuild_every)


def atoms(*texts):
    return [parse_ground_atom(a) for a in texts]


#: both modes of the engine: native prefix + clingo (default) and the pure tick-pinned encoding
MODES = pytest.mark.parametrize("prefix", [True, False], ids=["prefix", "pure"])


def check(prog, stream, push=False, rebuild_every=3, models=0, prefix=True, show="derived"):
    """Run both engines tick by tick; assert equal answer sets (with ``models=N``: N of the
    reference's answer streams) and counts; return the results."""
    analysis = load_program(prog)
    ref = ClingoEngine(analysis, EngineOptions(models=0, show=show))
    inc = incremental(analysis, EngineOptions(models=models, show=show), prefix, rebuild_every)
    out = []
    for t, batch in stream:
        batch = [parse_ground_atom(a) if isinstance(a, str) else a for a in batch]
        steps = [[a] for a in batch] if push and batch else [batch]
        for step in steps:
            ref.append(t, step)
            inc.append(t, step)
            r, i = ref.evaluate(t), inc.evaluate(t)
            assert (i.t, i.c) == (r.t, r.c)
            if models == 0:
                assert answer_set(i.models) == answer_set(r.models), f"t={t} c={r.c}"
            else:  # some of the answer streams: as many as asked for (or all there are)
                assert len(i.models) == min(models, len(r.models)), f"t={t} c={r.c}"
                assert answer_set(i.models) <= answer_set(r.models), f"t={t} c={r.c}"
            out.append(i)
    return out


# ---------------------------------------------------------------- the scenarios


@MODES
@pytest.mark.parametrize("name", ["caching-time", "caching-tuple"])
@pytest.mark.parametrize("n", [1, 4, 9])
def test_scenario_a(name, n, prefix):
    check(program(name, window=n), list(generate(name, seed=3, tp=60, window=n)), rebuild_every=7, prefix=prefix)


@pytest.mark.slow
@MODES
@pytest.mark.parametrize("name", ["b1", "b2"])
def test_scenario_b_all_answer_streams(name, prefix):
    # b2 reaches thousands of answer streams per tick, each checked against clingo: 14 time points
    # in the default run (up to 216 answer streams per tick), 25 (up to 3125) with TICKER_SLOW=full
    tp = 25 if name == "b1" else scaled(25, 14)
    res = check(program(name, window=4), list(generate(name, seed=5, tp=tp, window=4)), rebuild_every=6, prefix=prefix)
    if name == "b2":
        assert max(len(r.models) for r in res) >= 216


@MODES
def test_scenario_a_push_mode(prefix):
    check(
        program("caching-tuple", window=3),
        list(generate("caching-tuple", seed=1, tp=15, window=3)),
        push=True,
        prefix=prefix,
    )


def test_split_of_the_scenarios():
    assert load_program(program("b1", window=4)).upper == {"get", "nget"}
    assert load_program(program("caching-time", window=4)).upper == frozenset()
    eng = create_engine("incremental", load_program(program("caching-time", window=4)))
    assert isinstance(eng, HybridEngine) and eng.upper is None  # scenario A never reaches clingo
    pure = create_engine("incremental-pure", load_program(program("b1", window=4)))
    assert isinstance(pure, PureIncrementalEngine)


# ---------------------------------------------------------------- windows and modalities

WINDOWS = [
    "a(X) :- p(X) in [2].",
    "a(X) :- p(X) always [2].",
    "a(X,T) :- p(X) at T in [2].",
    "a(X) :- p(X) in [2 #].",
    "a(X) :- p(X) always [2 #].",
    "a(X,T) :- p(X) at T in [2 #].",
    "a(X,T) :- p(X) at T.",
    "a(X) :- p(X) [0].",
    "a(X) :- p(X) always [1 sec].",
    "a(X) :- q(X), not p(X) always [2].",
    "a(X) :- q(X), not p(X) in [3 #].",
    "a(X) at T :- p(X) at T in [3], q(X).",
    "b(X) at T2 :- p(X) at T in [3], T2 = T + 2.\nc(X) :- b(X) at T, q(X) in [1].",
    "b(X) at T2 :- p(X) at T in [3], T2 = T - 2.\nc(X) :- b(X) in [3].",
    "a(X) :- p(X), not b(X).\nb(X) :- p(X), not a(X).",
    "a :- p(X) in [2], not b.\nb :- q(X) in [2], not a.\n:- a, q(y).",
    "a :- p(x) in [2], not a.",
    "h(X) at T :- p(X) at T in [2].\nk :- h(X) always [2].\nj(X) :- h(X) at T, T < 3.",
    "bg(x).\nbg(z).\na(X) :- bg(X) always [2 #].\nb(X) :- bg(X), p(X) in [1 #].",
    "a(X) :- p(X) in [2], bg(X).\nbg(x).\nbg(X) :- q(X).",
]

STREAM = [
    (0, ["p(x)", "q(y)"]),
    (1, ["p(y)"]),
    (2, []),
    (3, ["q(x)", "p(x)", "p(z)"]),
    (4, ["p(x)"]),
    (5, ["p(x)", "q(y)"]),
    (8, ["q(x)"]),
    (9, []),
    (10, ["p(w)", "p(x)"]),
    (11, ["p(x)"]),
    (12, ["p(x)"]),
]


def with_gaps(stream):
    """Pad to every time point (engines are evaluated at each one)."""
    by_t = dict(stream)
    return [(t, by_t.get(t, [])) for t in range(max(by_t) + 1)]


@MODES
@pytest.mark.parametrize("prog", WINDOWS)
def test_window_kinds_and_modalities(prog, prefix):
    check(prog, with_gaps(STREAM), prefix=prefix)


@MODES
@pytest.mark.parametrize("prog", WINDOWS)
def test_window_kinds_push_mode(prog, prefix):
    check(prog, with_gaps(STREAM), push=True, rebuild_every=5, prefix=prefix)


@MODES
def test_gaps_are_not_evaluated(prefix):
    check("a(X) :- p(X) in [2].\nb(X) :- p(X) always [1 #].", STREAM, prefix=prefix)


@MODES
def test_zero_answer_streams_at_some_ticks(prefix):
    res = check("a :- p(x) in [1], not a.\nb(X) :- q(X).", with_gaps(STREAM), prefix=prefix)
    assert any(r.models == () for r in res) and any(r.models for r in res)


@MODES
def test_new_constants_arrive_late(prefix):
    stream = [(t, [f"p(c{t % 4})"] + ([f"q(new{t})"] if t > 20 else [])) for t in range(40)]
    check(
        "a(X) :- p(X) in [3], not q(X) in [2].\nb(X) :- q(X) always [1].\nc(X) :- q(X) in [5 #].",
        stream,
        rebuild_every=10,
        prefix=prefix,
    )
    check("l(X) :- p(X) in [3].\na(X) :- l(X), not b(X).\nb(X) :- l(X), q(Y) in [4], not a(X).", stream, prefix=prefix)


# ---------------------------------------------------------------- lower (native) and upper (clingo) parts

SPLIT = [
    # a stratified lower part with windows and @-heads read by a guessing upper part through windows and @
    "h(X) at T :- p(X) at T in [3].\nl(X) :- q(X) in [2], not h(X).\n"
    "a(X) :- h(X) at T in [2], l(Y), not b(X).\nb(X) :- h(X) in [3], not a(X).\n"
    "c(X) :- h(X) always [2], a(X).\nd(X) at T :- h(X) at T in [1], b(X).",
    # constraints over lower predicates only: no answer stream at some ticks
    "h(X) :- p(X) in [2].\ng(X) at T :- q(X) at T in [1].\n:- h(x), q(y) in [3].\n:- g(x) at T in [2], h(z).",
    # the upper part reads lower atoms pinned to earlier time points (and time escapes into arguments)
    "h(X) at T2 :- p(X) at T in [2], T2 = T - 2.\na(X) :- h(X) at T in [4], not b(X).\n"
    "b(X) :- h(X) at T in [4], not a(X).\ne(X,T) :- h(X) at T in [4], not f(X,T).\n"
    "f(X,T) :- h(X) at T in [4], not e(X,T).",
    # @ without window over a lower predicate; a box over a lower predicate
    "h(X) at T :- p(X) at T in [1].\na(X) :- h(X) at T, not b(X).\nb(X) :- h(X) at T, T > 2, not a(X).\n"
    "k(X) :- h(X) always [1], not a(X).",
    # a tuple window in the upper part; background of a lower predicate
    "bg(w).\nl(X) :- p(X) in [2].\nl(X) :- bg(X).\na(X) :- l(X), q(Y) in [2 #], not b(X).\n"
    "b(X) :- l(X), not a(X).\nc(X) :- p(X) always [2 #], a(X).",
    # upper @-heads with relative times; the upper reads a lower predicate at t only
    "h(X) :- p(X) in [2].\ng(X) at T :- h(X), p(X) at T in [3], not k(X).\nk(X) :- h(X), q(X) in [4], not g(X).",
]


@MODES
@pytest.mark.parametrize("prog", SPLIT)
def test_split_programs(prog, prefix):
    res = check(prog, with_gaps(STREAM), prefix=prefix)
    check(prog, with_gaps(STREAM), push=True, prefix=prefix)
    check(prog, with_gaps(STREAM), models=1, prefix=prefix)
    check(prog, with_gaps(STREAM), show="all", prefix=prefix)
    assert res


def test_split_cases_cover_what_they_claim():
    cases = [load_program(p) for p in SPLIT]
    assert all(a.lower and (a.upper or a.has_constraints) for a in cases)
    assert cases[1].upper == frozenset()  # constraints only
    res = check(SPLIT[1], with_gaps(STREAM))
    assert any(r.models == () for r in res) and any(r.models for r in res)
    assert max(len(r.models) for r in check(SPLIT[0], with_gaps(STREAM))) > 1
    shifted = [create_engine("incremental", a).shift for a in cases if a.upper]
    assert shifted == [True, False, False, False, True]


def test_interval_head_in_the_lower_part_falls_back_to_the_pure_encoding():
    prog = "h(1..2) :- p(x) in [1].\na(X) :- h(X), not b(X).\nb(X) :- h(X), not a(X)."
    assert isinstance(create_engine("incremental", load_program(prog)), PureIncrementalEngine)
    check(prog, with_gaps(STREAM))


def test_times_stay_relative():
    rules = lambda text: load_program(text).program.proper_rules  # noqa: E731
    assert times_stay_relative(rules("a(X) at T :- p(X) at T in [2], not b(X).\nb(X) :- p(X) at T in [1]."))
    assert not times_stay_relative(rules("a(T) :- p(X) at T in [2]."))
    assert not times_stay_relative(rules("a :- p(X) at T in [2], T > 1."))
    assert not times_stay_relative(rules("a :- p(X) at 3 in [2]."))


def test_rebuild_never_and_always_agree():
    stream = with_gaps(STREAM)
    for r in (1, 2, 1000):
        check("a(X,T) :- p(X) at T.\nb :- a(x,T), T > 2.", stream, rebuild_every=r)


# ---------------------------------------------------------------- changes and inertia


@pytest.mark.parametrize("extra", ["", "\nu :- not v, p(z) in [0].\nv :- not u, p(z) in [0]."], ids=["native", "split"])
@MODES
def test_changes_diff_the_single_model(prefix, extra):
    analysis = load_program("a(X) :- p(X) in [1].\nh(X) at T :- p(X) at T in [1]." + extra)
    eng = incremental(analysis, EngineOptions(models=1), prefix)
    eng.append(0, atoms("p(x)"))
    r0 = eng.evaluate(0)
    assert r0.changes == (frozenset({("a", "x"), ("h", "x")}), frozenset())
    eng.append(1, atoms("p(y)"))
    added, removed = eng.evaluate(1).changes
    assert added == {("a", "y"), ("h", "y"), (("h", "x"), 0)} and removed == {("h", "x")}
    added, removed = eng.evaluate(2).changes
    assert added == {(("h", "y"), 1)} and removed == {("a", "x"), ("h", "y"), (("h", "x"), 0)}
    only = incremental(analysis, EngineOptions(models=1, changes_only=True), prefix)
    only.append(0, atoms("p(x)"))
    assert only.evaluate(0).models is None


FLIP = "a :- not b, p in [2].\nb :- not a, p in [2].\n:- b, q.\n:- a, r."
# t=0: only {a} (q forbids b); t=1..3: {a} and {b}; t=4: only {b} (r forbids a); t=5..7: both
FLIP_STREAM = [(0, ["p", "q"]), (1, ["p"]), (2, ["p"]), (3, ["p"]), (4, ["p", "r"]), (5, ["p"]), (6, ["p"]), (7, ["p"])]


#: the same with a lower part: s is evaluated natively, a/b by clingo
FLIP_SPLIT = "s :- p in [2].\na :- not b, s.\nb :- not a, s.\n:- b, q.\n:- a, r."


def run_single(inertia, prefix=True, prog=FLIP):
    eng = incremental(load_program(prog), EngineOptions(models=1, inertia=inertia), prefix)
    out = []
    for t, batch in FLIP_STREAM:
        eng.append(t, atoms(*batch))
        (model,) = eng.evaluate(t).models
        out.append("".join(sorted(a[0] for a in model.atoms if a[0] != "s")))
    return out


@pytest.mark.parametrize("prog", [FLIP, FLIP_SPLIT], ids=["flip", "split"])
@MODES
def test_inertia_keeps_the_previous_answer_while_it_is_one(prefix, prog):
    assert run_single(True, prefix, prog) == ["a", "a", "a", "a", "b", "b", "b", "b"]


@pytest.mark.parametrize("prog", [FLIP, FLIP_SPLIT], ids=["flip", "split"])
@MODES
def test_without_inertia_the_answer_flips(prefix, prog):
    plain = run_single(False, prefix, prog)
    assert plain[0] == "a" and plain[4] == "b"
    # the plain solver leaves {a} at t=1 although it is still an answer
    assert plain != run_single(True, prefix, prog)


# ---------------------------------------------------------------- the encoding


def test_encode_incremental_is_readable_and_annotated():
    text = str(encode_incremental(load_program(program("caching-tuple", window=3))))
    assert "duration" in text and "_g(_e)" in text and "count K+3" in text


def test_pin_rule_pins_atoms_not_terms():
    from ticker_py import ast
    from ticker_py.encode.asp import AspRule, NafLiteral, atom
    from ticker_py.encode.incremental import pin_rule

    X, N, one = ast.Variable("X"), ast.Variable("N"), ast.Number(1)
    shared = {("p", 2), ("_bg_v", 1)}
    rule = AspRule.of(
        atom("h", X, N),
        atom("_now", N),
        atom("p", X, N),
        NafLiteral(atom("q"), negated=True),
        ast.Comparison("<", ast.Constant("a"), X),
        ast.Comparison("=", atom("f", X, ast.String("a,(b")), atom("g", one)),
        atom("r", ast.String("x.y"), ast.Function("", (one, ast.Number(2)))),
        atom("_bg_v", X),
    )
    assert str(pin_rule(rule, shared)) == (
        'h(X,N,_e) :- _now(N,_e), p(X,N), not q(_e), a < X, f(X,"a,(b") = g(1), r("x.y",(1,2),_e), _bg_v(X).'
    )
    interval_head = AspRule.of(atom("s", ast.Interval(one, ast.Number(2))), atom("t"))
    assert str(pin_rule(interval_head, shared)) == "s(1..2,_e) :- t(_e)."
    constraint = AspRule.of(None, atom("q", X), NafLiteral(atom("p", X, one), negated=True))
    assert str(pin_rule(constraint, shared, guard=True)) == ":- _g(_e), q(X,_e), not p(X,1)."
    assert str(pin_rule(AspRule(atom("c")), shared, guard=True)) == "c(_e) :- _g(_e)."
    assert pin_rule(rule, shared).body[4] is rule.body[4]  # comparisons are kept as they are


# ---------------------------------------------------------------- random programs


def _check_random(program_text, stream, prefix=True):
    check(program_text, stream, rebuild_every=2, prefix=prefix)


@settings(max_examples=200, deadline=None)
@given(programs_and_streams())
def test_random_programs_agree_with_clingo(case):
    _check_random(*case)


@settings(max_examples=100, deadline=None)
@given(programs_and_streams())
def test_random_programs_agree_with_clingo_pure(case):
    _check_random(*case, prefix=False)


@pytest.mark.slow
@settings(max_examples=scaled(5000, 100), deadline=None)
@given(programs_and_streams())
def test_random_programs_agree_with_clingo_many(case):
    _check_random(*case)


@MODES
@settings(max_examples=40, deadline=None)
@given(case=programs_and_streams())
def test_random_programs_push_mode(case, prefix):
    program_text, stream = case
    check(program_text, stream, push=True, rebuild_every=3, prefix=prefix)


def test_window_history_keeps_what_a_window_reads():
    # time look-back 2 and the last 3 atoms: an entry goes once it is outside both
    from ticker_py.windows import WindowHistory

    h = WindowHistory(lookback=2, tuple_lookback=3)
    h.extend(0, atoms("p(a)", "p(b)"))
    h.extend(1, atoms("q(a)", "p(c)"), keep=lambda a: a[0] == "p")
    h.extend(4, atoms("p(d)"))
    assert h.count == 5
    assert h.trim(4) == 2
    assert [(t, k) for t, k, _ in h] == [(1, 4), (4, 5)]  # (1, 4) is among the last 3 atoms
    h.extend(5, atoms("p(e)", "p(f)"))
    assert h.trim(5) == 3 and [(t, k) for t, k, _ in h] == [(4, 5), (5, 6), (5, 7)]
    unbounded = WindowHistory(lookback=None, tuple_lookback=0)
    unbounded.extend(0, atoms("p(a)"))
    assert unbounded.trim(100) == 0 and len(unbounded) == 1
