"""Property: the clingo engine (static encoding) equals the brute-force reference evaluator
written straight from the LARS definitions, at every tick, on random programs and streams."""

from __future__ import annotations

import pytest
from helpers import scaled
from hypothesis import given, settings
from reference import reference_results
from strategies import programs_and_streams

from ticker_py import run
from ticker_py.api import load_program
from ticker_py.engines import ENGINE_NAMES
from ticker_py.syntax import parse_program


def answer_sets(results):
    return [(r.t, r.c, {(m.atoms, m.pinned) for m in r.models}) for r in results]


def check(program, stream, every):
    expected = reference_results(parse_program(program), stream, every=every)
    got = run(program, stream, engine="clingo", models=0, every=every)
    assert answer_sets(got) == answer_sets(expected), program


@settings(max_examples=200)
@given(programs_and_streams())
def test_clingo_equals_reference(case):
    check(*case, every="time")


@settings(max_examples=60)
@given(programs_and_streams())
def test_clingo_equals_reference_push_mode(case):
    check(*case, every="signal")


@pytest.mark.slow
@settings(max_examples=scaled(3000, 100))
@given(programs_and_streams())
def test_clingo_equals_reference_many(case):
    check(*case, every="time")


@settings(max_examples=scaled(1000, 80), deadline=None)
@given(programs_and_streams(mixed=True))
def test_every_engine_equals_reference_with_mixed_arities(case):
    """Names used with two arities (p/0 and p/1 are two predicates): every engine that runs the
    program gives the reference's answer streams."""
    program, stream = case
    expected = answer_sets(reference_results(parse_program(program), stream, every="time"))
    engines = load_program(program).engines
    for engine in ENGINE_NAMES:
        if engine.split("-")[0] in engines:
            assert answer_sets(run(program, stream, engine=engine, models=0)) == expected, (engine, program)
