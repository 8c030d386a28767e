"""Live streams: a push API, TCP input and output, wall-clock time, Spark Structured Streaming.

Only :mod:`ticker_py.live.spark_stream` imports pyspark; the names below are imported when first
used, so that ``ticker run`` on a file imports no sockets (docs/live.md).
"""

import importlib

_EXPORTS = {
    "LiveReasoner": "reasoner",
    "LiveInput": "source",
    "TcpSink": "net",
    "parse_address": "net",
    "parse_line": "source",
    "save_records": "source",
}
__all__ = ["LiveReasoner", "LiveInput", "TcpSink", "parse_address", "parse_line", "save_records"]


def __getattr__(name):
    if name in _EXPORTS:
        return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():  # ``dir()`` and tab completion list the lazy names too
    return sorted(set(globals()) | set(_EXPORTS))
