"""The incremental engine agrees with the static ClingoEngine at every tick (all answer streams)."""

import pytest
from hypothesis import given, settings

from helpers import scaled
from strategies import programs_and_streams
from ticker_py.api import load_program
from ticker_py.compare import answer_set
from ticker_py.encode.incremental import encode_incremental
from ticker_py.engines import EngineOptions
from ticker_py.engines.clingo_engine import ClingoEngine
from ticker_py.engines.incremental import IncrementalEngine
from ticker_py.syntax import parse_ground_atom
from ticker_py.workloads import generate, program


def atoms(*texts):
    return [parse_ground_atom(a) for a in texts]


def check(prog, stream, push=False, rebuild_every=3, models=0):
    """Run both engines tick by tick; assert equal answer sets and counts; return the results."""
    analysis = load_program(prog)
    ref = ClingoEngine(analysis, EngineOptions(models=models))
    inc = IncrementalEngine(analysis, EngineOptions(models=models), rebuild_every=rebuild_every)
    out = []
    for t, batch in stream:
        batch = [parse_ground_atom(a) if isinstance(a, str) else a for a in batch]
        steps = [[a] for a in batch] if push and batch else [batch]
        for step in steps:
            ref.append(t, step)
            inc.append(t, step)
            r, i = ref.evaluate(t), inc.evaluate(t)
            assert (i.t, i.c) == (r.t, r.c)
            assert answer_set(i.models) == answer_set(r.models), f"t={t} c={r.c}"
            out.append(i)
    return out


# ---------------------------------------------------------------- the scenarios

@pytest.mark.parametrize("name", ["caching-time", "caching-tuple"])
@pytest.mark.parametrize("n", [1, 4, 9])
def test_scenario_a(name, n):
    check(program(name, window=n), list(generate(name, seed=3, tp=60, window=n)), rebuild_every=7)


@pytest.mark.parametrize("name", ["b1", "b2"])
def test_scenario_b_all_answer_streams(name):
    res = check(program(name, window=4), list(generate(name, seed=5, tp=25, window=4)), rebuild_every=6)
    if name == "b2":
        assert max(len(r.models) for r in res) > 1


def test_scenario_a_push_mode():
    check(program("caching-tuple", window=3), list(generate("caching-tuple", seed=1, tp=15, window=3)),
          push=True)


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

STREAM = [(0, ["p(x)", "q(y)"]), (1, ["p(y)"]), (2, []), (3, ["q(x)", "p(x)", "p(z)"]),
          (4, ["p(x)"]), (5, ["p(x)", "q(y)"]), (8, ["q(x)"]), (9, []), (10, ["p(w)", "p(x)"]),
          (11, ["p(x)"]), (12, ["p(x)"])]


def with_gaps(stream):
    """Pad to every time point (engines are evaluated at each one)."""
    by_t = dict(stream)
    return [(t, by_t.get(t, [])) for t in range(max(by_t) + 1)]


@pytest.mark.parametrize("prog", WINDOWS)
def test_window_kinds_and_modalities(prog):
    check(prog, with_gaps(STREAM))


@pytest.mark.parametrize("prog", WINDOWS)
def test_window_kinds_push_mode(prog):
    check(prog, with_gaps(STREAM), push=True, rebuild_every=5)


def test_gaps_are_not_evaluated():
    check("a(X) :- p(X) in [2].\nb(X) :- p(X) always [1 #].", STREAM)


def test_zero_answer_streams_at_some_ticks():
    res = check("a :- p(x) in [1], not a.\nb(X) :- q(X).", with_gaps(STREAM))
    assert any(r.models == () for r in res) and any(r.models for r in res)


def test_new_constants_arrive_late():
    stream = [(t, [f"p(c{t % 4})"] + ([f"q(new{t})"] if t > 20 else [])) for t in range(40)]
    check("a(X) :- p(X) in [3], not q(X) in [2].\nb(X) :- q(X) always [1].\nc(X) :- q(X) in [5 #].",
          stream, rebuild_every=10)


def test_rebuild_never_and_always_agree():
    stream = with_gaps(STREAM)
    for r in (1, 2, 1000):
        check("a(X,T) :- p(X) at T.\nb :- a(x,T), T > 2.", stream, rebuild_every=r)


# ---------------------------------------------------------------- changes and inertia

def test_changes_diff_the_single_model():
    analysis = load_program("a(X) :- p(X) in [1].\nh(X) at T :- p(X) at T in [1].")
    eng = IncrementalEngine(analysis, EngineOptions(models=1))
    eng.append(0, atoms("p(x)"))
    r0 = eng.evaluate(0)
    assert r0.changes == (frozenset({("a", "x"), ("h", "x")}), frozenset())
    eng.append(1, atoms("p(y)"))
    added, removed = eng.evaluate(1).changes
    assert added == {("a", "y"), ("h", "y"), (("h", "x"), 0)} and removed == {("h", "x")}
    added, removed = eng.evaluate(2).changes
    assert added == {(("h", "y"), 1)} and removed == {("a", "x"), ("h", "y"), (("h", "x"), 0)}
    only = IncrementalEngine(analysis, EngineOptions(models=1, changes_only=True))
    only.append(0, atoms("p(x)"))
    assert only.evaluate(0).models is None


FLIP = "a :- not b, p in [2].\nb :- not a, p in [2].\n:- b, q.\n:- a, r."
# t=0: only {a} (q forbids b); t=1..3: {a} and {b}; t=4: only {b} (r forbids a); t=5..7: both
FLIP_STREAM = [(0, ["p", "q"]), (1, ["p"]), (2, ["p"]), (3, ["p"]), (4, ["p", "r"]), (5, ["p"]),
               (6, ["p"]), (7, ["p"])]


def run_single(inertia):
    eng = IncrementalEngine(load_program(FLIP), EngineOptions(models=1, inertia=inertia))
    out = []
    for t, batch in FLIP_STREAM:
        eng.append(t, atoms(*batch))
        (model,) = eng.evaluate(t).models
        out.append("".join(sorted(a[0] for a in model.atoms)))
    return out


def test_inertia_keeps_the_previous_answer_while_it_is_one():
    assert run_single(True) == ["a", "a", "a", "a", "b", "b", "b", "b"]


def test_without_inertia_the_answer_flips():
    plain = run_single(False)
    assert plain[0] == "a" and plain[4] == "b"
    assert plain != run_single(True)  # the plain solver leaves {a} at t=1 although it is still an answer


# ---------------------------------------------------------------- the encoding

def test_encode_incremental_is_readable_and_annotated():
    text = str(encode_incremental(load_program(program("caching-tuple", window=3))))
    assert "duration" in text and "_g(_e)" in text and "count K+3" in text


# ---------------------------------------------------------------- random programs

def _check_random(program_text, stream):
    check(program_text, stream, rebuild_every=2)


@settings(max_examples=200, deadline=None)
@given(programs_and_streams())
def test_random_programs_agree_with_clingo(case):
    _check_random(*case)


@pytest.mark.slow
@settings(max_examples=scaled(5000, 200), deadline=None)
@given(programs_and_streams())
def test_random_programs_agree_with_clingo_many(case):
    _check_random(*case)


@settings(max_examples=60, deadline=None)
@given(programs_and_streams())
def test_random_programs_push_mode(case):
    program_text, stream = case
    check(program_text, stream, push=True, rebuild_every=3)
