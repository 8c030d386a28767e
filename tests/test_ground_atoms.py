"""The ground-atom reader (ticker_py/syntax/ground_atoms.py) and its accelerator (constant_atoms.py).

Atoms printed from known values read back as those values, in every spacing; the reader's cut
of a line (compact atoms converted in bulk and remembered) gives what its token-by-token assembler
gives, errors included, on random and hostile lines; the accelerator gives what the reader gives
with accelerators off; the text and JSON Lines readers' records, and what they know of them, are
what parsing each line or text alone gives.
"""

from __future__ import annotations

import json

import pytest
from helpers import accelerators_set, drain, records_until_error, scaled
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ticker_py import accelerators
from ticker_py.streams import Known, Record, read_jsonl, read_text
from ticker_py.syntax.constant_atoms import split_constants
from ticker_py.syntax.ground_atoms import AtomReader, GroundSyntaxError, parse_ground_atom, split_atoms
from ticker_py.values import format_atom

KEYWORDS = ["not", "in", "at", "always"]
NAMES = st.sampled_from(["p", "q", "temp", "a_b'", "x1", *KEYWORDS])
CONSTANTS = st.sampled_from(["a", "b0", "c_d", "e'", "zz9", *KEYWORDS])
INTS = st.one_of(st.integers(-10, 10), st.integers(-(2**70), 2**70))
STRINGS = st.sampled_from(['"x"', '"a,b;c"', '"esc\\"q"', '"back\\\\"', '"t\\tx"', '"%#"', '""', '"(p, q)"'])


def _terms(depth=3):
    base = st.one_of(CONSTANTS, INTS, STRINGS)
    if depth == 0:
        return base
    return st.one_of(
        base,
        st.tuples(st.sampled_from(["f", "iri", "not"]), st.lists(_terms(depth - 1), min_size=1, max_size=3)).map(
            lambda x: (x[0], *x[1])
        ),
    )


ATOMS = st.tuples(NAMES, st.lists(_terms(), max_size=4)).map(lambda x: (x[0], *x[1]))
SPACES = st.sampled_from(["", "", " ", "\t"])
SEPARATORS = st.sampled_from([", ", ",", ";", " ; ", " ,", ",  "])


def _spaced(term, sp: str) -> str:
    """``term`` printed with ``sp`` around its parentheses and after its commas."""
    if type(term) is not tuple:
        return str(term)
    args = [_spaced(a, sp) for a in term[1:]]
    return term[0] if not args else f"{term[0]}{sp}({sp}{(',' + sp).join(args)}{sp})"


def _outcome(fn, *args):
    try:
        return fn(*args)
    except GroundSyntaxError as e:
        return ("error", e.message, e.column)


def _assembled(text: str, start: int = 0) -> tuple:
    """The token-by-token assembler's atoms of a line."""
    return tuple(atom for _, atom in split_atoms(text, start))


def _flags(atom) -> bool:
    """Whether ``atom`` holds a keyword or a string with an unknown escape: it then does not parse."""
    if type(atom) is tuple:
        return any(map(_flags, atom))
    return atom in KEYWORDS or (type(atom) is str and "\\t" in atom)


@pytest.fixture(params=[True, False], ids=["accelerated", "plain"])
def accelerated(request, monkeypatch):
    monkeypatch.setattr(accelerators, "ENABLED", request.param)
    return request.param


# ---------------------------------------------------------------- values read back


@settings(max_examples=scaled(300, 100), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(ATOMS, SPACES), min_size=1, max_size=5), SEPARATORS)
def test_printed_atoms_read_back_as_their_values(items, sep):
    """An oracle independent of the reader: atoms printed from values read back as those values
    (or, where a keyword or an unknown escape stands, as an error), whole lines and one by one."""
    line = sep.join(_spaced(a, sp) for a, sp in items)
    valid = not any(_flags(a) for a, _ in items)
    for enabled in (True, False):
        with accelerators_set(enabled):
            found = _outcome(AtomReader().line, line)
        if valid:
            assert found == tuple(a for a, _ in items)
        else:
            assert found[0] == "error"
    for atom, sp in items:
        found = _outcome(parse_ground_atom, _spaced(atom, sp))
        assert found == atom if not _flags(atom) else found[0] == "error"


# ---------------------------------------------------------------- the cut against the assembler


@settings(max_examples=scaled(300, 120), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(ATOMS, SPACES, SEPARATORS), max_size=6))
def test_lines_equal_the_assembler(accelerated, items):
    line = "7:" + "".join(f" {_spaced(a, sp)}{sep}" for a, sp, sep in items).rstrip(",; ")
    expected = _outcome(_assembled, line, 2)
    for reader in (AtomReader(), AtomReader(limit=3)):
        for _ in range(3):  # the second and third time from the caches
            assert _outcome(reader.line, line, 2) == expected
    reader = AtomReader()
    for atom, sp, _ in items:
        text = _spaced(atom, sp)
        assert _outcome(reader.atom, text) == _outcome(parse_ground_atom, text)


#: atoms of one shape, near the edges of reading a whole line at once: names and arguments of every
#: kind, keywords, a string or a number where the predicate stands, other spacing
SHAPE_NAMES = st.sampled_from(["p", "q", "p", "not", '"s"', "5", "f(a)", "P"])
SHAPE_ARGS = st.sampled_from(["a", "1", "-2", '"x,y"', 'iri("u")', "f(1,g)", "in", "X", "", " b", "f(g(1))"])


@settings(max_examples=scaled(500, 150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.integers(0, 3).flatmap(
        lambda k: st.lists(st.tuples(SHAPE_NAMES, st.lists(SHAPE_ARGS, min_size=k, max_size=k)), min_size=1, max_size=5)
    ),
    st.lists(SEPARATORS, min_size=5, max_size=5),
    st.sampled_from(["", ")", ",", " "]),
)
def test_lines_of_one_shape_equal_the_assembler(accelerated, atoms, seps, end):
    line = "".join(
        (f"{name}({','.join(args)})" if args else name) + (seps[i] if i < len(atoms) - 1 else end)
        for i, (name, args) in enumerate(atoms)
    )
    expected = _outcome(_assembled, line)
    assert _outcome(AtomReader().line, line) == expected


#: tokens near every edge of the cut: keywords, capitals, digits, quotes, spaces, punctuation
TOKENS = st.sampled_from(
    [
        "a",
        "b0",
        "zZ9",
        "e'",
        "not",
        "in",
        "at",
        "always",
        "note",
        "X",
        "_x",
        "'q",
        "0",
        "12",
        "-3",
        "9a",
        "",
        " ",
        "a b",
        "\t",
        "\n",
        "f(x)",
        "g(f(1))",
        'iri("x")',
        "(",
        ")",
        ",",
        ";",
        '"s"',
        '"a, b"',
        '"a\\tb"',
        '"q\\"r"',
        '"',
        "é",
        "a-b",
        "%",
    ]
)


@settings(max_examples=scaled(1000, 300), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(TOKENS, max_size=14))
def test_token_soup_reads_as_the_assembler_reads_it(accelerated, tokens):
    line = "".join(tokens)
    expected = _outcome(_assembled, line)
    reader = AtomReader(limit=3)
    for _ in range(2):
        assert _outcome(reader.line, line) == expected
    texts = [t for t in tokens if t]
    each = [_outcome(parse_ground_atom, text) for text in texts]
    errors = [found for found in each if found[0] == "error"]
    assert _outcome(AtomReader().each, texts) == (errors[0] if errors else tuple(each))


@pytest.mark.parametrize(
    "line, atoms",
    [
        ("p(a,b), p(c,1); p(-3,x)", (("p", "a", "b"), ("p", "c", 1), ("p", -3, "x"))),
        ("a, b ;c", (("a",), ("b",), ("c",))),
        ("p(99999999999999999999999), p(-0), p(007)", (("p", 99999999999999999999999), ("p", 0), ("p", 7))),
        ("p(in'), q(x_in)", (("p", "in'"), ("q", "x_in"))),
        (
            'triple(iri("x"),iri("y"),lit("1","z"))',
            (("triple", ("iri", '"x"'), ("iri", '"y"'), ("lit", '"1"', '"z"')),),
        ),
        ("p( f(a) , g( 1 ) )", (("p", ("f", "a"), ("g", 1)),)),
        ('s("a,b", x)', (("s", '"a,b"', "x"),)),
        ("", ()),
        ("p(X)", "variable 'X' in a stream atom (stream atoms must be ground)"),
        ("p(not)", "'not' is a keyword, not a constant"),
        ("not(a)", "'not' is a keyword, not a predicate"),
        ("p(a),", "expected an atom, found end of input"),
        ("p(a) q(b)", "expected ',' or ';' between atoms, found 'q'"),
        ("p(a,,b)", "expected a term (number, constant, string or function term), found ','"),
        ("p(1a)", "expected ',' or ')', found 'a'"),
        ("P(a)", "expected a predicate name (lower case), found 'P'"),
        ('p("a\\tb")', "unknown escape '\\t' in a string"),
        ("p()", "expected a term (number, constant, string or function term), found ')'"),
        ('p("ab), q(c)', "unclosed string"),  # as in programs (tokens.bad_string)
        ("p(_)", "variable '_' in a stream atom"),
    ],
)
def test_hand_cases(accelerated, line, atoms):
    reader = AtomReader()
    for _ in range(2):
        found = _outcome(reader.line, line)
        if type(atoms) is tuple:
            assert found == atoms
        else:
            assert found[0] == "error" and found[1].startswith(atoms)


def test_each_distinct_term_is_one_object_and_the_caches_are_bounded(accelerated):
    reader = AtomReader()
    first = reader.line("p(f(a),b), temp(5)")
    again = reader.line("temp(5), p(f(a),b)")
    assert first == again[::-1] and first[1] is again[0] and first[0][1] is again[1][1]
    assert reader.atom("q(x)") is reader.atom("q(x)")
    reader = AtomReader(limit=4)
    for i in range(10):
        assert reader.line(f"p({i},f(x)), q(g({i}))") == (("p", i, ("f", "x")), ("q", ("g", i)))
        assert len(reader.terms) <= 4 + 7  # the limit, and one line more


def test_lists_of_known_and_new_atoms_with_full_caches(accelerated):
    """A list of texts some of which the reader knows, when making room drops them: every text is
    converted (a list of atoms with nested terms, as a Parquet batch of RDF atoms)."""
    reader = AtomReader(limit=4)
    for i in range(12):
        texts = [f'p(f("a{j}"),{j})' for j in range(i, i + 3)]
        assert reader.each(texts) == tuple(("p", ("f", f'"a{j}"'), j) for j in range(i, i + 3))


# ---------------------------------------------------------------- the accelerator


def test_the_accelerator_takes_lines_of_constant_atoms():
    assert split_constants("p(a0,b0), q(zZ_9',c)") == (
        (("p", "a0", "b0"), ("q", "zZ_9'", "c")),
        frozenset({("p", 3), ("q", 3)}),
        True,
    )
    atoms, pairs, distinct = split_constants("edge(x), edge(y), edge(x)")
    assert atoms == (("edge", "x"), ("edge", "y"), ("edge", "x")) and pairs == {("edge", 2)} and not distinct
    assert atoms[0][0] is atoms[1][0] is atoms[2][0]  # a shared predicate name is one string
    for declined in [
        "p(a,b), q(c)",
        "p(a,1)",
        "p(a), at(b)",
        "p(in)",
        "p(a),q(b)",
        "p(a) , q(b)",
        "p(A)",
        "p",
        "p(a), q",
        "p(a,b)x(c,d)",
        "p(f(a))",
        "",
        "p(a,b)x",
        "p(a,b),x q(c,d)",
        "p(a,b)x, q(c,d)",
        "p(a,b), q(c,d)x",
        "p(a), q(b) ",
        " p(a)",
        "p(a),  q(b)",
        "p(é)",
        "é(a)",
        "p(,a)",
        "p(a,)",
        "(a), p(b)",
        "p(a), (b)",
        "p(_a)",
        "p('a)",
        "p(a), q(9)",
        "p(a), not(b)",
        "p(always), q(b)",
        "p(a)\n",
        'p("a")',
    ]:
        assert split_constants(declined) is None, declined


@settings(max_examples=scaled(500, 150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(st.lists(TOKENS, min_size=1, max_size=4), min_size=1, max_size=5),
    st.sampled_from([", ", ",", " , ", "; ", ",  ", ",x ", ""]),
    st.sampled_from(["", "x", " "]),
)
def test_the_accelerator_equals_the_reader(atoms, sep, end):
    """What the accelerator takes is what the reader reads with accelerators off."""
    text = sep.join(f"{a[0]}({','.join(a[1:])})" if len(a) > 1 else a[0] for a in atoms) + end
    found = split_constants(text)
    if found is not None:
        with accelerators_set(False):
            assert found[0] == AtomReader().line(text)
        assert found[1] == {(a[0], len(a)) for a in found[0]}
        assert not found[2] or len(set(found[0])) == len(found[0])


# ---------------------------------------------------------------- the line readers


#: lines of a stream that repeats some of its time points: nested terms, strings with escapes,
#: negative and wide integers, keywords, duplicates within a line
LINES = st.lists(st.tuples(ATOMS, SPACES), min_size=0, max_size=4).map(
    lambda items: ", ".join(_spaced(a, sp) for a, sp in items + items[:1])
)


@settings(max_examples=scaled(300, 100), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(LINES, min_size=1, max_size=3),
    st.lists(st.integers(0, 2), min_size=1, max_size=8),
    st.sampled_from(["", "\r", "  "]),
)
def test_repeated_lines_read_like_fresh_ones(accelerated, pool, picks, end):
    """A line with the same atom text as the one before gives that line's atoms again (the same
    tuple): what the assembler gives each line, up to the first bad line, whose error is the same."""
    texts = [pool[i % len(pool)] for i in picks]
    stream = "".join(f"{t}: {text}{end}\n" for t, text in enumerate(texts))
    expected, error = [], None
    for t, text in enumerate(texts):
        atoms = _outcome(_assembled, f"{t}: {text}", 2)
        if atoms and atoms[0] == "error":
            error = (t + 1, atoms[1])
            break
        expected.append((t, atoms, "s", t + 1))
    got, message = drain(read_text(stream, "s"))
    assert got == expected
    assert (message is None) == (error is None)
    if error is not None:
        assert message.startswith(f"s:{error[0]}:") and error[1] in message
    for before, after in zip(got, got[1:]):
        if texts[before[0]] == texts[after[0]]:
            assert after[1] is before[1]


KNOWN_ATOMS = st.sampled_from(
    ["p(a,b)", "p(a,c)", "p(c,b)", "q(a)", "q(b)", "p(b)", "r(x,y,z)", "p(A,b)", "p(not,a)", "p(1,b)", "s", 'q("a")']
)
KNOWN_LINES = st.tuples(st.integers(0, 2), st.lists(KNOWN_ATOMS, max_size=5), st.sampled_from([", ", "; "]))


@settings(max_examples=scaled(300, 100), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(KNOWN_LINES, min_size=1, max_size=8))
def test_what_the_text_reader_knows_of_a_record_is_true(lines):
    t, stream = 0, []
    for step, atoms, sep in lines:
        t += step
        stream.append(f"{t}: {sep.join(atoms)}\n")
    for rec in records_until_error(read_text("".join(stream), "s")):
        if rec.known is not None:
            assert rec.known.pairs == {(a[0], len(a)) for a in rec.atoms}
            assert not rec.known.distinct or len(set(rec.atoms)) == len(rec.atoms)


def test_the_text_reader_knows_constant_lines():
    """What the accelerator learns of constant lines (``Record.known``); off, nothing is known."""
    with accelerators_set(True):
        first, second, third, fourth = read_text(
            "0: p(a,b), p(c,d)\n1: p(e,f), p(e,g)\n2: p(h,i), q(j,k)\n3: p(a,b); p(c,d)\n", "s"
        )
    assert first.known == Known(frozenset({("p", 3)}), True)
    assert second.known == Known(frozenset({("p", 3)}), False)  # first arguments repeat: not known
    assert third.known == Known(frozenset({("p", 3), ("q", 3)}), True)
    assert fourth.known is None and fourth == Record(3, (("p", "a", "b"), ("p", "c", "d")), "s", 4)


JSON_TEXTS = st.one_of(
    KNOWN_ATOMS,
    st.sampled_from(
        [" p(a,b)", "p(a, b)", "p(a,b), p(c,d)", "", "p(a,b);", 'f(g(1),"s\\"x")', "w(-12345678901234567890123, 7)"]
    ),
)


@settings(max_examples=scaled(300, 100), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(0, 2), st.lists(JSON_TEXTS, max_size=5)), min_size=1, max_size=8), st.booleans())
def test_json_lines_atoms_equal_parsing_each_text(accelerated, lines, recurring):
    """JSON Lines atom lists (looked up, or split at once) give what parsing each text on its own
    gives, the first bad text's error included, and what the reader knows of them is true."""
    t, stream, expected, error = 0, [], [], None
    for number, (step, texts) in enumerate(lines * 2 if recurring else lines, 1):  # twice: the atoms recur
        t += step
        stream.append(json.dumps({"t": t, "atoms": texts}) + "\n")
        parsed = [_outcome(parse_ground_atom, x) for x in texts]
        bad = [p for p in parsed if p[0] == "error"]
        if bad and error is None:
            error = (number, bad[0][1])
        if error is None:
            expected.append((t, tuple(parsed), "s", number))
    got, message = drain(read_jsonl(stream, "s"))
    assert got == expected
    assert (message is None) == (error is None)
    if error is not None:
        assert message.startswith(f"s:{error[0]}:") and error[1] in message
    for rec in records_until_error(read_jsonl(stream, "s")):
        if rec.known is not None:
            assert rec.known.pairs == {(a[0], len(a)) for a in rec.atoms}
            assert not rec.known.distinct or len(set(rec.atoms)) == len(rec.atoms)


def test_format_of_read_atoms_round_trips():
    line = 'p(a,-3), q("x\\"y",f(g(1),b)), r'
    atoms = AtomReader().line(line)
    assert ", ".join(map(format_atom, atoms)) == 'p(a,-3), q("x\\"y",f(g(1),b)), r'


@settings(max_examples=scaled(500, 150), deadline=None)
@given(st.lists(st.sampled_from(["a", '"', "\\", "%", "#", " ", "x y", '\\"', "\n"]), max_size=14))
def test_comments_are_cut_outside_strings(pieces):
    """A ``%`` or ``#`` outside a quoted string starts a comment (a quote that opens no string is
    read as any character): what scanning for strings and comment marks one at a time finds."""
    import re

    from ticker_py.streams.text import _strip_comment

    line = "".join(pieces)
    expected = line
    for m in re.finditer(r'"(?:\\.|[^"\\])*"|[%#]', line):
        if m.group() in "%#":
            expected = line[: m.start()]
            break
    assert _strip_comment(line) == expected


@settings(max_examples=scaled(300, 100), deadline=None)
@given(
    st.lists(
        st.sampled_from(['iri("a#b")', 'p("50%")', "q(1)", '"#"', "r", "p(#)", "s(x) % c", "t(y) # c"]), max_size=4
    ),
    st.sampled_from(["", " % end", "# end", ' % "x"']),
)
def test_lines_with_comment_marks_read_as_their_text_without_the_comment(atoms, comment):
    """A line whose comment marks stand in strings (IRIs with ``#``) is read at once; one with a
    comment reads as its text up to the comment."""
    import re

    line = "3: " + ", ".join(atoms) + comment
    cut = line
    for m in re.finditer(r'"(?:\\.|[^"\\])*"|[%#]', line):
        if m.group() in "%#":
            cut = line[: m.start()]
            break
    expected = _outcome(_assembled, cut, 2)
    got, message = drain(read_text([line], "s"))
    if expected and expected[0] == "error":
        assert message is not None and expected[1] in message
    else:
        assert message is None and got == [(3, expected, "s", 1)]


@pytest.mark.parametrize("fmt", ["text", "jsonl"])
def test_an_integer_longer_than_python_converts_is_a_located_error(fmt):
    import sys

    from ticker_py import Reasoner
    from ticker_py.errors import StreamError

    digits = sys.get_int_max_str_digits() + 1
    atom = f"p({'9' * digits})"
    reader = AtomReader()
    for read in (reader.line, parse_ground_atom):
        with pytest.raises(GroundSyntaxError, match=f"integer of {digits} digits is too long") as err:
            read(atom)
        assert err.value.column == 2
    line = f"0: {atom}\n" if fmt == "text" else json.dumps({"t": 0, "atoms": [atom]}) + "\n"
    records, error = drain((read_text if fmt == "text" else read_jsonl)([line], "s"))
    assert records == [] and f"integer of {digits} digits is too long" in error
    with pytest.raises(StreamError, match="too long"):
        Reasoner("q(X) :- p(X) in [1].").append(0, [atom])
    assert parse_ground_atom(f"p({'9' * (digits - 1)})")[1] == int("9" * (digits - 1))
