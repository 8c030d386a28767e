"""``--format ntriples`` and ``nquads``: the shown ``triple(S,P,O)`` atoms (``--rdf-output``: another
ternary predicate) that are RDF triples, and with the property mapping the ``name(S,O)`` atoms of
properties, as ``t: <s> <p> <o> .`` or ``<s> <p> <o> <urn:ticker:t:T> .``; other atoms are left out."""

from __future__ import annotations

import difflib
import warnings

from ..errors import Diagnostic, TickerWarning, UsageError
from ..rdf.mapping import TIME_GRAPH, RdfMapping
from ..rdf.terms import from_value, iri_of, iri_value, is_rdf_value
from .writers import Writer

__all__ = ["RdfWriter", "RDF_OUTPUT_FORMATS", "rdf_output"]

RDF_OUTPUT_FORMATS = ("ntriples", "nquads")
#: the ternary predicate whose atoms are written as triples, unless ``--rdf-output`` names another
TRIPLE = "triple"


def rdf_output(name: str, fmt: str, analysis, mapping: str = "triple", show: str = "derived") -> str:
    """The ternary predicate ``--rdf-output`` names, checked against the program of ``analysis``: one
    that is no ternary predicate of it is refused (with ``show`` ``all`` a warning), and so is one
    given without an RDF output ``fmt``; a program with no ``triple/3`` and no property mapping
    writes nothing: a warning."""
    default = name == TRIPLE
    if fmt not in RDF_OUTPUT_FORMATS:
        if not default:
            message = f"--rdf-output {name} names what --format ntriples or nquads writes, and the format is {fmt}"
            raise UsageError.at(None, message)
        return name
    ternary = sorted({n for n, arity in analysis.predicates if arity == 3})
    if name in ternary or (default and (mapping == "property" or show == "all")):
        return name
    close = difflib.get_close_matches(name, ternary, n=1, cutoff=0.6)
    notes = (
        (f"did you mean {close[0]}?",)
        if close
        else (f"its ternary predicates: {', '.join(ternary)}",)
        if ternary
        else ("it has no ternary predicate: derive one, e.g. triple(S,P,O) :- ...",)
    )
    if default:
        message = f"--format {fmt} writes the triple/3 atoms, and the program has none: it writes nothing"
        notes = ("name the ternary predicate to write with --rdf-output NAME", *notes[:1])
    else:
        message = f"--rdf-output {name}: the program has no ternary predicate {name}/3"
    if default or show == "all":  # with --show all, the stream's atoms are written too
        warnings.warn(TickerWarning(Diagnostic(message, notes=notes, kind="warning")), stacklevel=2)
        return name
    raise UsageError.at(None, message, *notes)


class RdfWriter(Writer):
    """Writes the triples of the single answer stream of each result (see the module doc)."""

    def __init__(self, out, fmt: str = "ntriples", mapping: RdfMapping | None = None, predicate: str = TRIPLE):
        super().__init__(out)
        self.predicate = predicate
        if fmt not in RDF_OUTPUT_FORMATS:
            raise UsageError.at(None, f"unknown RDF output format '{fmt}'")
        self.quads = fmt == "nquads"
        self.mapping = mapping or RdfMapping()
        self.properties: dict = {}

    def triples(self, atoms) -> list:
        """The N-Triples text ``<s> <p> <o>`` of the RDF atoms among ``atoms``, sorted."""
        out = []
        for atom in atoms:
            if atom[0] == self.predicate and len(atom) == 4 and _subject(atom[1]) and iri_of(atom[2]) is not None:
                s, p, o = atom[1:]
            elif len(atom) == 3 and self._property(atom[0]) is not None:
                s, p, o = atom[1], self.properties[atom[0]], atom[2]
            else:
                continue
            out.append(f"{from_value(s)} {from_value(p)} {from_value(o)}")
        return sorted(out)

    def _property(self, name: str):
        if name not in self.properties:
            iri = self.mapping.property_iri(name)
            self.properties[name] = None if iri is None else iri_value(iri)
        return self.properties[name]

    def lines(self, result):
        if result.models is None:
            raise UsageError.at(None, "RDF output needs the answer streams (not only changes)")
        if len(result.models) > 1:
            raise UsageError.at(None, "RDF output needs a single answer stream", "use --models 1")
        if not result.models:
            return
        for triple in self.triples(result.models[0].atoms):
            yield f"{triple} <{TIME_GRAPH}{result.t}> ." if self.quads else f"{result.t}: {triple} ."


def _subject(value) -> bool:
    return is_rdf_value(value) and type(value) is tuple and value[0] in ("iri", "bnode")
