"""Issue 12 regressions outside the behaviour suite: engine choice, writers, values, limits."""

from __future__ import annotations

import dataclasses
import io
import json

import pytest

from ticker_py import Reasoner
from ticker_py.api import load_program, records_from
from ticker_py.engines import create_engine, unsupported_reasons
from ticker_py.stages.output import open_writer


def test_interval_in_a_rule_is_not_native():
    analysis = load_program("n(1..2) :- b.\nm(X) :- b, X = 1..3.\nk(1..3).")
    assert analysis.engines == ("incremental", "incremental-pure", "clingo")
    assert [str(r) for r in analysis.interval_rules] == ["n(1..2) :- b.", "m(X) :- b, X = 1..3."]
    assert any("interval in rule 'n(1..2) :- b.'" in reason for reason in unsupported_reasons(analysis))
    assert load_program("k(1..3). n(X) :- k(X).").engines[0] == "native"


def test_auto_falls_back_when_native_refuses():
    # an analysis that (wrongly) lists native: the native engine refuses the rule when created,
    # and auto takes the next engine instead of failing
    analysis = dataclasses.replace(load_program("n(1..2) :- b."), interval_rules=())
    assert analysis.engines[0] == "native"
    engine = create_engine("auto", analysis)
    assert engine.name == "incremental-pure"  # the default engine's lower part is native too
    engine.append(0, [("b",)])
    assert engine.evaluate(0).models[0].atoms == {("n", 1), ("n", 2)}


@pytest.mark.parametrize("fmt", ["jsonl", "text", "csv"])
def test_whole_model_writers_take_changes_only_results(fmt):
    # the output stage has the engine report Result.changes only; every writer prints it as a whole
    from ticker_py.spec import RunSpec
    from ticker_py.stages.output import Output

    stream = [(0, ["q"]), (1, ["p", "q"]), (2, [])]
    program = "b :- q.\nc :- q in [1].\nd(T) :- p at T."
    spec = RunSpec(engine="native", format=fmt)
    output = Output(spec, load_program(program)).open(io.StringIO())
    assert output.changes_only
    for result in Reasoner(program, spec=spec, output=output).feed(stream):
        assert result.models is None and result.changes is not None
        output.write(result)
    whole = io.StringIO()
    writer = open_writer(fmt, whole)
    for result in Reasoner(program, engine="native").feed(records_from(stream)):
        writer.write(result)
    outputs = [output.sink.getvalue(), whole.getvalue()]
    assert outputs[0] == outputs[1]
    if fmt == "jsonl":
        assert [json.loads(line)["models"] for line in outputs[0].splitlines()] == [
            [["b", "c"]],
            [["b", "c", "d(1)"]],
            [["c", "d(1)"]],
        ]


# ---------------------------------------------------------------- syntax: keywords, '_', escapes, limits

from ticker_py.errors import ProgramError  # noqa: E402
from ticker_py.limits import MAX_FACT_ATOMS, MAX_TERM_DEPTH  # noqa: E402
from ticker_py.syntax import parse_ground_atom, parse_program  # noqa: E402
from ticker_py.syntax.ground_atoms import GroundSyntaxError  # noqa: E402


def _error(source) -> str:
    with pytest.raises(ProgramError) as err:
        load_program(source)
    return str(err.value)


@pytest.mark.parametrize(
    "source, where",
    [
        ("b :- in [3].", "1:6-8"),
        ("in :- b.", "1:1-3"),
        ("at(1) :- b.", "1:1-3"),
        ("q :- always.", "1:6-12"),
        ("q(not) :- b.", "1:3-6"),
        ("q :- p(f(at)).", "1:10-12"),
    ],
)
def test_keywords_are_no_names(source, where):
    text = _error(source)
    assert f"<string>:{where}: error: syntax error" in text and "is a keyword" in text


@pytest.mark.parametrize("atom", ["not", "p(not)", "p(a,f(in))", "p(at)", "always(1)"])
def test_keywords_are_no_stream_constants(atom):
    with pytest.raises(GroundSyntaxError, match="is a keyword"):
        parse_ground_atom(atom)


def test_names_that_start_with_a_keyword_are_names():
    assert str(parse_program("input(notice) :- atom, always1, in_.")) == "input(notice) :- atom, always1, in_.\n"
    assert parse_ground_atom("p(input,at_1)") == ("p", "input", "at_1")


def test_anonymous_variable_is_fresh_per_occurrence():
    prog = parse_program("q(X) :- p(X,_), r(_,X).")
    assert str(prog) == "q(X) :- p(X,_Anon1), r(_Anon2,X).\n"
    assert parse_program(str(prog)) == prog
    assert str(parse_program("q(_Anon1) :- p(_Anon1,_).")) == "q(_Anon1) :- p(_Anon1,_Anon2).\n"


@pytest.mark.parametrize(
    "source, where",
    [
        ("p(_).", "head"),
        ("q :- p(X), not r(X,_).", "negated literal"),
        ("q :- p(X), X != _.", "comparison"),
        ("q(_) :- p(_).", "head"),
    ],
)
def test_anonymous_variable_where_it_would_be_unsafe(source, where):
    assert f"error: anonymous variable '_' in a {where}" in _error(source)


@pytest.mark.parametrize("escape", ["\\t", "\\x41", "\\u00e4", "\\a"])
def test_unknown_string_escapes_are_refused_everywhere(escape):
    text = _error(f'q :- p("ab{escape}").')
    assert f"<string>:1:11-13: error: unknown escape '{escape[:2]}'" in text
    with pytest.raises(GroundSyntaxError, match="unknown escape") as err:
        parse_ground_atom(f'p("ab{escape}")')
    assert err.value.column == 5


@pytest.mark.parametrize("engine", ["clingo", "incremental", "native"])
def test_clingo_escapes_are_the_same_on_every_engine(engine):
    from ticker_py import run

    results = run(
        'q(X) :- p(X), X != "a\\"b".\nr("x\\\\y\\nz") :- p(_).', [(0, ['p("a\\"b")', 'p("c\\\\d\\ne")'])], engine=engine
    )
    assert results[0].models[0].sorted_atoms() == ['q("c\\\\d\\ne")', 'r("x\\\\y\\nz")']


def _nested(depth: int) -> str:
    return "f(" * depth + "1" + ")" * depth


def test_term_depth_limit_in_programs():
    parse_program(f"q :- p({_nested(MAX_TERM_DEPTH)}).")
    text = _error(f"q :- p({_nested(MAX_TERM_DEPTH + 1)}).")
    assert (
        f"<string>:1:{8 + 2 * MAX_TERM_DEPTH}-" in text
        and f"term nested more than {MAX_TERM_DEPTH} levels deep" in text
    )
    assert "levels deep" in _error("q :- p(" + "(" * 1000 + "1" + ")" * 1000 + ").")
    assert "levels deep" in _error("q :- p(" + "+".join(["1"] * 5000) + ").")
    assert "levels deep" in _error("q :- p(" + "-" * 5000 + "1).")


def test_term_depth_limit_in_stream_atoms():
    assert parse_ground_atom(f"p({_nested(MAX_TERM_DEPTH)})")[0] == "p"
    for depth in (MAX_TERM_DEPTH + 1, 10_000):
        with pytest.raises(GroundSyntaxError, match="levels deep"):
            parse_ground_atom(f"p({_nested(depth)})")


def test_fact_instance_limit():
    for source in ("p(1..50000000).", "p(1..1001,1..1000).", "p(f(1..2000000)).", "p((1..1001)*(1..1000))."):
        assert f"more than {MAX_FACT_ATOMS:,} instances" in _error(source)
    assert len(load_program("p(1..1000,1..1000).").background) == MAX_FACT_ATOMS


# ---------------------------------------------------------------- ticker compare --changes


def test_compare_compares_changes_lines():
    from ticker_py.compare import compare_engines, default_factory, format_comparison
    from ticker_py.streams import Result

    analysis = load_program("a :- not a, p.\nb :- q.")
    stream = [(0, ["q"]), (1, []), (2, ["p", "q"]), (3, ["q"])]

    class ForgetsRemovals:
        """A stand-in engine that reports changes without the removals (the old incremental bug)."""

        name = "forgetful"

        def __init__(self, analysis, options):
            self.inner = create_engine("incremental", analysis, options)

        def append(self, t, atoms):
            self.inner.append(t, atoms)

        def evaluate(self, t):
            r = self.inner.evaluate(t)
            return Result(r.t, r.c, r.models, None if r.changes is None else (r.changes[0], frozenset()))

    engines = {"clingo": default_factory("clingo"), "incremental": default_factory("incremental")}
    assert compare_engines(analysis, stream, engines, changes=True).agree
    cmp = compare_engines(analysis, stream, {**engines, "forgetful": ForgetsRemovals}, changes=True)
    assert [t.t for t in cmp.differing] == [1, 2]  # at 2 its state still holds b
    report = format_comparison(cmp)
    assert 'changes of clingo: {"t": 1, "c": 1, "added": [], "removed": ["b"]}' in report
    assert 'changes of forgetful: {"t": 1, "c": 1, "added": [], "removed": []}' in report


@pytest.mark.parametrize("engine", ["clingo", "incremental", "incremental-pure", "native"])
def test_the_largest_clingo_time_point_is_evaluated(engine):
    """At t = 2^31 - 1 the static encoding's time range must not reach clingo as an interval ending
    at the largest 32-bit integer: clingo's interval loop never ends there (found by the API fuzz)."""
    program = "q(X) :- p(X) in [2].\nr :- a, not q(1).\n"
    t = 2**31 - 1
    reasoner = Reasoner(program, engine=engine)
    reasoner.append(t - 1, ["p(1)"])
    reasoner.append(t, ["a"])
    result = reasoner.evaluate(t)
    assert result.t == t
    assert [sorted(m.atoms) for m in result.models] == [[("q", 1)]]


@pytest.mark.parametrize("lo, hi", [(5, 9), (7, 7), (2**31 - 4, 2**31 - 1), (2**31 - 1, 2**31 - 1)])
def test_time_facts_ground_to_the_whole_range(lo, hi):
    import clingo

    from ticker_py.encode.asp import time_facts

    ctl = clingo.Control()
    ctl.add("base", [], time_facts(lo, hi))
    ctl.ground([("base", [])])
    got = {s.symbol.arguments[0].number for s in ctl.symbolic_atoms.by_signature("_time", 1)}
    assert got == set(range(lo, hi + 1))
