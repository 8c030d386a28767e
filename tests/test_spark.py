"""Spark generation: same content for any partition count, equal to the pure-Python generator."""

from __future__ import annotations

import pyarrow.dataset as ds
import pytest

from ticker_py.workloads import time_points

pytestmark = [pytest.mark.spark, pytest.mark.slow]


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


@pytest.mark.parametrize(
    "name, params",
    [
        ("b2", dict(window=5, items=2)),  # counted by a Spark job
        ("cooling", dict(rate=30)),
    ],
)  # count known up front
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
    assert (out / "stream.jsonl").exists() and (out / "stream.stream").exists()
    assert (out / "program.lars").read_text().startswith("node(0..10)." if name == "b2" else "steam(V)")


def test_layout_partitioned_by_block(spark, tmp_path):
    from ticker_py.spark.gen import generate_parquet

    meta = generate_parquet(spark, "diamond", tmp_path, tp=20, rate=3, size=6)
    dirs = sorted(p.name for p in (tmp_path / "stream.parquet").iterdir() if p.is_dir())
    assert dirs == ["block=0", "block=1", "block=2", "block=3"] and meta["block_size"] == 6
    tab = read(tmp_path)
    assert tab["block"].to_pylist() == [t // 6 for t in tab["t"].to_pylist()]


def test_the_args_layout_with_spark(spark, tmp_path):
    """``--parquet-layout args`` with Spark: the schema of the whole stream (found by a first job), the
    same records as without Spark, and the arrival count c written without a dictionary."""
    import pyarrow.parquet as pq

    from ticker_py.spark.gen import generate_parquet
    from ticker_py.streams.readers import read_parquet
    from ticker_py.workloads.files import write_stream

    generate_parquet(
        spark, "cooling", tmp_path / "spark", seed=3, tp=30, rate=4, size=7, partitions=2, parquet_layout="args"
    )
    write_stream(tmp_path / "python", "cooling", "parquet", 3, "args", tp=30, rate=4)
    files = sorted((tmp_path / "spark" / "stream.parquet").rglob("*.parquet"))
    schema = pq.read_schema(files[0])
    assert [str(schema.field(c).type) for c in ("predicate", "a1")] == ["string", "int64"]
    meta = pq.ParquetFile(files[0]).metadata.row_group(0)
    encodings = {meta.column(i).path_in_schema: meta.column(i).encodings for i in range(meta.num_columns)}
    assert not {"PLAIN_DICTIONARY", "RLE_DICTIONARY"} & set(encodings["c"])
    records = [[(r.t, r.atoms) for r in read_parquet(tmp_path / d / "stream.parquet")] for d in ("spark", "python")]
    assert records[0] == records[1] and len(records[0]) == 30
