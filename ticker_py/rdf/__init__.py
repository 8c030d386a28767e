"""RDF streams: the term mapping, readers of timestamped triples, the N-Triples writer and
background knowledge from RDF files (see ``docs/rdf.md``)."""

from pathlib import Path

#: ``--stream-format`` names of the RDF readers (in :mod:`ticker_py.rdf.streams`)
RDF_FORMATS = ("nt", "nq", "rdf-csv", "rdf-parquet")


def rdf_format(path: str, fmt: str | None = None) -> str | None:
    """The RDF stream format of ``path``: ``fmt`` if given, else by suffix (None: not RDF by name)."""
    if fmt:
        return fmt
    return {".nt": "nt", ".nq": "nq"}.get(Path(path).suffix.lower())
