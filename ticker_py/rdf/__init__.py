"""RDF streams: the term mapping, readers of timestamped triples, the N-Triples writer and
background knowledge from RDF files (see ``docs/rdf.md``)."""

from pathlib import Path

#: ``--stream-format`` names of the RDF readers (in :mod:`ticker_py.streams.rdf`)
RDF_FORMATS = ("nt", "nq", "rdf-csv", "rdf-parquet")
#: the columns of an RDF table (an atom table has ``t`` and ``atom``)
RDF_COLUMNS = ("t", "s", "p", "o")


def rdf_table(columns) -> bool:
    """Whether a table with ``columns`` holds triples (``t, s, p, o`` and no ``atom``)."""
    return set(RDF_COLUMNS) <= set(columns) and "atom" not in columns


def rdf_format(path: str, fmt: str | None = None) -> str | None:
    """The RDF stream format of ``path``: ``fmt`` if given, else by suffix (``.nt``, ``.nq``) or a
    ``.csv`` or ``.parquet`` file's columns; None: an atom stream (or a file that does not open)."""
    if fmt:
        return fmt
    file = Path(path)
    suffix = file.suffix.lower()
    if suffix in (".nt", ".nq"):
        return suffix[1:]
    if suffix not in (".csv", ".parquet") or not file.is_file():
        return None
    try:
        if suffix == ".csv":
            import csv

            with open(file, encoding="utf-8-sig", errors="replace", newline="") as f:
                columns = [c.strip() for c in next(csv.reader([f.readline()]), [])]
        else:
            import pyarrow.parquet as pq

            columns = pq.read_schema(file).names
    except Exception:  # not readable: the atom reader opens it and says why, located
        return None
    return f"rdf-{suffix[1:]}" if rdf_table(columns) else None
