"""Explanations (why / why not): checked by an independent checker on random programs and streams
over every engine, plus hand-written cases with their expected text."""

from __future__ import annotations

import json

import pytest
from explain_checker import check_explanation
from helpers import scaled
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import TIME_VARS, programs, programs_and_streams, streams, vocabularies

from ticker_py import Reasoner, ast
from ticker_py.api import explain_at, load_program, records_from, run
from ticker_py.engines import ENGINE_NAMES, semantics_engines
from ticker_py.errors import UsageError
from ticker_py.semantics import DEFAULT, PROFILES, program_problems
from ticker_py.values import format_atom

VALUES = (1, 2, "x", "y")


def printed_order(models):
    return sorted(set(models), key=lambda m: (m.sorted_atoms(), m.sorted_pinned()))


def queries(reasoner, model, t):
    """Every atom of the answer stream (at t and pinned) and some that are not in it."""
    holds = [format_atom(a) for a in model.atoms] + [f"{format_atom(a)} at {u}" for a, u in model.pinned]
    absent = []
    background = set(reasoner.analysis.background)
    for pred in sorted(reasoner.analysis.intensional):
        arity = reasoner.analysis.signatures[pred]
        for v in VALUES[:2] if arity else (None,):
            atom = (pred,) if v is None else (pred, v)
            if atom not in model.atoms:
                absent.append(format_atom(atom))
        atom = (pred,) if arity == 0 else (pred, 1)
        if (atom, 0) not in model.pinned and t > 0 and atom not in background:  # a fact holds at 0 too
            absent.append(f"{format_atom(atom)} at 0")
    return holds, absent


def check_all(program, stream, every, engine, semantics=DEFAULT):
    reasoner = Reasoner(program, engine=engine, models=0, explainable=True, semantics=semantics)
    parsed = reasoner.analysis.program  # parsed once: the checker reads the same rules
    explained = 0
    for result in reasoner.feed(records_from(stream), every=every):  # the driver may evaluate ahead
        for k, model in enumerate(printed_order(result.models), 1):
            holds, absent = queries(reasoner, model, result.t)
            for atom in holds:
                e = result.explain(atom, model=k)
                check_explanation(e, parsed, stream, model, semantics)
                json.dumps(e.to_dict())
                explained += 1
            for atom in absent:
                e = result.explain(atom, model=k, why_not=True)
                check_explanation(e, parsed, stream, model, semantics)
                explained += 1
    return explained


def engines_for(program):
    """Every registered engine that can run the program."""
    from ticker_py.engines import ENGINE_NAMES, can_run

    analysis = Reasoner(program, engine="clingo").analysis
    return [name for name in ENGINE_NAMES if can_run(name, analysis)]


def test_every_example_explains_something():
    """The property test is not vacuous: a typical program gets why and why-not explanations."""
    program = "a(X) :- p(X) in [2], not b(X). b(X) :- q(X) always [1]. c :- a(X) at T, T < 3."
    stream = [(0, [("p", 1), ("q", 2)]), (1, [("q", 2), ("p", 2)]), (2, [])]
    assert check_all(program, stream, "time", "clingo") >= 10


@settings(max_examples=200)
@given(programs_and_streams(), st.sampled_from(["time", "signal"]))
def test_explanations_pass_the_checker(case, every):
    program, stream = case
    for engine in engines_for(program):
        check_all(program, stream, every, engine)


@settings(max_examples=100)
@given(programs_and_streams(stratified_only=True), st.sampled_from(["time", "signal"]))
def test_explanations_pass_the_checker_stratified(case, every):
    program, stream = case
    for engine in engines_for(program):
        check_all(program, stream, every, engine)


@pytest.mark.slow
@settings(max_examples=scaled(2000, 50))
@given(programs_and_streams(), st.sampled_from(["time", "signal"]))
def test_explanations_pass_the_checker_many(case, every):
    program, stream = case
    for engine in engines_for(program):
        check_all(program, stream, every, engine)


# ---------------------------------------------------------------- every semantics profile


def r4_shaped(program: ast.Program, n: int) -> ast.Program:
    """The program cut down to R4's fragment: constraints and `not` literals dropped, every
    window atom read as `p in [n]`, @-heads as plain heads (and the comparisons over the time
    variables that only @ bound dropped)."""
    rules = []
    for rule in program.rules:
        if rule.head is None:
            continue
        if rule.is_fact:
            rules.append(rule)
            continue
        body = []
        for lit in rule.body:
            el = lit.element
            if lit.negated:
                continue
            if lit.is_comparison:
                if not ast.element_variables(el) & set(TIME_VARS):
                    body.append(lit)
            elif el.modality == ast.NOW:
                body.append(lit)
            else:
                body.append(ast.Literal(ast.ExtendedAtom(el.atom, ast.DIAMOND, ast.Window(n))))
        rules.append(ast.Rule(ast.Head(rule.head.atom), tuple(body)))
    return ast.Program(tuple(rules))


@st.composite
def profile_cases(draw, profile: str):
    """A program and stream for a profile: stratified for laser, cut to R4's fragment for r4 (the
    fragment check still decides); streams that may start late and repeat atoms."""
    voc = draw(vocabularies())
    program = draw(programs(stratified_only=profile == "laser", vocabulary=voc, max_rules=3))
    if profile == "r4":
        program = r4_shaped(program, draw(st.integers(1, 3)))
    stream = draw(streams(voc, 4, draw(st.integers(0, 2)), unique=False))
    return str(program), stream


def profile_engines(program: str, semantics) -> list:
    """The engines that run the program under the profile, none if its fragment check refuses it."""
    analysis = load_program(program)
    if program_problems(semantics, analysis):
        return []
    return list(semantics_engines(analysis, semantics))


@pytest.mark.slow
@pytest.mark.parametrize("profile", list(PROFILES))
def test_explanations_pass_the_checker_under_every_profile(profile):
    """Explain's own checker over random programs x every profile x every engine that runs the
    program under it (clingo alone for the knobs only it runs: origin, tuple scope and ties)."""
    semantics = PROFILES[profile].semantics
    ran = set()

    @settings(max_examples=scaled(1000, 25))
    @given(profile_cases(profile), st.sampled_from(["time", "signal"]))
    def every_engine(case, every):
        program, stream = case
        for engine in profile_engines(program, semantics):
            check_all(program, stream, every, engine, semantics)
            ran.add(engine)

    every_engine()
    assert ran, f"no random program ran under {profile}"


def test_the_profile_cases_reach_every_engine_and_knob():
    """The property test above is not vacuous: each profile runs on each engine it allows,
    R4-shaped programs pass R4's fragment check."""
    program = str(r4_shaped(load_program("a(X) :- p(X) at T in [2], not b, T > 0. b at 3 :- q.").program, 2))
    assert program == "a(X) :- p(X) in [2].\nb :- q.\n"
    for profile, engines in [("r4", ENGINE_NAMES), ("ticker", ENGINE_NAMES), ("lars", ["clingo"]), ("cql", ["clingo"])]:
        assert set(profile_engines(program, PROFILES[profile].semantics)) == set(engines), profile


@pytest.mark.parametrize("engine", ENGINE_NAMES)
def test_why_not_under_half_open_bounds(engine):
    """r4: `[1]` at t = 1 covers (0, 1] = {1}, so p at 0 is out: q does not hold, and the
    why-not says so (it raised InternalError, reading the window as [0, 1])."""
    r = Reasoner("q :- p in [1].", semantics="r4", engine=engine)
    r.append(0, ["p"])
    assert r.evaluate(0).models[0].atoms == {("q",)}
    assert r.evaluate(1).models[0].atoms == frozenset()
    e = r.explain(1, "q", why_not=True)
    assert str(e).endswith("fails at p in [1]: no p in the window [1, 1]")
    check_explanation(e, "q :- p in [1].", [(0, ["p"]), (1, [])], r.evaluation.last.models[0], PROFILES["r4"].semantics)
    r = Reasoner("q :- p in [1].", semantics="r4", engine=engine)
    r.append(0, ["p"])
    r.evaluate(0)
    assert "p in [1]: window [0, 0], witness" in str(r.explain(0, "q"))


def test_tuple_ties_choice_explains_under_the_cut_of_the_answer_stream():
    """lars: [1 #] keeps one of the two atoms of time point 0, either: each answer stream is
    explained under its own cut (the first cut is not the second answer stream's)."""
    stream = [(0, ["p(1)", "p(2)"])]
    program = "q(X) :- p(X) in [1 #]."
    lars = PROFILES["lars"].semantics
    for k, (atom, other, count) in enumerate([("q(1)", "q(2)", 1), ("q(2)", "q(1)", 2)], 1):
        why = explain_at(program, stream, 0, atom, model=k, semantics="lars")
        assert f"(atoms up to #2; of time point 0 the cut keeps #{count}), witness" in str(why)
        assert f'"kept": [{count}]' in why.to_json()
        why_not = explain_at(program, stream, 0, other, model=k, why_not=True, semantics="lars")
        assert f"of time point 0 the cut keeps #{count}); last arrived at t=0" in str(why_not)
        model = printed_order(run(program, stream, models=0, semantics="lars")[0].models)[k - 1]
        check_explanation(why, program, stream, model, lars)
        check_explanation(why_not, program, stream, model, lars)


def test_tuple_scope_predicate_counts_the_predicate_alone():
    e = explain_at("q(X) :- p(X) in [1 #].", [(0, ["p(1)", "r"]), (1, ["r"])], 1, "q(1)", semantics="cql")
    assert "p(1) in [1 #]: tuple window of the last 1 p atoms [0, 1]" in str(e)


def test_origin_first_pins_before_the_origin_are_dropped():
    program = "a at T :- p at U in [2], T = U - 1."
    e = explain_at(program, [(2, ["p"]), (3, ["p"])], 3, "a at 1", why_not=True, semantics="lars")
    assert str(e).endswith(
        "a does not hold at 1: time 1 is before the timeline's origin 2 (pins before it are dropped)"
    )
    e = explain_at("b :- p always [3].", [(2, ["p"]), (3, ["p"])], 3, "b", semantics="lars")
    assert "p always [3]: window [2, 3], every time point" in str(e)


def test_explain_refuses_feedback_persistence():
    """Fed-back atoms are not read by explanations: a typed refusal, not an internal error."""
    r = Reasoner("q :- p. r :- q in [1].", engine="clingo", persistence="feedback")
    r.append(0, ["p"])
    r.evaluate(0)
    assert r.evaluate(1).models[0].atoms == {("r",)}
    with pytest.raises(UsageError, match=r"fed back under persistence=feedback \(--persistence feedback\)"):
        r.explain(1, "r")


def test_cli_explain_takes_the_semantics(tmp_path, capsys):
    from ticker_py.cli import main

    (tmp_path / "p.lars").write_text("q :- p in [1].\n")
    (tmp_path / "s.stream").write_text("0: p\n1:\n")
    args = [str(tmp_path / "p.lars"), "--stream", str(tmp_path / "s.stream"), "--at", "1", "q"]
    assert main(["explain", *args, "--semantics", "r4", "--why-not"]) == 0
    assert capsys.readouterr().out.endswith("fails at p in [1]: no p in the window [1, 1]\n")
    assert main(["explain", *args, "--window-bounds", "half-open", "--why-not"]) == 0
    assert main(["explain", *args]) == 0
    assert "p in [1]: window [0, 1], witness" in capsys.readouterr().out


CASES = [  # (name, program, stream, t, atom, why_not, model, expected text)
    (
        "tuple-diamond-why",
        "a(X) :- p(X) in [2 #], not q.",
        [(0, ["p(1)"]), (1, ["p(2)", "r"]), (2, [])],
        2,
        "a(2)",
        False,
        1,
        """\
why a(2): t=2 c=3, answer stream 1 of 1
  a(2) at 2  <-  a(X) :- p(X) in [2 #], not q.  [X=2]  (<string>:1)
    p(2) in [2 #]: tuple window of the last 2 atoms [1, 2] (atoms #2..#3), witness
      p(2) arrived at t=1 (#2)
    not q: q does not hold at t=2""",
    ),
    (
        "time-diamond",
        "a :- p(X) in [3], X > 1.",
        [(0, ["p(2)"]), (1, []), (2, ["p(1)"]), (3, [])],
        3,
        "a",
        False,
        1,
        """\
why a: t=3 c=2, answer stream 1 of 1
  a at 3  <-  a :- p(X) in [3], X > 1.  [X=2]  (<string>:1)
    p(2) in [3]: window [0, 3], witness
      p(2) arrived at t=0
    2 > 1: true""",
    ),
    (
        "time-box",
        "a(X) :- p(X) always [2].",
        [(0, ["p(1)"]), (1, ["p(1)"]), (2, ["p(1)", "p(2)"]), (3, ["p(1)"])],
        3,
        "a(1)",
        False,
        1,
        """\
why a(1): t=3 c=5, answer stream 1 of 1
  a(1) at 3  <-  a(X) :- p(X) always [2].  [X=1]  (<string>:1)
    p(1) always [2]: window [1, 3], every time point
      p(1) arrived at t=1, 2, 3""",
    ),
    (
        "time-at",
        "a(T) :- p(1) at T in [2].",
        [(0, ["p(1)"]), (1, ["p(1)"]), (2, []), (3, [])],
        3,
        "a(1)",
        False,
        1,
        """\
why a(1): t=3 c=2, answer stream 1 of 1
  a(1) at 3  <-  a(T) :- p(1) at T in [2].  [T=1]  (<string>:1)
    p(1) at 1 in [2]: window [1, 3], pinned at 1
      p(1) arrived at t=1""",
    ),
    (
        "tuple-diamond",
        "a :- p(X) in [2 #].",
        [(0, ["p(1)"]), (1, ["q"]), (2, ["q"])],
        2,
        "a",
        True,
        1,
        """\
why-not a: t=2 c=3, answer stream 1 of 1
  a does not hold at 2
    a :- p(X) in [2 #].  (<string>:1)
      fails at p(X) in [2 #]: no p(X) in the tuple window of the last 2 atoms [1, 2] (atoms #2..#3)""",
    ),
    (
        "tuple-box",
        "a :- q always [2 #].",
        [(0, ["p(1)"]), (1, ["q"]), (2, ["q"])],
        2,
        "a",
        False,
        1,
        """\
why a: t=2 c=3, answer stream 1 of 1
  a at 2  <-  a :- q always [2 #].  (<string>:1)
    q always [2 #]: tuple window of the last 2 atoms [1, 2] (atoms #2..#3), every time point
      q arrived at t=1 (#2), 2 (#3)""",
    ),
    (
        "tuple-at",
        "a(T) :- q at T in [3 #].",
        [(0, ["p(1)"]), (1, ["q"]), (2, ["q", "p(1)"])],
        2,
        "a(1)",
        False,
        1,
        """\
why a(1): t=2 c=4, answer stream 1 of 1
  a(1) at 2  <-  a(T) :- q at T in [3 #].  [T=1]  (<string>:1)
    q at 1 in [3 #]: tuple window of the last 3 atoms [1, 2] (atoms #2..#4), pinned at 1
      q arrived at t=1 (#2)""",
    ),
    (
        "unwindowed-at",
        "a(T) :- p at T.",
        [(0, ["p"]), (1, []), (2, [])],
        2,
        "a(0)",
        False,
        1,
        """\
why a(0): t=2 c=1, answer stream 1 of 1
  a(0) at 2  <-  a(T) :- p at T.  [T=0]  (<string>:1)
    p at 0: timeline [0, 2], pinned at 0
      p arrived at t=0""",
    ),
    (
        "at-head-past",
        "a at T :- p(V) at T in [3], V > 1. b :- a in [3].",
        [(0, []), (1, ["p(5)"]), (2, []), (3, [])],
        3,
        "b",
        False,
        1,
        """\
why b: t=3 c=1, answer stream 1 of 1
  b at 3  <-  b :- a in [3].  (<string>:1)
    a in [3]: window [0, 3], witness
      a at 1  <-  a at T :- p(V) at T in [3], V > 1.  [T=1, V=5]  (<string>:1)
        p(5) at 1 in [3]: window [0, 3], pinned at 1
          p(5) arrived at t=1
        5 > 1: true""",
    ),
    (
        "at-head-past-atom",
        "a at T :- p(V) at T in [3], V > 1. b :- a in [3].",
        [(0, []), (1, ["p(5)"]), (2, []), (3, [])],
        3,
        "a at 1",
        False,
        1,
        """\
why a at 1: t=3 c=1, answer stream 1 of 1
  a at 1  <-  a at T :- p(V) at T in [3], V > 1.  [T=1, V=5]  (<string>:1)
    p(5) at 1 in [3]: window [0, 3], pinned at 1
      p(5) arrived at t=1
    5 > 1: true""",
    ),
    (
        "negation",
        "a(X) :- p(X), not b(X). b(X) :- q(X) in [1].",
        [(0, ["q(1)"]), (1, ["p(1)", "p(2)"])],
        1,
        "a(2)",
        False,
        1,
        """\
why a(2): t=1 c=3, answer stream 1 of 1
  a(2) at 1  <-  a(X) :- p(X), not b(X).  [X=2]  (<string>:1)
    p(2) arrived at t=1
    not b(2): b(2) does not hold at t=1
      b(2) does not hold at 1
        b(X) :- q(X) in [1].  [X=2]  (<string>:1)
          fails at q(2) in [1]: no q(2) in the window [0, 1]""",
    ),
    (
        "negation-why-not",
        "a(X) :- p(X), not b(X). b(X) :- q(X) in [1].",
        [(0, ["q(1)"]), (1, ["p(1)", "p(2)"])],
        1,
        "a(1)",
        True,
        1,
        """\
why-not a(1): t=1 c=3, answer stream 1 of 1
  a(1) does not hold at 1
    a(X) :- p(X), not b(X).  [X=1]  (<string>:1)
      fails at not b(1): b(1) holds
        b(1) holds at 1 (derived)""",
    ),
    (
        "recursion",
        "r(X,Y) :- e(X,Y) in [5]. r(X,Z) :- r(X,Y), e(Y,Z) in [5].",
        [(0, ["e(1,2)"]), (1, ["e(2,3)"])],
        1,
        "r(1,3)",
        False,
        1,
        """\
why r(1,3): t=1 c=2, answer stream 1 of 1
  r(1,3) at 1  <-  r(X,Z) :- r(X,Y), e(Y,Z) in [5].  [X=1, Y=2, Z=3]  (<string>:1)
    r(1,2) at 1  <-  r(X,Y) :- e(X,Y) in [5].  [X=1, Y=2]  (<string>:1)
      e(1,2) in [5]: window [0, 1], witness
        e(1,2) arrived at t=0
    e(2,3) in [5]: window [0, 1], witness
      e(2,3) arrived at t=1""",
    ),
    (
        "two-answer-streams-1",
        "a :- not b, p in [2]. b :- not a.",
        [(0, ["p"])],
        0,
        "a",
        False,
        1,
        """\
why a: t=0 c=1, answer stream 1 of 2
  a at 0  <-  a :- not b, p in [2].  (<string>:1)
    not b: b does not hold at t=0
      b at 0: false by the choice of this answer stream (on a cycle through negation)
    p in [2]: window [0, 0], witness
      p arrived at t=0
  assuming (the choice of this answer stream): not b at 0""",
    ),
    (
        "two-answer-streams-2",
        "a :- not b, p in [2]. b :- not a.",
        [(0, ["p"])],
        0,
        "b",
        False,
        2,
        """\
why b: t=0 c=1, answer stream 2 of 2
  b at 0  <-  b :- not a.  (<string>:1)
    not a: a does not hold at t=0
      a at 0: false by the choice of this answer stream (on a cycle through negation)
  assuming (the choice of this answer stream): not a at 0""",
    ),
    (
        "no-rule",
        "a :- p. ",
        [(0, [])],
        0,
        "p",
        True,
        1,
        """\
why-not p: t=0 c=0, answer stream 1 of 1
  p does not hold at 0: no rule derives p and no stream atom has it""",
    ),
]


@pytest.mark.parametrize("engine", ["clingo", "incremental", "incremental-pure", "native"])
@pytest.mark.parametrize("name, program, stream, t, atom, why_not, model, expected", CASES, ids=[c[0] for c in CASES])
def test_explanation_text(name, program, stream, t, atom, why_not, model, expected, engine):
    if engine not in engines_for(program):
        pytest.skip(f"{engine} cannot run this program")
    reasoner = Reasoner(program, engine=engine, models=0)
    for result in reasoner.feed(records_from(stream)):  # noqa: B007 - the last result is read below
        pass
    e = reasoner.explain(t, atom, model=model, why_not=why_not)
    assert str(e) == expected
    check_explanation(e, program, stream, printed_order(result.models)[model - 1])


@pytest.mark.parametrize(
    "program, stream, notes",
    [
        ("a :- not a, p.", [(0, ["p"])], ["undecided atoms: a at 0", "'a' depends negatively on 'a' through a cycle"]),
        ("a :- p. :- a.", [(0, ["p"])], ["<string>:1:9-14: the constraint ':- a.' is violated in every candidate"]),
        (  # a 2-way choice (an even cycle) whose constraints fail: the constraints are named, no odd cycle
            "a :- not b, p. b :- not a, p.\n:- a.\n:- b.",
            [(0, ["p"])],
            [
                "2 choices among them are stable, and constraints rule out every one",
                "<string>:2:1-6: the constraint ':- a.' fails in 1 of them (e.g. choosing a at 0)",
                "<string>:3:1-6: the constraint ':- b.' fails in 1 of them (e.g. choosing b at 0)",
            ],
        ),
        (
            "a(X) :- not b(X), p(X). b(X) :- not a(X), p(X).\n:- a(X), q(X).\n:- b(X).",
            [(0, ["p(1)", "q(1)"])],
            [
                "<string>:2:1-15: the constraint ':- a(X), q(X).' fails in 1 of them (e.g. choosing a(1) at 0 with X=1)",
                "<string>:3:1-9: the constraint ':- b(X).' fails in 1 of them (e.g. choosing b(1) at 0 with X=1)",
            ],
        ),
    ],
)
def test_no_answer_stream_says_why(program, stream, notes):
    reasoner = Reasoner(program, engine="clingo", models=0)
    for _ in reasoner.feed(records_from(stream)):
        pass
    with pytest.raises(UsageError) as err:
        reasoner.explain(0, "a(1)" if "a(X)" in program else "a")
    text = str(err.value)
    assert "no answer stream at t=0" in text
    for note in notes:
        assert note in text
    assert ("odd" in text) == ("not a" in program and "not b" not in program)  # an odd cycle only where it is one


def _reasoner(program="a(X) :- p(X) in [2]. b :- not a(1).", stream=((0, ["p(1)"]), (1, ["p(2)"]))):
    reasoner = Reasoner(program, engine="clingo", models=0)
    for _ in reasoner.feed(records_from(list(stream))):
        pass
    return reasoner


@pytest.mark.parametrize(
    "atom, message",
    [
        ("a(X)", "bad atom 'a(X)'"),
        ("a(1,2)", "'a' has arity 1 in the program, not 2"),
        ("zz(1)", "unknown predicate 'zz/1'"),
        ("a(1) at -1", "time -1 is negative"),
    ],
)
def test_bad_atoms_are_located_errors(atom, message):
    with pytest.raises(UsageError) as err:
        _reasoner().explain(1, atom)
    assert message in str(err.value)
    assert str(err.value).startswith("<atom>:1:")


def test_bad_model_time_and_question():
    r = _reasoner()
    with pytest.raises(UsageError, match="answer stream 2 is out of range: there is 1 answer stream"):
        r.explain(1, "a(1)", model=2)
    with pytest.raises(UsageError, match="cannot explain time 0: the latest evaluated time is 1"):
        r.explain(0, "a(1)")
    with pytest.raises(UsageError, match="b does not hold at t=1 in answer stream 1"):
        r.explain(1, "b")
    with pytest.raises(UsageError, match="a\\(1\\) holds at t=1 in answer stream 1: ask why"):
        r.explain(1, "a(1)", why_not=True)


def test_json_is_a_node_edge_graph_with_shared_derivations():
    r = _reasoner("a(X) :- p(X) in [2]. c :- a(1), a(2), d. d :- a(1).")
    e = r.explain(1, "c")
    data = e.to_dict()
    assert data["question"] == "why" and data["atom"] == "c" and data["t"] == 1 and data["models"] == 1
    ids = {n["id"] for n in data["nodes"]}
    assert data["root"] in ids and all(e["from"] in ids and e["to"] in ids for e in data["edges"])
    derived = [n for n in data["nodes"] if n["kind"] == "derived"]
    assert sorted(n["atom"] for n in derived) == ["a(1)", "a(2)", "c", "d"]  # a(1) once, used twice
    a1 = next(n for n in derived if n["atom"] == "a(1)")
    assert a1["binding"] == {"X": "1"} and a1["time"] == 1
    assert sum(1 for edge in data["edges"] if edge["to"] == a1["id"]) == 2
    literal = next(n for n in data["nodes"] if n["kind"] == "literal" and n["literal"] == "p(2) in [2]")
    assert literal["span"] == {"lo": 0, "hi": 1} and literal["holds"] is True
    assert "(see above)" in str(e)
    json.loads(e.to_json())


def test_dot_and_markdown():
    e = _reasoner().explain(1, "a(2)")
    dot = e.to_dot()
    assert dot.startswith("digraph explanation {") and dot.rstrip().endswith("}")
    assert dot.count("->") == len(e.to_dict()["edges"])
    md = e._repr_markdown_()
    assert md.startswith("**why a(2): t=1") and "- a(2) at 1" in md


def test_result_explain_equals_reasoner_explain():
    from ticker_py import run

    program, stream = "a(X) :- p(X) in [1]. b :- not a(1).", [(0, ["p(1)"]), (1, []), (2, ["p(2)"])]
    results = run(program, stream, engine="clingo", explainable=True)
    for result in results:
        reasoner = Reasoner(program, engine="clingo")
        for _last in reasoner.feed(records_from(stream), until=result.t):
            pass
        for atom in ("a(1)", "a(2)", "b"):
            why_not = not any(m.atoms and (atom in m.sorted_atoms()) for m in result.models)
            assert str(result.explain(atom, why_not=why_not)) == str(reasoner.explain(result.t, atom, why_not=why_not))
    with pytest.raises(UsageError, match="does not carry its stream"):
        run(program, stream, engine="clingo")[0].explain("a(1)")


def test_cli_explain(tmp_path, capsys):
    from ticker_py.cli import main

    prog = tmp_path / "p.lars"
    prog.write_text("a(X) :- p(X) in [2].\nb :- a(1), not c.\nc :- q always [1].\n")
    stream = tmp_path / "s.stream"
    stream.write_text("0: p(1)\n1: p(2), q\n2: q\n")
    assert main(["explain", str(prog), "--stream", str(stream), "--at", "1", "b"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("why b: t=1 c=3, answer stream 1 of 1\n") and "p(1) arrived at t=0" in out
    assert main(["explain", str(prog), "--stream", str(stream), "--at", "2", "--why-not", "b", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["question"] == "why-not" and data["nodes"][0]["kind"] == "absent"
    assert main(["explain", str(prog), "--stream", str(stream), "--at", "1", "a(2)", "--format", "dot"]) == 0
    assert capsys.readouterr().out.startswith("digraph")
    for args, message in (
        (["--at", "5", "b"], "time 5 is outside the stream"),
        (["--at", "1", "b(X)"], "<atom>:1:3-4: error: bad atom"),
        (["--at", "1", "b", "--model", "3"], "answer stream 3 is out of range"),
        (["--at", "1", "b", "--format", "xml"], "unknown format 'xml'"),
        (["--at", "1", "nope"], "unknown predicate 'nope/0'"),
    ):
        assert main(["explain", str(prog), "--stream", str(stream)] + args) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err


DOC_PROGRAMS = {
    "alarm": (
        "warm :- temp(V) in [3], V > 30.\nsteady :- sensor_ok always [2].\n"
        "alarm at T :- smoke(S) at T in [2 #], S >= 5.\nalert :- warm, steady, alarm in [3], not muted.\n"
        "muted :- mute in [1].\n",
        "0: sensor_ok, temp(25)\n1: sensor_ok, temp(34), smoke(7)\n2: sensor_ok\n3: sensor_ok, temp(28)\n"
        "4: sensor_ok, mute\n",
    ),
    "choice": (
        "sensor(a). sensor(b).\nuse(S) :- sensor(S), not skip(S).\nskip(S) :- sensor(S), not use(S).\n"
        "ok :- use(S), reading(S) in [2].\n:- skip(a), skip(b).\n",
        "0:\n1: reading(b)\n",
    ),
}


@pytest.mark.parametrize(
    "name, args",
    [
        ("alarm", ["--at", "2", "alert"]),
        ("alarm", ["--at", "2", "alarm at 1"]),
        ("alarm", ["--at", "3", "alert", "--why-not"]),
        ("choice", ["--at", "1", "ok", "--model", "1"]),
    ],
)
def test_docs_examples_are_real_output(name, args, tmp_path, capsys, monkeypatch):
    """The worked examples of docs/explain.md are what the command prints."""
    from pathlib import Path

    from ticker_py.cli import main

    program, stream = DOC_PROGRAMS[name]
    (tmp_path / f"{name}.lars").write_text(program)
    (tmp_path / f"{name}.stream").write_text(stream)
    monkeypatch.chdir(tmp_path)
    assert main(["explain", f"{name}.lars", "--stream", f"{name}.stream"] + args) == 0
    out = capsys.readouterr().out
    doc = (Path(__file__).resolve().parent.parent / "docs" / "explain.md").read_text()
    assert out in doc


class LosesAtom:
    """A broken engine stand-in: the clingo engine, but it loses q(c) at time 3."""

    def __init__(self, analysis, options):
        from ticker_py.engines import create_engine

        self.inner = create_engine("clingo", analysis, options)

    def append(self, t, atoms):
        self.inner.append(t, atoms)

    def evaluate(self, t):
        from ticker_py.streams import Model, Result

        res = self.inner.evaluate(t)
        if t != 3:
            return res
        return Result(res.t, res.c, tuple(Model(m.atoms - {("q", "c")}, m.pinned) for m in res.models))


def test_compare_explain_names_the_wrong_side(tmp_path, capsys, monkeypatch):
    from ticker_py import compare
    from ticker_py.cli import main
    from ticker_py.cli.compare import EXIT_DIFFER

    real = compare.default_factory
    monkeypatch.setattr(compare, "default_factory", lambda name: LosesAtom if name == "native" else real(name))
    (tmp_path / "p.lars").write_text("q(X) :- p(X) in [2].\n")
    (tmp_path / "s.stream").write_text("0: p(a)\n3: p(c)\n5:\n")
    code = main(
        [
            "compare",
            str(tmp_path / "p.lars"),
            "--stream",
            str(tmp_path / "s.stream"),
            "--engines",
            "clingo,native",
            "--explain",
        ]
    )
    out = capsys.readouterr().out
    assert code == EXIT_DIFFER
    assert "t=3 c=2: clingo vs native, explained" in out
    assert "  q(c): clingo has it\n    why q(c): t=3 c=2, answer stream 1 of 1\n" in out
    assert "      p(c) arrived at t=3" in out
    assert (
        "  q(c): native lacks it\n    cannot be explained: the body of q(X) :- p(X) in [2]. [X=c] holds"
        " but q(c) at 3 is not in the answer stream"
    ) in out


def test_explain_differences_with_no_answer_stream_on_one_side():
    from ticker_py.api import load_program
    from ticker_py.explain.differences import explain_differences
    from ticker_py.streams import Model

    analysis = load_program("a(X) :- p(X) in [1].")
    text = explain_differences(
        analysis, [(0, 1, ("p", 1))], 0, 1, {"clingo": (Model(frozenset({("a", 1)})),), "other": ()}
    )
    assert text.startswith("other has no answer stream; clingo has answer stream 1:\n  a(1): clingo has it\n")
    assert "p(1) arrived at t=0" in text


def test_explain_at_with_models_counts_among_those_found():
    from ticker_py.api import explain_at

    program, _ = DOC_PROGRAMS["choice"]
    stream = [(0, []), (1, ["reading(b)"])]
    every = explain_at(program, stream, 1, "ok", model=2)
    assert str(every).startswith("why ok: t=1 c=1, answer stream 2 of 3\n")
    first = explain_at(program, stream, 1, "ok", model=1, models=1)
    assert first.title.endswith("answer stream 1 of 1 found") and first.to_dict()["all_models"] is False
    with pytest.raises(UsageError, match="answer stream 2 is out of range"):
        explain_at(program, stream, 1, "ok", model=2, models=1)


# ---------------------------------------------------------------- IRIs in ATOM and in the output

IRI_PROGRAM = "@prefix s: <http://ex.org/s#> .\nhot(S) :- triple(S, s:temp, V) in [2], V > 30.\n"
IRI_STREAM = '0: <http://ex.org/s#t1> <http://ex.org/s#temp> "35"^^<http://www.w3.org/2001/XMLSchema#integer> .\n'


@pytest.mark.parametrize("atom", ["hot(s:t1)", "hot(<http://ex.org/s#t1>)", 'hot(iri("http://ex.org/s#t1"))'])
def test_explain_reads_and_prints_iris_as_the_program_writes_them(capsys, tmp_path, atom):
    from ticker_py.cli import main

    prog, stream = tmp_path / "p.lars", tmp_path / "s.nt"
    prog.write_text(IRI_PROGRAM)
    stream.write_text(IRI_STREAM)
    assert main(["explain", str(prog), "--stream", str(stream), "--at", "0", atom]) == 0
    out = capsys.readouterr().out
    assert out.startswith("why hot(s:t1): t=0 c=1") and 'iri("' not in out
    assert "triple(s:t1,s:temp,35) arrived at t=0" in out and "[S=s:t1, V=35]" in out
    assert main(["explain", str(prog), "--stream", str(stream), "--at", "0", "hot(s:t2)", "--why-not"]) == 0
    out = capsys.readouterr().out
    assert "hot(s:t2) does not hold at 0" in out and "[S=s:t2]" in out and 'iri("' not in out


def test_explain_refuses_an_unknown_prefix_located(capsys, tmp_path):
    from ticker_py.cli import main

    prog, stream = tmp_path / "p.lars", tmp_path / "s.nt"
    prog.write_text(IRI_PROGRAM)
    stream.write_text(IRI_STREAM)
    assert main(["explain", str(prog), "--stream", str(stream), "--at", "0", "hot(x:t1)"]) == 2
    assert "error: bad atom 'hot(x:t1)'" in capsys.readouterr().err


def test_no_answer_diagnosis_reads_windows_under_the_profile():
    """Under lars the timeline starts at the first record (t=5): ``p always [2]`` holds on the clipped
    window, so the constraint fails in every candidate; read with origin 0 it seemed not to."""
    reasoner = Reasoner(":- p always [2].", semantics="lars")
    reasoner.append(5, ["p"])
    assert reasoner.evaluate(5).models == ()
    with pytest.raises(UsageError) as info:
        reasoner.explain(5, "p")
    assert "the constraint ':- p always [2].' is violated in every candidate" in str(info.value)
