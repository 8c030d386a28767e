"""Sharded evaluation: split by the shard plan's key, evaluate each shard, merge per time point.

The pure-Python tests run the shards one after another (``run_sharded_local``, the same split,
shard and merge functions as the Spark tasks); the Spark tests run them in Spark tasks.
Every sharded run must equal the single-process run on the same stream.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from ticker_py import run
from ticker_py.analysis.sharding import shard_of
from ticker_py.api import load_program
from ticker_py.errors import StreamError, UsageError
from ticker_py.shard import (
    MODEL,
    NONE,
    STATE,
    make_grid,
    merge_shards,
    needs_owner_filter,
    plan_for,
    prepare,
    read_slice,
    run_sharded_local,
)
from ticker_py.spec import RunSpec
from ticker_py.streams import printed_models
from ticker_py.workloads import generate, program, time_points

ENCODINGS = Path(__file__).resolve().parent.parent / "encodings"
#: scenario B with items 1..3 (retrieval.lars has item(1) only); window 20 as in the file
RETRIEVAL = (ENCODINGS / "retrieval.lars").read_text() + "item(2..3).\n"


def view(results):
    """What a writer prints: (t, c, distinct sorted models with pins)."""
    return [(r.t, r.c, printed_models(r, show_at=True)) for r in results]


def engines(prog):
    """The engines that can run ``prog`` (native/incremental only if they import)."""
    import importlib

    from ticker_py.engines import ENGINES

    out = []
    for name in load_program(prog).engines:
        try:
            importlib.import_module(ENGINES[name].module)
        except ImportError:
            continue
        out.append(name)
    return out


DIAMOND = program("diamond", window=3)
#: neither by key (a 0-ary head) nor by time (an @-atom without window)
UNSHARDABLE = "a :- p at T.\nq(T) :- p at T.\n"
DIAMOND_STREAM = list(generate("diamond", tp=20, rate=6))


@pytest.mark.parametrize("engine", engines(DIAMOND))
@pytest.mark.parametrize("shards", [1, 2, 3])
def test_diamond_sharded_equals_single(engine, shards):
    single = view(run(DIAMOND, DIAMOND_STREAM, engine=engine))
    assert view(run_sharded_local(DIAMOND, DIAMOND_STREAM, shards=shards, engine=engine)) == single
    assert single[-1][1] == 20 * 6  # c is the global count, not a shard's


def test_diamond_plan_and_split(tmp_path):
    analysis = load_program(DIAMOND)
    assert plan_for(analysis)[0] is None  # auto: by time first (a time cell's answers need no merge)
    plan, times = plan_for(analysis, "key")
    assert plan.key == {"p": 0, "q": 0} and not plan.broadcast and times is None
    source = prepare(DIAMOND_STREAM, analysis, RunSpec(), tmp_path)  # not Parquet: written once
    assert source.last == 19 and source.error is None and len(source.files) == 1
    grid = make_grid(analysis, 2, source.counts, source.last, "key")
    assert grid.key == plan.key and grid.cells == 2 and grid.ranges == ((0, 10), (10, 20)) and len(grid.spans) == 1
    rows = {k: [(r.t, a) for r in read_slice(source, 0, 20, grid.key, 2, k) for a in r.atoms] for k in (0, 1)}
    assert sorted(a for r in rows.values() for _, a in r) == sorted(a for _, atoms in DIAMOND_STREAM for a in atoms)
    for s, r in rows.items():
        assert r and all(shard_of(a, plan.key, 2) == s for _, a in r)
    later = [r.t for r in read_slice(source, 12, 15, None, 1, 0)]
    assert later == [12, 13, 14]


def test_retrieval_per_item_all_answer_streams():
    analysis = load_program(RETRIEVAL)
    plan, _ = plan_for(analysis, "key")
    assert plan.key["req"] == 0 and plan.key["get"] == 0 and plan.broadcast == {"down", "qlev"}
    stream = list(generate("b1", seed=3, tp=20, window=20, items=3))
    single = view(run(RETRIEVAL, stream, engine="clingo", models=0))
    assert max(len(models) for _, _, models in single) > 1  # several answer streams: a product
    owners = {shard_of(("req", i, 0), plan.key, 3) for i in (1, 2, 3)}
    assert len(owners) > 1  # the items really are split
    assert view(run_sharded_local(RETRIEVAL, stream, shards=3, shard_by="key", engine="clingo", models=0)) == single
    # models=2: two of the answer streams of the single run
    two = view(run_sharded_local(RETRIEVAL, stream, shards=3, shard_by="key", engine="clingo", models=2))
    for (t, c, some), (t2, c2, every) in zip(two, single):
        assert (t, c) == (t2, c2) and len(some) == min(2, len(every)) and set(some) <= set(every)


GUESS = """\
a(X) :- p(X) in [1], not b(X).
b(X) :- p(X) in [1], not a(X).
:- a(X), bad(X) in [1].
:- a(X), b(X).
"""


def test_guesses_product_and_no_answer_stream():
    # x and y go to different shards of 2; the shards' choices combine into the product
    stream = [(0, ["p(x)", "p(d)"]), (1, ["p(x)", "bad(x)"]), (2, []), (3, ["p(x)", "p(d)"])]
    assert {shard_of(("p", v), {"p": 0}, 2) for v in "xd"} == {0, 1}
    single = view(run(GUESS, stream, engine="clingo", models=0))
    assert [len(m) for _, _, m in single] == [4, 2, 1, 4]
    assert view(run_sharded_local(GUESS, stream, shards=2, shard_by="key", engine="clingo", models=0)) == single
    none = [(0, ["p(x)", "bad(x)"])]
    program_none = GUESS + ":- b(X), bad(X) in [1].\n"
    assert (
        view(run_sharded_local(program_none, none, shards=2, shard_by="key", engine="clingo", models=0))
        == view(run(program_none, none, engine="clingo", models=0))
        == [(0, 2, [])]
    )


def test_negation_over_background_keys():
    # shard 0 sees no q(v) of shard 1's values: only the owner of a key reports p(v)
    prog = "item(1..6).\np(X) :- item(X), not q(X) in [2].\n"
    analysis = load_program(prog)
    assert needs_owner_filter(analysis, plan_for(analysis, "key")[0].key)
    assert not needs_owner_filter(load_program(RETRIEVAL), plan_for(load_program(RETRIEVAL), "key")[0].key)
    stream = [(0, ["q(1)", "q(2)"]), (1, ["q(5)"]), (2, []), (3, []), (4, ["q(3)", "q(4)"])]
    assert view(run_sharded_local(prog, stream, shards=2, shard_by="key", engine="clingo")) == view(
        run(prog, stream, engine="clingo")
    )


def test_join_is_refused_with_the_reason():
    join = (ENCODINGS / "join.lars").read_text()
    with pytest.raises(UsageError, match="joins keyed atoms on different variables"):
        run_sharded_local(join, [(0, ["p(a,b)"])], shards=2, shard_by="key")


def test_until_and_bad_record():
    stream = [(0, ["p(a,b)"]), (2, ["p(c,d)"]), (4, ["q(e,f)"])]  # q/2 is intensional: refused at t = 4
    prog = "q(A,B) :- p(A,B) in [3]."
    results = []
    with pytest.raises(StreamError, match="intensional predicate 'q/2'"):
        for r in run_sharded_local(prog, stream, shards=2, engine="clingo"):
            results.append(r)
    assert [r.t for r in results] == [0, 1, 2]  # as the single run: what was accepted, then the error
    assert view(results) == view(run(prog, stream[:2], engine="clingo"))
    assert view(run_sharded_local(prog, stream[:2], shards=2, engine="clingo", until=6)) == view(
        run(prog, stream[:2], engine="clingo", until=6)
    )


def test_merge_of_reports():
    # models=1: shard 0 holds a(1) and k; shard 1 holds k, has no answer stream at t = 1, then
    # k again and a pin; the count c sums the shards' owned atoms
    a1, k, pin = "a(1)", "k", "b(2) at 5"
    rows = [
        (0, 0, 0, STATE, 2, [a1, k], [], [], [], None),
        (1, 0, 0, STATE, 0, [k], [], [], [], None),
        (0, 1, 0, STATE, 0, [], [], [], [], None),
        (1, 1, 0, NONE, 0, [], [k], [], [], None),
        (1, 2, 0, STATE, 1, [k], [], [pin], [], None),
    ]
    out = list(merge_shards(rows, 2, 3))
    assert [(r.t, r.c) for r in out] == [(0, 2), (1, 2), (2, 3), (3, 3)]
    assert out[1].models == ()
    assert sorted(out[0].models[0].atoms) == ["a(1)", "k"]  # texts: the cells send atoms as printed
    assert sorted(out[2].models[0].atoms) == ["a(1)", "k"] and out[2].models[0].pinned == {"b(2) at 5"}
    # models=0: the product of the shards' answer streams, deduplicated
    m = [(s, 0, i, MODEL, 0, [x], [], [], [], None) for s, i, x in [(0, 0, "a"), (0, 1, "b"), (1, 0, "c"), (1, 1, "c")]]
    (res,) = merge_shards(m, 2, 0, models=0)
    assert sorted(sorted(mm.atoms) for mm in res.models) == [["a", "c"], ["b", "c"]]


def test_the_sharded_run_of_the_command_writes_what_the_single_run_writes(tmp_path):
    from ticker_py.pipeline import write_run
    from ticker_py.spec import RunSpec

    path = tmp_path / "s.stream"
    path.write_text("".join(f"{t}: {', '.join(atoms)}\n" for t, atoms in time_points("diamond", tp=8, rate=3)))
    sharded, single = tmp_path / "sharded.jsonl", tmp_path / "single.jsonl"
    write_run(DIAMOND, str(path), RunSpec(engine="clingo", shards=2, out=str(sharded)))
    write_run(DIAMOND, str(path), RunSpec(engine="clingo", out=str(single)))
    assert sharded.read_text() == single.read_text() and sharded.read_text().count("\n") == 8
    with pytest.raises(UsageError, match="an @-atom without window"):
        write_run(UNSHARDABLE, str(path), RunSpec(shards=2, format="none"))
    with pytest.raises(UsageError, match="joins keyed atoms"):
        write_run((ENCODINGS / "join.lars").read_text(), str(path), RunSpec(shards=2, shard_by="key", format="none"))
    with pytest.raises(UsageError, match="signal cannot be sharded"):
        RunSpec(shards=2, every="signal")


# ------------------------------------------------------------------ Spark


@pytest.fixture(scope="session")
def spark():
    pytest.importorskip("pyspark")
    from ticker_py.spark.session import get_spark

    return get_spark("local[2]")  # the same session as tests/test_spark.py's, which stops it


@pytest.mark.spark
@pytest.mark.slow
def test_spark_sharded_equals_single(spark, tmp_path):
    from ticker_py.spark import run_sharded

    rows = [(t, a) for t, atoms in time_points("diamond", tp=20, rate=6) for a in atoms]
    frame = pd.DataFrame(rows, columns=["t", "atom"]).assign(c=range(1, len(rows) + 1))
    sdf = spark.createDataFrame(frame.sample(frac=1, random_state=0))  # order from c only
    single = view(run(DIAMOND, frame, engine="clingo"))
    timings = {}
    assert view(run_sharded(DIAMOND, sdf, shards=2, engine="clingo", session=spark, timings=timings)) == single
    assert set(timings) == {"evaluate", "merge"}
    # a local stream, split on the driver; several answer streams
    stream = list(generate("b1", seed=3, tp=20, window=20, items=3))
    assert view(run_sharded(RETRIEVAL, stream, shards=3, engine="clingo", models=0, session=spark)) == view(
        run(RETRIEVAL, stream, engine="clingo", models=0)
    )


@pytest.mark.spark
@pytest.mark.slow
def test_run_reads_spark_dataframe(spark):
    rows = [(t, a) for t, atoms in time_points("b1", seed=1, tp=30, window=5, items=2) for a in atoms]
    frame = pd.DataFrame(rows, columns=["t", "atom"])
    prog = program("b1", window=5, items=2)
    single = view(run(prog, frame, engine="clingo"))
    assert view(run(prog, spark.createDataFrame(frame), engine="clingo")) == single
    shuffled = frame.assign(c=range(1, len(frame) + 1)).sample(frac=1, random_state=1)  # c: the order
    assert view(run(prog, shuffled, engine="clingo")) == single
    assert view(run(prog, spark.createDataFrame(shuffled).repartition(3), engine="clingo")) == single


def test_ticker_run_shards_through_the_command_line(tmp_path, capsys):
    from ticker_py.cli import main

    prog = tmp_path / "d.lars"
    prog.write_text(DIAMOND)
    path = tmp_path / "s.stream"
    path.write_text("".join(f"{t}: {', '.join(atoms)}\n" for t, atoms in time_points("diamond", tp=8, rate=3)))
    assert main(["run", str(prog), "--stream", str(path), "--engine", "native"]) == 0
    single = capsys.readouterr().out
    assert main(["run", str(prog), "--stream", str(path), "--engine", "native", "--shards", "3"]) == 0
    assert capsys.readouterr().out == single and single.count("\n") == 8
    join = tmp_path / "j.lars"
    join.write_text((ENCODINGS / "join.lars").read_text())
    assert main(["run", str(join), "--stream", str(path), "--engine", "native"]) == 0
    single = capsys.readouterr().out
    for by in ("auto", "time"):  # the join cannot be keyed: auto cuts it by time
        assert main(["run", str(join), "--stream", str(path), "--shards", "3", "--shard-by", by]) == 0
        assert capsys.readouterr().out == single
    assert main(["run", str(join), "--stream", str(path), "--shards", "2", "--shard-by", "both"]) == 2
    assert "joins keyed atoms on different variables" in capsys.readouterr().err
    bad = tmp_path / "u.lars"
    bad.write_text(UNSHARDABLE)
    assert main(["run", str(bad), "--stream", str(path), "--shards", "2"]) == 2
    err = capsys.readouterr().err
    assert "cannot be evaluated in shards" in err and "an @-atom without window reads the whole past" in err
    assert main(["run", str(prog), "--stream", str(path), "--shards", "2", "--inertia", "--shard-by", "time"]) == 2
    assert "inertia=True (--inertia) keeps answers" in capsys.readouterr().err
    assert main(["check", str(join)]) == 0
    report = capsys.readouterr().out
    assert "time sharding: yes, each range reads 10 time points before it" in report
    assert "shard plan (--shard-by auto): time" in report
    assert main(["check", str(bad)]) == 0
    assert "time sharding: no (an @-atom without window reads the whole past)" in capsys.readouterr().out


def test_engine_is_checked_before_sharding_and_a_bad_first_record_evaluates_nothing(tmp_path, capsys):
    from ticker_py.cli import main

    prog = tmp_path / "g.lars"
    prog.write_text("a :- not b.\nb :- not a.\n" + DIAMOND)
    assert main(["run", str(prog), "--stream", "-", "--engine", "native", "--shards", "2"]) == 2
    assert "the native engine cannot run this program" in capsys.readouterr().err
    for bad in ("0", "-1"):
        assert main(["run", str(tmp_path / "g.lars"), "--stream", "-", "--shards", bad]) == 2
        assert f"--shards must be an integer from 1 to 10000, not {bad}" in capsys.readouterr().err
    got = []
    with pytest.raises(StreamError, match="intensional predicate 'q/2'"):
        for r in run_sharded_local(DIAMOND, [(0, ["q(1,2)"])], shards=2):
            got.append(r)
    assert got == []


def test_the_api_checks_the_engine_before_any_cell_runs():
    """run_sharded refuses an engine that cannot run the program when it is called, as the CLI does,
    not in the cells (where a Spark task would fail)."""
    from ticker_py import run_sharded
    from ticker_py.errors import EngineUnsupported

    with pytest.raises(EngineUnsupported, match="the native engine cannot run this program"):
        run_sharded("a :- not b.\nb :- not a.\n" + DIAMOND, [(0, ["p(1,2)"])], shards=2, engine="native")


def test_cells_read_their_slice_of_a_parquet_directory(tmp_path):
    """A Parquet directory (blocks named out of time order, an order column that reorders a time
    point, a heartbeat row) is scanned on the driver and each cell reads its own slice: the same
    answers as the single run reading the same directory."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    prog = "q(X) :- p(X) in [2].\nr(X) :- p(X) always [1].\n"
    rows = [(t, f"p({t % 3})", 10 * t + (2 - i)) for t in range(12) for i in range(2)] + [(13, None, 999)]
    for block, part in (("block=10", rows[:8]), ("block=2", rows[8:])):  # "10" sorts before "2"
        (tmp_path / "s" / block).mkdir(parents=True)
        t, atom, c = zip(*part)
        pq.write_table(pa.table({"t": list(t), "atom": list(atom), "c": list(c)}), tmp_path / "s" / block / "x.parquet")
    single = view(run(prog, str(tmp_path / "s")))
    assert single[-1][0] == 13  # the heartbeat's time point is evaluated
    for by, shards in (("time", 3), ("key", 2), ("both", 4)):
        assert view(run_sharded_local(prog, str(tmp_path / "s"), shards=shards, shard_by=by)) == single, by


def test_a_parquet_stream_out_of_time_order_is_refused_with_the_reason(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"t": [0, 2, 1], "atom": ["p(1)", "p(2)", "p(3)"]}), tmp_path / "s.parquet")
    with pytest.raises(StreamError, match=r"time 1 after time 2") as err:
        list(run_sharded_local("q(X) :- p(X) in [2].", str(tmp_path / "s.parquet"), shards=2))
    assert "time order" in str(err.value)


def test_row_groups_planned_from_their_statistics(tmp_path):
    """Without tuple windows a file is planned from its row groups' t statistics: time points split
    across row groups give the single run's answers; rows out of time order inside a row group
    (its statistics in order) are refused by the cell that reads them, at their file and row, as
    the scan refuses row groups out of order."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    prog = "q(X) :- p(X) in [2].\nr(X) :- p(X) always [1].\n"
    rows = [(t, f"p({(t + i) % 3})") for t in range(12) for i in range(2)]
    t, atom = zip(*rows)
    pq.write_table(pa.table({"t": list(t), "atom": list(atom)}), tmp_path / "s.parquet", row_group_size=5)
    single = view(run(prog, str(tmp_path / "s.parquet")))
    for by, shards in (("time", 3), ("key", 2), ("both", 4)):
        assert view(run_sharded_local(prog, str(tmp_path / "s.parquet"), shards=shards, shard_by=by)) == single, by
    for name, t in (("inside", [0, 1, 3, 2, 4, 5]), ("between", [0, 1, 1, 3, 2, 4])):
        path = tmp_path / f"{name}.parquet"
        pq.write_table(pa.table({"t": t, "atom": [f"p({x})" for x in t]}), path, row_group_size=2)
        with pytest.raises(StreamError, match=r"time 2 after time 3") as err:
            list(run_sharded_local("q(X) :- p(X) in [2].", str(path), shards=2))
        assert "time order" in str(err.value) and f"{name}.parquet:{4 if name == 'inside' else 5}:" in str(err.value)


def test_a_gap_in_a_parquet_stream_is_the_single_runs_error_after_what_came_before(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"t": [0, 1, 50], "atom": ["p(1)", "p(2)", "p(3)"]}), tmp_path / "s.parquet")
    prog, path = "q(X) :- p(X) in [2].", str(tmp_path / "s.parquet")
    single, got = [], []
    with pytest.raises(StreamError, match="more than the gap limit 10"):
        single.extend(run(prog, path, max_gap=10))
    with pytest.raises(StreamError, match="more than the gap limit 10"):
        for r in run_sharded_local(prog, path, shards=2, max_gap=10):
            got.append(r)
    assert view(got) == view(run(prog, path, until=1)) and [r.t for r in got] == [0, 1]


def test_show_at_and_models_through_the_sharded_command(tmp_path):
    """``--shards N`` writes what the single run writes, with --show-at and --models 0 too."""
    from ticker_py.pipeline import write_run

    path = tmp_path / "s.stream"
    path.write_text("".join(f"{t}: {', '.join(a)}\n" for t, a in time_points("b1", 3, tp=30, window=20, items=2)))
    prog = (ENCODINGS / "retrieval.lars").read_text() + "item(2).\n"
    for options in (dict(show_at=True), dict(show_at=True, models=0), dict(models=0, format="text")):
        sharded, single = tmp_path / "sharded.out", tmp_path / "single.out"
        write_run(prog, str(path), RunSpec(shards=3, out=str(sharded), **options))
        write_run(prog, str(path), RunSpec(out=str(single), **options))
        assert sharded.read_text() == single.read_text(), options


@pytest.mark.parametrize("options", [dict(format="text"), dict(changes=True), dict(consequences="brave")])
def test_spark_out_refuses_what_it_cannot_write(tmp_path, options):
    """``--spark --out DIR`` writes answer streams as Parquet rows: other outputs are refused before
    any Spark session is needed."""
    from ticker_py.spark.shard import write_sharded

    with pytest.raises(UsageError, match="writes the answer streams as Parquet rows"):
        write_sharded("q(X) :- p(X) in [2].", [(0, ["p(1)"])], tmp_path / "o", spec=RunSpec(shards=2, **options))
    assert not (tmp_path / "o").exists()
