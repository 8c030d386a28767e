"""Reading a Spark DataFrame as a stream (docs/formats.md, tables).

:func:`read_spark_dataframe` is what :func:`ticker_py.records_from` (and so
``ticker_py.run(program, spark_df)``) uses for an object with ``toLocalIterator``. It
imports nothing from pyspark itself: it only calls methods of the DataFrame it is given, so it
lives with the other readers (:mod:`ticker_py.spark` re-exports it).
"""

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
    """Lazily read a Spark DataFrame with columns ``t`` and ``atom`` as Records in time order.

    Like :func:`~ticker_py.streams.read_dataframe`: with an order column (``c``, ``order`` or
    ``seq``, the first present) the rows are sorted by (t, that column) in Spark
    (``repartitionByRange`` + ``sortWithinPartitions``, so no single task sorts everything);
    without one the rows are taken in the DataFrame's own order and t must not decrease.
    Rows come to the driver through ``toLocalIterator``, one Spark partition at a time, so
    memory is bounded by the largest partition plus one time point. ``partitions`` sets the
    number of sorted ranges (default: the DataFrame's partition count, at least
    ``spark.sql.shuffle.partitions``). An empty atom cell is a heartbeat; a record's line is
    its 1-based row number in time order.
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
