"""Streams: the stream model, readers of input streams and writers of results.

The readers and writers are imported when first used (``from ticker_py.streams import
read_parquet`` imports :mod:`.parquet` only): a command imports only the modules it needs.
"""

import importlib

from .model import Known, Model, Record, Result, TimePoint, in_printed_order, time_points

#: the lazily imported names, by their module
_LAZY = {
    name: module
    for module, names in {
        "answers": "AnswerState",
        "checker": "StreamChecker",
        "parquet": "read_parquet",
        "readers": "open_stream",
        "tables": "ORDER_COLUMNS read_csv read_dataframe",
        "text": "read_jsonl read_text",
        "writers": "FORMATS ChangesWriter CsvWriter JsonlWriter NoneWriter TextWriter Writer printed_models"
        " result_rows results_to_dataframe",
    }.items()
    for name in names.split()
}

__all__ = ["Known", "Model", "Record", "Result", "TimePoint", "in_printed_order", "time_points", *_LAZY]


def __getattr__(name):
    if name in _LAZY:
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():  # ``dir()`` and tab completion list the lazy names too
    return sorted(set(globals()) | set(_LAZY))
