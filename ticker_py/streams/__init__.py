"""Streams: the stream model, readers of input streams and writers of results.

The readers and writers are imported when first used (``from ticker_py.streams import
read_parquet`` imports :mod:`.parquet` only): a command imports only the modules it needs.
"""

import importlib

from .model import Known, Model, Record, Result, TimePoint, in_printed_order, time_points

_LAZY = {
    "ORDER_COLUMNS": "tables",
    "StreamChecker": "checker",
    "open_stream": "readers",
    "read_csv": "tables",
    "read_dataframe": "tables",
    "read_jsonl": "text",
    "read_parquet": "parquet",
    "read_text": "text",
    "AnswerState": "answers",
}
_LAZY.update(
    {
        name: "writers"
        for name in (
            "FORMATS",
            "ChangesWriter",
            "CsvWriter",
            "JsonlWriter",
            "NoneWriter",
            "TextWriter",
            "Writer",
            "printed_models",
            "result_rows",
            "results_to_dataframe",
        )
    }
)

__all__ = ["Known", "Model", "Record", "Result", "TimePoint", "in_printed_order", "time_points", *_LAZY]


def __getattr__(name):
    if name in _LAZY:
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():  # ``dir()`` and tab completion list the lazy names too
    return sorted(set(globals()) | set(_LAZY))
