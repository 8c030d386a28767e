"""Explanations (why / why not): checked by an independent checker on random programs and streams
over every engine, plus hand-written cases with their expected text."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explain_checker import check_explanation
from helpers import scaled
from strategies import programs_and_streams
from ticker_py import Reasoner
from ticker_py.api import records_from
from ticker_py.errors import UsageError
from ticker_py.ground import format_atom

VALUES = (1, 2, "x", "y")


def printed_order(models):
    return sorted(set(models), key=lambda m: (m.sorted_atoms(), m.sorted_pinned()))


def queries(reasoner, model, t):
    """Every atom of the answer stream (at t and pinned) and some that are not in it."""
    holds = [format_atom(a) for a in model.atoms] + [f"{format_atom(a)} at {u}" for a, u in model.pinned]
    absent = []
    for pred in sorted(reasoner.analysis.intensional):
        arity = reasoner.analysis.signatures[pred]
        for v in VALUES[:2] if arity else (None,):
            atom = (pred,) if v is None else (pred, v)
            if atom not in model.atoms:
                absent.append(format_atom(atom))
        atom = (pred,) if arity == 0 else (pred, 1)
        if (atom, 0) not in model.pinned and t > 0:
            absent.append(f"{format_atom(atom)} at 0")
    return holds, absent


def check_all(program, stream, every, engine):
    reasoner = Reasoner(program, engine=engine, models=0)
    explained = 0
    for result in reasoner.feed(records_from(stream), every=every):
        for k, model in enumerate(printed_order(result.models), 1):
            holds, absent = queries(reasoner, model, result.t)
            for atom in holds:
                e = reasoner.explain(result.t, atom, model=k)
                check_explanation(e, program, stream, model)
                json.dumps(e.to_dict())
                explained += 1
            for atom in absent:
                e = reasoner.explain(result.t, atom, model=k, why_not=True)
                check_explanation(e, program, stream, model)
                explained += 1
    return explained


def engines_for(program):
    return Reasoner(program, engine="clingo").analysis.engines


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
