"""The error boundary of the Python API and of ``ticker gen``: every user error is a typed
TickerError (never a bare TypeError, IndexError or AttributeError from deep inside), and nothing
a run wrote is mixed with what an earlier run left behind."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ticker_py import Reasoner, run
from ticker_py.api import explain_at, load_program
from ticker_py.errors import ProgramError, StreamError, UsageError
from ticker_py.workloads.files import write_stream

ENGINES = ["clingo", "incremental", "incremental-pure", "native", "auto"]
PROGRAM = "q(X) :- p(X) in [2]."
ROOT = Path(__file__).resolve().parents[1]


def evaluated(engine: str) -> Reasoner:
    r = Reasoner(PROGRAM, engine=engine)
    r.append(0, ["p(a)"])
    r.evaluate(0)
    return r


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("atom", [("p", ()), ("p", ("f", ())), ("p", ("f", 1, ()))])
def test_tuple_atom_with_an_empty_term_is_a_stream_error(engine, atom):
    r = Reasoner(PROGRAM, engine=engine)
    with pytest.raises(StreamError, match="bad tuple atom"):
        r.append(0, [atom])
    with pytest.raises(StreamError, match="bad tuple atom"):
        run(PROGRAM, [(0, [atom])], engine=engine)


@pytest.mark.parametrize("semantics", [1, ["r4"], b"r4", 2.5])
def test_semantics_of_a_wrong_type_is_a_usage_error(semantics):
    with pytest.raises(UsageError, match="semantics is a profile name or a Semantics"):
        Reasoner(PROGRAM, semantics=semantics)


@pytest.mark.parametrize("engine", ["clingo", "incremental", "incremental-pure"])
def test_more_answer_streams_than_clingo_counts_means_all(engine):
    program = "a :- not b. b :- not a."
    every = run(program, [(0, [])], engine=engine, models=0)
    assert len(every[0].models) == 2
    for models in (2**32, 2**70):
        assert run(program, [(0, [])], engine=engine, models=models) == every


@pytest.mark.parametrize("engine", ["clingo", "native"])
@pytest.mark.parametrize("until", ["3", 2.5, -1, True])
def test_feed_until_must_be_a_time(engine, until):
    with pytest.raises(UsageError, match="^error: until must be an integer >= 0"):
        list(Reasoner(PROGRAM, engine=engine).feed([(0, ["p(a)"])], until=until))
    assert [r.t for r in Reasoner(PROGRAM, engine=engine).feed([(0, ["p(a)"])], until=2)] == [0, 1, 2]


@pytest.mark.parametrize("engine", ["clingo", "native"])
@pytest.mark.parametrize("atom", [None, 1, ("q", ()), ["q", "a"], b"q(a)"])
def test_explaining_a_non_atom_is_a_usage_error(engine, atom):
    with pytest.raises(UsageError, match="bad atom to explain"):
        evaluated(engine).explain(0, atom)
    with pytest.raises(UsageError, match="bad atom to explain"):
        explain_at(PROGRAM, [(0, ["p(a)"])], 0, atom, engine=engine)
    assert "q(a)" in str(evaluated(engine).explain(0, ("q", "a")))


@pytest.mark.parametrize("model", [None, "1", 1.0])
def test_explain_model_must_be_an_integer(model):
    with pytest.raises(UsageError, match="model must be an integer"):
        evaluated("native").explain(0, "q(a)", model=model)


@pytest.mark.parametrize("at", [None, "0", 1.5, -1])
def test_explain_at_time_must_be_a_time(at):
    with pytest.raises(UsageError, match="^error: at must be an integer >= 0"):
        explain_at(PROGRAM, [(0, ["p(a)"])], at, "q(a)", engine="native")


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"program": b"x.lars"}, "a program is source text"),
        ({"program": 5}, "a program is source text"),
        ({"background": 5}, "background must be a path"),
        ({"background_rdf": ["x.ttl", 5]}, "background_rdf must be a path or a list of paths"),
    ],
)
def test_load_program_arguments_of_a_wrong_type(kwargs, message):
    kwargs = {"program": PROGRAM, **kwargs}
    with pytest.raises(UsageError, match=message):
        load_program(**kwargs)


# ---------------------------------------------------------------- ticker gen


def stream_times(out: Path) -> list:
    return [
        json.loads(line)["t"]
        for line in subprocess.run(
            [
                sys.executable,
                "-m",
                "ticker_py.cli",
                "run",
                out / "program.lars",
                "--stream",
                out / "stream.parquet",
                "--engine",
                "native",
            ],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
            env={"PYTHONPATH": str(ROOT), "PATH": ""},
        ).stdout.splitlines()
    ]


@pytest.mark.parametrize("layout", ["atom", "args"])
def test_gen_over_a_longer_stream_replaces_it(tmp_path, layout):
    # 1049 time points at 1000 atoms each: two Parquet blocks; then 3 time points into the same directory
    write_stream(tmp_path, "join", "parquet", tp=1049, rate=1000)
    assert len(list((tmp_path / "stream.parquet").iterdir())) == 2
    (tmp_path / "notes.txt").write_text("mine\n")
    meta = write_stream(tmp_path, "join", "parquet", parquet_layout=layout, tp=3, rate=2)
    assert meta["time_points"] == 3 and [p.name for p in (tmp_path / "stream.parquet").iterdir()] == ["block=0"]
    assert stream_times(tmp_path) == [0, 1, 2]
    assert (tmp_path / "notes.txt").read_text() == "mine\n"  # files gen does not write are kept


def test_gen_formats_written_one_after_another_are_all_kept(tmp_path):
    # what ticker bench throughput does: one stream in every format in one directory
    for fmt in ("parquet", "text", "jsonl"):
        write_stream(tmp_path, "join", fmt, tp=3, rate=2)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "meta.json",
        "program.lars",
        "stream.jsonl",
        "stream.parquet",
        "stream.stream",
    ]
    assert stream_times(tmp_path) == [0, 1, 2]


@pytest.mark.parametrize(
    "name,params",
    [
        ("box-chain-99999999999", {}),
        ("rules", {"r": 10**6 + 1}),
        ("join", {"rate": 10**7 + 1}),
        ("b1", {"items": 2**70}),
    ],
)
def test_gen_sizes_too_large_for_memory_are_refused(tmp_path, name, params):
    # box-chain-99999999999 used to build its program until the machine ran out of memory
    from ticker_py.workloads import MAX_PARAMS, resolve

    with pytest.raises(UsageError, match="must be at most"):
        write_stream(tmp_path / "new", name, "text", tp=1, **params)
    assert not (tmp_path / "new").exists()
    write_stream(tmp_path / "old", "join", "text", tp=2, rate=1)
    with pytest.raises(UsageError, match="must be at most"):
        write_stream(tmp_path / "old", name, "text", tp=1, **params)
    assert (tmp_path / "old" / "stream.stream").read_text() == "0: p(c0,c1)\n1: p(c1,c2)\n"  # kept
    largest = {k: MAX_PARAMS[k] for k in (params or {"w": 0})}
    assert resolve(name.rpartition("-")[0] if not params else name, **largest)[1].items() >= largest.items()


# ---------------------------------------------------------------- ticker bench


def ticker(*args):
    out = subprocess.run(
        [sys.executable, "-m", "ticker_py.cli", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": ""},
        timeout=300,
    )
    return out.returncode, out.stderr


@pytest.mark.parametrize("budget", [float("nan"), float("inf"), 0.0, -1.0])
def test_bench_budget_must_be_a_positive_number(budget):
    from ticker_py.bench.runner import Settings

    with pytest.raises(UsageError, match="--budget must be a number of seconds > 0"):
        Settings(budget=budget)
    assert Settings(budget=0.5).budget == 0.5


@pytest.mark.parametrize(
    "content,message",
    [
        (None, "cannot read '{p}': No such file or directory"),
        ("", "is not a results.json of ticker bench: Expecting value"),
        (b"\xff\xfe", "is not a results.json of ticker bench"),
        ("[1, 2]", "is not a results.json of ticker bench: no 'date'"),
        ('{"runs": []}', "is not a results.json of ticker bench: no 'date'"),
    ],
)
def test_bench_report_from_a_file_that_is_no_results_json(tmp_path, content, message):
    from ticker_py.bench.results import load_json

    path = tmp_path / "results.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    with pytest.raises(UsageError, match=message.format(p=path).replace("(", r"\(").replace("[", r"\[")):
        load_json(path)
    status, err = ticker("bench", "laser", "--report-from", path, "--out", tmp_path / "out")
    assert status == 2 and "Traceback" not in err and message.format(p=path) in err, err


@pytest.mark.parametrize("suite", ["laser", "throughput"])
def test_bench_out_onto_a_file_is_refused_before_measuring(tmp_path, suite):
    (tmp_path / "taken").write_text("keep me\n")
    quick = ["--quick"] if suite != "throughput" else []  # the throughput suite refuses --quick (it has no sizes)
    status, err = ticker("bench", suite, *quick, "--out", tmp_path / "taken")
    assert status == 2 and "Traceback" not in err, err
    assert f"output directory '{tmp_path / 'taken'}' exists and is not a directory" in err
    assert "[throughput]" not in err and (tmp_path / "taken").read_text() == "keep me\n"


# ---------------------------------------------------------------- strings clingo cannot hold

CHOICE = "q(X) :- p(X) in [2], not r(X). r(X) :- p(X) in [2], not q(X)."  # a clingo-solved part everywhere


@pytest.mark.parametrize("engine", ["clingo", "incremental", "incremental-pure"])
@pytest.mark.parametrize("form", ["text", "tuple"])
def test_a_nul_string_is_refused_by_the_clingo_engines(engine, form):
    atom = 'p("a\0b")' if form == "text" else ("p", '"a\0b"')
    with pytest.raises(StreamError, match="has a NUL character, which clingo cannot hold"):
        Reasoner(CHOICE, engine=engine).append(0, [atom])
    with pytest.raises(StreamError, match="has a NUL character, which clingo cannot hold"):
        run(CHOICE, [(0, ["p(a)"]), (1, [atom])], engine=engine)


def test_a_nul_string_from_a_stream_file_is_located(tmp_path):
    stream = tmp_path / "s.jsonl"
    stream.write_text(
        json.dumps({"t": 0, "atoms": ["p(a)"]}) + "\n" + json.dumps({"t": 1, "atoms": ['p("\0")']}) + "\n"
    )
    with pytest.raises(StreamError, match=f"{stream}:2:1-2: error: string "):
        run(CHOICE, stream, engine="clingo")


@pytest.mark.parametrize("engine", ["native", "incremental"])
def test_a_nul_string_is_kept_where_no_clingo_sees_it(engine):
    res = run(PROGRAM, [(0, ['p("a\0b")'])], engine=engine)
    assert res[0].models[0].atoms == {("q", '"a\0b"')}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("atom", ['p("a\ud800")', ("p", '"\udfff"'), ("p", ("f", '"x\ud800"'))])
def test_a_lone_surrogate_is_refused_everywhere(engine, atom):
    # no output format could write it: text and CSV writers failed with UnicodeEncodeError
    with pytest.raises(StreamError, match="a lone surrogate has no UTF-8 form"):
        Reasoner(PROGRAM, engine=engine).append(0, [atom])


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    "source,where,what",
    [
        ('q("a\0").', "1:5-6", "a NUL character"),
        ('q(X) :- p(X) [1],\n  X != "\0".', "2:9-10", "a NUL character"),
        ('q :- p("\ud800") [1].', "1:9-10", "a lone surrogate"),
    ],
)
def test_program_text_with_a_nul_or_a_lone_surrogate(engine, source, where, what):
    with pytest.raises(ProgramError, match=f"<string>:{where}: error: program text has {what}"):
        run(source, [(0, [])], engine=engine)


# ---------------------------------------------------------------- sharded runs


@pytest.mark.parametrize("runner", ["local", "spark"])
@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"shards": True}, "shards must be an integer from 1 to 10000, not True"),
        ({"shards": 10**5}, "shards must be an integer from 1 to 10000, not 100000"),
        ({"models": -1}, "models must be an integer >= 0, not -1"),
        ({"models": "1"}, "models must be an integer >= 0, not '1'"),
        ({"until": "3"}, "until must be an integer >= 0, not '3'"),
        ({"until": -1}, "until must be an integer >= 0, not -1"),
    ],
)
def test_sharded_run_arguments(runner, kwargs, message):
    # checked before anything runs: the Spark run starts no Spark session for these
    if runner == "local":
        from ticker_py.shard import run_sharded_local as run_sharded
    else:
        from ticker_py.spark.shard import run_sharded
    kwargs = {"shards": 2, **kwargs}
    with pytest.raises(UsageError, match="^error: " + message.replace("(", r"\(")):
        list(run_sharded(PROGRAM, [(0, ["p(a)"])], **kwargs))
