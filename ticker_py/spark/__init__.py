"""Spark support: the only package of ticker_py that imports pyspark.

:func:`session.get_spark` builds the local session; :func:`gen.generate_parquet` writes a
workload's stream with Spark; :func:`cli.register_cli` adds ``ticker gen``;
:func:`read_spark_dataframe` reads a Spark DataFrame as a stream; :func:`run_sharded`
evaluates a shardable program in Spark tasks, one per shard of the stream
(:func:`run_sharded_local`: the same without Spark). Importing this package (and
:mod:`.shard`, :mod:`.dataframe`) does not import pyspark: the functions do, when called.
"""

from .dataframe import read_spark_dataframe
from .shard import add_spark_run_options, merge_shards, run_sharded, run_sharded_cli, run_sharded_local

__all__ = ["read_spark_dataframe", "run_sharded", "run_sharded_local", "merge_shards",
           "add_spark_run_options", "run_sharded_cli"]
