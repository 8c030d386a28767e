"""Spark generation: same content for any partition count, equal to the pure-Python generator."""

from __future__ import annotations

import pyarrow.dataset as ds
import pytest

from ticker_py.workloads import program, time_points
from ticker_py.workloads.files import write_stream


@pytest.fixture(scope="session")
def spark():
    pytest.importorskip("pyspark")
    from ticker_py.spark.session import get_spark

    session = get_spark("local[2]")
    yield session
    session.stop()


def read(path):
    tab = ds.dataset(path / "stream.parquet", partitioning="hive").to_table()
    return tab.sort_by([("t", "ascending"), ("c", "ascending")])


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.parametrize(
    "name, params",
    [
        ("b2", dict(window=5, items=2)),  # the blocks' sizes counted by a first Spark job
        ("cooling", dict(rate=30)),  # sizes known up front from here on
        ("caching-tuple", dict(window=3)),
        ("box-chain", dict(rate=3, window=4)),  # a varying number of atoms per time point
        ("diamond", dict(rate=3)),
        ("box", dict(rate=3)),
        ("rules-3", dict(rate=2)),
    ],
)
def test_partitions_and_python_agree(spark, tmp_path, name, params):
    from ticker_py.spark.gen import generate_parquet

    tables = []
    for parts in (1, 4):
        out = tmp_path / f"p{parts}"
        meta = generate_parquet(spark, name, out, seed=7, tp=50, partitions=parts, size=7, **params)
        tables.append(read(out))
    assert tables[0].drop_columns(["block"]).equals(tables[1].drop_columns(["block"]))
    tab = tables[1]
    ref = [(t, a) for t, atoms in time_points(name, 7, tp=50, **params) for a in atoms]
    assert list(zip(tab["t"].to_pylist(), tab["atom"].to_pylist())) == ref
    assert tab["c"].to_pylist() == list(range(1, len(ref) + 1)) and meta["atoms"] == len(ref)
    assert tab["block"].to_pylist() == [t // 7 for t in tab["t"].to_pylist()]
    assert (out / "stream.jsonl").exists() and (out / "stream.stream").exists()
    assert (out / "program.lars").read_text() == program(name, tp=50, **params)
    write_stream(tmp_path / "python", name, "parquet", 7, tp=50, **params)  # what --no-spark writes
    assert read(tmp_path / "python").drop_columns(["block"]).equals(tab.drop_columns(["block"]))


@pytest.mark.spark
@pytest.mark.slow
def test_layout_partitioned_by_block(spark, tmp_path):
    from ticker_py.spark.gen import generate_parquet

    meta = generate_parquet(spark, "diamond", tmp_path, tp=20, rate=3, size=6)
    dirs = sorted(p.name for p in (tmp_path / "stream.parquet").iterdir() if p.is_dir())
    assert dirs == ["block=0", "block=1", "block=2", "block=3"] and meta["block_size"] == 6
    tab = read(tmp_path)
    assert tab["block"].to_pylist() == [t // 6 for t in tab["t"].to_pylist()]


@pytest.mark.parametrize(
    "args, said",
    [
        ([], "without Spark: below"),
        (["--no-spark"], "without Spark)"),
        (["--parquet-layout", "args"], "without Spark: Spark writes only Parquet in the atom layout"),
    ],
)
def test_gen_says_whether_it_used_spark(tmp_path, capsys, args, said):
    """Small streams and the args layout are written without Spark (no session starts), and the
    command says so; ``--spark`` with another format or layout is refused."""
    from ticker_py.cli import main

    assert main(["gen", "cooling", "--tp", "5", "--rate", "3", "--out", str(tmp_path / "g"), *args]) == 0
    assert said in capsys.readouterr().out


@pytest.mark.parametrize("args", [["--format", "jsonl"], ["--parquet-layout", "args"]])
def test_gen_spark_refuses_what_it_cannot_write(tmp_path, capsys, args):
    from ticker_py.cli import main

    assert main(["gen", "cooling", "--tp", "5", "--out", str(tmp_path / "g"), "--spark", *args]) == 2
    assert "--spark writes Parquet in the atom layout" in capsys.readouterr().err
