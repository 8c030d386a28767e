"""The lossless mapping between RDF terms and ticker_py ground terms (:mod:`ticker_py.values`).

==========================================  =========================================
RDF term                                    ticker_py term (printed as in clingo)
==========================================  =========================================
IRI ``<http://ex.org/a>``                   ``iri("http://ex.org/a")``
blank node ``_:b1``                         ``bnode("b1")``
``"42"^^xsd:integer`` (canonical, 32 bit)   ``42``
``"text"`` (= ``"text"^^xsd:string``)       ``"text"``
``"chat"@fr``                               ``lang("chat","fr")``
``"4.5"^^xsd:decimal`` (any other type)     ``lit("4.5","http://www.w3.org/2001/XMLSchema#decimal")``
==========================================  =========================================

Any other ticker_py term (a constant ``a``, a function term ``f(1)``) becomes a literal of
type ``urn:ticker:term`` whose lexical form is the term in clingo syntax, and reads back as
that term, so every value survives a trip through RDF.

>>> to_value(Term.iri("http://ex.org/a"))
('iri', '"http://ex.org/a"')
>>> [str(from_value(v)) for v in [42, '"text"', ("lang", '"chat"', '"fr"'), "a"]]
['"42"^^<http://www.w3.org/2001/XMLSchema#integer>', '"text"', '"chat"@fr', '"a"^^<urn:ticker:term>']
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .. import ast
from ..values import _unquote, format_term

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
    "check_literal",
]

XSD = "http://www.w3.org/2001/XMLSchema#"
XSD_INTEGER = XSD + "integer"
XSD_STRING = XSD + "string"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDF_LANG_STRING = RDF + "langString"
#: the datatype of literals that carry a ticker_py term that is no RDF term
TICKER_TERM = "urn:ticker:term"

_CANONICAL_INT = re.compile(r"-?(0|[1-9][0-9]*)")
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1

_LEXICAL = {
    **{
        XSD + name: re.compile(r"[+-]?[0-9]+")
        for name in (
            "integer",
            "int",
            "long",
            "short",
            "byte",
            "nonNegativeInteger",
            "positiveInteger",
            "nonPositiveInteger",
            "negativeInteger",
            "unsignedInt",
            "unsignedLong",
            "unsignedShort",
            "unsignedByte",
        )
    },
    XSD + "decimal": re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)"),
    XSD + "double": re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?INF|NaN"),
    XSD + "float": re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?INF|NaN"),
    XSD + "boolean": re.compile(r"true|false|1|0"),
    XSD + "dateTime": re.compile(
        r"-?[0-9]{4,}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?"
        r"(Z|[+-][0-9]{2}:[0-9]{2})?"
    ),
}


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


def check_literal(lexical: str, datatype: str) -> str | None:
    """Why ``lexical`` is not a valid form of ``datatype`` (a known XSD type), or None."""
    pattern = _LEXICAL.get(datatype)
    if pattern is not None and not pattern.fullmatch(lexical):
        return f"'{lexical}' is not a valid {datatype.replace(XSD, 'xsd:')}"
    return None


def iri_value(iri: str) -> tuple:
    """The ticker_py term of an IRI."""
    return ("iri", ast.quote(iri))


def iri_of(value) -> str | None:
    """The IRI a ticker_py term stands for, or None."""
    if type(value) is tuple and len(value) == 2 and value[0] == "iri" and _is_string(value[1]):
        return _unquote(value[1])
    return None


def to_value(term):
    """The ticker_py term of an RDF term (a :class:`Term` or a pyoxigraph term)."""
    kind = _kind(term)
    if kind == "iri":
        return ("iri", ast.quote(term.value))
    if kind == "bnode":
        return ("bnode", ast.quote(term.value))
    lexical = term.value
    language = term.language
    if language:
        return ("lang", ast.quote(lexical), ast.quote(language))
    datatype = term.datatype.value if hasattr(term.datatype, "value") else term.datatype
    if datatype == XSD_STRING:
        return ast.quote(lexical)
    if datatype == XSD_INTEGER and _CANONICAL_INT.fullmatch(lexical) and lexical != "-0":
        n = int(lexical)
        if _INT_MIN <= n <= _INT_MAX:
            return n
    if datatype == TICKER_TERM:
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
            return Term.literal(_unquote(value))
        kind, *args = value
        args = [_unquote(a) for a in args]
        if kind == "iri":
            return Term.iri(args[0])
        if kind == "bnode":
            return Term.bnode(args[0])
        if kind == "lang":
            return Term.literal(args[0], language=args[1])
        return Term.literal(args[0], args[1])
    return Term.literal(format_term(value), TICKER_TERM)
