"""Spark support: the only package of ticker_py that imports pyspark.

:func:`session.get_spark` builds the local session (:func:`session.warm_workers` starts its
Python workers); :func:`gen.generate_parquet` writes a workload's stream in Spark tasks;
:func:`read_spark_dataframe` reads a Spark DataFrame as a stream; :func:`run_sharded` evaluates a
program in Spark tasks, one per cell of its stream (key shard x time range, each reading its own
slice; :func:`ticker_py.shard.run_sharded_local` is the same without Spark), and
:func:`shard.write_sharded` has one task per time range write the answers as Parquet. Importing
this package (and :mod:`.shard`) does not import pyspark: the functions do, when called.
"""

from ..streams.spark_frame import read_spark_dataframe
from .shard import run_sharded

__all__ = ["read_spark_dataframe", "run_sharded"]
