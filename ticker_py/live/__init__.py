"""Live streams: a push API, TCP input and output, wall-clock time, Spark Structured Streaming.

See docs/live.md. Nothing here imports pyspark except :mod:`ticker_py.live.spark_stream`.
"""

from .net import TcpSink, parse_address
from .reasoner import LiveReasoner
from .source import LiveInput, parse_line, save_records

__all__ = ["LiveReasoner", "LiveInput", "TcpSink", "parse_address", "parse_line", "save_records"]
