"""The incremental engine's fast enumeration path gives exactly the answer streams of the slow one.

U's models are read through clingo's C layer (``clingo_c.answers``, an accelerator) as compact symbol
bytes, large answers are kept compact and joined with the shared lower part only when read
(``MappedModels``), and answers are reused per facts text. The slow path (the public
``Model.symbols`` API, every answer converted at once, nothing reused) and the static engine are
the references.
"""

import copy
import io
import pickle

import clingo
import pytest
from helpers import scaled
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import programs_and_streams

from ticker_py.api import load_program
from ticker_py.compare import answer_set
from ticker_py.engines import EngineOptions, clingo_c, create_engine, hybrid
from ticker_py.engines.clingo_engine import ClingoEngine
from ticker_py.streams import open_writer
from ticker_py.streams.factorized import MappedModels
from ticker_py.streams.model import Model, Result
from ticker_py.syntax import parse_ground_atom
from ticker_py.workloads import generate, program

pytestmark = pytest.mark.skipif(not clingo_c.C_LAYER, reason="accelerators off, or a clingo without the C layer")


def _public_models(ctl):
    with ctl.solve(yield_=True) as handle:
        return [[str(s) for s in m.symbols(shown=True)] for m in handle]


def _answers(text: str, models: int, c_layer: bool, convert_up_to: int) -> list:
    """Every model of ``text`` read by ``clingo_c.answers`` (as symbol texts), on either path."""
    ctl = clingo.Control([f"--models={models}"])
    ctl.add("base", [], text)
    ctl.ground([("base", [])])
    cache = {}
    with pytest.MonkeyPatch.context() as m:
        m.setattr(clingo_c, "C_LAYER", c_layer)
        found, size = clingo_c.answers(ctl, cache, str, convert_up_to)
    read = [clingo_c.items(a, cache, str) for a in found]
    assert size == sum(map(len, read))
    return read


@pytest.mark.parametrize("models", [0, 1, 3])
@pytest.mark.parametrize(
    "text",
    [
        '{a(1;-2;"s\\"q\\n";f(x,(1,y));-3000000000)}. b(()). c. #show a/1. #show b/1. #show c/0.',
        "{p(1..9)}. :- p(1), p(2). q(X) :- p(X), X > 4. #show q/1. #show p/1.",
        "a. :- a.",  # no model
        "#show x/0.",  # one empty model
    ],
)
def test_raw_models_are_the_public_models(text, models):
    def control():
        ctl = clingo.Control([f"--models={models}"])
        ctl.add("base", [], text)
        ctl.ground([("base", [])])
        return ctl

    public = _public_models(control())
    for convert_up_to in (0, 10**6):  # kept compact, converted at once
        # the same models, symbols in the same order
        assert _answers(text, models, True, convert_up_to) == _answers(text, models, False, convert_up_to) == public


def test_compact_answers_grow_their_buffer():
    ctl = clingo.Control(["--models=0"])
    ctl.add("base", [], "{a(1..600)} = 599. #show a/1.")
    ctl.ground([("base", [])])
    got, size = clingo_c.answers(ctl, {}, str, 0)
    assert len(got) == 600 and all(type(a) is bytes for a in got) and size == 600 * 599
    assert {len(clingo_c.items(a, {}, str)) for a in got} == {599}


#: ground terms clingo can hold, hostile ones included: extreme integers, strings with escapes,
#: quotes, NUL-free control and non-ASCII characters, nested tuples and functions
TERMS = st.recursive(
    st.integers(-(2**31), 2**31 - 1).map(str)
    | st.text(st.characters(blacklist_characters="\0", blacklist_categories=("Cs",)), max_size=6).map(
        lambda s: '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    )
    | st.sampled_from(["a", "b_1", "c'", "()", "#inf", "#sup"]),
    lambda inner: (
        st.lists(inner, min_size=1, max_size=3).map(lambda xs: f"f({','.join(xs)})")
        | st.lists(inner, min_size=2, max_size=3).map(lambda xs: f"({','.join(xs)})")
    ),
    max_leaves=6,
)


@settings(max_examples=scaled(2000, 100), deadline=None)
@given(st.lists(TERMS, min_size=1, max_size=6), st.integers(0, 3), st.integers(0, 8))
def test_compact_answers_are_the_public_ones_on_any_symbols(terms, models, convert_up_to):
    """Random ground symbols (choices of ``p(T)`` and ``q`` of them, shown) read through the C layer
    and through the public API: the same answers, symbols in the same order."""
    text = "{" + "; ".join(f"p({t})" for t in terms) + "}. q(X) :- p(X). #show p/1. #show q/1."
    assert _answers(text, models, True, convert_up_to) == _answers(text, models, False, convert_up_to)


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


def _engine(analysis, models, fast, monkeypatch):
    """The incremental engine; ``fast=False``: the slow path (public symbols, no reuse)."""
    with monkeypatch.context() as m:
        if not fast:
            m.setattr(clingo_c, "C_LAYER", False)
            m.setattr(hybrid, "KEPT_SYMBOLS", -1)
        engine = create_engine("incremental", analysis, EngineOptions(models=models))
    return engine


def _ticks(prog, stream, models, monkeypatch, raw_from=0):
    """Per tick: the results of the fast path (answers kept raw from ``raw_from`` symbols on), of
    the slow path and of the static engine."""
    analysis = load_program(prog)
    ref = ClingoEngine(analysis, EngineOptions(models=0))
    fast, slow = _engine(analysis, models, True, monkeypatch), _engine(analysis, models, False, monkeypatch)
    for t, batch in stream:
        batch = [parse_ground_atom(a) if isinstance(a, str) else a for a in batch]
        for engine in (ref, fast, slow):
            engine.append(t, batch)
        with monkeypatch.context() as m:
            m.setattr(hybrid, "CONVERTED_SYMBOLS", raw_from)
            got = fast.evaluate(t)
        with monkeypatch.context() as m:
            m.setattr(clingo_c, "C_LAYER", False)
            m.setattr(hybrid, "KEPT_SYMBOLS", -1)
            want = slow.evaluate(t)
        yield got, want, ref.evaluate(t)


def _same(prog, stream, monkeypatch, models=0, raw_from=0) -> int:
    """Assert the fast path equals the slow one and the static engine; the most answer streams
    at a tick (read through :class:`MappedModels`, where more than one)."""
    n = 0
    for got, want, ref in _ticks(prog, stream, models, monkeypatch, raw_from):
        assert isinstance(got.models, MappedModels) == (len(got.models) > 1 and models != 1)
        assert got == want  # the same answer streams in the same order (t, c, models, changes)
        assert tuple(got.models) == tuple(want.models)
        if models == 0:
            assert answer_set(got.models) == answer_set(ref.models), f"t={ref.t}"
        else:
            assert len(got.models) == min(models, len(ref.models))
        n = max(n, len(got.models))
    return n


@pytest.mark.parametrize("raw_from", [0, 20_000])
@pytest.mark.parametrize("name", ["b1", "b2"])
def test_scenario_b_fast_path_is_the_slow_one(name, raw_from, monkeypatch):
    n, tp = (4, scaled(40, 14)) if name == "b2" else (20, 60)
    most = _same(program(name, window=n), list(generate(name, seed=5, tp=tp, window=n)), monkeypatch, raw_from=raw_from)
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
