"""The mapping between RDF terms and ticker_py ground terms (:mod:`ticker_py.values`), as the table
of docs/rdf.md gives it: IRIs ``iri("…")``, blank nodes ``bnode("…")``, plain strings as strings,
``lang("…","…")``, numbers as numbers (:mod:`ticker_py.xsd`), other literals ``lit("…","datatype")``.
A literal whose lexical form does not fit its XSD datatype is refused. Any other ticker_py term
becomes a ``urn:ticker:term`` literal of its clingo text, so every value survives a trip through RDF.

>>> to_value(Term.iri("http://ex.org/a"))
('iri', '"http://ex.org/a"')
>>> [to_value(Term.literal(v, XSD + t)) for v, t in [("042", "int"), ("-3000000000", "integer"), ("4.50", "decimal")]]
[42, -3000000000, ('lit', '"4.5"', '"http://www.w3.org/2001/XMLSchema#decimal"')]
>>> [str(from_value(v)) for v in [42, '"text"', ("lang", '"chat"', '"fr"'), "a"]]
['"42"^^<http://www.w3.org/2001/XMLSchema#integer>', '"text"', '"chat"@fr', '"a"^^<urn:ticker:term>']
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import ast
from ..values import format_term, unquote
from ..xsd import XSD, XSD_BOOLEAN, XSD_DECIMAL, XSD_INTEGER, decimal_text, invalid, number

__all__ = [
    "Term",
    "to_value",
    "from_value",
    "is_rdf_value",
    "iri_value",
    "iri_of",
    "RDF",
    "XSD",
    "XSD_INTEGER",
    "XSD_STRING",
    "TICKER_TERM",
]

XSD_STRING = XSD + "string"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDF_LANG_STRING = RDF + "langString"
#: the datatype of literals that carry a ticker_py term that is no RDF term
TICKER_TERM = "urn:ticker:term"

_BOOLEAN = {"1": "true", "0": "false"}


@dataclass(frozen=True)
class Term:
    """An RDF term: ``kind`` is ``iri``, ``bnode`` or ``literal``; a literal has a ``datatype``
    IRI and maybe a ``language`` tag. ``str()`` is N-Triples syntax."""

    kind: str
    value: str
    datatype: str | None = None
    language: str | None = None

    @classmethod
    def iri(cls, value: str) -> Term:
        return cls("iri", value)

    @classmethod
    def bnode(cls, value: str) -> Term:
        return cls("bnode", value)

    @classmethod
    def literal(cls, value: str, datatype: str | None = None, language: str | None = None) -> Term:
        if language:
            return cls("literal", value, RDF_LANG_STRING, language)
        return cls("literal", value, datatype or XSD_STRING)

    def __str__(self) -> str:
        if self.kind == "iri":
            return f"<{self.value}>"
        if self.kind == "bnode":
            return f"_:{self.value}"
        text = _nt_quote(self.value)
        if self.language:
            return f"{text}@{self.language}"
        return text if self.datatype == XSD_STRING else f"{text}^^<{self.datatype}>"


def _nt_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r") + '"'


def iri_value(iri: str) -> tuple:
    """The ticker_py term of an IRI."""
    return ("iri", ast.quote(iri))


def iri_of(value) -> str | None:
    """The IRI a ticker_py term stands for, or None."""
    if type(value) is tuple and len(value) == 2 and value[0] == "iri" and _is_string(value[1]):
        return unquote(value[1])
    return None


def to_value(term):
    """The ticker_py term of an RDF term (a :class:`Term` or a pyoxigraph term)."""
    kind = _kind(term)
    if kind != "literal":
        return (kind, ast.quote(term.value))
    lexical = term.value
    language = term.language
    if language:
        return ("lang", ast.quote(lexical), ast.quote(language))
    datatype = term.datatype.value if hasattr(term.datatype, "value") else term.datatype
    if datatype == XSD_STRING:
        return ast.quote(lexical)
    if datatype.startswith(XSD):
        why = invalid(lexical, datatype)
        if why is not None:
            raise ValueError(why)
        value = number(lexical, datatype)
        if type(value) is int:
            return value
        if value is not None:
            return ("lit", ast.quote(decimal_text(value)), ast.quote(XSD_DECIMAL))
        if datatype == XSD_BOOLEAN:
            lexical = _BOOLEAN.get(lexical, lexical)
    elif datatype == TICKER_TERM:
        from ..syntax.ground_atoms import GroundSyntaxError, parse_ground_atom

        try:
            atom = parse_ground_atom(f"x({lexical})")
        except GroundSyntaxError:
            atom = None
        if atom is not None and format_term(atom[1]) == lexical and not is_rdf_value(atom[1]):
            return atom[1]
    return ("lit", ast.quote(lexical), ast.quote(datatype))


def _kind(term) -> str:
    if isinstance(term, Term):
        return term.kind
    name = type(term).__name__
    return {"NamedNode": "iri", "BlankNode": "bnode", "Literal": "literal"}[name]


def _is_string(v) -> bool:
    return type(v) is str and v.startswith('"')


def is_rdf_value(value) -> bool:
    """Whether a ticker_py term stands for an RDF term other than a ``urn:ticker:term`` literal."""
    t = type(value)
    if t is int or (t is str and value.startswith('"')):
        return True
    if t is not tuple:
        return False
    if value[0] in ("iri", "bnode"):
        return len(value) == 2 and _is_string(value[1])
    if value[0] in ("lang", "lit"):
        return len(value) == 3 and _is_string(value[1]) and _is_string(value[2])
    return False


def from_value(value) -> Term:
    """The RDF term of a ticker_py term (the inverse of :func:`to_value`)."""
    if type(value) is int:
        return Term.literal(str(value), XSD_INTEGER)
    if is_rdf_value(value):
        if type(value) is str:
            return Term.literal(unquote(value))
        kind, *args = value
        args = [unquote(a) for a in args]
        if kind in ("iri", "bnode"):
            return Term(kind, args[0])
        if kind == "lang":
            return Term.literal(args[0], language=args[1])
        return Term.literal(args[0], args[1])
    return Term.literal(format_term(value), TICKER_TERM)
