"""The incremental engine agrees with the static ClingoEngine at every tick (all answer streams)."""

import pytest
from helpers import scaled
from hypothesis import given, settings
from strategies import programs_and_streams

from ticker_py.api import load_program
from ticker_py.compare import answer_set
from ticker_py.encode.incremental import encode_incremental, times_stay_relative
from ticker_py.engines import EngineOptions, create_engine
from ticker_py.engines.clingo_engine import ClingoEngine
from ticker_py.engines.hybrid import HybridEngine
from ticker_py.engines.incremental import PureIncrementalEngine, StaticTicks
from ticker_py.syntax import parse_ground_atom
from ticker_py.workloads import generate, program


def incremental(analysis, options=EngineOptions(), prefix=True):
    """``incremental`` as the registry creates it (prefix) or ``incremental-pure``."""
    if prefix:
        eng = create_engine("incremental", analysis, options)
        if isinstance(eng, HybridEngine):
            return eng
    return PureIncrementalEngine(analysis, options)


def atoms(*texts):
    return [parse_ground_atom(a) for a in texts]


#: both modes of the engine: native prefix + clingo (default) and the pure incremental encoding
MODES = pytest.mark.parametrize("prefix", [True, False], ids=["prefix", "pure"])


def check(prog, stream, push=False, models=0, prefix=True, show="derived", inertia=False):
    """Run both engines tick by tick; assert equal answer sets (with ``models=N``: N of the
    reference's answer streams) and counts; return the results."""
    analysis = load_program(prog)
    ref = ClingoEngine(analysis, EngineOptions(models=0, show=show))
    inc = incremental(analysis, EngineOptions(models=models, show=show, inertia=inertia), prefix)
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
    check(program(name, window=n), list(generate(name, seed=3, tp=60, window=n)), prefix=prefix)


@pytest.mark.slow
@MODES
@pytest.mark.parametrize("name", ["b1", "b2"])
def test_scenario_b_all_answer_streams(name, prefix):
    # b2 reaches thousands of answer streams per tick, each checked against clingo: 14 time points
    # in the default run (up to 216 answer streams per tick), 25 (up to 3125) with TICKER_SLOW=full
    tp = 25 if name == "b1" else scaled(25, 14)
    res = check(program(name, window=4), list(generate(name, seed=5, tp=tp, window=4)), prefix=prefix)
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
    check(prog, with_gaps(STREAM), push=True, prefix=prefix)


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
        "a(X) :- p(X) in [3], not q(X) in [2].\nb(X) :- q(X) always [1].\nc(X) :- q(X) in [5 #].", stream, prefix=prefix
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


def test_programs_whose_times_cannot_be_slots_solve_the_static_encoding():
    from ticker_py.encode.incremental import slot_problems

    for prog, why in [
        ("a(X,T) :- p(X) at T in [2].", "a time is used as a value"),
        ("a(X) :- p(X) at T, T > 2.", "a time is used as a value"),
        ("a(X) :- p(X) at 3 in [4].", "a time is used as a value"),
        ("a(X) at T :- p(X) at T.", "without window"),
        ("bg(x).\na(X) at T :- bg(X) at T in [2 #].", "tuple @-window over background"),
    ]:
        assert any(why in p for p in slot_problems(load_program(prog))), prog
        assert isinstance(PureIncrementalEngine(load_program(prog)).static, StaticTicks)
        check(prog, with_gaps(STREAM), prefix=False)
    assert slot_problems(load_program("a(X) at T :- p(X) at T in [3], q(X).\nb :- a(X) always [2].")) == []


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
    assert "_slot(0..6)." in text  # 4 slots for [t-3, t], 3 for the atoms of the tuple @-window
    # high is decided by the arriving alpha atom: instantiated per atom, not per value and slot
    assert "high(S) :- _i1_high(S).  % rule 1 (high at T :- value(V), alpha(V) at T in [3 #], 18 <= V.)" in text
    assert "_fires1(V) :- _bg_value(V), 18 <= V.  % rule 1: its head instances per alpha atom" in text
    assert "#external _i1_high(S) : _fires1(A1), _slot(S)." in text and "among the last 3 atoms" in text
    assert "high(_n) :- high(S), _now(S)." in text
    retrieval = str(encode_incremental(load_program(program("b1", window=3))))
    assert "#external _d3_qlev(A1,A2) : _dom_node(A1), _dom_lev(A2).  % instance" in retrieval


def test_slot_rules_pin_atoms_to_now_and_slots():
    from ticker_py.encode.incremental import slot_rule

    analysis = load_program("h(X) at T :- p(X) at T in [2], q(X).\nh(X) :- r(X), not s(X) always [1].\ns(X) :- r(X).")
    rules = [str(slot_rule(r, analysis, derived={"h"})) for r in analysis.program.proper_rules]
    assert rules == ["h(X,T) :- _a2_p(X,T), q(X,_n).", "_r_h(X,_n) :- r(X,_n), not _b1_s(X).", "s(X,_n) :- r(X,_n)."]
    text = encode_incremental(analysis).program
    # h is pinned by an @-head and derived at t: no positive loop between its two copies
    assert "h(A1,_n) :- _r_h(A1,_n)." in text and "h(A1,S) :- _r_h(A1,_n), _now(S)." in text
    assert "h(A1,S) :- h(A1,_n)" not in text
    assert "_bs1_s(A1) :- s(A1,_n), _w1(S), not s(A1,S)." in text


def test_slots_are_reused_and_held_by_tuple_windows():
    from ticker_py.engines.incremental import SlotRing

    ring = SlotRing(5, 2, [1])
    ring.move(0)
    assert ring.slot_of == {0: 0} and ring.changed == {("_now", 0): True, ("_w1", 0): True}
    ring.changed.clear()
    ring.hold(0)
    ring.move(3)  # 0 is held (an atom of a tuple @-window); 1 and 2, 3 get slots
    assert set(ring.slot_of) == {0, 1, 2, 3} and len(set(ring.slot_of.values())) == 4
    assert ring.changed[("_now", 0)] is False and ring.changed[("_now", ring.slot(3))] is True
    assert {k for k, v in ring.changed.items() if v and k[0] == "_w1"} == {("_w1", ring.slot(2)), ("_w1", ring.slot(3))}
    ring.release(0)
    assert 0 not in ring.slot_of
    ring.move(100)  # a jump: only [98, 100]
    assert sorted(ring.slot_of) == [98, 99, 100]
    assert set(ring.state()) == {("_now", ring.slot(100)), ("_w1", ring.slot(99)), ("_w1", ring.slot(100))}


def _run_pure(prog, stream):
    eng = PureIncrementalEngine(load_program(prog), EngineOptions(models=0))
    for t, batch in stream:
        eng.append(t, [parse_ground_atom(a) for a in batch])
        eng.evaluate(t)
    return eng


def test_the_ground_program_does_not_grow():
    # scenario A and B1: grounded once, then only externals are switched; the ground program
    # after 300 ticks is the one after 60
    for name in ("caching-time", "b1"):
        analysis = load_program(program(name, window=20))
        eng = PureIncrementalEngine(analysis, EngineOptions(models=1))
        sizes = []
        for i, (t, batch) in enumerate(generate(name, seed=1, tp=300, window=20)):
            eng.append(t, batch)
            eng.evaluate(t)
            if i + 1 in (60, 300):
                sizes.append(len(eng.ctl.symbolic_atoms))
        assert eng.stats["groundings"] == 1 and sizes[0] == sizes[1], name


def test_an_atom_outside_the_declared_domain_grounds_the_program_anew():
    # p's values come only from the stream: each new one extends the domain (q's are all known)
    prog = "k(1..2).\na(X) :- p(X) in [2], not b(X).\nb(X) :- p(X) in [2], not a(X).\nc(X) :- k(X), q(X) in [1]."
    stream = [(0, ["p(x)", "q(1)"]), (1, ["p(x)", "q(2)", "q(7)"]), (2, ["p(y)"]), (3, ["p(x)"]), (4, ["p(y)"])]
    assert _run_pure(prog, stream).stats["groundings"] == 2  # t=0, and p(y) at t=2 (q(7) matters to no rule)
    check(prog, with_gaps(stream), prefix=False)


ARRIVALS = [
    # the rules decided by one arriving atom (with background facts and comparisons) are
    # instantiated per atom (Arrival); the others as any rule
    (
        "v(1..3).\nh(X) at T :- v(X), p(X) at T in [2], X > 1.\nk(X) :- h(X) always [1].\nm(Y) :- p(X) in [2 #], v(X), Y = X + 1.",
        [1, 3],
    ),
    (
        "v(1..3).\nh(X) :- p(X) always [1], not v(X).\n:- q(X) in [0], not X = X.\nc :- q(X) at T in [1 #], v(X), X != 2.",
        [1, 2, 3],
    ),
    ("h(X) :- p(X) in [1], q(X) in [1].\nk(X) :- p(X), not q(X) in [1].\nj(X) :- p(X) in [2], h(X).", []),
]


@pytest.mark.parametrize("prog,arrivals", ARRIVALS)
def test_rules_decided_by_one_arriving_atom(prog, arrivals):
    assert [a.index for a in encode_incremental(load_program(prog)).arrivals] == arrivals
    stream = [(t, [f"p({1 + t % 3})"] + ([f"q({t % 4})"] if t % 2 else [])) for t in range(10)]
    check(prog, stream, prefix=False)
    check(prog, stream, push=True, prefix=False)


def test_user_variables_named_as_the_encoding_s():
    # S (the slot), A1 and W1 (placeholders) and _n-like names are the user's own in rules
    prog = "a(S,A1) :- p(S) at T in [2], q(A1), not r(S) at T in [1].\nb(W1) :- p(W1) always [1], q(W1)."
    stream = [(t, [f"p(c{t % 3})", f"q(c{t % 2})"] + (["r(c1)"] if t % 4 == 1 else [])) for t in range(8)]
    check(prog, stream, prefix=False)


def test_a_stream_atom_of_a_background_predicate_makes_the_rule_an_ordinary_one():
    prog = "v(1..3).\nh(X) :- v(X), p(X) in [2].\ng(X) :- v(X), p(X) at T in [1]."
    stream = [(0, ["p(1)", "p(7)"]), (1, ["p(2)"]), (2, ["v(7)", "p(7)"]), (3, ["p(7)"]), (4, [])]
    check(prog, stream, prefix=False)
    eng = _run_pure(prog, stream)
    assert eng.demoted == {1, 2} and not eng.encoding.arrivals


WIDE = [
    "a(X) :- p(X) in [2], X > 2147483647.\nb(Y) :- p(X) always [1], Y = X * 3.",
    "h(X) at T :- p(X) at T in [2], X < 9223372036854775807.\nk(X) :- h(X) always [1], not j(X).\nj(X) :- q(X) in [1 #].",
]


@pytest.mark.parametrize("prog", WIDE)
def test_integers_beyond_32_bits_in_slots(prog):
    big = [2**31 + 5, 2**31 - 1, 2**63 - 1, -(2**40)]
    stream = [(t, [f"p({big[t % 4]})"] + ([f"q({big[(t + 1) % 4]})"] if t % 3 else [])) for t in range(12)]
    check(prog, stream, prefix=False)


def test_time_jumps_beyond_the_windows():
    prog = "h(X) at T :- p(X) at T in [2].\nk(X) :- h(X) always [2].\nd(X) :- p(X) in [3 #], not k(X)."
    stream = [
        (0, ["p(a)"]),
        (1, ["p(a)"]),
        (2, ["p(a)", "p(b)"]),
        (50, ["p(a)"]),
        (51, ["p(a)"]),
        (52, ["p(a)"]),
        (900, []),
    ]
    check(prog, stream, prefix=False)
    check(prog, stream, push=True, prefix=False)


# ---------------------------------------------------------------- random programs


def _check_random(program_text, stream, prefix=True):
    check(program_text, stream, prefix=prefix)


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
    check(program_text, stream, push=True, prefix=prefix)


@settings(max_examples=60, deadline=None)
@given(programs_and_streams())
def test_random_programs_with_inertia_get_answer_streams(case):
    # the previous answer's atoms (at t and at their slots) are preferred: each answer is one of the
    # static engine's
    check(*case, models=1, prefix=False, inertia=True)


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
