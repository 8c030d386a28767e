"""RDF streams: the term mapping, the readers, IRIs in programs, the N-Triples writer."""

from __future__ import annotations

import pyoxigraph as ox
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ticker_py.errors import StreamError
from ticker_py.rdf.streams import (RdfMapping, read_nquads, read_rdf_csv, read_rdf_dataframe, read_rdf_text)
from ticker_py.rdf.terms import XSD, XSD_INTEGER, Term, from_value, to_value

EX = "http://ex.org/"
iris = st.from_regex(r"http://ex\.org/[A-Za-z0-9_/.-]{0,10}(#[A-Za-z0-9_]{0,4})?", fullmatch=True)
texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=8)
languages = st.from_regex(r"[a-z]{2,3}(-[a-z]{2}|-[a-z]{4})?", fullmatch=True)
datatypes = st.sampled_from([XSD + "decimal", XSD + "dateTime", "http://ex.org/dt", XSD_INTEGER])
rdf_terms = st.one_of(
    iris.map(Term.iri),
    st.from_regex(r"[A-Za-z][A-Za-z0-9]{0,6}", fullmatch=True).map(Term.bnode),
    texts.map(Term.literal),
    st.builds(lambda v, lang: Term.literal(v, language=lang), texts, languages),
    st.builds(Term.literal, texts, datatypes),
    st.integers(-2 ** 40, 2 ** 40).map(lambda n: Term.literal(str(n), XSD_INTEGER)),
)


def _ox(term: Term):
    """The same term as a pyoxigraph term (as the readers see it)."""
    if term.kind == "iri":
        return ox.NamedNode(term.value)
    if term.kind == "bnode":
        return ox.BlankNode(term.value)
    if term.language:
        return ox.Literal(term.value, language=term.language)
    return ox.Literal(term.value, datatype=ox.NamedNode(term.datatype))


@settings(max_examples=200)
@given(rdf_terms)
def test_term_round_trip(term):
    value = to_value(term)
    assert from_value(value) == term
    assert to_value(_ox(term)) == value
    # and through N-Triples text, as the readers and the writer see it
    parsed = list(ox.parse(f"<http://s> <http://p> {from_value(value)} .", format=ox.RdfFormat.N_TRIPLES))
    assert to_value(parsed[0].object) == value


@given(st.one_of(st.sampled_from(["a", "bcd", ("f", 1, "a"), ("g", '"x"'), ("iri", 3)]),
                 st.integers(-2 ** 31, 2 ** 31 - 1)))
def test_every_value_survives_rdf(value):
    assert to_value(from_value(value)) == value


def test_numbers_become_integers_only_where_exact():
    assert to_value(Term.literal("42", XSD_INTEGER)) == 42
    assert to_value(Term.literal("-7", XSD_INTEGER)) == -7
    assert to_value(Term.literal("042", XSD_INTEGER)) == ("lit", '"042"', f'"{XSD_INTEGER}"')
    assert to_value(Term.literal("4.0", XSD + "decimal"))[0] == "lit"
    assert to_value(Term.literal(str(2 ** 40), XSD_INTEGER))[0] == "lit"


TEXT = f"""# a comment
0: <{EX}o1> <{EX}price> "5"^^<{XSD_INTEGER}> . <{EX}o1> <{EX}by> _:v .
2: <{EX}o1> <{EX}label> "x"@en .
3:
"""


def iri(local):
    return ("iri", f'"{EX}{local}"')


def test_text_reader_triples_and_properties():
    recs = list(read_rdf_text(TEXT, "s.nt"))
    assert [(r.t, r.line) for r in recs] == [(0, 2), (2, 3), (3, 4)]
    assert recs[0].atoms == (("triple", iri("o1"), iri("price"), 5),
                             ("triple", iri("o1"), iri("by"), ("bnode", '"v"')))
    assert recs[1].atoms == (("triple", iri("o1"), iri("label"), ("lang", '"x"', '"en"')),)
    assert recs[2].atoms == ()
    m = RdfMapping("property", (("ex", EX),), {f"{EX}label": "name"})
    recs = list(read_rdf_text(TEXT, "s.nt", m))
    assert recs[0].atoms[0] == ("ex_price", iri("o1"), 5)
    assert recs[1].atoms == (("name", iri("o1"), ("lang", '"x"', '"en"')),)


@pytest.mark.parametrize("line, column, message", [
    ("1: <o1> <http://p> <http://o> .", 4, "bad triple: no scheme found in an absolute IRI"),
    ("1: ex:o1 <http://p> <http://o> .", 4, "bad triple: the prefix ex: has not been declared"),
    (f'1: <http://s> <http://p> "x1"^^<{XSD_INTEGER}> .', 4, "'x1' is not a valid xsd:integer"),
    ("1: <http://s> <http://p>", 25, "bad triple: unexpected end"),
    ("0: <http://s> <http://p> <http://o> .", 1, "time 0 after time 2"),
    ("z: <http://s> <http://p> <http://o> .", 1, "time must be a non-negative integer, found 'z'"),
])
def test_text_reader_bad_input_is_located_after_good_records(line, column, message):
    good = f"2: <http://s> <http://p> <http://o> .\n"
    if line.startswith("1:"):
        line = "3" + line[1:]
        column += 0
    it = read_rdf_text(good + line, "bad.nt")
    assert next(it).t == 2
    with pytest.raises(StreamError) as err:
        next(it)
    diag = err.value.diagnostics[0]
    assert (diag.location.line, diag.location.column) == (2, column)
    assert diag.message == message


def test_property_mapping_needs_a_prefix():
    with pytest.raises(StreamError, match="no predicate name for property <http://other/p>"):
        list(read_rdf_text("0: <http://s> <http://other/p> <http://o> .", "m.nt", RdfMapping("property", (("ex", EX),))))


def test_nquads_graph_is_the_time_point():
    text = (f"<{EX}a> <{EX}p> <{EX}b> <urn:ticker:t:1> .\n<{EX}a> <{EX}p> <{EX}c> <urn:ticker:t:1> .\n"
            f"<{EX}a> <{EX}p> <{EX}d> <http://ex.org/time/4> .\n<{EX}a> <{EX}p> <{EX}e> <http://ex.org/now> .\n")
    it = read_nquads(text, "s.nq")
    assert [a[3] for a in next(it).atoms] == [iri("b"), iri("c")]
    assert next(it).t == 4
    with pytest.raises(StreamError, match=r"s.nq:4:1.*graph name <http://ex.org/now> is not a time point"):
        next(it)
    with pytest.raises(StreamError, match="a quad needs a graph name"):
        list(read_nquads(f"<{EX}a> <{EX}p> <{EX}b> .", "s.nq"))


def test_tables_t_s_p_o(tmp_path):
    import pandas as pd

    rows = [(0, f"<{EX}a>", f"<{EX}p>", '"1"^^<' + XSD_INTEGER + ">"), (0, f"<{EX}a>", f"<{EX}p>", f"<{EX}b>"),
            (2, "", "", "")]
    df = pd.DataFrame(rows, columns=["t", "s", "p", "o"])
    expect = [(0, (("triple", iri("a"), iri("p"), 1), ("triple", iri("a"), iri("p"), iri("b")))), (2, ())]
    assert [(r.t, r.atoms) for r in read_rdf_dataframe(df)] == expect
    df.to_csv(tmp_path / "s.csv", index=False)
    assert [(r.t, r.atoms) for r in read_rdf_csv(tmp_path / "s.csv")] == expect
    df.to_parquet(tmp_path / "s.parquet")
    from ticker_py.rdf.streams import read_rdf_parquet
    assert [(r.t, r.atoms) for r in read_rdf_parquet(tmp_path / "s.parquet")] == expect
    bad = pd.DataFrame([(0, f"<{EX}a>", f"<{EX}p>", "<rel>")], columns=["t", "s", "p", "o"])
    with pytest.raises(StreamError, match="<DataFrame>:1:1.*no scheme"):
        list(read_rdf_dataframe(bad))
