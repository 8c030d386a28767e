"""The parser: every construct, round trips, named terminals and readable errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ticker_py import ast
from ticker_py.errors import ProgramError
from ticker_py.syntax import TERMINAL_NAMES, _parser, parse_ground_atom, parse_program, split_atoms

ROOT = Path(__file__).resolve().parent.parent

SPEC_EXAMPLE = """
% a comment to the end of the line;  // also;  /* block */ also
line(a1, l1).                                      % a fact
need(I,N)  :- item(I), node(N), req(I,N) in [20].  // time window, diamond
need2(I,N) :- item(I), node(N), req(I,N) [20].
lfu        :- high always [20].                    /* box */
high at T  :- value(V), alpha(V) at T in [20 #], V >= 18.
done       :- lfu.
random     :- not done.
conn(N,M)  :- edge(N,M), not down(M) always [5].
exp(Id,Y) at T :- tram(Id,X) at T1 [1 #], plan(L,X,Y,Z), T = T1 + Z.
:- get(I,N,M), get(I,N,M2), M != M2.
"""


def test_spec_example_parses_to_the_expected_ast():
    prog = parse_program(SPEC_EXAMPLE)
    assert len(prog.rules) == 10
    high = prog.rules[4]
    assert high.head == ast.Head(ast.Atom("high"), ast.Variable("T"))
    el = high.body[1].element
    assert (el.modality, el.window, el.time) == (ast.AT, ast.Window(20, "#"), ast.Variable("T"))
    conn = prog.rules[7].body[1]
    assert conn.negated and conn.element.modality == ast.BOX and conn.element.window == ast.Window(5)
    assert prog.rules[9].is_constraint
    assert prog.rules[1].body[2].element == prog.rules[1].body[2].element
    assert str(prog.rules[2]) == "need2(I,N) :- item(I), node(N), req(I,N) in [20]."


@pytest.mark.parametrize(
    "text,expected",
    [
        ("a :- b at 3.", "a :- b at 3."),  # numeric @ stays a number
        ("a :- not b in [3].", "a :- not b in [3]."),  # not is never dropped
        ("a :- b always in [3 sec].", "a :- b always [3 sec]."),
        ("a :- b [2 min], c [1 h], d [500 ms].", "a :- b in [2 min], c in [1 h], d in [500 ms]."),
        ('p("x, y", f(a,-1)) :- q(X), X == 2.', 'p("x, y",f(a,-1)) :- q(X), X = 2.'),
        ("v(0..3).", "v(0..3)."),
        ("a :- b(X), Y = (X+1)*2 \\ 3, Z = X-(-1).", "a :- b(X), Y = (X+1)*2\\3, Z = X-(-1)."),
        ("notify :- in_x, always_y, at_z.", "notify :- in_x, always_y, at_z."),  # keyword prefixes are names
        ("h :- min(X) in [3 min], h(X) at 2.", "h :- min(X) in [3 min], h(X) at 2."),  # unit words as names
    ],
)
def test_constructs_print_as_valid_lars(text, expected):
    prog = parse_program(text)
    assert str(prog).strip() == expected
    assert parse_program(str(prog)) == prog


def test_shipped_programs_round_trip():
    for path in sorted((ROOT / "encodings").glob("*.lars")):
        prog = parse_program(path.read_text(), str(path))
        assert parse_program(str(prog)) == prog, path.name


def test_behaviour_programs_round_trip():
    from test_behaviour import CASES

    for program, _, _ in CASES.values():
        prog = parse_program(program)
        assert parse_program(str(prog)) == prog


# ---------------------------------------------------------------- generated ASTs round-trip

names = st.sampled_from(["a", "b", "p", "q", "value", "x1", "f'"])
variables = st.sampled_from(["X", "Y", "T", "_Z", "Id"])
leaf_terms = st.one_of(
    st.integers(-20, 20).map(ast.Number),
    names.map(ast.Constant),
    variables.map(ast.Variable),
    st.text(alphabet='ab ,"\\', max_size=4).map(ast.String),
)
terms = st.recursive(
    leaf_terms,
    lambda inner: st.one_of(
        st.builds(ast.BinOp, st.sampled_from(["+", "-", "*", "/", "\\"]), inner, inner),
        st.builds(ast.Function, names, st.lists(inner, min_size=1, max_size=2).map(tuple)),
    ),
    max_leaves=5,
)
atoms = st.builds(ast.Atom, names, st.lists(terms, max_size=2).map(tuple))
windows = st.one_of(
    st.builds(ast.Window, st.integers(0, 30), st.sampled_from([None, "sec", "ms", "min", "h"])),
    st.builds(ast.Window, st.integers(1, 30), st.just("#")),
)
ext_atoms = st.one_of(
    st.builds(ast.ExtendedAtom, atoms),
    st.builds(ast.ExtendedAtom, atoms, st.sampled_from([ast.DIAMOND, ast.BOX]), windows),
    st.builds(ast.ExtendedAtom, atoms, st.just(ast.AT), st.one_of(st.none(), windows), terms),
)
comparisons = st.builds(ast.Comparison, st.sampled_from(["=", "!=", "<", "<=", ">", ">="]), terms, terms)
literals = st.builds(ast.Literal, st.one_of(ext_atoms, comparisons), st.booleans())
heads = st.builds(ast.Head, atoms, st.one_of(st.none(), terms))
rules = st.one_of(
    st.builds(ast.Rule, heads, st.lists(literals, min_size=1, max_size=3).map(tuple)),
    st.builds(ast.Rule, st.none(), st.lists(literals, min_size=1, max_size=3).map(tuple)),
    st.builds(ast.Rule, st.builds(ast.Head, atoms)),
)


@given(st.lists(rules, max_size=4).map(tuple))
def test_print_then_parse_is_identity(rule_list):
    prog = ast.Program(rule_list)
    assert parse_program(str(prog)) == prog


# ---------------------------------------------------------------- terminals and errors


def test_every_terminal_has_a_name_in_words():
    for term in _parser().terminals:
        if term.name in ("WS", "LINE_COMMENT", "BLOCK_COMMENT"):
            continue
        assert not term.name.startswith("__"), term.name
        assert term.name in TERMINAL_NAMES, term.name


@pytest.mark.parametrize("text", ["a :- b c.", "a :- .", "a(.", "a :- b [3 #", "a :- b always.", ":- .", "a :- b %"])
def test_syntax_errors_are_in_words(text):
    with pytest.raises(ProgramError) as info:
        parse_program(text, "f.lars")
    msg = str(info.value)
    assert msg.startswith("f.lars:1:") and "error: syntax error" in msg and "expected" in msg
    assert "__ANON" not in msg and "RBRACK" not in msg and "$END" not in msg


def test_error_diagnostics_are_data():
    with pytest.raises(ProgramError) as info:
        parse_program("a :- b.\nc :- d [0 #].", "f.lars")
    (diag,) = info.value.diagnostics
    assert (diag.location.line, diag.location.column, diag.message) == (2, 8, "tuple window of size 0")


# ---------------------------------------------------------------- ground atoms in streams


@pytest.mark.parametrize(
    "text,atom",
    [
        ("p", ("p",)),
        ("alpha(20)", ("alpha", 20)),
        ("cache(1, -3)", ("cache", 1, -3)),
        ('s("a,b", x)', ("s", '"a,b"', "x")),
        ("f(g(1,h(a)))", ("f", ("g", 1, ("h", "a")))),
    ],
)
def test_ground_atoms(text, atom):
    assert parse_ground_atom(text) == atom


def test_split_atoms_at_top_level():
    assert [a for _, a in split_atoms('alpha(20), cache(1,3); s("x;y")')] == [
        ("alpha", 20),
        ("cache", 1, 3),
        ("s", '"x;y"'),
    ]
