"""Readers of timestamped RDF triples (docs/rdf.md): ``T: triples`` lines (``.nt``), N-Quads whose
graph name ends in the time point (``.nq``), and tables of ``t, s, p, o`` (CSV, Parquet, pandas).

Terms are read by pyoxigraph; a triple becomes an atom by :class:`RdfMapping`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..errors import InternalError, StreamError, UsageError
from ..rdf import RDF_COLUMNS, RDF_FORMATS
from ..rdf.mapping import RdfMapping, Terms, syntax_message, triple_atom
from .lines import from_path, line_time, stream_error, text_lines, time_value
from .model import Record
from .parquet import batches, open_parquet
from .tables import csv_rows, frame_times

__all__ = [
    "RdfMapping",
    "read_rdf_text",
    "read_nquads",
    "read_rdf_csv",
    "read_rdf_parquet",
    "read_rdf_dataframe",
    "open_rdf_stream",
    "parse_triples",
    "time_of_graph",
]

_TIME = re.compile(r"\s*(\S*?)\s*:(?=\s|$)")
#: a text stream is parsed in batches of at most this many characters (and ``batch`` lines)
_BATCH_CHARS = 1 << 20
_GRAPH_TIME = re.compile(r"[0-9]+$")


def _parse(text: str, fmt: str):
    """pyoxigraph's parse of ``text`` in the format ``fmt`` (a name of ``RdfFormat``)."""
    import pyoxigraph as ox

    return ox.parse(text, format=getattr(ox.RdfFormat, fmt))


def parse_triples(text: str, mapping: RdfMapping = RdfMapping()) -> list:
    """The atoms of N-Triples/Turtle triples ``text``; bad input raises ValueError."""
    try:
        triples = list(_parse(text, "TURTLE"))
    except SyntaxError as err:
        raise ValueError("bad triple: " + syntax_message(err.args[0])) from None
    return [triple_atom(quad, mapping) for quad in triples]


def read_rdf_text(
    lines_or_file, source: str = "<stdin>", mapping: RdfMapping = RdfMapping(), batch: int = 1
) -> Iterator[Record]:
    """Read ``T: triples`` lines (``T:`` alone: no triples; ``#`` and ``%`` start comment lines),
    ``batch`` lines per call of the RDF parser (1 keeps a pipe live)."""
    pending, size, terms = [], 0, Terms()
    for number, raw in enumerate(text_lines(lines_or_file, source), 1):
        raw = raw.rstrip("\r\n")
        if raw.lstrip()[:1] in ("", "#", "%"):
            continue
        try:
            m, t = _time(raw, source, number)
        except StreamError:
            yield from _parsed(pending, source, mapping, terms)  # the lines before it first
            raise
        pending.append((number, raw, t, m.end()))
        size += len(raw)
        if len(pending) >= batch or size >= _BATCH_CHARS:
            yield from _parsed(pending, source, mapping, terms)
            pending, size = [], 0
    yield from _parsed(pending, source, mapping, terms)


def _time(raw: str, source: str, number: int) -> tuple:
    """The match of a ``T: triples`` line's time and its time; a located StreamError if it is none."""
    m, t = line_time(_TIME, raw, source, number, "triples", raw, lambda: _quad_note(raw))
    if not raw.rstrip().endswith(".") and _no_final_dot(raw[m.end() :]):
        raise stream_error(source, number, len(raw.rstrip()) + 1, "bad triple: '.' expected at its end", raw)
    return m, t


def _quad_note(line: str) -> tuple:
    """A note for a line of a ``T:`` stream that is an N-Quad (its graph name the time point)."""
    try:
        quads = list(_parse(line, "N_QUADS"))
    except SyntaxError:
        return ()
    if not quads or type(quads[0].graph_name).__name__ != "NamedNode":
        return ()
    return (
        "this is an N-Quads line (the graph name the time point): read the stream as a .nq file, or --stream-format nq",
    )


def _no_final_dot(text: str) -> bool:
    """Whether the triples ``text`` of a line lack only the final ``.`` (optional in the TriG graph
    the batch parse reads, required in N-Triples)."""
    try:
        list(_parse(text, "TURTLE"))
        return False  # a line of triples, or only a comment
    except SyntaxError:
        pass
    try:
        list(_parse(text + "\n.", "TURTLE"))  # after a comment, too
    except SyntaxError:
        return False  # another error: the batch parse reports it
    return True


def _parsed(entries: list, source: str, mapping: RdfMapping, terms: Terms) -> Iterator[Record]:
    """Records of ``(line, text, t, start)`` entries, their triples ``text[start:]`` parsed by one
    TriG parse, entry i the graph ``<urn:l:i> { ... }`` (every triple keeps its line)."""
    if not entries:
        return
    heads = [f"<urn:l:{i}> {{" for i in range(len(entries))]
    text = "\n} ".join(h + raw[start:] for h, (_, raw, _, start) in zip(heads, entries)) + "\n}"
    atoms: list = [[] for _ in entries]
    try:
        for quad in _parse(text, "TRIG"):
            i = int(quad.graph_name.value[6:])
            try:
                atoms[i].append(triple_atom(quad, mapping, terms))
            except ValueError as e:
                yield from _records(entries, atoms, i, source)
                number, raw, _, start = entries[i]
                raise stream_error(
                    source, number, start + 1 + len(raw[start:]) - len(raw[start:].lstrip()), str(e), raw
                ) from None
    except SyntaxError as err:
        if len(entries) > 1:
            # The parser's message for a bad line can depend on the lines after it (an open string
            # literal runs on): the lines again one by one, so a batch reports what a pipe reports.
            for entry in entries:
                yield from _parsed([entry], source, mapping, terms)
            raise InternalError("a batch the RDF parser refused parsed line by line") from err
        message, (_, line, column, *_rest) = err.args
        i = line - 1
        if i < len(entries):
            column -= len(heads[i]) + (2 if i else 0)
        if i >= len(entries) or (column < 1 and i):  # at the '}' closing the previous line: at its end
            i -= 1
            column = len(entries[i][1]) - entries[i][3] + 1
            message = "unexpected end of the line"
        yield from _records(entries, atoms, i, source)
        number, raw, _, start = entries[i]
        raise stream_error(source, number, start + column, "bad triple: " + syntax_message(message), raw) from None
    yield from _records(entries, atoms, len(entries), source)


def _records(entries: list, atoms: list, hi: int, source: str) -> Iterator[Record]:
    """One record per run of entries ``0..hi-1`` with one time point (at the run's first line)."""
    return _grouped(((line, t, new) for (line, _, t, _), new in zip(entries[:hi], atoms)), source)


def time_of_graph(graph) -> int:
    """The time point a graph name stands for: an IRI ending in digits; ValueError otherwise."""
    if type(graph).__name__ != "NamedNode":
        raise ValueError("a quad needs a graph name, an IRI ending in its time point (e.g. <urn:ticker:t:5>)")
    m = _GRAPH_TIME.search(graph.value)
    if m is None:
        raise ValueError(f"graph name <{graph.value}> is not a time point (an IRI ending in digits)")
    return int(m.group())


def read_nquads(lines_or_file, source: str = "<stdin>", mapping: RdfMapping = RdfMapping()) -> Iterator[Record]:
    """Read N-Quads whose graph names are time points (:func:`time_of_graph`), one record per run of
    quads of one time point."""

    def items():
        for number, raw in enumerate(text_lines(lines_or_file, source), 1):
            raw = raw.rstrip("\r\n")
            if not raw.strip() or raw.lstrip().startswith("#"):
                continue
            try:
                quads = list(_parse(raw, "N_QUADS"))
            except SyntaxError as err:
                prefix = _TIME.match(raw)
                if prefix is not None and prefix.group(1).isdigit():  # a line of the T: stream format
                    raise stream_error(
                        source,
                        number,
                        prefix.start(1) + 1,
                        "a 'T: triples' line (the .nt stream format) in an N-Quads stream",
                        raw,
                        prefix.end() - prefix.start(1),
                        (
                            "in N-Quads the graph name is the time point: <s> <p> <o> <urn:ticker:t:T> .",
                            "or read the stream as T: lines: a .nt file, or --stream-format nt",
                        ),
                    ) from None
                message, (_, _, column, *_rest) = err.args
                raise stream_error(source, number, column, "bad triple: " + syntax_message(message), raw) from None
            for quad in quads:
                try:
                    yield number, time_of_graph(quad.graph_name), (triple_atom(quad, mapping, terms),)
                except ValueError as e:
                    raise stream_error(source, number, 1, str(e), raw) from None

    terms = Terms()
    return _grouped(items(), source)


def _grouped(items: Iterable[tuple], source: str) -> Iterator[Record]:
    """One record per run of ``(line, t, atoms)`` items with one t (on an error, the record collected
    so far first)."""
    last, atoms, where = None, [], 0
    try:
        for line, t, new in items:
            if t != last:
                if last is not None:
                    yield Record(last, tuple(atoms), source, where)
                last, atoms, where = t, [], line
            atoms.extend(new)
    except StreamError:
        if last is not None:
            yield Record(last, tuple(atoms), source, where)
        raise
    if last is not None:
        yield Record(last, tuple(atoms), source, where)


def _table(rows: Iterable[tuple], source: str, mapping: RdfMapping, text: bool = False) -> Iterator[Record]:
    """Group rows ``(line, t, s, p, o)`` into one record per time point (``text``: t cells are text)."""

    def items():
        for line, t, s, p, o in rows:
            try:
                t = time_value(t, text=text)
            except ValueError as e:
                raise stream_error(source, line, 1, str(e)) from None
            if s is None or (isinstance(s, str) and not s.strip()):
                yield line, t, ()  # a heartbeat row
                continue
            try:
                yield line, t, parse_triples(f"{s} {p} {o} .", mapping)
            except ValueError as e:
                raise stream_error(source, line, 1, f"triple '{s} {p} {o}': {e}") from None

    return _grouped(items(), source)


def _check_columns(columns, source: str) -> None:
    columns = list(columns)
    missing = [c for c in RDF_COLUMNS if c not in columns]
    if missing:
        raise stream_error(source, 1, 1, f"missing column '{missing[0]}' (an RDF table has columns t, s, p, o)")
    twice = [c for c in RDF_COLUMNS if columns.count(c) > 1]
    if twice:  # which one would be read?
        raise stream_error(source, 1, 1, f"column '{twice[0]}' appears {columns.count(twice[0])} times")


def read_rdf_csv(path, source: str | None = None, mapping: RdfMapping = RdfMapping()) -> Iterator[Record]:
    """Read a CSV file (a path or a file object such as stdin) with a header and columns
    ``t, s, p, o`` (N-Triples terms); an empty ``s`` is a heartbeat row."""
    return from_path(_rdf_csv_rows, path, source or str(path), mapping)


def _rdf_csv_rows(f, source: str, mapping: RdfMapping) -> Iterator[Record]:
    rows = csv_rows(f, source)
    header = [h.strip() for h in next(rows, (0, []))[1]]
    _check_columns(header, source)
    index = [header.index(c) for c in RDF_COLUMNS]
    cells = ((line, *(row[i] if i < len(row) else "" for i in index)) for line, row in rows if row)
    yield from _table(cells, source, mapping, text=True)


def read_rdf_parquet(
    path, source: str | None = None, mapping: RdfMapping = RdfMapping(), batch_size: int = 65536
) -> Iterator[Record]:
    """Read a Parquet file with columns ``t, s, p, o``, in batches; rows in time order."""
    source = source or str(path)
    file = open_parquet(path, source)
    _check_columns(file.schema_arrow.names, source)

    def rows():
        for number, batch in batches(file, source, list(RDF_COLUMNS), batch_size):
            cells = [batch.column(c).to_pylist() for c in RDF_COLUMNS]
            for line, row in enumerate(zip(*cells), number):
                yield (line, *row)

    yield from _table(rows(), source, mapping)


def read_rdf_dataframe(df, source: str = "<DataFrame>", mapping: RdfMapping = RdfMapping()) -> Iterator[Record]:
    """Read a pandas DataFrame with columns ``t, s, p, o`` (rows in time order)."""
    _check_columns(list(df.columns), source)
    frame_times(df["t"], source)
    cells = [df["t"].astype(object).tolist()]  # a missing time stays what it is (pd.NA), and is refused
    cells += [df[c].astype(object).where(df[c].notna(), None).tolist() for c in RDF_COLUMNS[1:]]
    yield from _table(((n, *row) for n, row in enumerate(zip(*cells), 1)), source, mapping)


_READERS = {
    "nt": lambda path, source, mapping: from_path(read_rdf_text, path, source, mapping, 4096),
    "nq": lambda path, source, mapping: from_path(read_nquads, path, source, mapping),
    "rdf-csv": read_rdf_csv,
    "rdf-parquet": read_rdf_parquet,
}
_SUFFIXES = {".nt": "nt", ".nq": "nq", ".csv": "rdf-csv", ".parquet": "rdf-parquet"}


def open_rdf_stream(
    path_or_dash, fmt: str | None = None, mapping: RdfMapping = RdfMapping(), source: str | None = None
) -> Iterator[Record]:
    """Open an RDF stream in ``fmt`` (:data:`RDF_FORMATS`), else by suffix; ``-`` is stdin."""
    import sys

    name = str(path_or_dash)
    if fmt is not None and fmt not in _READERS:
        raise UsageError.at(None, f"unknown RDF stream format '{fmt}'", f"use one of: {', '.join(RDF_FORMATS)}")
    if name == "-":
        if fmt == "rdf-parquet":
            note = "name the Parquet file (--stream FILE; the file's path in the API)"
            raise UsageError.at(None, "stream format rdf-parquet reads a file, not stdin", note)
        reader = {"nq": read_nquads, "rdf-csv": read_rdf_csv}.get(fmt, read_rdf_text)
        return reader(sys.stdin, source or "<stdin>", mapping)
    path = Path(name)
    if not path.exists():
        raise UsageError.at(None, f"stream file '{name}' does not exist")
    if path.is_dir():
        note = "an RDF stream is one file (.nt, .nq, .csv or .parquet)"
        raise UsageError.at(None, f"stream file '{name}' is a directory", note)
    fmt = fmt or _SUFFIXES.get(path.suffix.lower(), "nt")
    return _READERS[fmt](path, source or name, mapping)
