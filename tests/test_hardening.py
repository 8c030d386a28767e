"""Issue 12 regressions outside the behaviour suite: engine choice, writers, values, limits."""

from __future__ import annotations

import dataclasses
import io
import json

import pytest

from ticker_py import Reasoner
from ticker_py.api import load_program, records_from
from ticker_py.engines import create_engine, unsupported_reasons
from ticker_py.streams import make_writer


def test_interval_in_a_rule_is_not_native():
    analysis = load_program("n(1..2) :- b.\nm(X) :- b, X = 1..3.\nk(1..3).")
    assert analysis.engines == ("incremental", "clingo")
    assert [str(r) for r in analysis.interval_rules] == ["n(1..2) :- b.", "m(X) :- b, X = 1..3."]
    assert any("interval in rule 'n(1..2) :- b.'" in reason for reason in unsupported_reasons(analysis))
    assert load_program("k(1..3). n(X) :- k(X).").engines[0] == "native"


def test_auto_falls_back_when_native_refuses():
    # an analysis that (wrongly) lists native: the native engine refuses the rule when created,
    # and auto takes the next engine instead of failing
    analysis = dataclasses.replace(load_program("n(1..2) :- b."), interval_rules=())
    assert analysis.engines[0] == "native"
    engine = create_engine("auto", analysis)
    assert engine.name == "incremental"
    engine.append(0, [("b",)])
    assert engine.evaluate(0).models[0].atoms == {("n", 1), ("n", 2)}


@pytest.mark.parametrize("fmt", ["jsonl", "text", "csv"])
def test_whole_model_writers_take_changes_only_results(fmt):
    # an engine created with changes_only reports Result.changes only; every writer prints it
    stream = [(0, ["q"]), (1, ["p", "q"]), (2, [])]
    program = "b :- q.\nc :- q in [1].\nd(T) :- p at T."
    outputs = []
    for changes_only in (True, False):
        out = io.StringIO()
        writer = make_writer(fmt, out)
        for result in Reasoner(program, engine="native", changes_only=changes_only).feed(records_from(stream)):
            writer.write(result)
        outputs.append(out.getvalue())
    assert outputs[0] == outputs[1]
    if fmt == "jsonl":
        assert [json.loads(line)["models"] for line in outputs[0].splitlines()] == \
            [[["b", "c"]], [["b", "c", "d(1)"]], [["c", "d(1)"]]]
