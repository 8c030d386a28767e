"""Semantics profiles: knob resolution, fragment checks, and the property that every engine
equals the reference evaluator (the definition) under every profile, pull and push."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from helpers import scaled
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import FeedbackError, reference_results
from strategies import programs, streams, vocabularies
from test_cli import ticker

from ticker_py import Reasoner, ast, run
from ticker_py.api import load_program
from ticker_py.engines import semantics_engines
from ticker_py.errors import EngineUnsupported, ProgramError, StreamError, UsageError
from ticker_py.semantics import (
    DEFAULT,
    PROFILES,
    Duplicates,
    Origin,
    Semantics,
    WindowBounds,
    check_program,
    parse_semantics_list,
    program_problems,
    resolve,
)

# ---------------------------------------------------------------- resolution


def test_profiles_have_citations_and_the_issue_knobs():
    assert list(PROFILES) == ["default", "lars", "ticker", "laser", "r4", "cql"]
    assert all(p.citation for p in PROFILES.values())
    assert PROFILES["default"].semantics.is_default and PROFILES["laser"].semantics.is_default
    assert set(PROFILES["lars"].semantics.changed) == {"origin", "tuple_ties", "future_heads"}
    assert PROFILES["ticker"].semantics.changed == ("duplicates",)
    assert PROFILES["r4"].semantics.changed == ("window_bounds",)
    assert set(PROFILES["cql"].semantics.changed) == {"origin", "tuple_scope", "tuple_ties", "duplicates"}


def test_explicit_knob_overrides_profile():
    s = resolve("cql", duplicates="set", origin=None)
    assert s.duplicates is Duplicates.SET and s.origin is Origin.FIRST and s.profile == "cql"
    assert resolve(str(s)) == s
    assert resolve("r4,window-bounds=closed").window_bounds is WindowBounds.CLOSED
    assert [x.profile for x in parse_semantics_list("default,r4,lars+origin=zero")] == ["default", "r4", "lars"]
    assert parse_semantics_list("lars+origin=zero")[0].origin is Origin.ZERO


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: resolve("nope"), "unknown semantics profile 'nope'"),
        (lambda: resolve("default", origin="middle"), "unknown origin 'middle'"),
        (lambda: resolve("default", colour="red"), "unknown semantics knob 'colour'"),
        (lambda: resolve("default,origin"), "bad semantics item 'origin'"),
        (lambda: Reasoner("a :- p.", semantics="nope"), "unknown semantics profile"),
        (lambda: Reasoner("a :- p.", window_bounds="open"), "unknown window_bounds 'open'"),
    ],
)
def test_bad_profile_or_knob_is_a_usage_error(call, match):
    with pytest.raises(UsageError, match=match):
        call()


# ---------------------------------------------------------------- fragment checks


@pytest.mark.parametrize(
    "profile,program,match",
    [
        (
            "laser",
            "a :- not b.\nb :- not a.",
            r"<string>:1:10-11: error: 'a' depends negatively on 'b' through a cycle",
        ),
        ("r4", "a :- p, not q.", r"<string>:1:13-14: error: negation 'not q' is not allowed in the r4 profile"),
        ("r4", "a :- p always [2].", r"<string>:1:6-18: error: window atom 'p always \[2\]' is not allowed"),
        ("r4", "a :- p at T in [2].", r"window atom 'p at T in \[2\]' is not allowed"),
        ("r4", "a :- p in [2 #].", r"window atom 'p in \[2 #\]' is not allowed"),
        (
            "r4",
            "a :- p in [2].\nb :- q in [3].",
            r"<string>:2:6-14: error: window 'q in \[3\]' has range 3, but "
            r"'p in \[2\]' has range 2",
        ),
        ("r4", "a at 3 :- p.", r"@-head 'a at 3' is not allowed in the r4 profile"),
        ("r4", "a :- p in [0].", r"window '\[0\]' is empty under half-open window bounds"),
        ("cql", "a :- b.\nb :- a, p.", r"<string>:1:6-7: error: 'a' depends on 'b' recursively"),
    ],
)
def test_program_outside_profile_is_a_located_error(profile, program, match):
    with pytest.raises(ProgramError, match=match):
        Reasoner(program, semantics=profile)


@pytest.mark.parametrize(
    "profile,program",
    [
        ("laser", "a :- p, not b.\nb :- q."),
        ("r4", "a(X) :- p(X) in [2].\nb(X) :- a(X), q(X) in [2]."),
        ("cql", "a :- p in [2 #], not q.\nb :- a."),
    ],
)
def test_program_inside_profile_runs(profile, program):
    assert program_problems(resolve(profile), load_program(program)) == []
    check_program(resolve(profile), load_program(program))


def test_engine_refuses_knob_it_cannot_run_naming_it():
    with pytest.raises(EngineUnsupported, match="native engine cannot run tuple_ties=choice"):
        run("q(X) :- p(X) in [1 #].", [(0, ["p(1)"])], engine="native", tuple_ties="choice")


def test_auto_picks_an_engine_that_runs_the_knobs():
    analysis = load_program("q(X) :- p(X) in [1 #].")
    engines = semantics_engines(analysis, resolve("lars"))
    assert engines and Reasoner(analysis, semantics="lars").engine_name == engines[0]


def test_default_semantics_changes_nothing():
    # the default profile is today's behaviour, knob for knob
    assert resolve() == DEFAULT == Semantics() and not DEFAULT.changed


# ---------------------------------------------------------------- properties


def _no_empty_time_windows(program: ast.Program) -> ast.Program:
    """Half-open bounds refuse ``[0]``: widen such windows to one time point."""

    def fix(lit):
        el = lit.element
        if (
            isinstance(el, ast.ExtendedAtom)
            and el.window is not None
            and not el.window.is_tuple
            and el.window.size == 0
        ):
            return lit.replace(element=el.replace(window=ast.Window(1, None, el.window.location)))
        return lit

    rules = tuple(r.replace(body=tuple(fix(lit) for lit in r.body)) for r in program.rules)
    return ast.Program(rules, program.file)


@st.composite
def cases(draw, semantics: Semantics, stratified_only=False, max_rules=3, max_time_points=4):
    """A program and stream fit for ``semantics``: duplicates drawn under bags, a late first
    record under origin=first, no empty windows under half-open bounds. Smaller than the
    other property tests' cases (up to ``max_rules`` rules, ``max_time_points`` time points):
    every case runs in pull and push mode."""
    voc = draw(vocabularies())
    program = draw(programs(stratified_only=stratified_only, vocabulary=voc, max_rules=max_rules))
    if semantics.window_bounds is WindowBounds.HALF_OPEN:
        program = _no_empty_time_windows(program)
    start = draw(st.integers(0, 2)) if semantics.origin is Origin.FIRST else 0
    stream = draw(streams(voc, max_time_points, start, unique=semantics.duplicates is not Duplicates.BAG))
    return str(program), stream


def answer_sets(results):
    return [(r.t, r.c, {(m.atoms, m.pinned) for m in r.models}) for r in results]


def pull_of(push: list) -> list:
    """The pull results within the push results: a time point's pull tick is its last push tick
    (same t and c, same atoms fed back before it), so the reference runs once per case."""
    return [r for r, after in zip(push, push[1:] + [None]) if after is None or after.t != r.t]


MODES = ("time", "signal")


def check(program, stream, semantics, pick=None):
    """The engines that run the program under ``semantics`` give the reference's answers in
    pull and push mode: all of them, or (``pick``: draws one of a list) clingo in both modes
    and one other engine in one mode, both drawn."""
    analysis = load_program(program)
    engines = semantics_engines(analysis, semantics)
    assert "clingo" in engines or semantics.changed  # clingo runs every program under the default
    try:
        push = reference_results(analysis.program, stream, every="signal", semantics=semantics)
        expected = {"signal": answer_sets(push), "time": answer_sets(pull_of(push))}
    except FeedbackError:
        expected = None
    runs = [(every, engine) for engine in engines for every in MODES]
    if pick is not None and len(engines) > 1:  # engines[0] is clingo whenever clingo runs the program
        # drawn values lean to the first: the engine with the smallest fragment (native) first
        runs = runs[:2] + [(pick(MODES[::-1]), pick(engines[:0:-1]))]
    for every, engine in runs:
        if expected is None:
            with pytest.raises(StreamError, match="needs one answer stream"):
                run(analysis, stream, engine=engine, models=0, every=every, semantics=semantics)
            continue
        got = run(analysis, stream, engine=engine, models=0, every=every, semantics=semantics)
        assert answer_sets(got) == expected[every], (engine, every, program, stream)


def _semantics_for(profile: str) -> Semantics:
    """The profile's knobs; the fragment check is left to the unit tests above (the random
    programs are general)."""
    return replace(PROFILES[profile].semantics, profile="default")


#: the knobs no profile sets, or sets only together with others
KNOB_SETTINGS = ["persistence=feedback", "origin=first", "tuple_scope=predicate", "future_heads=inconsistent"]


@pytest.mark.parametrize("profile", list(PROFILES))
def test_engines_equal_reference_per_profile(profile):
    # each example: the reference once (push; pull is within it), clingo and one other drawn
    # engine in pull and in push mode: 200 examples per profile and mode
    semantics = _semantics_for(profile)

    @settings(max_examples=200)
    @given(cases(semantics, stratified_only=profile == "laser"), st.data())
    def both_modes(case, data):
        check(*case, semantics, lambda xs: data.draw(st.sampled_from(xs)))

    both_modes()


@pytest.mark.parametrize("setting", KNOB_SETTINGS)
def test_engines_equal_reference_per_knob(setting):
    semantics = resolve("default," + setting)

    @settings(max_examples=scaled(200, 50))
    @given(cases(semantics), st.data())
    def both_modes(case, data):
        check(*case, semantics, lambda xs: data.draw(st.sampled_from(xs)))

    both_modes()


@pytest.mark.slow
@pytest.mark.parametrize("profile", list(PROFILES))
def test_engines_equal_reference_per_profile_many(profile):
    # bigger cases, every engine in every mode, and the pull reference computed on its own
    semantics = _semantics_for(profile)

    @settings(max_examples=scaled(2000, 10))
    @given(cases(semantics, stratified_only=profile == "laser", max_rules=4, max_time_points=5))
    def many(case):
        program, stream = case
        try:
            push = reference_results(program, stream, every="signal", semantics=semantics)
            pull = reference_results(program, stream, every="time", semantics=semantics)
        except FeedbackError:
            pass
        else:
            assert answer_sets(pull_of(push)) == answer_sets(pull)
        check(program, stream, semantics)

    many()


# ---------------------------------------------------------------- command line


@pytest.fixture
def window_files(tmp_path):
    program, stream = tmp_path / "p.lars", tmp_path / "s.stream"
    program.write_text("q :- p in [1].\n")
    stream.write_text("0: p\n1:\n2:\n")
    return program, stream


def test_cli_run_semantics_and_knob(capsys, window_files):
    program, stream = window_files
    code, out, _ = ticker(capsys, "run", program, "--stream", stream, "--semantics", "r4", "--format", "text")
    assert (code, out.splitlines()) == (0, ["t=0 c=1: {q}", "t=1 c=1: {}", "t=2 c=1: {}"])
    code, out2, _ = ticker(
        capsys, "run", program, "--stream", stream, "--window-bounds", "half-open", "--format", "text"
    )
    assert (code, out2) == (0, out)


@pytest.mark.parametrize(
    "argv,match",
    [
        (["--semantics", "r5"], "unknown semantics profile 'r5'"),
        (["--origin", "middle"], "unknown origin 'middle'"),
        (
            ["--tuple-ties", "choice", "--engine", "native"],
            "native engine cannot run tuple_ties=choice (--tuple-ties choice)",
        ),
    ],
)
def test_cli_run_bad_semantics_is_status_2(capsys, window_files, argv, match):
    program, stream = window_files
    code, _, err = ticker(capsys, "run", program, "--stream", stream, *argv)
    assert code == 2 and match in err and "Traceback" not in err


def test_cli_check_semantics(capsys, window_files, tmp_path):
    program, _ = window_files
    code, out, _ = ticker(capsys, "check", program, "--semantics", "r4")
    assert code == 0
    assert "semantics: r4 (" in out and "engines under r4: " in out
    assert "engines under r4: clingo, incremental, incremental-pure, native" in out
    code, out, _ = ticker(capsys, "check", program, "--semantics", "cql")
    assert code == 0 and "native: the native engine cannot run origin=first (--origin first)" in out
    bad = tmp_path / "bad.lars"
    bad.write_text("a :- not b.\nb :- not a.\n")
    code, out, err = ticker(capsys, "check", bad, "--semantics", "laser")
    assert code == 2 and f"{bad}:1:10-11: error: 'a' depends negatively on 'b'" in err and "ok" not in out


def test_cli_compare_semantics(capsys, window_files):
    program, stream = window_files
    code, out, _ = ticker(capsys, "compare", program, "--stream", stream, "--semantics", "default,r4")
    assert code == 3
    assert out.splitlines() == [
        "t=1: answer streams differ",
        "  default  {q}",
        "  r4       {}",
        "1 of 3 time points differ (default, r4)",
        "dimension      differing time points",
        "window_bounds  1",
    ]
    code, out, _ = ticker(
        capsys,
        "compare",
        program,
        "--stream",
        stream,
        "--semantics",
        "default,r4",
        "--format",
        "json",
        "--engines",
        "clingo,native",
    )
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 3 and [row["differs"] for row in lines[:-1]] == [False, True, False]
    assert lines[1]["answers"] == {
        "default@clingo": [["q"]],
        "default@native": [["q"]],
        "r4@clingo": [[]],
        "r4@native": [[]],
    }
    assert lines[-1]["summary"] == {"engine": 0, "window_bounds": 1}
    # the same run twice was one run (the second silently dropped); it is refused now
    code, _, err = ticker(capsys, "compare", program, "--stream", stream, "--semantics", "default,default")
    assert code == 2 and "the run 'default' is given twice" in err


def test_compare_lists_a_profile_that_cannot_read_the_program_and_compares_the_rest(capsys, tmp_path):
    """r4 refuses the negation: it is not applicable, with the located reason, in the text, the JSON,
    the report and the picture; default and lars are compared and decide the exit status."""
    program, stream = tmp_path / "p.lars", tmp_path / "s.stream"
    program.write_text("q :- p in [1].\nr :- not q.\n")
    stream.write_text("1: p\n2:\n3:\n")
    why = f"{program}:2:10-11: negation 'not q' is not allowed in the r4 profile"
    code, out, err = ticker(capsys, "compare", program, "--stream", stream, "--semantics", "default,r4,lars")
    assert code == 3 and err == ""
    assert f"r4: not applicable: {why}" in out.splitlines()
    assert "time points differ (default, lars)" in out  # origin first: lars does not evaluate t=0
    code, out, err = ticker(capsys, "compare", program, "--stream", stream, "--semantics", "r4,default")
    assert code == 0 and f"r4: not applicable: {why}" in out
    assert err == "note: fewer than two runs could read the program; nothing was compared\n"
    code, out, _ = ticker(
        capsys, "compare", program, "--stream", stream, "--semantics", "default,r4", "--format", "json"
    )
    assert code == 0 and json.loads(out.splitlines()[-1])["unavailable"] == {"r4": why}
    for suffix in ("html", "svg"):
        picture = tmp_path / f"cmp.{suffix}"
        code, _, err = ticker(
            capsys, "compare", program, "--stream", stream, "--semantics", "default,r4,lars", "--plot", picture
        )
        assert code == 3, err
        text = " ".join(picture.read_text().split())
        assert f"not applicable — {why}"[:60] in text and "not applicable: r4" in text  # the key / list, the subtitle


def test_engine_labels_a_difference_only_between_the_same_knobs():
    """Under auto, default runs on native and lars on clingo: their differences are the knobs', not
    an engine's; two profiles with the same knobs on one engine are "same knobs"."""
    from ticker_py.semantics_compare import compare_semantics

    cmp = compare_semantics("q :- p in [1].", [(1, ["p"]), (2, [])], "default,lars,laser")
    assert cmp.runs["default"][1] != cmp.runs["lars"][1]  # the premise: two engines
    notes = cmp.notes()
    assert notes["lars"][0] == "origin+tuple_ties+future_heads" and "engine" not in notes["lars"][1]
    assert notes["laser"][0] == "same knobs" and "engine" not in set(cmp.summary) and "same knobs" in cmp.summary
    assert cmp.timeline().notes == notes
    cmp = compare_semantics("q :- p in [1].", [(1, ["p"])], ["default"], engines="clingo,native")
    assert cmp.notes() == {"default@native": ("engine", "the same semantics on engine native")}
    assert cmp.summary == {"engine": 0}


def test_comparisons_in_a_notebook(tmp_path):
    pytest.importorskip("matplotlib")
    from ticker_py.compare import compare_engines
    from ticker_py.semantics_compare import compare_semantics

    stream = [(0, ["p"]), (1, []), (2, [])]
    cmp = compare_semantics("q :- p in [1].\nr :- not q.", stream, "default,default+window_bounds=half-open,r4")
    view = cmp._repr_html_()
    assert "<table" in view and "<svg" in view and "not applicable" in view and "negation" in view
    fig = cmp.plot(atoms="q/0")
    lanes = [t.get_text() for t in fig.axes[-1].get_yticklabels()]
    assert lanes == ["q · default,window_bounds=half-open", "q · default"]  # bottom up
    df = cmp.to_dataframe()
    assert set(df.run) == {"default", "default,window_bounds=half-open"}
    engines = compare_engines(load_program("q :- p in [1]."), stream, "clingo,native,incremental-pure")
    assert engines.agree and set(engines.to_dataframe().run) == {"clingo", "native", "incremental-pure"}
    assert "<svg" in engines._repr_html_() and engines.plot().axes


# ---------------------------------------------------------------- the docs' example

DOC_PROGRAM = """
recent(S) :- temp(S, V) in [2 #], V > 30.
steady :- on always [2].
seen :- door in [1].
check at U :- door at T in [1], U = T + 1.
"""
DOC_STREAM = [
    (2, ["on", "temp(a,35)", "door", "temp(b,20)"]),
    (3, ["on", "temp(b,20)", "temp(a,31)", "temp(b,20)"]),
    (4, ["on"]),
    (5, []),
]


def _cell(*models):
    return {frozenset(m) for m in models}


E = frozenset()
DOC_TABLE = {  # docs/semantics.md, "Example: one program under every profile"
    "default": {
        0: _cell(E),
        1: _cell(E),
        2: _cell({"seen", "check at 3"}),
        3: _cell({"recent(a)", "seen", "check"}),
        4: _cell({"recent(a)", "steady"}),
        5: _cell({"recent(a)"}),
    },
    "lars": {
        2: set(),
        3: _cell({"recent(a)", "steady", "seen", "check"}, {"steady", "seen", "check"}),
        4: _cell({"recent(a)", "steady"}, {"steady"}),
        5: _cell(E, {"recent(a)"}),
    },
    "ticker": {
        0: _cell(E),
        1: _cell(E),
        2: _cell({"seen", "check at 3"}),
        3: _cell({"recent(a)", "seen", "check"}),
        4: _cell({"steady"}),
        5: _cell(E),
    },
    "cql": {
        2: _cell({"recent(a)", "steady", "seen", "check at 3"}),
        3: _cell({"recent(a)", "steady", "seen", "check"}, {"steady", "seen", "check"}),
        4: _cell({"recent(a)", "steady"}, {"steady"}),
        5: _cell(E, {"recent(a)"}),
    },
    "default,window_bounds=half-open": {
        0: _cell(E),
        1: _cell(E),
        2: _cell({"seen", "check at 3"}),
        3: _cell({"recent(a)", "steady"}),
        4: _cell({"recent(a)", "steady"}),
        5: _cell({"recent(a)"}),
    },
}
DOC_TABLE["laser"] = DOC_TABLE["default"]


def _printed(results):
    return {r.t: {frozenset(m.sorted_atoms() + m.sorted_pinned()) for m in r.models} for r in results}


@pytest.mark.parametrize("name", sorted(DOC_TABLE))
def test_docs_example_table(name):
    semantics = resolve(name)
    assert _printed(reference_results(DOC_PROGRAM, DOC_STREAM, semantics=semantics)) == DOC_TABLE[name]
    for engine in semantics_engines(load_program(DOC_PROGRAM), semantics):
        assert _printed(run(DOC_PROGRAM, DOC_STREAM, engine=engine, models=0, semantics=semantics)) == DOC_TABLE[name]


def test_live_reasoner_runs_origin_and_bag_like_run():
    # the push-driven live reasoner starts at the first push (origin=first) and keeps duplicates (bag)
    from ticker_py.live.reasoner import LiveReasoner

    for program, stream, sem in [
        ("q :- p always [2].", [(1, ["p"]), (2, ["p"])], "lars"),
        ("q(X) :- p(X) in [2 #].", [(0, ["p(1)", "p(2)", "p(2)"])], "ticker"),
    ]:
        live = LiveReasoner(Reasoner(program, engine="clingo", semantics=sem))
        got = [r for t, atoms in stream for r in live.push(t, atoms)] + live.close()
        assert answer_sets(got) == answer_sets(run(program, stream, engine="clingo", semantics=sem))
        assert answer_sets(got) == answer_sets(reference_results(program, stream, semantics=resolve(sem)))


def test_history_keeps_the_boundary_time_point_whole_under_choice():
    # tuple_ties=choice: any atom of the window's boundary time point may be in the window,
    # so none of them is dropped (regression: the older one was, once no time window read it)
    from ticker_py.windows import WindowHistory

    for whole, kept in ((False, [(0, 2), (1, 3)]), (True, [(0, 1), (0, 2), (1, 3)])):
        h = WindowHistory(lookback=0, tuple_lookback=2, whole_points=whole)
        h.extend(0, [("p",), ("q",)])
        h.extend(1, [("r",)])
        assert h.trim(1) == 1 and [(t, k) for t, k, _ in h] == kept
    h.extend(2, [("s",), ("u",)])
    assert h.trim(2) == 2 and [(t, k) for t, k, _ in h] == [(2, 4), (2, 5)]


def test_factorize_refuses_other_semantics():
    with pytest.raises(UsageError, match="factorize=True runs the default semantics"):
        Reasoner("q :- p in [1].", factorize=True, semantics="r4")


def test_wide_integers_keep_half_open_windows_on_clingo():
    # regression: the wide-integer rewrite re-analysed the program and lost the window sizes of
    # half-open bounds, so clingo read 'p always [1]' as closed
    program = "a :- p.\nb(2147483653) :- p always [1].\na :- not b(2147483647).\nb(2147483647) :- not a.\n"
    stream = [(0, []), (1, [("p",)])]
    expected = reference_results(program, stream, semantics=resolve("default,window_bounds=half-open"))
    for engine in ("clingo", "incremental"):
        got = run(program, stream, engine=engine, models=0, window_bounds="half-open")
        assert [set(r.models) for r in got] == [set(r.models) for r in expected]
        assert ("b", 2147483653) in got[1].models[0].atoms
