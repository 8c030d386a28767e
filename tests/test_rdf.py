"""RDF streams: the term mapping, the readers, IRIs in programs, the N-Triples writer."""

from __future__ import annotations

import pyoxigraph as ox
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ticker_py import xsd
from ticker_py.errors import StreamError
from ticker_py.rdf.terms import XSD, XSD_INTEGER, Term, from_value, to_value
from ticker_py.streams.rdf import RdfMapping, read_nquads, read_rdf_csv, read_rdf_dataframe, read_rdf_text

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
    st.integers(-(2**40), 2**40).map(lambda n: Term.literal(str(n), XSD_INTEGER)),
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


def _valid(term: Term) -> bool:
    """Whether a term is valid RDF (a literal's lexical form fits its datatype)."""
    return term.kind != "literal" or xsd.invalid(term.value, term.datatype) is None


@settings(max_examples=200)
@given(rdf_terms.filter(_valid))
def test_term_round_trip(term):
    value = to_value(term)
    back = from_value(value)
    # a term comes back as it was, a number as the same number (its canonical form)
    number = xsd.number(term.value, term.datatype) if term.kind == "literal" and term.datatype else None
    assert back == term if number is None else xsd.number(back.value, back.datatype) == number
    assert to_value(back) == value
    assert to_value(_ox(term)) == value
    # and through N-Triples text, as the readers and the writer see it
    parsed = list(ox.parse(f"<http://s> <http://p> {back} .", format=ox.RdfFormat.N_TRIPLES))
    assert to_value(parsed[0].object) == value


@given(st.one_of(st.sampled_from(["a", "bcd", ("f", 1, "a"), ("g", '"x"'), ("iri", 3)]), st.integers(-(2**70), 2**70)))
def test_every_value_survives_rdf(value):
    assert to_value(from_value(value)) == value


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
    assert recs[0].atoms == (("triple", iri("o1"), iri("price"), 5), ("triple", iri("o1"), iri("by"), ("bnode", '"v"')))
    assert recs[1].atoms == (("triple", iri("o1"), iri("label"), ("lang", '"x"', '"en"')),)
    assert recs[2].atoms == ()
    m = RdfMapping("property", (("ex", EX),), {f"{EX}label": "name"})
    recs = list(read_rdf_text(TEXT, "s.nt", m))
    assert recs[0].atoms[0] == ("ex_price", iri("o1"), 5)
    assert recs[1].atoms == (("name", iri("o1"), ("lang", '"x"', '"en"')),)


#: raw term texts, good and bad, that the text reader must read (or refuse, located) whatever the batch
ODD_TERMS = [
    "<rel>",
    "<http://a b>",
    "<http://x/{y}>",
    "<http://x/\\u0041>",
    "<http://x/é>",
    "_:a.b",
    "_:b.",
    "_:c",
    '"x"^^<http://dt>',
    '"a\\"q"',
    '"tab\\t"',
    "5",
    "a",
    "true",
    ";",
    '"x"@en-',
    '"x"@EN-us',
    '"x"@e1',
    f'"1"^^<{XSD_INTEGER}>',
    f'"01"^^<{XSD_INTEGER}>',
    f'"x"^^<{XSD_INTEGER}>',
    "ex:a",
    '"a . b"',
    '"<http://a> <http://b> <http://c> ."',
    "<>",
    "<http://a>>",
    "_:x<http://y>",
    '"bnode(1)"^^<urn:ticker:term>',
    '"iri(\\"x\\")"^^<urn:ticker:term>',
    '"f(a)"^^<urn:ticker:term>',
    '"x"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#langString>',
    "<http://[::1]/a>",
    "<http://u:p@h/>",
    "<http://x/a#b#c>",
    "<http://x/%zz>",
    '"1.5"^^<http://www.w3.org/2001/XMLSchema#decimal>',
]
GOOD_IRIS = [f"<{EX}a>", f"<{EX}p>", f"<{EX}x/y#z>", "<http://ex.org/é>", "<urn:isbn:1>", "<http://ex.org/a%20b>"]
odd = st.sampled_from(ODD_TERMS)


def sometimes_odd(good):
    """A good term text, one time in about eight an odd one."""
    return st.tuples(st.integers(0, 7), good, odd).map(lambda x: x[2] if x[0] == 0 else x[1])


subjects_of = sometimes_odd(st.sampled_from(GOOD_IRIS + ["_:s", "_:a.b"]))
properties_of = sometimes_odd(st.sampled_from(GOOD_IRIS))
objects_of = sometimes_odd(
    st.one_of(
        st.sampled_from(GOOD_IRIS),
        texts.map(lambda v: str(Term.literal(v))),
        st.builds(lambda v, d: str(Term.literal(v, d)), texts, datatypes),
        st.builds(lambda v, lang: str(Term.literal(v, language=lang)), texts, st.sampled_from(["en", "de-CH"])),
    )
)
separators = st.sampled_from([" ", " ", "  ", "\t", ""])


@st.composite
def rdf_lines(draw):
    """Lines of timestamped triples, each term sometimes odd, with varied separators."""
    lines, t = [], 0
    for _ in range(draw(st.integers(1, 4))):
        t += draw(st.integers(0, 2))
        triples = []
        for _ in range(draw(st.integers(0, 3))):
            sep = [draw(separators) for _ in range(4)]
            triples.append(
                f"{draw(subjects_of)}{sep[0] or ' '}{draw(properties_of)}{sep[1]}{draw(objects_of)}{sep[2]}.{sep[3]}"
            )
        lines.append(f"{t}: " + "".join(triples))
    return "\n".join(lines) + "\n"


def _outcome(text, mapping=RdfMapping(), batch=4096):
    out = []
    try:
        for r in read_rdf_text(text, "s.nt", mapping, batch):
            out.append((r.t, r.atoms, r.line))
    except StreamError as err:
        d = err.diagnostics[0]
        out.append(("error", d.message, d.location.line, d.location.column))
    return out


def _merged(outcome: list) -> list:
    """Records of one time point merged (a batch gives one record per run of lines of one t)."""
    out = []
    for item in outcome:
        if out and item[0] != "error" and out[-1][0] == item[0]:
            out[-1] = (item[0], out[-1][1] + item[1], out[-1][2])
        else:
            out.append(item)
    return out


def _one_by_one(text, mapping=RdfMapping()):
    """Each line's triples parsed alone (:func:`parse_triples`), up to the first bad line."""
    from ticker_py.streams.rdf import parse_triples

    out = []
    for number, line in enumerate(text.splitlines(), 1):
        t, _, triples = line.partition(":")
        try:
            atoms = tuple(parse_triples(triples, mapping)) if triples.strip() else ()
        except ValueError:
            return out, number
        if out and out[-1][0] == int(t):
            out[-1] = (int(t), out[-1][1] + atoms, out[-1][2])
        else:
            out.append((int(t), atoms, number))
    return out, None


@settings(max_examples=300)
@given(rdf_lines(), st.booleans())
# a form feed ends a line: the open string literal before it is followed by the next line in a batch
@example('0: _:x <http://x/a> "\x0c%" . <rel> <rel> <rel> .\n0: <rel> "x"@en- <rel> . \n', False)
def test_batched_text_reader_equals_line_by_line(text, by_property):
    """Lines parsed in batches (one TriG parse of 4,096 lines, files) give the records and errors of
    lines parsed one by one (a pipe), and the triples of each line parsed alone."""
    mapping = RdfMapping("property", (("ex", EX),)) if by_property else RdfMapping()
    batched = _merged(_outcome(text, mapping, 4096))
    assert batched == _merged(_outcome(text, mapping, 1))
    alone, bad = _one_by_one(text, mapping)
    if bad is None:
        assert batched == alone
    else:
        assert batched[:-1] == alone and batched[-1][0] == "error" and batched[-1][2] == bad


@settings(max_examples=100)
@given(rdf_lines(), st.booleans(), st.integers(1, 3))
def test_emptied_term_caches_change_no_record(text, by_property, limit):
    """The term cache emptied at almost every term (``CACHE_TERMS`` tiny) changes no record."""
    from ticker_py.rdf import mapping as rdf_mapping

    mapping = RdfMapping("property", (("ex", EX),)) if by_property else RdfMapping()
    want = _outcome(text, mapping, 1)
    saved, rdf_mapping.CACHE_TERMS = rdf_mapping.CACHE_TERMS, limit
    try:
        assert _outcome(text, mapping, 1) == want
    finally:
        rdf_mapping.CACHE_TERMS = saved


def test_the_term_cache_stays_bounded(monkeypatch):
    """Memory stays flat on a stream of new terms: the term cache never holds more than CACHE_TERMS."""
    import pyoxigraph

    from ticker_py.rdf import mapping as rdf_mapping

    monkeypatch.setattr(rdf_mapping, "CACHE_TERMS", 50)
    terms = rdf_mapping.Terms()
    for i in range(300):
        assert terms[pyoxigraph.NamedNode(f"{EX}o{i}")] == iri(f"o{i}")
        assert len(terms) <= 50


@settings(max_examples=50)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([Term.iri(f"{EX}a"), Term.iri("http://ex.org/é#x"), Term.bnode("b1")]),
            st.sampled_from([Term.iri(f"{EX}p"), Term.iri(f"{EX}x/y#z")]),
            rdf_terms.filter(_valid),
        ),
        max_size=5,
    )
)
def test_writer_and_readers_round_trip(triples):
    import io

    from ticker_py.streams.rdf_writer import RdfWriter

    atoms = {("triple", to_value(s), to_value(p), to_value(o)) for s, p, o in triples}
    text = "0: " + " ".join(f"{x} ." for x in RdfWriter(io.StringIO()).triples(atoms)) + "\n"
    (record,) = read_rdf_text(io.StringIO(text), "w.nt")  # a file: literals may hold line separators other than \n
    assert set(record.atoms) == atoms


@pytest.mark.parametrize(
    "line, column, message",
    [
        ("1: <o1> <http://p> <http://o> .", 4, "bad triple: no scheme found in an absolute IRI"),
        ("1: ex:o1 <http://p> <http://o> .", 4, "bad triple: the prefix ex: has not been declared"),
        (f'1: <http://s> <http://p> "x1"^^<{XSD_INTEGER}> .', 4, "'x1' is not a valid xsd:integer"),
        ("1: <http://s> <http://p>", 25, "bad triple: unexpected end of the line"),
        ("0: <http://s> <http://p> <http://o> .", 1, "time 0 after time 2"),
        ("z: <http://s> <http://p> <http://o> .", 1, "time must be a non-negative integer, found 'z'"),
    ],
)
def test_text_reader_bad_input_is_located_after_good_records(line, column, message):
    good = "2: <http://s> <http://p> <http://o> .\n"
    if line.startswith("1:"):
        line = "3" + line[1:]
        column += 0
    from ticker_py.api import load_program
    from ticker_py.stages.input import Input

    it = Input(load_program("")).records(read_rdf_text(good + line, "bad.nt"))  # refuses a time going back
    assert next(it).t == 2
    with pytest.raises(StreamError) as err:
        next(it)
    diag = err.value.diagnostics[0]
    assert (diag.location.line, diag.location.column) == (2, column)
    assert diag.message == message


def test_property_mapping_needs_a_prefix():
    with pytest.raises(StreamError, match="no predicate name for property <http://other/p>"):
        list(
            read_rdf_text("0: <http://s> <http://other/p> <http://o> .", "m.nt", RdfMapping("property", (("ex", EX),)))
        )


def test_nquads_graph_is_the_time_point():
    text = (
        f"<{EX}a> <{EX}p> <{EX}b> <urn:ticker:t:1> .\n<{EX}a> <{EX}p> <{EX}c> <urn:ticker:t:1> .\n"
        f"<{EX}a> <{EX}p> <{EX}d> <http://ex.org/time/4> .\n<{EX}a> <{EX}p> <{EX}e> <http://ex.org/now> .\n"
    )
    it = read_nquads(text, "s.nq")
    assert [a[3] for a in next(it).atoms] == [iri("b"), iri("c")]
    assert next(it).t == 4
    with pytest.raises(StreamError, match=r"s.nq:4:1.*graph name <http://ex.org/now> is not a time point"):
        next(it)
    with pytest.raises(StreamError, match="a quad needs a graph name"):
        list(read_nquads(f"<{EX}a> <{EX}p> <{EX}b> .", "s.nq"))


def test_tables_t_s_p_o(tmp_path):
    import pandas as pd

    rows = [
        (0, f"<{EX}a>", f"<{EX}p>", '"1"^^<' + XSD_INTEGER + ">"),
        (0, f"<{EX}a>", f"<{EX}p>", f"<{EX}b>"),
        (2, "", "", ""),
    ]
    df = pd.DataFrame(rows, columns=["t", "s", "p", "o"])
    expect = [(0, (("triple", iri("a"), iri("p"), 1), ("triple", iri("a"), iri("p"), iri("b")))), (2, ())]
    assert [(r.t, r.atoms) for r in read_rdf_dataframe(df)] == expect
    df.to_csv(tmp_path / "s.csv", index=False)
    assert [(r.t, r.atoms) for r in read_rdf_csv(tmp_path / "s.csv")] == expect
    df.to_parquet(tmp_path / "s.parquet")
    from ticker_py.streams.rdf import read_rdf_parquet

    assert [(r.t, r.atoms) for r in read_rdf_parquet(tmp_path / "s.parquet")] == expect
    bad = pd.DataFrame([(0, f"<{EX}a>", f"<{EX}p>", "<rel>")], columns=["t", "s", "p", "o"])
    with pytest.raises(StreamError, match="<DataFrame>:1:1.*no scheme"):
        list(read_rdf_dataframe(bad))


# ---------------------------------------------------------------- IRIs in programs

from ticker_py import ast, run  # noqa: E402
from ticker_py.api import load_program  # noqa: E402
from ticker_py.cli import main  # noqa: E402
from ticker_py.engines import ENGINE_NAMES  # noqa: E402
from ticker_py.errors import ProgramError  # noqa: E402
from ticker_py.syntax import parse_program  # noqa: E402

PROGRAM = f"""@prefix ex: <{EX}> .
@prefix : <http://d.org/#> .
hot(S) :- triple(S,ex:temp,V) in [3 sec], V > 30, S != <{EX}x>.
a(:k).
"""


def test_program_iris_print_as_written_and_round_trip():
    from ticker_py.analysis.terms import without_iris

    prog = parse_program(PROGRAM)
    assert str(prog) == PROGRAM
    assert parse_program(str(prog)) == prog
    assert prog.prefixes == (("ex", EX), ("", "http://d.org/#"))
    temp = prog.rules[0].body[0].element.atom.args[1]
    assert isinstance(temp, ast.Iri) and temp.iri == f"{EX}temp" and str(temp) == "ex:temp"
    plain = str(without_iris(prog.rules[0]))
    assert plain == f'hot(S) :- triple(S,iri("{EX}temp"),V) in [3 sec], V > 30, S != iri("{EX}x").'


@given(st.lists(iris, min_size=1, max_size=4))
def test_iri_programs_round_trip(values):
    text = "".join(f"f(<{v}>).\n" for v in values)
    prog = parse_program(text)
    assert str(prog) == text and parse_program(str(prog)) == prog
    assert [r.head.atom.args[0].iri for r in prog.rules] == values


@pytest.mark.parametrize(
    "text, message, column",
    [
        ("a(zz:b).", "unknown prefix 'zz:' in 'zz:b'", 3),
        ("a(<rel/x>).", "relative IRI <rel/x>", 3),
        ("@prefix e: <http://a/> .\n@prefix e: <http://b/> .", "prefix 'e:' declared again with another IRI", 1),
    ],
)
def test_program_iri_errors(text, message, column):
    with pytest.raises(ProgramError) as err:
        parse_program(text)
    diag = err.value.diagnostics[0]
    assert diag.message == message and diag.location.column == column


def test_colon_rules_still_parse():
    assert str(parse_program("a:-b.c :- d(X), X=1.")) == "a :- b.\nc :- d(X), X = 1.\n"


# ---------------------------------------------------------------- every engine, RDF or atoms

XSD_INT = f"<{XSD_INTEGER}>"
RDF_STREAM = f"""0: <{EX}s1> <{EX}temp> "35"^^{XSD_INT} . <{EX}s2> <{EX}temp> "20"^^{XSD_INT} .
1: <{EX}x> <{EX}temp> "40"^^{XSD_INT} . <{EX}s2> <{EX}label> "b"@en .
3: <{EX}s2> <{EX}temp> "31"^^{XSD_INT} .
"""


def _atom_stream():
    """The same stream in the atom syntax, written by hand."""

    def i(local):
        return f'iri("{EX}{local}")'

    return (
        f"0: triple({i('s1')},{i('temp')},35), triple({i('s2')},{i('temp')},20)\n"
        f'1: triple({i("x")},{i("temp")},40), triple({i("s2")},{i("label")},lang("b","en"))\n'
        f"3: triple({i('s2')},{i('temp')},31)\n"
    )


def _answers(results):
    return [(r.t, sorted(sorted(m.sorted_atoms()) for m in r.models)) for r in results]


@pytest.mark.parametrize("engine", ENGINE_NAMES)
def test_every_engine_same_answers_on_rdf_and_atoms(engine, tmp_path):
    (tmp_path / "s.nt").write_text(RDF_STREAM)
    (tmp_path / "s.stream").write_text(_atom_stream())
    prog = PROGRAM + "cold(S) :- triple(S,ex:temp,V), V < 25, not hot(S).\n"
    a = _answers(run(prog, str(tmp_path / "s.nt"), engine=engine, until=4))
    b = _answers(run(prog, str(tmp_path / "s.stream"), engine=engine, until=4))
    assert a == b
    hot = lambda s: f'hot(iri("{EX}{s}"))'  # noqa: E731
    assert [sorted(x for x in ms[0] if x.startswith("hot")) for _, ms in a] == [
        [hot("s1")],
        [hot("s1")],
        [hot("s1")],
        [hot("s1"), hot("s2")],
        [hot("s2")],
    ]


# ---------------------------------------------------------------- background, OWL 2 RL, output

ONTOLOGY = f"""@prefix ex: <{EX}> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:Hurricane rdfs:subClassOf ex:Storm .
ex:Storm rdfs:subClassOf ex:WeatherEvent .
ex:hasSpeed rdfs:subPropertyOf ex:measure .
ex:observes rdfs:domain ex:Sensor .
ex:observes rdfs:range ex:Event .
"""
RDF_TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"


def test_owl2rl_rules_with_a_background_ontology(tmp_path, capsys):
    (tmp_path / "o.ttl").write_text(ONTOLOGY)
    (tmp_path / "s.nt").write_text(
        f"0: <{EX}s1> <{EX}observes> <{EX}e1> . <{EX}e1> {RDF_TYPE} <{EX}Hurricane> .\n"
        f'2: <{EX}e1> <{EX}hasSpeed> "130"^^{XSD_INT} .\n'
    )
    (tmp_path / "p.lars").write_text(
        f"@prefix ex: <{EX}> .\n@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .\n"
        "out(X, rdf:type, C) :- holds(X, rdf:type, C), C != ex:Hurricane.\n"
        "out(X, ex:measure, V) :- holds(X, ex:measure, V).\n"
    )
    code = main(
        [
            "run",
            str(tmp_path / "p.lars"),
            "--stream",
            str(tmp_path / "s.nt"),
            "--background-rdf",
            str(tmp_path / "o.ttl"),
            "--owl2rl",
            "--format",
            "ntriples",
            "--rdf-output",
            "out",
            "--engine",
            "native",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    # hand-checked: e1 is a Storm and a WeatherEvent (subclass closure) and an Event (range),
    # s1 a Sensor (domain), at 0; the speed is a measure (subproperty) at 2
    assert out.splitlines() == [
        f"0: <{EX}e1> {RDF_TYPE} <{EX}Event> .",
        f"0: <{EX}e1> {RDF_TYPE} <{EX}Storm> .",
        f"0: <{EX}e1> {RDF_TYPE} <{EX}WeatherEvent> .",
        f"0: <{EX}s1> {RDF_TYPE} <{EX}Sensor> .",
        f'2: <{EX}e1> <{EX}measure> "130"^^{XSD_INT} .',
    ]
    # the output is a stream the RDF reader reads back
    assert [r.t for r in read_rdf_text(out)] == [0, 0, 0, 0, 2]


def test_property_mapping_in_and_out(tmp_path, capsys):
    (tmp_path / "s.nt").write_text(f'0: <{EX}o1> <{EX}price> "5"^^{XSD_INT} .\n')
    (tmp_path / "p.lars").write_text(f"@prefix ex: <{EX}> .\nex_cheap(O, P) :- ex_price(O, P), P < 10.\n")
    code = main(
        [
            "run",
            str(tmp_path / "p.lars"),
            "--stream",
            str(tmp_path / "s.nt"),
            "--rdf-mapping",
            "property",
            "--format",
            "nquads",
        ]
    )
    assert code == 0
    assert capsys.readouterr().out == f'<{EX}o1> <{EX}cheap> "5"^^{XSD_INT} <urn:ticker:t:0> .\n'


@pytest.mark.parametrize("fmt", ["text", "jsonl", "csv", "parquet", "stdin"])
@pytest.mark.parametrize("output", ["ntriples", "nquads"])
def test_rdf_output_from_atom_streams_of_every_format(tmp_path, capsys, monkeypatch, fmt, output):
    """The input's format follows the input, never the output format: an atom stream (text, JSON
    Lines, CSV, Parquet, stdin) with RDF output is read as atoms and its derived triples written."""
    import io
    import json

    import pandas as pd

    atoms = [(0, f'obs(iri("{EX}s1"),7)'), (0, f'obs(iri("{EX}s2"),12)'), (2, f'obs(iri("{EX}s1"),20)')]
    names = {"text": "s.stream", "jsonl": "s.jsonl", "csv": "s.csv", "parquet": "s.parquet"}
    path = tmp_path / names[fmt] if fmt in names else "-"
    if fmt in ("text", "stdin"):
        data = "".join(f"{t}: {a}\n" for t, a in atoms)
        if fmt == "stdin":
            monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data.encode())))
        else:
            path.write_text(data)
    elif fmt == "jsonl":
        path.write_text("".join(json.dumps({"t": t, "atoms": [a]}) + "\n" for t, a in atoms))
    else:
        frame = pd.DataFrame({"t": [t for t, _ in atoms], "atom": [a for _, a in atoms]})
        frame.to_csv(path, index=False) if fmt == "csv" else frame.to_parquet(path)
    (tmp_path / "p.lars").write_text(f"@prefix ex: <{EX}> .\nout(S, ex:high, V) :- obs(S, V), V > 10.\n")
    args = ["run", str(tmp_path / "p.lars"), "--stream", str(path), "--format", output, "--rdf-output", "out"]
    code = main(args)
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    value = '"{}"^^<http://www.w3.org/2001/XMLSchema#integer>'
    if output == "ntriples":
        assert out.splitlines() == [
            f"0: <{EX}s2> <{EX}high> {value.format(12)} .",
            f"2: <{EX}s1> <{EX}high> {value.format(20)} .",
        ]
    else:
        assert out.splitlines() == [
            f"<{EX}s2> <{EX}high> {value.format(12)} <urn:ticker:t:0> .",
            f"<{EX}s1> <{EX}high> {value.format(20)} <urn:ticker:t:2> .",
        ]


def test_tables_with_rdf_columns_are_rdf_by_their_columns(tmp_path, capsys):
    """A CSV or Parquet file with columns t, s, p, o (and no atom column) is an RDF table, whatever
    the output format."""
    import pandas as pd

    frame = pd.DataFrame({"t": [0, 1], "s": [f"<{EX}a>"] * 2, "p": [f"<{EX}p>"] * 2, "o": ['"x"', '"y"']})
    (tmp_path / "p.lars").write_text("q(O) :- triple(S, P, O).\n")
    for name in ("s.csv", "s.parquet"):
        path = tmp_path / name
        frame.to_csv(path, index=False) if name.endswith("csv") else frame.to_parquet(path)
        code = main(["run", str(tmp_path / "p.lars"), "--stream", str(path), "--format", "text"])
        assert code == 0 and capsys.readouterr().out == 't=0 c=1: {q("x")}\nt=1 c=2: {q("y")}\n'


def test_bad_rdf_input_status_2_after_good_output(tmp_path, capsys):
    (tmp_path / "s.nt").write_text(f"0: <{EX}a> <{EX}p> <{EX}b> .\n1: <{EX}a> <{EX}p> <b> .\n")
    (tmp_path / "p.lars").write_text("q(S) :- triple(S, P, O).\n")
    code = main(["run", str(tmp_path / "p.lars"), "--stream", str(tmp_path / "s.nt"), "--format", "text"])
    out, err = capsys.readouterr()
    assert code == 2 and out.startswith("t=0 ") and "s.nt:2:" in err and "Traceback" not in err
    (tmp_path / "o.ttl").write_text("@prefix ex: <http://ex.org/> .\nex:a ex:b zz:c .\n")
    code = main(["check", str(tmp_path / "p.lars"), "--background-rdf", str(tmp_path / "o.ttl")])
    assert code == 2 and "o.ttl:2:11-15: error: the prefix zz: has not been declared" in capsys.readouterr().err


def test_background_rdf_facts():
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".ttl", delete=False) as f:
        f.write(ONTOLOGY)
    analysis = load_program("x(S) :- triple(S, P, O).", background_rdf=f.name)
    assert len(analysis.background) == 5


# ---------------------------------------------------------------- the R4 workloads, small and by hand

from ticker_py.workloads import r4  # noqa: E402


def _nt(t, s, p, o):
    return f"{t}: <{s}> <{p}> {o} ."


def _offer(t, n, product, price, date=True):
    o, b = f"{r4.INST}Offer{n}", r4.BSBM
    day = f'"2008-01-10T00:00:00"^^<{r4.XSD}dateTime>'
    lines = [
        _nt(t, o, r4.RDF + "type", f"<{b}Offer>"),
        _nt(t, o, b + "product", f"<{r4.INST}{product}>"),
        _nt(t, o, b + "vendor", f"<{r4.INST}Vendor1>"),
        _nt(t, o, b + "price", f'"{price}"^^<{XSD_INTEGER}>'),
        _nt(t, o, b + "validFrom", day),
        _nt(t, o, b + "validTo", day),
        _nt(t, o, b + "deliveryDays", f'"3"^^<{XSD_INTEGER}>'),
        _nt(t, o, b + "offerWebpage", "<http://v.example/1>"),
        _nt(t, o, r4.DC + "publisher", f"<{r4.INST}Vendor1>"),
    ]
    return lines + ([_nt(t, o, r4.DC + "date", day)] if date else [])


def _shown(results, name):
    return [sorted(a for a in r.models[0].sorted_atoms() if a.startswith(name)) for r in results]


@pytest.mark.parametrize("engine", ENGINE_NAMES)
def test_r4_bsbm_small_by_hand(engine, tmp_path):
    # ProductType73 is a leaf under ProductType9 under ProductType1; ProductType328 is under ProductType8
    typ = r4.RDF + "type"
    lines = (
        _offer(0, 1, "Product1", 100)
        + [_nt(0, f"{r4.INST}Product1", typ, f"<{r4.INST}ProductType73>")]
        + _offer(0, 2, "Product2", 70)
        + [_nt(0, f"{r4.INST}Product2", typ, f"<{r4.INST}ProductType328>")]
        + _offer(2, 3, "Product3", 50, date=False)
        + [_nt(2, f"{r4.INST}Product3", typ, f"<{r4.INST}ProductType73>")]
        + [_nt(3, f"{r4.INST}Offer3", r4.DC + "date", f'"2008-01-10T00:00:00"^^<{r4.XSD}dateTime>')]
    )
    (tmp_path / "s.nt").write_text("\n".join(lines) + "\n")
    results = run(r4.program_bsbm(1), str(tmp_path / "s.nt"), engine=engine, until=4)
    price = lambda p, x: f'offer_price(iri("{r4.INST}{p}"),{x})'  # noqa: E731
    # Offer1 at 0 (seen by [1 sec] at 0 and 1); Offer2's product is no ProductType1;
    # Offer3 is complete only when its date arrives at 3 (its other triples at 2 still in the window)
    assert _shown(results, "offer_price") == [
        [price("Product1", 100)],
        [price("Product1", 100)],
        [],
        [price("Product3", 50)],
        [],
    ]


@pytest.mark.parametrize("engine", ENGINE_NAMES)
def test_r4_srbench_small_by_hand(engine, tmp_path):
    w, om = r4.WEATHER, r4.OM

    def obs(t, n, speed, prop="_WindSpeed"):
        o = f"{w}Observation{n}"
        return [
            _nt(t, o, om + "observedProperty", f"<{w}{prop}>"),
            _nt(t, o, om + "floatValue", f'"{speed}"^^<{XSD_INTEGER}>'),
        ]

    # background: the slowest hurricane (HurricaneCategory1, storm1) has 64 knots; tropical
    # storms (34, 36, ...) are no hurricanes
    lines = obs(0, 1, 70) + obs(0, 2, 50) + obs(0, 3, 64) + obs(2, 4, 140, "_AirTemperature")
    (tmp_path / "s.nt").write_text("\n".join(lines) + "\n")
    results = run(r4.program_srbench(1), str(tmp_path / "s.nt"), engine=engine, until=2)
    assert _shown(results, "hurricane_observation") == [[f'hurricane_observation(iri("{w}Observation1"))']] * 2 + [[]]


def test_r4_generators_are_deterministic_and_sized():
    from ticker_py.workloads import generate

    for name, per in (("bsbm", 11), ("srbench", 4)):
        a = list(generate(name, seed=3, tp=3, rate=5))
        assert a == list(generate(name, seed=3, tp=3, rate=5, size=1))
        assert [len(atoms) for _, atoms in a] == [5 * per] * 3
        assert a != list(generate(name, seed=4, tp=3, rate=5))
    assert len(r4.product_types()) == 329 and len(r4.LEAVES) == 256


@pytest.mark.spark
@pytest.mark.slow
def test_r4_spark_generation_equals_python(tmp_path):
    pytest.importorskip("pyspark")
    import pyarrow.dataset as ds

    from ticker_py.spark.gen import generate_parquet
    from ticker_py.spark.session import get_spark
    from ticker_py.workloads import time_points

    session = get_spark("local[2]")  # one session for both workloads: starting it is most of the cost
    try:
        for name in ("bsbm", "srbench"):
            generate_parquet(session, name, tmp_path / name, seed=5, tp=6, partitions=2, size=2, rate=3)
    finally:
        session.stop()
    for name in ("bsbm", "srbench"):
        tab = ds.dataset(tmp_path / name / "stream.parquet", partitioning="hive").to_table()
        tab = tab.sort_by([("t", "ascending"), ("c", "ascending")])
        ref = [(t, a) for t, atoms in time_points(name, 5, tp=6, rate=3) for a in atoms]
        assert list(zip(tab["t"].to_pylist(), tab["atom"].to_pylist())) == ref
