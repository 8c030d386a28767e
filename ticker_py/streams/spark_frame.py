"""Reading a Spark DataFrame as a stream (docs/formats.md, tables). It only calls methods of the
DataFrame it is given (no pyspark import), so it lives with the other readers."""

from __future__ import annotations

from collections.abc import Iterator

from .model import Record
from .tables import check_columns, table_records

__all__ = ["read_spark_dataframe"]


def read_spark_dataframe(sdf, source: str = "<Spark DataFrame>", partitions: int | None = None) -> Iterator[Record]:
    """Lazily read a Spark DataFrame as :func:`~ticker_py.streams.read_dataframe` reads a pandas one,
    one Spark partition at a time, a record's line its row number in time order (an order column
    sorted in Spark, in ``partitions`` ranges: default the partitions, at least the shuffle's)."""
    order = check_columns(list(sdf.columns), source)
    columns = ["t", "atom"] + ([order] if order else [])
    frame = sdf.select(*columns)
    if order:
        if partitions is None:
            shuffle = int(frame.sparkSession.conf.get("spark.sql.shuffle.partitions", "4"))
            partitions = max(frame.rdd.getNumPartitions(), shuffle)
        frame = frame.repartitionByRange(partitions, "t", order).sortWithinPartitions("t", order)

    def rows():
        for number, row in enumerate(frame.toLocalIterator(), 1):
            yield (source, number, row[0], row[1], row[2] if order else None)

    # rows are already sorted, so the order key only has to be validated: keep it
    yield from table_records(rows(), order)
