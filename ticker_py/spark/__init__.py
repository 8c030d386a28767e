"""Spark support: the only package of ticker_py that imports pyspark.

:func:`session.get_spark` builds the local session; :func:`gen.generate_parquet` writes a
workload's stream with Spark; :func:`cli.register_cli` adds ``ticker gen``.
"""
