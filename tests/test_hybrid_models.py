"""Reading clingo's models, and the incremental engine's fast enumeration path.

Every engine that solves with clingo reads its models with one reader (``ModelReader``). The
incremental engine's fast path gives exactly the answer streams of the slow one: U's answers are
joined with the shared lower part only when read (``MappedModels``) and reused per facts text. The
slow path (nothing reused) and the static engine are the references.
"""

import copy
import io
import pickle

import clingo
import pytest
from helpers import scaled
from hypothesis import HealthCheck, given, settings
from strategies import programs_and_streams

from ticker_py.api import load_program
from ticker_py.compare import answer_set
from ticker_py.engines import EngineOptions, create_engine, hybrid
from ticker_py.engines.clingo_engine import ClingoEngine, ModelReader
from ticker_py.stages.output import open_writer
from ticker_py.streams.factorized import MappedModels
from ticker_py.streams.model import Model, Result
from ticker_py.syntax import parse_ground_atom
from ticker_py.workloads import generate, program


def test_the_reader_turns_shown_symbols_into_atoms():
    """Atoms at t, pins elsewhere (a time past clingo's integers too), input atoms with show=all,
    a symbol pinned to a non-integer time dropped."""
    analysis = load_program("q(X) :- p(X).")
    shown = [
        clingo.parse_term(s) for s in ["q(1,3)", "q(a,x)", "q(f(b),2)", 'q("s",_int("99999999999999999999"))', "p(7,3)"]
    ]
    pins = frozenset({(("q", ("f", "b")), 2), (("q", '"s"'), 99999999999999999999)})
    assert ModelReader(analysis, "derived").read(shown, 3) == Model(frozenset({("q", 1)}), pins)
    assert ModelReader(analysis, "all").read(shown, 3) == Model(frozenset({("q", 1), ("p", 7)}), pins)
    # pinned to slots (the pure incremental encoding): slot 0 holds time 3, slot 1 time 1, slot 2 none
    slots = [clingo.parse_term(s) for s in ["q(1,_now)", "q(2,0)", "q(3,1)", "q(4,2)"]]
    assert ModelReader(analysis, "derived").read(slots, 3, [3, 1, None]) == Model(
        frozenset({("q", 1), ("q", 2)}), frozenset({(("q", 3), 1)})
    )


def test_the_reader_converts_a_symbol_once_and_keeps_memory_flat(monkeypatch):
    converted = []
    convert = ModelReader._convert
    monkeypatch.setattr(ModelReader, "_convert", lambda self, sym: converted.append(sym) or convert(self, sym))
    reader = ModelReader(load_program("q(X) :- p(X)."), "derived")
    shown = [clingo.Function("q", [clingo.Number(i), clingo.Number(0)]) for i in range(5)]
    for _ in range(3):
        assert [atom for atom, _, _ in map(reader.convert, shown)] == [("q", i) for i in range(5)]
    assert converted == shown
    for i in range(10 * ModelReader.CACHED):  # ever new symbols, and the first five again and again
        list(map(reader.convert, [clingo.Function("q", [clingo.Number(i), clingo.Number(1)]), *shown]))
        assert reader.convert.cache_info().currsize <= ModelReader.CACHED
    assert converted[:5] == shown and len(converted) == 5 + 10 * ModelReader.CACHED


def test_mapped_models_behave_as_their_tuple():
    answers = [frozenset({("a",)}), frozenset({("b",)}), frozenset()]
    lazy = MappedModels(answers, Model)
    whole = tuple(map(Model, answers))
    assert lazy == whole and whole == lazy and list(lazy) == list(whole)
    assert len(lazy) == 3 and lazy[1] == Model(frozenset({("b",)})) and lazy[-1] == Model(frozenset())
    assert lazy[:2] == whole[:2] and lazy + () == whole and () + lazy == whole
    assert hash(lazy) == hash(whole) and Result(0, 1, lazy) == Result(0, 1, whole)
    assert MappedModels([], Model) == () and not MappedModels([], Model)
    assert lazy != whole[:2] and lazy != (Model(frozenset()),) * 3
    assert pickle.loads(pickle.dumps(lazy)) == whole and copy.deepcopy(Result(0, 1, lazy)).models == whole


def _ticks(prog, stream, models, monkeypatch):
    """Per tick: the results of the fast path, of the slow path (no answer reused) and of the
    static engine."""
    analysis = load_program(prog)
    ref = ClingoEngine(analysis, EngineOptions(models=0))
    fast, slow = (create_engine("incremental", analysis, EngineOptions(models=models)) for _ in range(2))
    for t, batch in stream:
        batch = [parse_ground_atom(a) if isinstance(a, str) else a for a in batch]
        for engine in (ref, fast, slow):
            engine.append(t, batch)
        got = fast.evaluate(t)
        with monkeypatch.context() as m:
            m.setattr(hybrid, "KEPT_SYMBOLS", -1)
            want = slow.evaluate(t)
        yield got, want, ref.evaluate(t)


def _same(prog, stream, monkeypatch, models=0) -> int:
    """Assert the fast path equals the slow one and the static engine; the most answer streams
    at a tick (read through :class:`MappedModels`, where more than one)."""
    n = 0
    for got, want, ref in _ticks(prog, stream, models, monkeypatch):
        assert isinstance(got.models, MappedModels) == (len(got.models) > 1 and models != 1)
        assert got == want  # the same answer streams in the same order (t, c, models, changes)
        assert tuple(got.models) == tuple(want.models)
        if models == 0:
            assert answer_set(got.models) == answer_set(ref.models), f"t={ref.t}"
        else:
            assert len(got.models) == min(models, len(ref.models))
        n = max(n, len(got.models))
    return n


@pytest.mark.parametrize("name", ["b1", "b2"])
def test_scenario_b_fast_path_is_the_slow_one(name, monkeypatch):
    n, tp = (4, scaled(40, 14)) if name == "b2" else (20, 60)
    most = _same(program(name, window=n), list(generate(name, seed=5, tp=tp, window=n)), monkeypatch)
    assert most >= 4  # several answer streams at some tick: the lazy sequence was used


@pytest.mark.parametrize("models", [1, 2])
def test_scenario_b_some_models(models, monkeypatch):
    _same(program("b1", window=20), list(generate("b1", seed=5, tp=60, window=20)), monkeypatch, models=models)


@settings(max_examples=scaled(600, 60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=programs_and_streams())
def test_random_programs_fast_path_is_the_slow_one(case):
    prog, stream = case
    with pytest.MonkeyPatch.context() as monkeypatch:
        _same(prog, stream, monkeypatch)


@pytest.mark.parametrize("fmt", ["jsonl", "text", "csv"])
def test_writers_print_lazy_models_as_their_tuple(fmt, monkeypatch):
    prog, stream = program("b1", window=20), list(generate("b1", seed=5, tp=60, window=20))
    printed = {}
    for kind in ("lazy", "tuple"):
        out = io.StringIO()
        writer = open_writer(fmt, out, show_at=True)
        lazy = 0
        for got, _, _ in _ticks(prog, stream, 0, monkeypatch):
            lazy += isinstance(got.models, MappedModels)
            if kind == "tuple":
                got = Result(got.t, got.c, tuple(got.models), got.changes)
            writer.write(got)
        printed[kind] = out.getvalue()
        assert lazy
    assert printed["lazy"] == printed["tuple"] and printed["lazy"].count("\n") > 30
