"""Reading a Spark DataFrame as a stream (docs/formats.md, tables). It only calls methods of the
DataFrame it is given (no pyspark import), so it lives with the other readers."""

from __future__ import annotations

from collections.abc import Iterator

from .model import Record
from .tables import check_columns, table_records

__all__ = ["read_spark_dataframe", "order_column"]


def order_column(columns, source: str) -> str | None:
    """The order column of a table with columns ``t`` and ``atom`` (``c``, ``order`` or ``seq``,
    the first present), or None; a table without ``t`` or ``atom`` raises StreamError."""
    return check_columns(list(columns), source)


def read_spark_dataframe(sdf, source: str = "<Spark DataFrame>", partitions: int | None = None) -> Iterator[Record]:
    """Lazily read a Spark DataFrame with columns ``t`` and ``atom`` as Records in time order, as
    :func:`~ticker_py.streams.read_dataframe` (with an order column sorted in Spark, in
    ``partitions`` ranges: default the DataFrame's partition count, at least
    ``spark.sql.shuffle.partitions``). Rows come one Spark partition at a time
    (``toLocalIterator``); a record's line is its 1-based row number in time order.
    """
    order = order_column(sdf.columns, source)
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
