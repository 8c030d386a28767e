"""Fuzzing the boundary: for any input, "a result or a typed, located error; never another exception".

Targets: the program parser, each stream reader's public entry point (text, JSON Lines, CSV,
Parquet bytes), the ground-atom reader with and without its accelerator (which must agree), the TCP
line handler of the live input, and the Python API (Reasoner with random arguments).
CI runs a bounded sample; TICKER_SLOW=full runs >= 10^5 examples per target (the slow tests).
"""

from __future__ import annotations

import threading
import warnings

import pytest
from helpers import accelerators_set, scaled
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ticker_py import Reasoner, ast
from ticker_py.errors import StreamError, TickerError, TickerWarning, UsageError
from ticker_py.live import LiveInput
from ticker_py.streams import Record, StreamChecker, read_csv, read_jsonl, read_text
from ticker_py.syntax import parse_program
from ticker_py.syntax.constant_atoms import split_constants
from ticker_py.syntax.ground_atoms import AtomReader, GroundSyntaxError

SAMPLE, FULL, SHARDS = 150, 100_000, 10
fast = settings(max_examples=SAMPLE, suppress_health_check=list(HealthCheck))
# A full run splits each target's 10^5 examples over SHARDS independent hypothesis runs: one run of
# 10^5 examples spends most of its time in hypothesis' own bookkeeping, which grows with the run.
shards = pytest.mark.parametrize("shard", range(scaled(SHARDS, 1)))
slow = settings(max_examples=scaled(FULL // SHARDS, 300), suppress_health_check=list(HealthCheck))
slow_io = settings(max_examples=scaled(FULL // SHARDS, 200), suppress_health_check=list(HealthCheck))

PROGRAM_PIECES = [
    ":-",
    ".",
    ",",
    "(",
    ")",
    "[",
    "]",
    "not ",
    " in ",
    " at ",
    " always ",
    "#",
    "..",
    "sec",
    "ms",
    "=",
    "!=",
    "<",
    "+",
    "-",
    "*",
    "/",
    "\\",
    '"',
    "%",
    "/*",
    "*/",
    "\n",
    "a",
    "p",
    "q(X)",
    "X",
    "_",
    "1",
    "4294967296",
    "99999999999999999999",
    "\x00",
    "é",
]
programs = st.one_of(
    st.text(max_size=200),
    st.lists(st.sampled_from(PROGRAM_PIECES), max_size=40).map("".join),
    st.integers(0, 3000).map(lambda d: "p(" + "f(" * d + "a" + ")" * d + ")."),
)
STREAM_PIECES = [
    "0",
    "1",
    "7",
    "-1",
    "2.0",
    ":",
    ";",
    ",",
    " ",
    "p",
    "(",
    ")",
    "a",
    '"x,y"',
    "X",
    "#",
    "%",
    "\n",
    "\r\n",
    "\ufeff",
    "\x00",
    "f(" * 50,
    "99999999999999999999999",
]
stream_text = st.one_of(st.text(max_size=200), st.lists(st.sampled_from(STREAM_PIECES), max_size=40).map("".join))
JSON_PIECES = [
    "{",
    "}",
    "[",
    "]",
    '"t"',
    '"atoms"',
    '"atom"',
    ":",
    ",",
    "0",
    "3",
    "-2",
    "2.5",
    "true",
    "null",
    '"p(1)"',
    '"a"',
    '"p("',
    "\n",
    " ",
    "1e400",
    '"\\ud800"',
]
jsonl_text = st.one_of(st.text(max_size=200), st.lists(st.sampled_from(JSON_PIECES), max_size=40).map("".join))
CSV_PIECES = ["t", "atom", "c", "seq", ",", "\n", "0", "1", "-3", "x", '"p(a,1)"', '"', "\ufeff", "2.0", ""]
csv_text = st.one_of(st.text(max_size=200), st.lists(st.sampled_from(CSV_PIECES), max_size=40).map("".join))


def located(err: TickerError) -> None:
    """A typed error with at least one diagnostic and a message."""
    assert err.diagnostics and all(d.message for d in err.diagnostics)


# ---------------------------------------------------------------- program parser


def check_parser(text):
    try:
        prog = parse_program(text)
    except TickerError as err:
        located(err)
        assert all(d.location is not None for d in err.diagnostics), err
        return
    assert isinstance(prog, ast.Program)


@fast
@given(programs)
def test_parser_result_or_located_error(text):
    check_parser(text)


@pytest.mark.slow
@shards
@slow
@given(programs)
def test_parser_result_or_located_error_many(shard, text):
    check_parser(text)


# ---------------------------------------------------------------- stream readers


def check_reader(read, text, tmp_path=None):
    try:
        records = list(read(text))
    except TickerError as err:
        located(err)
        return
    assert all(isinstance(r, Record) and type(r.t) is int and r.t >= 0 for r in records)


@pytest.fixture(scope="module")
def csv_path(tmp_path_factory):
    """One file per module, rewritten by every example (a new directory per example costs O(n))."""
    return tmp_path_factory.mktemp("fuzz") / "s.csv"


def _csv(path):
    def read(text):
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        return read_csv(str(path))

    return read


@fast
@given(stream_text)
def test_text_reader(text):
    check_reader(lambda s: read_text(s.splitlines(keepends=True), "<fuzz>"), text)


@fast
@given(jsonl_text)
def test_jsonl_reader(text):
    check_reader(lambda s: read_jsonl(s.splitlines(keepends=True), "<fuzz>"), text)


@fast
@given(csv_text.filter(lambda s: "\ud800" not in s))
def test_csv_reader(csv_path, text):
    check_reader(_csv(csv_path), text)


@pytest.mark.slow
@shards
@slow
@given(stream_text, jsonl_text)
def test_text_and_jsonl_readers_many(shard, text, jsonl):
    check_reader(lambda s: read_text(s.splitlines(keepends=True), "<fuzz>"), text)
    check_reader(lambda s: read_jsonl(s.splitlines(keepends=True), "<fuzz>"), jsonl)


@pytest.mark.slow
@shards
@slow_io
@given(csv_text.filter(lambda s: "\ud800" not in s))
def test_csv_reader_many(shard, csv_path, text):
    check_reader(_csv(csv_path), text)


# ---------------------------------------------------------------- the ground-atom reader and its accelerator

ATOM_PIECES = [
    "p",
    "q",
    "a",
    "b0",
    "not",
    "X",
    "(",
    ")",
    ",",
    ", ",
    ";",
    " ",
    '"',
    '"x,y"',
    "1",
    "-",
    "f(",
    "é",
    "\x00",
]
atom_text = st.one_of(st.text(max_size=120), st.lists(st.sampled_from(ATOM_PIECES), max_size=40).map("".join))


def _read(text: str, enabled: bool):
    with accelerators_set(enabled):
        try:
            reader = AtomReader()
            return reader.line(text), reader.each([text]) if text.strip() else None
        except GroundSyntaxError as e:
            return ("error", e.message, e.column)


def check_atoms(text):
    """The accelerator takes a line or declines it, never raises; the reader gives atoms or a located
    GroundSyntaxError, the same with accelerators on and off."""
    found = split_constants(text)
    assert found is None or found[0] == _read(text, False)[0]
    assert _read(text, True) == _read(text, False)


@fast
@given(atom_text)
def test_atom_reader_and_accelerator(text):
    check_atoms(text)


@pytest.mark.slow
@shards
@slow
@given(atom_text)
def test_atom_reader_and_accelerator_many(shard, text):
    check_atoms(text)


# ---------------------------------------------------------------- Parquet bytes


@pytest.fixture(scope="module")
def parquet_file(tmp_path_factory):
    """A small valid stream file (and where the examples write their mutations of it)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    root = tmp_path_factory.mktemp("fuzz")
    table = pa.table({"t": [0, 0, 1, 3], "c": [2, 1, 3, 4], "atom": ["p(a)", "q(1)", None, 'p("x")']})
    pq.write_table(table, root / "good.parquet", compression="snappy")
    return (root / "good.parquet").read_bytes(), root / "s.parquet"


@fast
@given(st.data())
def test_parquet_bytes(parquet_file, data):
    """Truncated files, flipped bytes and random bytes between the magic numbers: records or a
    located error."""
    from ticker_py.streams import read_parquet

    good, path = parquet_file
    cut = data.draw(st.integers(0, len(good)))
    flips = data.draw(st.lists(st.tuples(st.integers(0, len(good) - 1), st.integers(0, 255)), max_size=6))
    mutated = bytearray(good[:cut] if data.draw(st.booleans()) else good)
    for at, value in flips:
        if at < len(mutated):
            mutated[at] = value
    if data.draw(st.integers(0, 4)) == 0:
        mutated = bytearray(b"PAR1" + data.draw(st.binary(max_size=40)) + b"PAR1")
    path.write_bytes(bytes(mutated))
    check_reader(lambda _: read_parquet(path), None)


# ---------------------------------------------------------------- the TCP line handler


@pytest.fixture(scope="module")
def live_input():
    errors = []
    src = LiveInput(
        listen_on="tcp:127.0.0.1:0", checker=StreamChecker({"p": 1, "a": 0, "x": 0}, {"x"}), report=errors.append
    )
    yield src, errors
    src.listener.close()


def check_line(live_input, text, stamp):
    src, errors = live_input
    before = len(errors)
    rec = src.handle_line(text, "tcp:127.0.0.1:1", 7, stamp)  # never raises
    if rec is None:
        for err in errors[before:]:
            assert isinstance(err, StreamError)
            located(err)
            assert err.diagnostics[0].location.line == 7, err
    else:
        assert isinstance(rec, Record) and rec.line == 7 and len(errors) == before


@fast
@given(stream_text, st.sampled_from([None, 5]))
def test_tcp_line_handler(live_input, text, stamp):
    check_line(live_input, text, stamp)


@pytest.mark.slow
@shards
@slow
@given(stream_text, st.sampled_from([None, 5]))
def test_tcp_line_handler_many(shard, live_input, text, stamp):
    check_line(live_input, text, stamp)


# ---------------------------------------------------------------- the Python API

values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 2**40),
    st.floats(allow_nan=True),
    st.text(max_size=12),
    st.sampled_from(["a", "p(1)", "q(x)", "p(", "not", '"s"', "50"]),
)
atoms = st.one_of(
    values,
    st.tuples(st.sampled_from(["p", "a", "q", "x", "1", "P"]), values),
    st.tuples(st.sampled_from(["p", "q"]), values, values),
    st.just(()),
)
calls = st.lists(
    st.one_of(
        st.tuples(st.just("append"), values, st.one_of(values, st.lists(atoms, max_size=3))),
        st.tuples(st.just("evaluate"), values, st.none()),
        st.tuples(st.just("feed"), st.lists(st.tuples(values, st.lists(atoms, max_size=2)), max_size=3), values),
    ),
    max_size=5,
)
constructor = st.fixed_dictionaries(
    {},
    optional={
        "engine": st.sampled_from(["native", "clingo", "incremental", "auto", "nope", 3]),
        "models": st.sampled_from([0, 1, 2, -1, "1", 1.5, True]),
        "show": st.sampled_from(["derived", "all", "x", None]),
        "clock": st.sampled_from(["1s", "500ms", "0s", -5, 0, 1.5, "x", 100]),
        "inertia": st.booleans(),
    },
)
API_PROGRAM = "q(X) :- p(X) in [2].\nr :- a, not q(1).\n"


def check_api(kwargs, script):
    try:
        reasoner = Reasoner(API_PROGRAM, **kwargs)
    except TickerError as err:
        located(err)
        return
    for name, first, second in script:
        try:
            if name == "append":
                reasoner.append(first, second)
            elif name == "evaluate":
                reasoner.evaluate(first)
            else:
                # a generated max_gap stays small (0 is "no limit"): a real gap of 10^7 time points is
                # slow, not wrong
                list(
                    reasoner.feed(first, max_gap=second if type(second) is int and second <= 50 and second != 0 else 10)
                )
        except TickerError as err:
            located(err)


@fast
@given(constructor, calls)
def test_api_result_or_typed_error(kwargs, script):
    check_api(kwargs, script)


@pytest.mark.slow
@shards
@slow_io
@given(constructor, calls)
def test_api_result_or_typed_error_many(shard, kwargs, script):
    check_api(kwargs, script)


# ---------------------------------------------------------------- API misuse, one by one


@pytest.mark.parametrize("engine", ["native", "clingo"])
def test_tuple_atoms_are_typed_and_agree(engine):
    r = Reasoner("q(X) :- temp(X). big :- temp(X), X > 40.", engine=engine)
    r.append(0, [("temp", 50), ("temp", '"50"'), ("temp", "a")])
    with warnings.catch_warnings():  # 40 < "50" is reported where an engine evaluates it (tests/test_literals.py)
        warnings.simplefilter("ignore", TickerWarning)
        assert r.evaluate(0).models[0].sorted_atoms() == ["big", 'q("50")', "q(50)", "q(a)"]
    for bad in [
        ("temp", "50"),
        ("temp", "a). evil :- temp(Y"),
        ("temp", 1.5),
        ("temp", True),
        ("temp", None),
        ("Temp", 1),
        (),
        (1, 2),
        ("temp", '"open'),
    ]:
        with pytest.raises(StreamError, match="bad tuple atom"):
            r.append(1, [bad])


def test_api_misuse_raises_typed_errors():
    r = Reasoner("q :- a.", engine="native")
    for bad_t in (1.5, -1, True, "3", None):
        with pytest.raises(UsageError, match="time must be an integer >= 0"):
            r.append(bad_t, ["a"])
        if bad_t is not None:  # evaluate(None): the latest time
            with pytest.raises(UsageError, match="time must be an integer >= 0"):
                r.evaluate(bad_t)
    for bad_atoms in ("a", 5, ("a",)):
        with pytest.raises(UsageError, match="atoms must be a list"):
            r.append(0, bad_atoms)
    with pytest.raises(StreamError, match="bad atom 5"):
        r.append(0, [5])
    for clock in (-5, 0, 1.5, True):
        with pytest.raises(UsageError, match="bad clock"):
            Reasoner("q :- a [1 sec].", clock=clock)
    with pytest.raises(UsageError):
        Reasoner("q :- a.", models="1")
    with pytest.raises(UsageError):
        Reasoner(42)


def test_duplicate_atoms_count_once_in_the_api():
    r = Reasoner("q :- a.", engine="native")
    r.append(0, ["a", "b", "a"])
    assert r.evaluate(0).c == 2


def test_live_push_refuses_a_bool_time():
    from ticker_py.live import LiveReasoner

    live = LiveReasoner("q :- a.", engine="native")
    with pytest.raises(StreamError, match="time must be an integer"):
        live.push(True, ["a"])


def test_concurrent_use_of_a_reasoner_fails_typed():
    r = Reasoner("q :- a.", engine="native")
    inside, release = threading.Event(), threading.Event()
    original = r.engine.evaluate

    def slow_evaluate(t):
        inside.set()
        release.wait(10)
        return original(t)

    r.engine.evaluate = slow_evaluate
    worker = threading.Thread(target=r.evaluate, args=(0,))
    worker.start()
    assert inside.wait(10)
    with pytest.raises(UsageError, match="not thread-safe"):
        r.append(0, ["a"])
    release.set()
    worker.join(10)
    r.append(1, ["a"])  # usable again afterwards
    assert r.evaluate(1).models[0].sorted_atoms() == ["q"]
