"""Factorized answer streams (``factorize=True`` / ``--factorize``): the expanded product equals
plain enumeration at every tick, on random programs, component gadgets and scenario B; hand
cases with known components; the output formats."""

from __future__ import annotations

import doctest
import io
import json
import logging

import pytest
from helpers import scaled
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import programs_and_streams

from ticker_py import run as ticker_run
from ticker_py.api import load_program
from ticker_py.cli import main
from ticker_py.errors import EngineUnsupported
from ticker_py.stages.output import open_writer
from ticker_py.streams import factorized as factorized_module
from ticker_py.streams.factorized import Factorized, ModelProduct
from ticker_py.streams.model import Model
from ticker_py.streams.writers import factor_rows, printed_factors, results_to_dataframe
from ticker_py.workloads import generate
from ticker_py.workloads import program as workload_program

ENGINES = ["clingo", "incremental", "incremental-pure", "native"]


def run(program, stream, engine, **options):
    return ticker_run(program, stream, engine=engine, **options)


def model_set(models):
    return {(m.atoms, m.pinned) for m in models}


def check_equal(program, stream, engine, every="time"):
    """Factorized (expanded) == plain enumeration as sets at every tick; count == their number."""
    try:
        plain = run(program, stream, engine, models=0, every=every)
    except EngineUnsupported:
        return False
    fact = run(program, stream, engine, models=0, every=every, factorize=True)
    assert [(r.t, r.c) for r in fact] == [(r.t, r.c) for r in plain]
    for p, f in zip(plain, fact):
        expected = model_set(p.models)
        assert f.factors is not None, program
        assert model_set(f.models) == expected, (program, f.t)
        assert f.factors.count == len(expected) == len(f.models), (program, f.t)
        assert isinstance(f.models, ModelProduct)
        if expected:
            assert f.factors.brave() == Model(
                frozenset().union(*(m[0] for m in expected)), frozenset().union(*(m[1] for m in expected))
            )
            assert f.factors.cautious() == Model(
                frozenset.intersection(*(m[0] for m in expected)), frozenset.intersection(*(m[1] for m in expected))
            )
    return True


# ---------------------------------------------------------------- random programs


@pytest.mark.parametrize("engine", ["clingo", "incremental"])
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=programs_and_streams())
def test_factorized_equals_enumeration_random(engine, case):
    check_equal(*case, engine)


@pytest.mark.parametrize("engine", ["incremental-pure", "native"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=programs_and_streams())
def test_factorized_equals_enumeration_fallback_engines(engine, case):
    check_equal(*case, engine)


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["clingo", "incremental"])
@settings(max_examples=scaled(2000, 50), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=programs_and_streams())
def test_factorized_equals_enumeration_random_many(engine, case):
    check_equal(*case, engine)


# ---------------------------------------------------------------- component gadgets


@st.composite
def gadget_programs(draw):
    """Independent groups of choices (two- and three-way even loops, pinned even loops), odd
    loops (unsatisfiable components while q is in the window), constraints joining groups,
    derived atoms over the choices, and a stratified part; with a stream over p/1 and q/0."""
    w = draw(st.integers(0, 3))
    rules = [f"s(X) :- p(X) in [{w}]."]
    zero = []  # groups with arity-0 atoms (constraints may join them)
    for i in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["even", "three", "pinned", "odd", "even"]))
        guard = draw(st.sampled_from(["", f", p(1) in [{w}]", ", s(2)"]))
        if kind == "even":
            rules += [f"a{i} :- not b{i}{guard}.", f"b{i} :- not a{i}{guard}."]
            zero.append((f"a{i}", f"b{i}"))
        elif kind == "three":
            rules += [
                f"x{i} :- not y{i}, not z{i}{guard}.",
                f"y{i} :- not x{i}, not z{i}{guard}.",
                f"z{i} :- not x{i}, not y{i}{guard}.",
            ]
            zero.append((f"x{i}", f"y{i}", f"z{i}"))
        elif kind == "pinned":
            rules += [
                f"e{i}(X) at T :- p(X) at T in [{w}], not f{i}(X) at T.",
                f"f{i}(X) at T :- p(X) at T in [{w}], not e{i}(X) at T.",
            ]
        else:
            rules += [f"o{i} :- q in [{w}], not o{i}."]
    for _ in range(draw(st.integers(0, 2)) if len(zero) >= 2 else 0):
        g1, g2 = draw(st.permutations(zero))[:2]
        rules.append(f":- {draw(st.sampled_from(g1))}, {draw(st.sampled_from(g2))}.")
    if zero and draw(st.booleans()):
        g = draw(st.sampled_from(zero))
        rules.append(f"d :- {g[0]}, s(1).")
    atoms = [("p", 1), ("p", 2), ("q",)]
    n = draw(st.integers(1, 5))
    stream = [(t, draw(st.lists(st.sampled_from(atoms), max_size=3, unique=True))) for t in range(n)]
    return "\n".join(draw(st.permutations(rules))), stream


@pytest.mark.parametrize("engine", ["clingo", "incremental"])
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=gadget_programs())
def test_factorized_equals_enumeration_gadgets(engine, case):
    check_equal(*case, engine)


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["clingo", "incremental"])
@settings(max_examples=scaled(2000, 50), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=gadget_programs())
def test_factorized_equals_enumeration_gadgets_many(engine, case):
    check_equal(*case, engine)


# ---------------------------------------------------------------- scenario B


@pytest.mark.parametrize("engine", ["clingo", "incremental"])
@pytest.mark.parametrize("name,n,items", [("b1", 4, 1), ("b1", 6, 2), ("b2", 4, 1)])
def test_factorized_equals_enumeration_scenario_b(engine, name, n, items):
    tp = 15 if engine == "clingo" else 60
    prog = workload_program(name, window=n, items=items)
    stream = list(generate(name, 0, tp=tp, window=n, items=items))
    assert check_equal(prog, stream, engine)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(scaled(20, 2)))
@pytest.mark.parametrize("name,tp", [("b1", scaled(200, 60)), ("b2", scaled(200, 12))])
def test_factorized_equals_enumeration_scenario_b_seeds(name, tp, seed):
    # the sample keeps B2 short: its plain enumeration grows fast with tp (seed 0: 5,184 answer
    # streams at one tick of the first 12, 20,736 within 20, more within 40 and many GB of models)
    prog = workload_program(name, window=5, items=2)
    assert check_equal(prog, list(generate(name, seed, tp=tp, window=5, items=2)), "incremental")


# ---------------------------------------------------------------- hand cases


def factorized_at(program, stream, engine="clingo", t=-1, **options):
    return run(program, stream, engine, models=0, factorize=True, **options)[t].factors


@pytest.mark.parametrize("engine", ["clingo", "incremental"])
def test_independent_loops_are_separate_factors(engine):
    prog = "a :- not b. b :- not a. c :- not d. d :- not c. x :- not y, not z. y :- not x, not z. z :- not y, not x."
    f = factorized_at(prog, [(0, [])], engine)
    assert f.count == 12
    assert sorted(len(alts) for alts in f.factors) == [2, 2, 3]
    assert f.common == Model(frozenset())


@pytest.mark.parametrize("engine", ["clingo", "incremental"])
def test_constraint_joins_components(engine):
    prog = "a :- not b. b :- not a. c :- not d. d :- not c. :- a, c."
    f = factorized_at(prog, [(0, [])], engine)
    assert f.count == 3 and len(f.factors) == 1 and len(f.factors[0]) == 3


@pytest.mark.parametrize("engine", ["clingo", "incremental"])
def test_unsatisfiable_component_means_no_answer_stream(engine):
    prog = "a :- not b. b :- not a. o :- q in [1], not o."
    results = run(prog, [(0, ["q"]), (1, []), (2, [])], engine, models=0, factorize=True)
    assert [r.factors.count for r in results] == [0, 0, 2]
    assert results[0].models == () and not results[0].models
    assert results[0].factors.factors == () and results[0].factors.common == Model(frozenset())


@pytest.mark.parametrize("engine", ENGINES)
def test_exactly_one_answer_stream_has_no_factors(engine):
    f = factorized_at("x :- p in [2].", [(0, ["p"])], engine)
    assert f == Factorized(1, Model(frozenset({("x",)})), ())
    empty = factorized_at("x :- p in [2].", [(0, [])], engine)
    assert empty.count == 1 and empty.common == Model(frozenset()) and empty.factors == ()


@pytest.mark.parametrize("engine", ["clingo", "incremental"])
def test_pinned_atoms_in_alternatives(engine):
    prog = "e(X) at T :- p(X) at T in [3], not f(X) at T. f(X) at T :- p(X) at T in [3], not e(X) at T."
    f = factorized_at(prog, [(0, ["p(1)"]), (1, ["p(2)"])], engine)
    assert f.count == 4
    alts = sorted(sorted(map(repr, (m.atoms, m.pinned))) for fac in f.factors for m in fac)
    assert sorted(frozenset(m.pinned) for fac in f.factors for m in fac if m.pinned) == sorted(
        [frozenset({(("e", 1), 0)}), frozenset({(("f", 1), 0)})]
    )
    assert len(alts) == 4


def test_factors_of_independent_choices_over_ticks():
    prog = (
        "a :- not b, s(1). b :- not a. c :- not d. d :- not c. :- a, c. "
        "x :- not y, not z. y :- not x, not z. z :- not y, not x. s(X) :- p(X) in [2]. "
        "e(X) at T :- p(X) at T in [2], not f(X) at T. "
        "f(X) at T :- p(X) at T in [2], not e(X) at T."
    )
    stream = [(0, ["p(1)"]), (1, ["p(2)"]), (2, []), (3, [])]
    for engine in ("clingo", "incremental"):
        found = [r.factors for r in run(prog, stream, engine, models=0, factorize=True)]
        # a/b/c/d: 3 (2 once s(1) leaves the window), x/y/z: 3, e/f per p(X) in the window: 2 each
        assert [f.count for f in found] == [3 * 3 * 2, 3 * 3 * 4, 3 * 3 * 4, 2 * 3 * 2], engine


def test_models_limit_takes_from_the_product():
    prog = "a :- not b. b :- not a. c :- not d. d :- not c."
    r = ticker_run(prog, [(0, [])], engine="clingo", models=3, factorize=True)[0]
    assert r.factors.count == 4 and len(r.models) == 3
    full = model_set(ticker_run(prog, [(0, [])], engine="clingo", models=0)[0].models)
    assert model_set(r.models) < full


def test_large_count_is_exact_and_lazy():
    prog = " ".join(f"a{i} :- not b{i}. b{i} :- not a{i}." for i in range(60))
    r = ticker_run(prog, [(0, [])], engine="incremental", models=0, factorize=True)[0]
    assert r.factors.count == 2**60 and len(r.factors.factors) == 60
    models = r.models
    assert len(models) == 2**60
    last = models[-1]
    assert len(last.atoms) == 60 and last == models[2**60 - 1]
    first = next(iter(models))
    assert first == models[0]
    out = io.StringIO()
    w = open_writer("jsonl", out, models=0, factorize=True)
    w.write(r)
    obj = json.loads(out.getvalue())
    assert obj["count"] == str(2**60) and len(obj["factors"]) == 60


# ---------------------------------------------------------------- the result type


def M(*atoms, pins=()):
    return Model(frozenset((a,) for a in atoms), frozenset(((a,), T) for a, T in pins))


def test_build_normalises():
    f = Factorized.build(M("a"), [[M("b", "a"), M("c")], [M("d")], [M("e"), M("e")], [M("x"), M("y")]])
    assert f.common == M("a", "d", "e")
    assert f.factors == ((M("b"), M("c")), (M("x"), M("y")))
    assert f.count == 4
    assert Factorized.build(M("a"), [[M("b")], []]).count == 0


def test_build_multiplies_out_factors_that_share_atoms():
    f = Factorized.build(M(), [[M("a"), M("b")], [M("a"), M("c")]])
    expanded = {m for m in f.models()}
    assert expanded == {M("a"), M("a", "c"), M("b", "a"), M("b", "c")}
    assert f.count == len(expanded) == 4 and len(f.factors) == 1


def test_product_indexing_matches_iteration():
    f = Factorized.build(M("c"), [[M("a"), M("b")], [M("x"), M("y"), M("z")]])
    models = f.models()
    assert list(models) == [models[i] for i in range(len(models))] == list(models[:])
    assert list(f.models(4)) == list(models)[:4]
    with pytest.raises(IndexError):
        models[6]


def test_from_models_and_printed():
    f = Factorized.from_models([M("a", "b"), M("a", "c", pins=[("p", 3)]), M("a", "c")])
    assert f.common == M("a") and f.count == 3
    printed = f.printed(show_at=False)
    assert printed.count == 2  # the two c models print the same without --show-at
    assert Factorized.from_models([]).count == 0


def test_doctests():
    failed, attempted = doctest.testmod(factorized_module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert attempted > 0 and failed == 0


# ---------------------------------------------------------------- formats and CLI

PROG = (
    "a :- not b. b :- not a. c :- not d. d :- not c. x :- s in [2].\n"
    "e(X) at T :- p(X) at T in [3], not f(X) at T.\nf(X) at T :- p(X) at T in [3], not e(X) at T.\n"
)


@pytest.fixture
def files(tmp_path):
    prog = tmp_path / "p.lars"
    prog.write_text(PROG)
    stream = tmp_path / "s.stream"
    stream.write_text("0: s, p(1)\n1: p(2)\n")
    return str(prog), str(stream)


def cli(capsys, *args):
    code = main(["run", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_jsonl(files, capsys):
    code, out, _ = cli(capsys, files[0], "--stream", files[1], "--factorize")
    assert code == 0
    lines = [json.loads(l) for l in out.splitlines()]
    assert lines[0] == {
        "t": 0,
        "c": 2,
        "count": 8,
        "common": ["x"],
        "factors": [[["a"], ["b"]], [["c"], ["d"]], [["e(1)"], ["f(1)"]]],
    }
    # without --show-at the pinned e(1) at 0 prints as nothing: one factor fewer
    assert lines[1]["count"] == 8 and len(lines[1]["factors"]) == 3


def test_cli_show_at_text_csv(files, capsys):
    code, out, _ = cli(capsys, files[0], "--stream", files[1], "--factorize", "--show-at", "--format", "text")
    assert code == 0
    assert out.splitlines()[1] == (
        # factors in printed order: alternatives by their atoms, then their pins (as ticker run orders answer streams)
        "t=1 c=3: 16 answer streams: {x} * ({e(1) at 0} | {f(1) at 0}) * ({a} | {b}) * ({c} | {d}) * ({e(2)} | {f(2)})"
    )
    code, out, _ = cli(capsys, files[0], "--stream", files[1], "--factorize", "--format", "csv")
    rows = out.splitlines()
    assert rows[0] == "t,c,factor,alternative,atom"
    assert rows[1:4] == ["0,2,0,0,x", "0,2,1,0,a", "0,2,1,1,b"]


def test_no_answer_stream_and_one_empty_differ_in_every_format(capsys):
    unsat = Factorized(0, Model(frozenset()), ())
    one = Factorized(1, Model(frozenset()), ())
    from ticker_py.streams.factorized import factorized_result

    for fmt, none_text, one_text in [
        (
            "jsonl",
            '{"t": 0, "c": 0, "count": 0, "common": [], "factors": []}',
            '{"t": 0, "c": 0, "count": 1, "common": [], "factors": []}',
        ),
        ("text", "t=0 c=0: no answer stream", "t=0 c=0: 1 answer stream: {}"),
    ]:
        for f, text in ((unsat, none_text), (one, one_text)):
            out = io.StringIO()
            open_writer(fmt, out, models=0, factorize=True).write(factorized_result(0, 0, f))
            assert out.getvalue() == text + "\n"
    assert list(factor_rows(factorized_result(0, 0, unsat))) == [(0, 0, None, None, None)]
    assert list(factor_rows(factorized_result(0, 0, one))) == [(0, 0, 0, 0, None)]


def test_dataframe_and_printed():
    results = ticker_run(PROG, [(0, ["s", "p(1)"])], engine="clingo", models=0, factorize=True)
    frame = results_to_dataframe(results)
    assert list(frame.columns) == ["t", "c", "factor", "alternative", "atom"]
    assert len(frame) == 7 and frame["factor"].max() == 3
    assert results.to_dataframe().equals(frame)
    count, common, factors = printed_factors(results[0])
    assert (count, common) == (8, ["x"]) and factors[0] == [["a"], ["b"]]


def test_changes_refused_with_several_answer_streams(files, capsys, tmp_path):
    code, _, err = cli(capsys, files[0], "--stream", files[1], "--factorize", "--changes")
    assert code == 2 and "single answer stream" in err
    single = tmp_path / "one.lars"
    single.write_text("x :- s in [1].")
    code, out, _ = cli(capsys, str(single), "--stream", files[1], "--factorize", "--changes")
    assert code == 0 and json.loads(out.splitlines()[0])["added"] == ["x"]


def test_models_n_prints_plain_models_from_the_product(files, capsys):
    code, out, _ = cli(capsys, files[0], "--stream", files[1], "--factorize", "--models", "2")
    assert code == 0 and len(json.loads(out.splitlines()[0])["models"]) == 2


def test_fallback_note_under_verbose(caplog):
    prog = "a :- not b. b :- not a."
    factorized_module.NOTED.clear()  # noted once per process: earlier tests may have noted these
    with caplog.at_level(logging.INFO, logger="ticker_py.factorize"):
        r = ticker_run(prog, [(0, [])], engine="incremental", models=0, factorize=True, inertia=True)
        pure = ticker_run(prog, [(0, [])], engine="incremental-pure", models=0, factorize=True)
    assert r[0].factors.count == 2 and pure[0].factors.count == 2
    assert "incremental engine: cannot factorize (--inertia" in caplog.text
    assert "incremental-pure engine: cannot factorize" in caplog.text


def test_compare_factorized_engines(files, capsys):
    assert (
        main(
            [
                "compare",
                files[0],
                "--stream",
                files[1],
                "--engines",
                "clingo,incremental,incremental-pure",
                "--factorize",
            ]
        )
        == 0
    )
    assert "agree on all" in capsys.readouterr().out


def test_compare_factorized_finds_a_difference():
    from ticker_py.compare import compare_engines, default_factory

    class Wrong:  # the incremental engine, with one alternative dropped from the first factor
        def __init__(self, analysis, options):
            self.inner = default_factory("incremental")(analysis, options)

        def append(self, t, atoms):
            self.inner.append(t, atoms)

        def evaluate(self, t):
            from ticker_py.streams.factorized import factorized_result

            r = self.inner.evaluate(t)
            f = r.factors
            return factorized_result(r.t, r.c, Factorized.build(f.common, [f.factors[0][:1]] + list(f.factors[1:])))

    prog = load_program("a :- not b. b :- not a. c :- not d. d :- not c.")
    cmp = compare_engines(prog, [(0, [])], {"clingo": default_factory("clingo"), "wrong": Wrong}, factorize=True)
    assert not cmp.agree and len(cmp.differing) == 1


@pytest.mark.parametrize("mode", ["brave", "cautious"])
def test_consequences_from_factors_equal_plain(files, capsys, mode):
    assert main(["run", files[0], "--stream", files[1], "--consequences", mode]) == 0
    plain = capsys.readouterr().out
    assert main(["run", files[0], "--stream", files[1], "--consequences", mode, "--factorize"]) == 0
    assert capsys.readouterr().out == plain


def _recorded(text):
    import clingo

    from ticker_py.engines import factorize as factorize_module

    recorder = factorize_module.Recorder()
    ctl = clingo.Control(["--models=0"])
    ctl.register_observer(recorder)
    ctl.add("base", [], text)
    ctl.ground([("base", [])])
    return recorder, ctl


GROUND = (
    "p(1..3). {a(X)} :- p(X). b :- a(1), not a(2). :- a(3), b. "
    "c :- #count{X : a(X)} >= 2. d :- 2 {a(1); a(2)}. #show a/1. #show b/0. #show c/0. #show p/1."
)


@pytest.mark.parametrize(
    "text, why",
    [
        ("{a; b}. #minimize {1 : a}.", "optimisation"),
        ("#external e. a :- e.", "external atoms"),
        ("{a}. #show x : a.", "#show of terms"),
        ("{a; b}. #project a.", "projection"),
    ],
)
def test_recorder_refuses_what_it_cannot_factorize(text, why):
    from ticker_py.engines.factorize import Unfactorizable, factorize

    recorder, ctl = _recorded(text)
    with pytest.raises(Unfactorizable, match=why):
        factorize(recorder, ctl)


def test_hand_program_components():
    from ticker_py.engines.factorize import factorize

    # b's rule, the constraint and the #count join a(1), a(2), a(3), b, c, d into one component
    recorder, ctl = _recorded(GROUND)
    found = factorize(recorder, ctl)
    assert sorted(map(str, found.common)) == ["p(1)", "p(2)", "p(3)"]
    sizes = sorted(len(f) for f in found.factors)
    assert len(found.factors) == 1 and sizes == [7]  # 8 choices of a/1 minus a(1), not a(2), a(3)
