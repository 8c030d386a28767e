"""Streams: the stream model, readers of input streams and writers of results."""

from .model import Model, Record, Result, TimePoint, time_points
from .readers import (ORDER_COLUMNS, StreamChecker, open_stream, read_csv, read_dataframe,
                      read_jsonl, read_parquet, read_text)
from .writers import (FORMATS, ChangesWriter, CsvWriter, JsonlWriter, NoneWriter, TextWriter,
                      Writer, make_writer, printed_models, result_rows, results_to_dataframe)

__all__ = ["Model", "Record", "Result", "TimePoint", "time_points",
           "ORDER_COLUMNS", "StreamChecker", "open_stream", "read_csv", "read_dataframe",
           "read_jsonl", "read_parquet", "read_text",
           "FORMATS", "ChangesWriter", "CsvWriter", "JsonlWriter", "NoneWriter", "TextWriter",
           "Writer", "make_writer", "printed_models", "result_rows", "results_to_dataframe"]
