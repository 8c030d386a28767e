"""Spark support: the only package of ticker_py that imports pyspark.

:func:`session.get_spark` builds the local session; :func:`gen.generate_parquet` writes a
workload's stream with Spark; :func:`read_spark_dataframe` reads a Spark DataFrame as a
stream; :func:`run_sharded` evaluates a shardable program in Spark tasks, one per shard of
the stream (:func:`ticker_py.shard.run_sharded_local` is the same without Spark). Importing
this package (and :mod:`.shard`, :mod:`.dataframe`) does not import pyspark: the functions
do, when called.
"""

from ..streams.spark_frame import read_spark_dataframe
from .shard import run_sharded

__all__ = ["read_spark_dataframe", "run_sharded"]
