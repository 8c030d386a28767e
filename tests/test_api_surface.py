"""The Python API as a new user meets it: numpy times, misspelled keywords, errors that name the
API's parameters, readable reprs, ``dir(ticker_py)``, and the CLI's defaults."""

from __future__ import annotations

import numpy as np
import pytest

import ticker_py
from ticker_py import Reasoner, run
from ticker_py.errors import StreamError, UsageError
from ticker_py.streams.model import Model, Result

PROGRAM = "alarm :- temp(V) in [2], V > 100."
CHOICE = "a :- not b, p. b :- not a, p."


@pytest.mark.parametrize("engine", ["clingo", "native"])
def test_numpy_integers_are_times_and_numbers(engine):
    r = Reasoner(PROGRAM, engine=engine)
    r.append(np.int64(0), [("temp", np.int64(120))])
    result = r.evaluate(np.int32(1))
    assert result.t == 1 and type(result.t) is int
    assert result.models == (Model(frozenset({("alarm",)})),)
    assert run(PROGRAM, [(np.int64(0), ["temp(120)"])], engine=engine, until=np.int64(1))[1].models == result.models


class Index:
    """An integral number type that only has ``__index__`` (as some array libraries' scalars)."""

    def __init__(self, n):
        self.n = n

    def __index__(self):
        return self.n


def test_any_integral_type_is_a_time_in_every_entry_point():
    from ticker_py.live import LiveReasoner

    r = Reasoner(PROGRAM, engine="native")
    r.append(Index(0), ["temp(120)"])
    assert r.evaluate(np.uint8(0)).models == (Model(frozenset({("alarm",)})),)
    live = LiveReasoner(PROGRAM, engine="native")
    assert live.push(np.int64(0), ["temp(120)"]) == []
    (result,) = live.push(np.int32(1), [])
    assert type(result.t) is int and result.models == (Model(frozenset({("alarm",)})),)
    assert [r.t for r in live.close_time(np.int64(2))] == [1, 2]
    with pytest.raises(StreamError, match="time must be an integer >= 0, not True"):
        live.push(True, [])
    stream = [(np.int64(0), ["temp(120)"]), (np.int64(3), [])]
    assert len(run(PROGRAM, stream, max_gap=np.int64(3), until=Index(4), models=np.int64(1))) == 5
    with pytest.raises(UsageError, match="max_gap must be an integer >= 0, not True"):
        run(PROGRAM, stream, max_gap=True)


@pytest.mark.parametrize("t", [True, np.bool_(True), 1.0, np.float64(0.0), -1, np.int64(-1)])
def test_bools_floats_and_negatives_are_still_refused_as_times(t):
    with pytest.raises(UsageError, match=r"^error: time must be an integer >= 0"):
        Reasoner(PROGRAM, engine="native").append(t, [])


@pytest.mark.parametrize("value", [True, 1.5, np.float64(1.0)])
def test_bools_and_floats_in_tuple_atoms_are_refused(value):
    with pytest.raises(StreamError, match="bad tuple atom"):
        Reasoner(PROGRAM, engine="native").append(0, [("temp", value)])


def _live():
    from ticker_py.live import LiveReasoner

    return LiveReasoner


def _compare():
    from ticker_py.semantics_compare import compare_semantics

    return compare_semantics


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda: run(PROGRAM, [], model=0), "unknown keyword argument 'model'; did you mean 'models'?"),
        (lambda: run(PROGRAM, [], egine="native"), "unknown keyword argument 'egine'; did you mean 'engine'?"),
        (lambda: Reasoner(PROGRAM, model=0), "unknown keyword argument 'model'; did you mean 'models'?"),
        (lambda: Reasoner(PROGRAM, orign="first"), "unknown keyword argument 'orign'; did you mean 'origin'?"),
        (lambda: Reasoner(PROGRAM, zzz=1), "unknown keyword argument 'zzz'$"),
        (lambda: Reasoner(PROGRAM).feed([], util=3), "unknown keyword argument 'util'; did you mean 'until'?"),
        (lambda: ticker_py.load_program(PROGRAM, clok="1s"), "unknown keyword argument 'clok'; did you mean 'clock'?"),
        (
            lambda: run(PROGRAM, []).to_dataframe(showat=True),
            "unknown keyword argument 'showat'; did you mean 'show_at'?",
        ),
        (lambda: _live()(PROGRAM, egine="native"), "unknown keyword argument 'egine'; did you mean 'engine'?"),
        (
            lambda: _compare()(PROGRAM, [], ["default"], egines=["clingo"]),
            "unknown keyword argument 'egines'; did you mean 'engines'?",
        ),
        (lambda: ticker_py.api.records_from([], fromat="text"), "unknown keyword argument 'fromat'$"),
    ],
)
def test_a_misspelled_keyword_is_named_with_the_closest(call, message):
    with pytest.raises(UsageError) as err:
        call()
    assert err.value.diagnostics[0].message == message.rstrip("$")


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda: Reasoner(PROGRAM, models=-1), "models must be an integer >= 0, not -1"),
        (lambda: Reasoner(PROGRAM, show="some"), "unknown show 'some'"),
        (lambda: run(PROGRAM, [], every="tick"), "unknown every 'tick'"),
        (lambda: run(PROGRAM, [], max_gap=-1), "max_gap must be an integer >= 0, not -1"),
        (lambda: run(PROGRAM, [], until=-1), "until must be an integer >= 0, not -1"),
        (lambda: run(PROGRAM, [], factorize=True, semantics="r4"), "factorize=True runs the default semantics"),
    ],
)
def test_api_errors_name_the_api_parameter(call, message):
    with pytest.raises(UsageError) as err:
        call()
    assert err.value.diagnostics[0].message == message
    assert "--" not in str(err.value)


def _sharded():
    from ticker_py.shard import run_sharded_local

    return run_sharded_local


def _feedback_explained():
    r = Reasoner("q :- p. r :- q in [1].", engine="clingo", persistence="feedback")
    r.append(0, ["p"])
    r.evaluate(0)
    r.evaluate(1)
    return r.explain(1, "r")


@pytest.mark.parametrize(
    "call,named",
    [
        (lambda: run(PROGRAM, [(0, []), (9, [])], max_gap=2), "more than the gap limit 2"),
        (lambda: run(PROGRAM, [(0, [])], max_gap=2, until=9), "until 9 is 9 time points after"),
        (lambda: run("q :- p in [1 ms].", [], clock=7), "one time point lasts 7 ms (clock="),
        (_feedback_explained, "under persistence=feedback"),
        (lambda: list(ticker_py.api.records_from("-", stream_format="rdf-parquet")), "stream format rdf-parquet"),
        (lambda: list(_sharded()("q(X) :- p(X).", [], shards=2, inertia=True, shard_by="key")), "inertia=True"),
    ],
)
def test_errors_the_api_shares_with_the_cli_name_the_api_keyword(call, named):
    """A message on a path both share names the API's keyword (the CLI's option may follow it);
    never the option alone, as in ``more than --max-gap 2``."""
    import re

    with pytest.raises(ticker_py.TickerError) as err:
        call()
    text = str(err.value)
    assert named in text, text
    for option in re.findall(r"--[a-z][a-z-]*", text):  # an option of an API keyword only after it
        keyword = option[2:].replace("-", "_")
        if keyword in _api_keywords():
            assert text.index(keyword) < text.index(option), (keyword, text)


def _api_keywords() -> set:
    import inspect

    from ticker_py.semantics import KNOBS

    functions = (run, Reasoner.__init__, Reasoner.feed, ticker_py.api.explain_at, _sharded())
    return set(KNOBS) | {n for f in functions for n in inspect.signature(f).parameters}


def test_model_repr_shows_atoms_in_clingo_syntax():
    r = Reasoner(PROGRAM, engine="native")
    r.append(0, ["temp(120)"])
    assert repr(r.evaluate(0).models) == "(Model({alarm}),)"
    m = Model(frozenset({("q", '"x y"'), ("p", ("f", 1), "a")}), frozenset({(("r", 2), 5)}))
    assert repr(m) == 'Model({p(f(1),a), q("x y")}, pinned={r(2) at 5})'
    assert repr(Model(frozenset())) == "Model({})"


def test_result_repr_shows_atoms_in_clingo_syntax():
    (first, second) = run("alarm(S) :- temp(S,V) in [0], V > 90.", [(0, ["temp(s1,95)"]), (1, [])], engine="native")
    assert repr(first) == "Result(t=0, c=1, models=(Model({alarm(s1)}),), changes=(added={alarm(s1)}, removed={}))"
    assert repr(second) == "Result(t=1, c=1, models=(Model({}),), changes=(added={}, removed={alarm(s1)}))"
    pinned = Result(3, 4, (Model(frozenset({("q", 1)})),), (frozenset({("q", 1), (("r",), 7)}), frozenset()))
    assert repr(pinned) == "Result(t=3, c=4, models=(Model({q(1)}),), changes=(added={q(1), r at 7}, removed={}))"


def test_dir_lists_the_lazy_names():
    names = dir(ticker_py)
    assert {"Reasoner", "run", "load_program", "Result", "TickerError", "__version__"} <= set(names)


def test_every_package_with_lazy_names_lists_them():
    """A package whose names come from a module ``__getattr__`` has a ``__dir__`` listing all of them."""
    import importlib
    import re
    from pathlib import Path

    root = Path(ticker_py.__file__).parent
    lazy = [p for p in sorted(root.rglob("*.py")) if re.search(r"^def __getattr__\(", p.read_text(), re.M)]
    assert len(lazy) >= 3
    for path in lazy:
        name = ".".join(("ticker_py", *path.relative_to(root).with_suffix("").parts)).removesuffix(".__init__")
        module = importlib.import_module(name)
        missing = set(module.__all__) - set(dir(module))
        assert not missing, (name, missing)


@pytest.mark.parametrize("engine", ["clingo", "incremental"])
def test_factorize_means_all_answer_streams_as_in_the_cli(engine):
    (result,) = run(CHOICE + " c :- not d, p. d :- not c, p.", [(0, ["p"])], engine=engine, factorize=True)
    assert result.factors.count == 4 and len(result.models) == 4
    assert len(run(CHOICE, [(0, ["p"])], engine=engine)[0].models) == 1  # without factorize: 1
    (two,) = run(CHOICE + " c :- not d, p. d :- not c, p.", [(0, ["p"])], engine=engine, factorize=True, models=2)
    assert len(two.models) == 2
