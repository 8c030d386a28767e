"""Sharded runs in Spark tasks (local[2]): by key, by time and both equal the single run at every
time point; ``--out DIR`` has the executors write the answers as Parquet, read back by
``ticker_py.read_results``. One SparkSession for the whole test run (UI off, small memory)."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest

from ticker_py import read_results, run
from ticker_py.errors import StreamError, UsageError
from ticker_py.streams import printed_models
from ticker_py.workloads import time_points

pytestmark = [pytest.mark.spark, pytest.mark.slow]

ENCODINGS = Path(__file__).resolve().parent.parent / "encodings"


@pytest.fixture(scope="session")
def spark():
    pytest.importorskip("pyspark")
    from ticker_py.spark.session import get_spark

    # getOrCreate: the one session of the test run (tests/test_spark.py stops it)
    return get_spark("local[2]", **{"spark.driver.memory": "1g", "spark.executor.memory": "1g"})


def view(results):
    return [(r.t, r.c, printed_models(r, show_at=True)) for r in results]


def frame_of(name, **params):
    rows = [(t, a) for t, atoms in time_points(name, 4, **params) for a in atoms]
    return pd.DataFrame(rows, columns=["t", "atom"]).assign(c=range(1, len(rows) + 1))


# a bounded sample of the equality tests of tests/test_shard_time.py, through Spark
SAMPLE = [
    ("join.lars", "join", dict(tp=25, rate=3), "time", 1),
    ("cooling.lars", "cooling", dict(tp=25, rate=4), "auto", 0),
    ("caching_tuple.lars", "caching-tuple", dict(tp=60), "time", 1),
    ("retrieval.lars", "b1", dict(tp=40, items=1), "both", 0),
    ("diamond.lars", "diamond", dict(tp=25, rate=4), "key", 1),
]


@pytest.mark.parametrize("name, workload, params, by, models", SAMPLE, ids=[s[0] for s in SAMPLE])
def test_spark_sharded_equals_single(spark, name, workload, params, by, models):
    from ticker_py.spark import run_sharded

    prog = (ENCODINGS / name).read_text()
    frame = frame_of(workload, **params)
    single = view(run(prog, frame, models=models))
    # a local stream, assigned on the driver
    assert view(run_sharded(prog, frame, shards=4, models=models, session=spark, shard_by=by)) == single
    # a Spark DataFrame in no order (c gives it), counted and assigned in Spark
    sdf = spark.createDataFrame(frame.sample(frac=1, random_state=0))
    assert view(run_sharded(prog, sdf, shards=3, models=models, session=spark, shard_by=by)) == single


def test_results_written_by_the_executors(spark, tmp_path):
    from ticker_py.spark.shard import write_sharded

    prog = (ENCODINGS / "join.lars").read_text()
    frame = frame_of("join", tp=30, rate=3)
    sdf = spark.createDataFrame(frame)
    info = write_sharded(prog, sdf, tmp_path / "out", shards=3, session=spark)
    assert info == {"time_points": 30, "plan": "3 time ranges"}
    assert (tmp_path / "out" / "_SUCCESS").exists()
    assert sorted(p.name for p in (tmp_path / "out").glob("range=*")) == ["range=0", "range=1", "range=2"]
    got = read_results(tmp_path / "out")
    single = view(run(prog, frame))
    assert [(r.t, r.c, list(r.atoms)) for r in got.itertuples()] == [(t, c, list(m[0][0])) for t, c, m in single]
    assert set(got["range"]) == {0, 1, 2}


def test_all_answer_streams_and_none_written(spark, tmp_path):
    from ticker_py.spark.shard import write_sharded

    guess = (
        "a(X) :- p(X) in [1], not b(X).\nb(X) :- p(X) in [1], not a(X).\n:- a(X), bad(X) in [1].\n:- b(X), bad(X).\n"
    )
    stream = [(0, ["p(x)", "p(d)"]), (1, ["p(x)", "bad(x)"]), (2, []), (3, ["p(x)"])]
    write_sharded(guess, stream, tmp_path / "g", shards=2, models=0, session=spark, shard_by="time")
    got = read_results(tmp_path / "g")
    single = run(guess, stream, models=0)
    assert [len(r.models) for r in single] == [4, 0, 1, 2]
    for r in single:
        rows = got[got.t == r.t]
        assert set(rows.c) == {r.c}
        if not r.models:
            assert len(rows) == 1 and rows.model.isna().all()
        else:
            assert sorted(map(list, rows.atoms)) == sorted(m.sorted_atoms() for m in r.models)


def test_a_bad_atom_is_reported_and_no_success_marker(spark, tmp_path):
    from ticker_py.spark.shard import run_sharded, write_sharded

    frame = pd.DataFrame({"t": [0, 1, 2, 3], "atom": ["p(a,b)", "p(b,c)", "p(", "p(c,d)"]})
    sdf = spark.createDataFrame(frame)
    prog = (ENCODINGS / "join.lars").read_text()
    got = []
    with pytest.raises(StreamError, match="bad atom 'p\\(' at time 2"):
        for r in run_sharded(prog, sdf, shards=2, session=spark, shard_by="time"):
            got.append(r.t)
    assert got == [0, 1]
    with pytest.raises(StreamError, match="bad atom"):
        write_sharded(prog, sdf, tmp_path / "bad", shards=2, session=spark, shard_by="time")
    assert not (tmp_path / "bad" / "_SUCCESS").exists()
    with pytest.raises(UsageError, match="no finished sharded run"):
        read_results(tmp_path / "bad")


def test_ticker_run_spark_out(spark, tmp_path, capsys):
    from ticker_py.cli import main

    prog = tmp_path / "c.lars"
    prog.write_text((ENCODINGS / "cooling.lars").read_text())
    path = tmp_path / "s.stream"
    stream = list(time_points("cooling", 4, tp=20, rate=3))
    path.write_text("".join(f"{t}: {', '.join(atoms)}\n" for t, atoms in stream))
    frame = frame_of("cooling", tp=20, rate=3)
    out = tmp_path / "res"
    args = ["run", str(prog), "--stream", str(path), "--spark", "--shards", "3", "--out", str(out)]
    assert main(args) == 0
    assert "3 time ranges" in capsys.readouterr().err
    got = read_results(out)
    assert list(got.c) == [r.c for r in run(str(prog), frame)] and len(stream) == 20
    assert main(["run", str(prog), "--stream", str(path), "--spark", "--shard-by", "key"]) == 2
    assert "no argument to key on" in capsys.readouterr().err


CLUSTER_SCRIPT = """
import sys
from ticker_py import run
from ticker_py.spark.session import get_spark
from ticker_py.spark.shard import run_sharded
from ticker_py.streams import printed_models
from ticker_py.workloads import generate, program

view = lambda rs: [(r.t, r.c, printed_models(r, show_at=True)) for r in rs]
spark = get_spark("local-cluster[2,1,1024]", **{"spark.driver.memory": "1g", "spark.executorEnv.PYTHONPATH": sys.argv[1]})
prog, stream = program("join", window=3), list(generate("join", tp=20, rate=3))
ok = view(run_sharded(prog, stream, spark, shards=3, shard_by="time")) == view(run(prog, stream))
spark.stop()
print("equal" if ok else "different")
"""


def test_two_executor_jvms():
    """``local-cluster[2,1,1024]``: two executor JVMs, nothing shared with the driver's memory
    (in a subprocess: one SparkContext per process)."""
    import subprocess
    import sys

    root = str(Path(__file__).resolve().parent.parent)
    proc = subprocess.run(
        [sys.executable, "-c", CLUSTER_SCRIPT, root],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": root},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().splitlines()[-1] == "equal"


def test_factorized_in_spark_and_written(spark, tmp_path):
    from ticker_py.spark.shard import run_sharded, write_sharded

    prog = (ENCODINGS / "retrieval.lars").read_text() + "item(2..3).\n"
    frame = frame_of("b1", tp=30, window=20, items=3)
    single = list(run(prog, frame, models=0, factorize=True))
    got = list(run_sharded(prog, frame, shards=4, models=0, session=spark, shard_by="both", factorize=True))
    assert [(r.t, r.c, r.factors.count) for r in got] == [(r.t, r.c, r.factors.count) for r in single]
    assert view(got) == view(single)
    write_sharded(prog, frame, tmp_path / "f", shards=3, models=0, session=spark, shard_by="time", factorize=True)
    rows = read_results(tmp_path / "f")
    for r in single:
        at = rows[rows.t == r.t]
        common = at[at.factor == 0]
        assert list(common.atoms.iloc[0]) == r.factors.common.sorted_atoms()
        assert len(at) == 1 + sum(len(f) for f in r.factors.factors)
