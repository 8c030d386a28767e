"""Readers of timestamped RDF triples, and how a triple becomes an atom.

Three inputs (see ``docs/rdf.md``), each a lazy generator of
:class:`~ticker_py.streams.model.Record` that raises a located
:class:`~ticker_py.errors.StreamError` at the first bad record, after yielding every good one:

- text, one time point a line: ``T: <s> <p> <o> . <s> <p> "7"^^<…#integer> .`` (N-Triples
  terms, any number of triples; ``.nt``);
- N-Quads whose graph name is an IRI ending in the time point, ``<urn:ticker:t:5>`` (``.nq``);
- tables (CSV, Parquet, pandas) with columns ``t, s, p, o`` holding N-Triples terms.

Terms are read by pyoxigraph and mapped by :mod:`ticker_py.rdf.terms`; a triple becomes
``triple(S,P,O)`` or, with the property mapping, ``name(S,O)`` (:class:`RdfMapping`).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path

from .. import ast
from ..errors import Diagnostic, StreamError, UsageError
from ..streams.model import Record
from ..streams.readers import _open_parquet, stream_error, text_lines
from . import RDF_FORMATS
from .terms import RDF, Term, check_literal, iri_of, to_value

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
    "RDF_FORMATS",
    "MAPPINGS",
    "TIME_GRAPH",
]

MAPPINGS = ("triple", "property")
#: the graph names the N-Triples writer uses for time points (``urn:ticker:t:5``)
TIME_GRAPH = "urn:ticker:t:"

_TIME = re.compile(r"\s*(\S*?)\s*:(?=\s|$)")
_LEAD = re.compile(r"\s*")
#: a text stream is parsed in batches of at most this many characters (and ``batch`` lines)
_BATCH_CHARS = 1 << 20
_GRAPH_TIME = re.compile(r"[0-9]+$")
_LOCAL = re.compile(r"[A-Za-z0-9_]+")


@dataclass(frozen=True)
class RdfMapping:
    """How triples become atoms.

    ``kind`` is ``triple`` (``triple(S,P,O)``) or ``property``: a triple ``S P O`` becomes
    ``name(S,O)``, ``name`` from ``properties`` (IRI -> predicate name) if listed there, else
    ``prefix_local`` for the first prefix ``(prefix, namespace)`` whose namespace the IRI
    extends by a plain local name (letters, digits, ``_``).
    """

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
        iri = iri_of(p)
        return (self.predicate(iri), s, o)

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


def _parse(text: str, fmt):
    import pyoxigraph as ox

    return ox.parse(text, format=fmt)


#: the term caches of a reader hold about this many terms: at a line that finds more, they are
#: emptied (new terms arrive all the time, e.g. one IRI per observation: memory stays flat)
CACHE_TERMS = 1 << 16


class _Terms(dict):
    """pyoxigraph term -> ticker_py term, remembered (subjects and properties recur), each literal
    checked once; emptied when it holds :data:`CACHE_TERMS` terms."""

    def __missing__(self, term):
        if len(self) >= CACHE_TERMS:
            self.clear()
        if type(term).__name__ == "Literal" and not term.language:
            why = check_literal(term.value, term.datatype.value)
            if why:
                raise ValueError(why)
        value = self[term] = to_value(term)
        return value


# the fast path of the text reader: lines of N-Triples without escapes or Turtle shorthand, cut
# into terms (each term then read by pyoxigraph once, which refuses what the cut let through)
_TRIPLE = re.compile(
    r"(<[^>]*>|_:[^ \t<]+)[ \t]*(<[^>]*>)[ \t]*"
    r'(<[^>]*>|"[^"\\]*"(?:\^\^<[^>]*>|@[-A-Za-z0-9]+)?|_:[^ \t.]+)[ \t]*\.[ \t]*'
)


def _quote_plain(value: str) -> str:
    """``ast.quote`` of a value with no quote, backslash or newline (a :data:`_PLAIN_TERM` IRI)."""
    return '"' + value + '"'


#: one term of a plain line (no space inside, no escape): what the space-cut fast path admits
_PLAIN_TERM = re.compile(
    r'<[^<>"{}|^`\\\x00-\x20]*>|_:[A-Za-z0-9_]+|'
    r'"[^"\\\x00-\x1f]*"(?:\^\^<[^<>"{}|^`\\\x00-\x20]*>|@[A-Za-z]+(?:-[A-Za-z0-9]+)*)?'
)

# An absolute IRI that RFC 3987 (and so pyoxigraph) surely accepts as written: ASCII, no percent
# escape, no user part, no IP literal; a scheme, then either an authority (a host and maybe a port)
# and a path, or a path; then maybe a query and a fragment. IRIs of this form are mapped without
# asking pyoxigraph; any other IRI still is (tests/test_rdf.py checks the form against it).
_UNRESERVED = r"A-Za-z0-9._~!$&'()*+,;=\-"
_PCHAR = _UNRESERVED + ":@"
_SAFE_IRI = (
    rf"[A-Za-z][A-Za-z0-9+.\-]*:(?://[{_UNRESERVED}]*(?::[0-9]*)?(?:/[{_PCHAR}/]*)?|[{_PCHAR}][{_PCHAR}/]*)?"
    rf"(?:\?[{_PCHAR}/?]*)?(?:#[{_PCHAR}/?]*)?"
)
#: a plain term mapped without pyoxigraph: such an IRI, or a literal without a language tag whose
#: lexical form holds no quote, backslash or control character (read verbatim) and whose datatype
#: is such an IRI outside the rdf: namespace (rdf:langString and the like are pyoxigraph's to refuse)
_SAFE_TERM = re.compile(rf'<({_SAFE_IRI})>|"([^"\\\x00-\x1f]*)"(?:\^\^<(?!{re.escape(RDF)})({_SAFE_IRI})>)?')


def _safe_value(match):
    """The ticker_py term of a :data:`_SAFE_TERM` match (as the slow path maps it), or None if the
    literal's lexical form does not fit its datatype (the slow path then says why)."""
    iri, lexical, datatype = match.groups()
    if iri is not None:
        return ("iri", '"' + iri + '"')
    if datatype is None:
        return '"' + lexical + '"'
    if check_literal(lexical, datatype):
        return None
    return to_value(Term("literal", lexical, datatype))


class _Tokens:
    """Term text -> ticker_py term (``known``, a plain dict: set operations with it are fast), for
    the fast path; each new term mapped as the slow path maps it: a :data:`_SAFE_TERM` at once,
    any other term read by pyoxigraph (an IRI by ``NamedNode``, which checks it, anything else as
    the object of a triple of its own). ``literals`` and ``nonproperties``: the known texts that
    may not be a subject (literals) or a property (all but IRIs). ``names``: property text ->
    predicate name under the property mapping. :meth:`room` empties them all once ``known``
    holds :data:`CACHE_TERMS` terms."""

    __slots__ = ("known", "names", "literals", "nonproperties")

    def __init__(self):
        self.known: dict = {}
        self.names: dict = {}
        self.literals: set = set()
        self.nonproperties: set = set()

    def room(self) -> None:
        """Empty the caches if they are full (called before a line, never inside one)."""
        if len(self.known) >= CACHE_TERMS:
            for cache in (self.known, self.names, self.literals, self.nonproperties):
                cache.clear()

    def _kinds(self, texts) -> None:
        """Note which of the newly known ``texts`` may not be subjects or properties."""
        others = [t for t in texts if t[:1] != "<"]
        if others:
            self.nonproperties.update(others)
            self.literals.update(t for t in others if t[:1] == '"')

    def learn(self, texts: list, terms: _Terms, quote=ast.quote) -> bool:
        """Add the terms ``texts``; False if one is bad (the slow path then says where and why).
        ``quote`` quotes an IRI's value as a string constant."""
        import pyoxigraph as ox

        named, known = ox.NamedNode, self.known
        others = []
        try:
            for text in texts:
                if text[0] == "<":  # NamedNode refuses what Turtle's IRIREF does, escapes too
                    known[text] = ("iri", quote(named(text[1:-1]).value))
                else:
                    others.append(text)
            if others:
                self._kinds(others)
                quads = list(_parse("".join(f"<urn:x> <urn:x> {t} .\n" for t in others), ox.RdfFormat.TURTLE))
                if len(quads) != len(others):
                    return False
                for text, quad in zip(others, quads):
                    known[text] = terms[quad.object]
        except (SyntaxError, ValueError):
            return False
        return True

    def learn_plain(self, texts: set, terms: _Terms) -> bool:
        """:meth:`learn` for the space-cut path (``texts`` all new): only :data:`_PLAIN_TERM` texts;
        :data:`_SAFE_TERM` ones mapped here, the rest by :meth:`learn` (IRIs quoted by concatenation)."""
        self._kinds(texts)
        known, safe, rest = self.known, _SAFE_TERM.fullmatch, []
        for text in texts:
            match = safe(text)
            if match is None:
                rest.append(text)
                continue
            value = _safe_value(match)
            if value is None:
                return False
            known[text] = value
        return not rest or (all(map(_PLAIN_TERM.fullmatch, rest)) and self.learn(rest, terms, _quote_plain))

    def predicates(self, texts: list, mapping: RdfMapping) -> list | None:
        """The predicate names of the known property texts ``texts`` under the property mapping
        (remembered in ``names``), or None if one has none."""
        names = self.names
        found = list(map(names.get, texts))
        if None in found:
            try:
                for text in set(texts).difference(names):
                    names[text] = mapping.predicate(iri_of(self.known[text]))
            except ValueError:
                return None
            found = list(map(names.__getitem__, texts))
        return found


def _plain_atoms(text: str, mapping: RdfMapping, tokens: _Tokens, terms: _Terms) -> list | None:
    """The atoms of ``text`` if it is ``s p o . s p o .`` with one space between the parts and
    plain terms (:data:`_PLAIN_TERM`, known or learned), else None: cut by ``str.split``; the
    checks and the learning look at each distinct text once."""
    return _cut_atoms(text.split(" "), 0, mapping, tokens, terms)


def _cut_atoms(parts: list, k: int, mapping: RdfMapping, tokens: _Tokens, terms: _Terms) -> list | None:
    """:func:`_plain_atoms` of the text whose parts cut at single spaces are ``parts[k:]``."""
    n = (len(parts) - k) >> 2
    if len(parts) - k != n << 2 or parts[k + 3 :: 4].count(".") != n:
        return None
    subjects, properties, objects = parts[k::4], parts[k + 1 :: 4], parts[k + 2 :: 4]
    s_texts, p_texts = set(subjects), set(properties)
    texts = s_texts.union(p_texts, objects)
    if "." in texts:  # a "." where a term belongs
        return None
    tokens.room()
    new = texts.difference(tokens.known)
    if new and not tokens.learn_plain(new, terms):
        return None
    # subjects are IRIs or blank nodes, properties IRIs (by their texts: a literal may map to any term)
    if not tokens.literals.isdisjoint(s_texts) or not tokens.nonproperties.isdisjoint(p_texts):
        return None
    get = tokens.known.__getitem__
    if mapping.kind == "triple":
        return list(zip(repeat("triple", n), map(get, subjects), map(get, properties), map(get, objects)))
    names = tokens.predicates(properties, mapping)
    return None if names is None else list(zip(names, map(get, subjects), map(get, objects)))


_BLANKS = re.compile(r"[ \t]*")


def _line_end(text: str) -> int:
    """The length of ``text`` without its line end (``len(text.rstrip("\\r\\n"))``, no copy)."""
    j = len(text)
    while j and text[j - 1] in "\r\n":
        j -= 1
    return j


def _fast_atoms(text: str, mapping: RdfMapping, tokens: _Tokens, terms: _Terms, start: int = 0) -> list | None:
    """The atoms of the triples ``text[start:]`` (the line end cut off) if it is plain N-Triples
    whose terms are all good, else None."""
    i, end = _BLANKS.match(text, start).end(), _line_end(text)
    j = end
    while j > i and text[j - 1] in " \t":
        j -= 1
    if i >= j:
        return []
    if text[i - 1 : i] == " " and j == end:
        # the usual line, "T: s p o . ... .\n": cut as a whole, no copy of a long line
        parts = text.split(" ")
        if end < len(text):
            parts[-1] = parts[-1][: end - len(text)]
        atoms = _cut_atoms(parts, text.count(" ", 0, i), mapping, tokens, terms)
        if atoms is not None:
            return atoms
        text = text[i:j]
    else:
        text = text[i:j]
        atoms = _plain_atoms(text, mapping, tokens, terms)
        if atoms is not None:
            return atoms
    parts = _TRIPLE.split(text)
    if parts[0].strip(" \t") or any(parts[4::4]):
        return None
    subjects, properties, objects = parts[1::4], parts[2::4], parts[3::4]
    tokens.room()
    known = tokens.known
    new = [x for x in set(subjects).union(properties, objects) if x not in known]
    if new and not tokens.learn(new, terms):
        return None
    if mapping.kind == "triple":
        return [("triple", known[s], known[p], known[o]) for s, p, o in zip(subjects, properties, objects)]
    try:
        return [mapping.atom(known[s], known[p], known[o]) for s, p, o in zip(subjects, properties, objects)]
    except ValueError:
        return None


def _checked(quad, mapping: RdfMapping, terms: _Terms | None = None):
    """The atom of a pyoxigraph triple or quad; ValueError on a malformed literal or an unmapped property."""
    terms = _Terms() if terms is None else terms
    return mapping.atom(terms[quad.subject], terms[quad.predicate], terms[quad.object])


def parse_triples(text: str, mapping: RdfMapping = RdfMapping()) -> list:
    """The atoms of N-Triples/Turtle triples ``text`` (several per line allowed).

    Raises ValueError with a message and a 0-based ``column`` attribute on bad input.
    """
    import pyoxigraph as ox

    try:
        triples = list(_parse(text, ox.RdfFormat.TURTLE))
    except SyntaxError as err:
        message, (_, _, column, *_rest) = err.args
        raise _located("bad triple: " + syntax_message(message), column - 1) from None
    out = []
    for quad in triples:
        try:
            out.append(_checked(quad, mapping))
        except ValueError as err:
            raise _located(str(err), len(text) - len(text.lstrip())) from None
    return out


def syntax_message(message: str) -> str:
    """A pyoxigraph syntax error's message without its position, in lower case."""
    message = message.split(": ", 1)[-1]
    return message[:1].lower() + message[1:]


def _located(message: str, column: int) -> ValueError:
    err = ValueError(message)
    err.column = column
    return err


def _time(text: str) -> int:
    if not re.fullmatch(r"[0-9]+", text):
        raise ValueError(f"time must be a non-negative integer, found '{text}'")
    return int(text)


def read_rdf_text(
    lines_or_file, source: str = "<stdin>", mapping: RdfMapping = RdfMapping(), batch: int = 1, fast: bool = True
) -> Iterator[Record]:
    """Read ``T: triples`` lines (N-Triples terms, several triples a line; ``T:`` alone is a
    time point without triples). Lines starting with ``#`` or ``%`` are comments.

    ``batch`` lines are parsed by one call of the RDF parser (files: 4096; 1 keeps a pipe live).
    ``fast``: lines of plain N-Triples take the fast path (the same records; False: never).
    """
    last, pending, size, terms, tokens = None, [], 0, _Terms(), (_Tokens() if fast else None)
    lead = _LEAD.match
    for number, raw in enumerate(text_lines(lines_or_file, source), 1):
        # a line keeps its end (a long line is not copied): the fast path cuts it off, the rest strips it
        first = lead(raw).end()
        if first == len(raw) or raw[first] in "#%":
            continue
        m = _TIME.match(raw)
        if m is None:
            yield from _parsed(pending, source, mapping, terms, tokens)
            raw = raw.rstrip("\r\n")
            col = len(raw) - len(raw.lstrip()) + 1
            raise stream_error(source, number, col, "expected 'T: triples' (a time point, ':', then triples)", raw)
        try:
            t = _time(m.group(1))
            if last is not None and t < last:
                raise ValueError(f"time {t} after time {last}")
        except ValueError as e:
            yield from _parsed(pending, source, mapping, terms, tokens)
            raise stream_error(source, number, m.start(1) + 1, str(e), raw.rstrip("\r\n"), len(m.group(1))) from None
        last = t
        pending.append((number, raw, t, m.end()))
        size += _line_end(raw)
        if len(pending) >= batch or size >= _BATCH_CHARS:
            yield from _parsed(pending, source, mapping, terms, tokens)
            pending, size = [], 0
    yield from _parsed(pending, source, mapping, terms, tokens)


def _parsed(
    entries: list, source: str, mapping: RdfMapping, terms: _Terms | None = None, tokens: _Tokens | None = None
) -> Iterator[Record]:
    """Records of ``(line, text, t, start)`` entries: by the fast path if every line is plain
    N-Triples (:func:`_fast_atoms`), else their triples ``text[start:]`` parsed by one TriG
    parse: entry i is the graph ``<urn:l:i> { ... }`` on its own line(s)."""
    import pyoxigraph as ox

    if not entries:
        return
    terms = _Terms() if terms is None else terms
    if tokens is not None:
        fast = []
        for _, raw, _, start in entries:
            atoms = _fast_atoms(raw, mapping, tokens, terms, start)
            if atoms is None:
                break
            fast.append(atoms)
        else:
            yield from _records(entries, fast, len(entries), source)
            return
    entries = [(number, raw[: _line_end(raw)], t, start) for number, raw, t, start in entries]
    heads = [f"<urn:l:{i}> {{" for i in range(len(entries))]
    text = "\n} ".join(h + raw[start:] for h, (_, raw, _, start) in zip(heads, entries)) + "\n}"
    atoms: list = [[] for _ in entries]
    try:
        for quad in _parse(text, ox.RdfFormat.TRIG):
            i = int(quad.graph_name.value[6:])
            try:
                atoms[i].append(_checked(quad, mapping, terms))
            except ValueError as e:
                yield from _records(entries, atoms, i, source)
                number, raw, _, start = entries[i]
                raise stream_error(
                    source, number, start + 1 + len(raw[start:]) - len(raw[start:].lstrip()), str(e), raw
                ) from None
    except SyntaxError as err:
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
    j = 0
    while j < hi:
        k = j + 1
        while k < hi and entries[k][2] == entries[j][2]:
            k += 1
        run = atoms[j] if k == j + 1 else [a for x in atoms[j:k] for a in x]
        yield Record(entries[j][2], tuple(run), source, entries[j][0])
        j = k


def time_of_graph(graph) -> int:
    """The time point a graph name stands for: an IRI ending in digits; ValueError otherwise."""
    if type(graph).__name__ != "NamedNode":
        raise ValueError("a quad needs a graph name, an IRI ending in its time point (e.g. <urn:ticker:t:5>)")
    m = _GRAPH_TIME.search(graph.value)
    if m is None:
        raise ValueError(f"graph name <{graph.value}> is not a time point (an IRI ending in digits)")
    return int(m.group())


def read_nquads(lines_or_file, source: str = "<stdin>", mapping: RdfMapping = RdfMapping()) -> Iterator[Record]:
    """Read N-Quads whose graph names are time points (:func:`time_of_graph`), one record per
    run of quads of one time point; time must not decrease."""
    import pyoxigraph as ox

    def items():
        for number, raw in enumerate(text_lines(lines_or_file, source), 1):
            raw = raw.rstrip("\r\n")
            if not raw.strip() or raw.lstrip().startswith("#"):
                continue
            try:
                quads = list(_parse(raw, ox.RdfFormat.N_QUADS))
            except SyntaxError as err:
                message, (_, _, column, *_rest) = err.args
                raise stream_error(source, number, column, "bad triple: " + syntax_message(message), raw) from None
            for quad in quads:
                try:
                    yield number, time_of_graph(quad.graph_name), (_checked(quad, mapping, terms),)
                except ValueError as e:
                    raise stream_error(source, number, 1, str(e), raw) from None

    terms = _Terms()
    return _grouped(items(), source)


def _grouped(items: Iterable[tuple], source: str) -> Iterator[Record]:
    """One record per run of ``(line, t, atoms)`` items with one t; t must not decrease. On an
    error, the record collected so far comes first."""
    last, atoms, where = None, [], 0
    try:
        for line, t, new in items:
            if last is not None and t < last:
                raise stream_error(source, line, 1, f"time {t} after time {last}")
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


_COLUMNS = ("t", "s", "p", "o")


def _table(rows: Iterable[tuple], source: str, mapping: RdfMapping) -> Iterator[Record]:
    """Group rows ``(line, t, s, p, o)`` into one record per time point."""

    def items():
        for line, t, s, p, o in rows:
            try:
                t = _time(str(t).strip())
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
    missing = [c for c in _COLUMNS if c not in columns]
    if missing:
        raise stream_error(source, 1, 1, f"missing column '{missing[0]}' (an RDF table has columns t, s, p, o)")


def read_rdf_csv(path, source: str | None = None, mapping: RdfMapping = RdfMapping()) -> Iterator[Record]:
    """Read a CSV file (a path or a file object such as stdin) with a header and columns
    ``t, s, p, o`` (N-Triples terms); an empty ``s`` is a heartbeat row."""
    source = source or str(path)
    if hasattr(path, "readline"):
        yield from _rdf_csv_rows(path, source, mapping)
        return
    with open(path, "rb") as f:
        yield from _rdf_csv_rows(f, source, mapping)


def _rdf_csv_rows(f, source: str, mapping: RdfMapping) -> Iterator[Record]:
    reader = csv.reader(text_lines(f, source))
    header = [h.strip() for h in next(reader, [])]
    _check_columns(header, source)
    index = [header.index(c) for c in _COLUMNS]

    def rows():
        for row in reader:
            if row:
                yield (reader.line_num, *(row[i] if i < len(row) else "" for i in index))

    yield from _table(rows(), source, mapping)


def read_rdf_parquet(
    path, source: str | None = None, mapping: RdfMapping = RdfMapping(), batch_size: int = 65536
) -> Iterator[Record]:
    """Read a Parquet file with columns ``t, s, p, o``, in batches; rows in time order."""
    import pyarrow as pa

    source = source or str(path)
    file = _open_parquet(path, source)
    _check_columns(file.schema_arrow.names, source)

    def rows():
        number = 0
        batches = file.iter_batches(batch_size=batch_size, columns=list(_COLUMNS))
        while True:
            try:
                batch = next(batches, None)
            except (pa.ArrowException, OSError) as e:
                raise stream_error(source, number + 1, 1, f"corrupt Parquet data ({e})") from None
            if batch is None:
                return
            cells = [batch.column(c).to_pylist() for c in _COLUMNS]
            for row in zip(*cells):
                number += 1
                yield (number, *row)

    yield from _table(rows(), source, mapping)


def read_rdf_dataframe(df, source: str = "<DataFrame>", mapping: RdfMapping = RdfMapping()) -> Iterator[Record]:
    """Read a pandas DataFrame with columns ``t, s, p, o`` (rows in time order)."""
    _check_columns(list(df.columns), source)
    cells = [df[c].astype(object).where(df[c].notna(), None).tolist() for c in _COLUMNS]
    yield from _table(((n, *row) for n, row in enumerate(zip(*cells), 1)), source, mapping)


#: a file whose first line is longer than this many bytes is read by :class:`_BlockLines`
LONG_LINE = 1 << 16


class _BlockLines:
    """A binary file whose ``readline`` finds the end of a line by ``bytes.find`` in blocks of
    ``size`` bytes: a buffered file's ``readline`` looks at each byte, which cost 8 % of reading a
    stream of long lines (a time point of 11,000 triples is a line of 2 MB). On short lines its
    Python call costs more than it saves, so it is used where the first line is long.

    The blocks are read into one buffer, kept and grown to the longest line, and a whole line is
    decoded from it at once: a line costs one new block of memory, its text, not a new block per
    read, the joined bytes and the text (docs/rdf.md)."""

    def __init__(self, raw, size: int = 1 << 20):
        self.raw, self.size = raw, size
        self.buf = bytearray(size)
        self.pos = self.end = 0  # the unread bytes are buf[pos:end]

    def _fill(self) -> int:
        """Read a block after the unread bytes (moved to the front, the buffer grown if need be);
        the number of bytes read, 0 at the end of the file."""
        buf, pos, end = self.buf, self.pos, self.end
        if pos:
            with memoryview(buf) as view:
                view[: end - pos] = view[pos:end]  # a memoryview copies overlapping bytes safely
            self.pos, self.end = 0, end - pos
        if len(buf) - self.end < self.size:
            buf.extend(bytes(max(self.size, len(buf))))
        with memoryview(buf) as view:
            n = self.raw.readinto(view[self.end : self.end + self.size]) or 0
        self.end += n
        return n

    def readline(self, limit: int = -1):
        """The next line with its end (at most ``limit`` bytes if ``limit`` >= 0): a ``str`` if it
        ends in a line end and is valid UTF-8, else ``bytes`` for the caller to check; b"" at the end."""
        scanned = 0  # bytes after pos without a line end
        while True:
            nl = self.buf.find(b"\n", self.pos + scanned, self.end)
            if nl >= 0 or (0 <= limit <= self.end - self.pos):
                break
            scanned = self.end - self.pos
            if not self._fill():
                break
        buf = self.buf
        pos = self.pos
        stop = self.end if nl < 0 else nl + 1
        if limit >= 0:
            stop = min(stop, pos + limit)
        self.pos = stop
        with memoryview(buf) as view:
            line = view[pos:stop]
            try:
                if nl < 0 or nl + 1 != stop:
                    raise UnicodeError
                return str(line, "utf-8")
            except UnicodeError:
                return bytes(line)
            finally:
                line.release()


def _text_file(reader):
    def read(path, source, mapping):
        with open(path, "rb", buffering=LONG_LINE) as f:
            long = b"\n" not in f.peek(LONG_LINE)[:LONG_LINE]
            yield from reader(_BlockLines(f) if long else f, source, mapping)

    return read


_READERS = {
    "nt": _text_file(lambda f, source, mapping: read_rdf_text(f, source, mapping, 4096)),
    "nq": _text_file(read_nquads),
    "rdf-csv": read_rdf_csv,
    "rdf-parquet": read_rdf_parquet,
}
_SUFFIXES = {".nt": "nt", ".nq": "nq", ".csv": "rdf-csv", ".parquet": "rdf-parquet"}


def open_rdf_stream(
    path_or_dash, fmt: str | None = None, mapping: RdfMapping = RdfMapping(), source: str | None = None
) -> Iterator[Record]:
    """Open an RDF stream: ``fmt`` one of :data:`RDF_FORMATS`, else by suffix (``.nt``, ``.nq``,
    ``.csv``, ``.parquet``); ``-`` is stdin (``T: triples`` lines unless ``fmt`` says ``nq``)."""
    import sys

    name = str(path_or_dash)
    if fmt is not None and fmt not in _READERS:
        raise UsageError(
            Diagnostic(f"unknown RDF stream format '{fmt}'", notes=(f"use one of: {', '.join(RDF_FORMATS)}",))
        )
    if name == "-":
        if fmt == "rdf-parquet":
            raise UsageError(
                Diagnostic(
                    "--stream-format rdf-parquet reads a file, not stdin",
                    notes=("name the Parquet file with --stream",),
                )
            )
        reader = {"nq": read_nquads, "rdf-csv": read_rdf_csv}.get(fmt, read_rdf_text)
        return reader(sys.stdin, source or "<stdin>", mapping)
    path = Path(name)
    if not path.exists():
        raise UsageError(Diagnostic(f"stream file '{name}' does not exist"))
    if path.is_dir():
        raise UsageError(
            Diagnostic(
                f"stream file '{name}' is a directory",
                notes=("an RDF stream is one file (.nt, .nq, .csv or .parquet)",),
            )
        )
    fmt = fmt or _SUFFIXES.get(path.suffix.lower(), "nt")
    return _READERS[fmt](path, source or name, mapping)
