"""Background knowledge from RDF files (``--background-rdf``): every triple a fact."""

from __future__ import annotations

from pathlib import Path

from .. import ast
from ..errors import Diagnostic, ProgramError, UsageError, file_error
from ..values import to_ast_atom
from .mapping import RdfMapping, syntax_message, triple_atom

__all__ = ["rdf_facts", "OWL2RL"]

#: the shipped OWL 2 RL rules over ``triple/3`` (see docs/rdf.md)
OWL2RL = Path(__file__).with_name("owl2rl.lars")


def rdf_facts(path, mapping: RdfMapping = RdfMapping()) -> tuple:
    """The facts (:class:`ticker_py.ast.Rule`) of the triples of an RDF file, its syntax chosen by
    the suffix; graph names are ignored. Bad input raises a located ProgramError."""
    import pyoxigraph as ox

    p = Path(path)
    suffix = {"owl": "rdf", "xml": "rdf"}.get(p.suffix.lower().lstrip("."), p.suffix.lower().lstrip("."))
    fmt = ox.RdfFormat.from_extension(suffix) if suffix else None
    if fmt is None:
        raise UsageError.at(None, f"unknown RDF file type '{p.name}'", "use .ttl, .nt, .nq, .trig, .rdf or .owl")
    try:
        data = p.read_bytes()
    except OSError as err:
        raise file_error(err, "background file", path) from None
    facts = []
    try:
        for quad in ox.parse(data, format=fmt):
            try:
                atom = triple_atom(quad, mapping)
            except ValueError as err:
                raise ProgramError(Diagnostic(f"{path}: {err} in the triple {quad.triple}")) from None
            facts.append(ast.Rule(ast.Head(to_ast_atom(atom))))
    except SyntaxError as err:
        message, (_, line, column, _, end_line, end_column) = err.args
        if line is None or column is None:  # the RDF/XML parser gives no position
            raise ProgramError(Diagnostic(f"{path}: not valid RDF: {syntax_message(message)}")) from None
        end = end_column if end_line == line and end_column is not None and end_column > column else column + 1
        raise ProgramError.at(ast.Location(str(path), line, column, line, end), syntax_message(message)) from None
    return tuple(facts)
