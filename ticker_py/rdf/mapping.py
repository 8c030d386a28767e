"""How a triple becomes an atom (``triple(S,P,O)`` or ``name(S,O)``), and the term cache readers share."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..xsd import invalid
from .terms import iri_of, to_value

__all__ = ["RdfMapping", "TIME_GRAPH", "CACHE_TERMS", "Terms", "triple_atom", "syntax_message"]

#: the graph names the N-Triples writer uses for time points (``urn:ticker:t:5``)
TIME_GRAPH = "urn:ticker:t:"
#: a term cache holds at most this many terms, then starts afresh (new terms arrive all the time,
#: e.g. one IRI per observation: memory stays flat)
CACHE_TERMS = 1 << 16

_LOCAL = re.compile(r"[A-Za-z0-9_]+")


@dataclass(frozen=True)
class RdfMapping:
    """How triples become atoms: ``kind`` ``triple`` (``triple(S,P,O)``) or ``property``
    (``name(S,O)``, ``name`` from ``properties`` (IRI -> name), else ``prefix_local`` for the first
    ``(prefix, namespace)`` the IRI extends by a plain local name)."""

    kind: str = "triple"
    prefixes: tuple = ()
    properties: dict = field(default_factory=dict, hash=False)

    def predicate(self, iri: str) -> str:
        """The predicate name of a property IRI; ValueError if it has none."""
        name = self.properties.get(iri)
        if name is not None:
            return name
        for prefix, namespace in self.prefixes:
            local = iri[len(namespace) :]
            if iri.startswith(namespace) and _LOCAL.fullmatch(local) and prefix[:1].islower():
                return f"{prefix}_{local}"
        raise ValueError(f"no predicate name for property <{iri}>: declare a @prefix for its namespace")

    def atom(self, s, p, o) -> tuple:
        """The atom of a triple of ticker_py terms."""
        if self.kind == "triple":
            return ("triple", s, p, o)
        return (self.predicate(iri_of(p)), s, o)

    def property_iri(self, name: str) -> str | None:
        """The property IRI a predicate name stands for under the property mapping, or None."""
        if self.kind != "property":
            return None
        for iri, known in self.properties.items():
            if known == name:
                return iri
        for prefix, namespace in self.prefixes:
            local = name[len(prefix) + 1 :]
            if name.startswith(prefix + "_") and _LOCAL.fullmatch(local):
                return namespace + local
        return None


class Terms(dict):
    """pyoxigraph term -> ticker_py term, remembered (subjects and properties recur), each literal
    checked once; emptied when it holds :data:`CACHE_TERMS` terms."""

    def __missing__(self, term):
        if len(self) >= CACHE_TERMS:
            self.clear()
        if type(term).__name__ == "Literal" and not term.language:
            why = invalid(term.value, term.datatype.value)
            if why:
                raise ValueError(why)
        value = self[term] = to_value(term)
        return value


def triple_atom(quad, mapping: RdfMapping, terms: Terms | None = None) -> tuple:
    """The atom of a pyoxigraph triple or quad; ValueError on a malformed literal or an unmapped property."""
    terms = Terms() if terms is None else terms
    return mapping.atom(terms[quad.subject], terms[quad.predicate], terms[quad.object])


def syntax_message(message: str) -> str:
    """A pyoxigraph syntax error's message without its position, in lower case."""
    message = message.split(": ", 1)[-1]
    return message[:1].lower() + message[1:]
