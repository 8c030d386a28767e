"""RDF literals that mean numbers are numbers (docs/rdf.md, "Term mapping"): the XSD integer
family in any lexical form, decimals, doubles and floats exactly as written, every engine
comparing them as numbers; a comparison of a number with a literal that is no number is reported
(an error under --strict); a malformed literal is a located status-2 error. The literal mapper is
fuzzed against Python's own ``int`` and ``decimal.Decimal``."""

from __future__ import annotations

import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from helpers import scaled
from hypothesis import given, settings
from hypothesis import strategies as st

from ticker_py import run, xsd
from ticker_py.errors import StreamError, TickerWarning
from ticker_py.rdf.terms import Term, from_value, to_value
from ticker_py.values import compare, term_key

ROOT = Path(__file__).resolve().parent.parent
ENGINES = ["clingo", "incremental", "incremental-pure", "native"]
X = xsd.XSD
VAL = "<http://ex.org/s#val>"
DEC = f'lit("4.5","{X}decimal")'
PROGRAM = """@prefix s: <http://ex.org/s#> .
high(O,V) :- triple(O, s:val, V), V > 100.
above(O,V) :- triple(O, s:val, V), V > 4.
negative(O) :- triple(O, s:val, V), V < 0.
"""
STREAM = (
    f'0: <http://ex.org/a> {VAL} "4.5"^^<{X}decimal> . <http://ex.org/b> {VAL} "5"^^<{X}int> . '
    f'<http://ex.org/c> {VAL} "7" . <http://ex.org/d> {VAL} "-3000000000"^^<{X}integer> .\n'
)


def iri(name):
    return f'iri("http://ex.org/{name}")'


@pytest.fixture
def rdf_stream(tmp_path):
    path = tmp_path / "s.nt"
    path.write_text(STREAM)
    return path


@pytest.mark.parametrize("engine", ENGINES)
def test_rdf_numbers_compare_as_numbers(rdf_stream, engine):
    # the table row: 5 is the number 5, 4.5 compares as 4.5, -3000000000 is exact, and
    # the plain string "7" (> 100 in clingo's order of terms) is reported, never silently true
    with pytest.warns(TickerWarning) as seen:
        (result,) = run(PROGRAM, rdf_stream, engine=engine)
    assert result.models[0].sorted_atoms() == [
        f"above({iri('a')},{DEC})",
        f"above({iri('b')},5)",
        f'above({iri("c")},"7")',
        f'high({iri("c")},"7")',
        f"negative({iri('d')})",
    ]
    reports = sorted(str(w.message).splitlines()[0] for w in seen)
    assert len(reports) == 3 and all("compares the number" in r and 'with "7", a string' in r for r in reports)
    assert (
        "<string>:2:35-42: warning: 'V > 100' compares the number 100 with \"7\", a string that is no number" in reports
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_strict_makes_the_report_an_error(rdf_stream, engine):
    with pytest.raises(
        StreamError, match=r"<string>:\d:\d+-\d+: error: 'V [<>] \d+' compares the number \d+ with \"7\", a string"
    ):
        run(PROGRAM, rdf_stream, engine=engine, strict=True)


def test_strict_on_the_command_line(rdf_stream, tmp_path):
    program = tmp_path / "p.lars"
    program.write_text(PROGRAM)
    for strict, status in ((False, 0), (True, 2)):
        proc = subprocess.run(
            [sys.executable, "-m", "ticker_py.cli", "run", program, "--stream", rdf_stream] + ["--strict"] * strict,
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        assert proc.returncode == status, proc.stderr
        assert f"{program}:2:35-42: warning: 'V > 100'" in proc.stderr or strict
        assert f": {'error' if strict else 'warning'}: 'V " in proc.stderr
        assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    "lexical, datatype, value",
    [
        ("042", "integer", 42),
        ("+5", "int", 5),
        ("-0", "integer", 0),
        ("-3000000000", "integer", -3000000000),
        ("18446744073709551615", "unsignedLong", 2**64 - 1),
        ("-128", "byte", -128),
        ("1", "positiveInteger", 1),
        ("00", "nonNegativeInteger", 0),
        ("-1", "negativeInteger", -1),
        ("4.0", "decimal", 4),
        ("-.50", "decimal", ("lit", '"-0.5"', f'"{X}decimal"')),
        ("1.5E2", "double", 150),
        ("0.1", "double", ("lit", '"0.1"', f'"{X}decimal"')),
        ("1e-3", "float", ("lit", '"0.001"', f'"{X}decimal"')),
        ("INF", "double", ("lit", '"INF"', f'"{X}double"')),
        ("NaN", "float", ("lit", '"NaN"', f'"{X}float"')),
        ("1", "boolean", ("lit", '"true"', f'"{X}boolean"')),
        ("2008-01-10T00:00:00", "dateTime", ("lit", '"2008-01-10T00:00:00"', f'"{X}dateTime"')),
    ],
)
def test_literal_values(lexical, datatype, value):
    assert to_value(Term.literal(lexical, X + datatype)) == value


@pytest.mark.parametrize(
    "lexical, datatype, why",
    [
        ("200", "byte", "its range is -128..127"),
        ("-1", "unsignedInt", "its range is 0..4294967295"),
        ("0", "positiveInteger", "at least 1"),
        ("1", "nonPositiveInteger", "at most 0"),
        ("4.5", "integer", "not a valid xsd:integer"),
        (" 42", "int", "not a valid xsd:int"),
        ("1e5", "decimal", "not a valid xsd:decimal"),
        ("1_000", "integer", "not a valid"),
        ("٤٢", "integer", "not a valid"),
        ("Infinity", "double", "not a valid"),
        ("1" * 1001, "integer", "more than 1000 digits"),
        ("1e1001", "double", "exponents beyond"),
        ("yes", "boolean", "not a valid"),
    ],
)
def test_invalid_literals_are_refused(lexical, datatype, why):
    assert why in xsd.invalid(lexical, X + datatype)
    with pytest.raises(ValueError, match=why):
        to_value(Term.literal(lexical, X + datatype))


def test_a_malformed_literal_in_a_stream_is_located(tmp_path):
    path = tmp_path / "bad.nt"
    path.write_text(f'0: <http://ex.org/a> {VAL} "5"^^<{X}int> .\n1: <http://ex.org/a> {VAL} "300"^^<{X}byte> .\n')
    program = tmp_path / "p.lars"
    program.write_text(PROGRAM)
    proc = subprocess.run(
        [sys.executable, "-m", "ticker_py.cli", "run", program, "--stream", path],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert f"{path}:2:" in proc.stderr and "'300' is not a valid xsd:byte (its range is -128..127)" in proc.stderr
    assert proc.stdout.count('"t": 0') == 1  # the time point before it was evaluated and written


def test_numbers_order_exactly_across_types():
    values = [to_value(Term.literal(s, X + t)) for s, t in [("4.5", "decimal"), ("5", "int"), ("4.49", "double")]]
    values += [-(2**70), 4, 2**70, to_value(Term.literal("-0.001", X + "float"))]
    assert sorted(values, key=term_key) == [-(2**70), values[-1], 4, values[2], values[0], 5, 2**70]
    assert compare(">", values[0], 4) and compare("<", values[0], 5) and not compare(">", values[0], 100)
    # a handwritten literal of the same value orders after the integer (the order stays total)
    handwritten = ("lit", '"5.0"', f'"{X}decimal"')
    assert compare("<", 5, handwritten) and compare("<", handwritten, 6) and handwritten != 5


def test_numbers_come_back_as_the_same_numbers():
    for value in [42, -3000000000, ("lit", '"0.5"', f'"{X}decimal"')]:
        assert to_value(from_value(value)) == value
    assert str(from_value(42)) == f'"42"^^<{X}integer>'


# ---------------------------------------------------------------- fuzz: against Python's parsers

INTEGER_TYPES = sorted(xsd.INTEGER_RANGES)
DIGITS = st.text("0123456789", min_size=1, max_size=25)
SIGNS = st.sampled_from(["", "+", "-"])


@st.composite
def lexical_forms(draw):
    """``(lexical, datatype)``: a valid form of a numeric datatype, or something near one."""
    datatype = draw(st.sampled_from(INTEGER_TYPES + [X + "decimal", X + "double", X + "float"]))
    kind = draw(st.sampled_from(["integer", "decimal", "exponent", "special", "noise"]))
    sign = draw(SIGNS)
    if kind == "integer":
        text = sign + draw(DIGITS)
    elif kind == "decimal":
        whole, frac = draw(st.text("0123456789", max_size=12)), draw(st.text("0123456789", max_size=12))
        text = f"{sign}{whole}.{frac}"
    elif kind == "exponent":
        text = f"{sign}{draw(DIGITS)}{draw(st.sampled_from(['e', 'E']))}{draw(SIGNS)}{draw(st.integers(0, 1200))}"
    elif kind == "special":
        text = draw(st.sampled_from(["INF", "-INF", "+INF", "NaN", "inf", "nan", "Infinity", "1_0", " 1", "1 ", ""]))
    else:
        text = draw(st.text(st.sampled_from("0123456789+-.eE _INFaN\u0664"), max_size=12))
    return text, datatype


@settings(max_examples=scaled(20_000, 500), deadline=None)
@given(lexical_forms())
def test_the_literal_mapper_agrees_with_python(form):
    lexical, datatype = form
    why = xsd.invalid(lexical, datatype)
    if why is not None:
        with pytest.raises(ValueError):
            to_value(Term.literal(lexical, datatype))
        # Python may read more (whitespace, "_", other digits, "Infinity"): XSD's forms only
        ascii_digits = all(c in "0123456789+-.eEINFa" for c in lexical)
        if datatype in xsd.INTEGER_RANGES and ascii_digits and lexical[-1:].isdigit() and "." not in lexical:
            if (
                "e" not in lexical.lower()
                and lexical.lstrip("+-").isdigit()
                and lexical.count("-") + lexical.count("+") <= 1
            ):
                low, high = xsd.INTEGER_RANGES[datatype]
                n = int(lexical)
                assert (low is not None and n < low) or (high is not None and n > high) or len(lexical) > 1000
        return
    value = to_value(Term.literal(lexical, datatype))
    if datatype in xsd.INTEGER_RANGES:
        assert value == int(lexical)
        return
    if lexical.lstrip("+-") in ("INF", "NaN"):
        assert value == ("lit", f'"{lexical}"', f'"{datatype}"')
        return
    exact = Decimal(lexical)
    if exact == exact.to_integral_value():
        assert value == int(exact)
    else:
        assert value[0] == "lit" and value[2] == f'"{X}decimal"' and Decimal(value[1][1:-1]) == exact
        assert xsd.literal_number(value) == exact
        assert value[1][1:-1] == xsd.decimal_text(exact) and not value[1][1:-1].endswith("0")
