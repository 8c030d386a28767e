"""The parser: every construct, round trips, named terminals and readable errors."""

from __future__ import annotations

from pathlib import Path

import pytest
import strategies
from helpers import scaled
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ticker_py import ast
from ticker_py.errors import ProgramError
from ticker_py.node import Node
from ticker_py.syntax import TERMINAL_NAMES, _parser, parse_ground_atom, parse_program, split_atoms

ROOT = Path(__file__).resolve().parent.parent


def exact(node):
    """Every field of an AST, locations and IRI texts included (AST equality ignores locations)."""
    if isinstance(node, Node):
        return (type(node).__name__,) + tuple((name, exact(getattr(node, name))) for name in node._fields)
    if isinstance(node, tuple):
        return tuple(exact(x) for x in node)
    return node


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


def _diagnostics(text: str) -> list:
    with pytest.raises(ProgramError) as info:
        parse_program(text, "f.lars")
    return [(str(d.location), d.message, d.notes) for d in info.value.diagnostics]


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ("a.\n/* never closed\nb :- c.\n", "f.lars:2:1-3", "unclosed comment"),
        ("p(X) :- q(X), X = 1 /* c", "f.lars:1:21-23", "unclosed comment"),
        ('p("open).\nq.\n', "f.lars:1:3-4", "unclosed string"),
        ('p(X) :- q(X), X = "a\\', "f.lars:1:19-20", "unclosed string"),
        ('q :- p("a\\qb").', "f.lars:1:10-12", "unknown escape '\\q' in a string"),
    ],
)
def test_unclosed_strings_and_comments_are_named_at_their_opening(text, where, message):
    """Once reported as "unexpected '/'" or "unexpected '\"'" (the first character no token took)."""
    assert _diagnostics(text)[0][:2] == (where, message)


def test_a_quote_in_a_comment_and_a_comment_in_a_string_are_no_errors():
    program = parse_program('% "\np("/*"). /* " */ q("%").')
    assert str(program) == 'p("/*").\nq("%").\n'


def test_an_unclosed_comment_is_reported_once_and_the_errors_before_it_too():
    assert [(where, message) for where, message, _ in _diagnostics("a :- b c.\nd. /* x.\ne :- .\n")] == [
        ("f.lars:1:8-9", "syntax error, unexpected 'c'"),
        ("f.lars:2:4-6", "unclosed comment"),
    ]


@pytest.mark.parametrize(
    ("text", "where", "message", "note"),
    [
        ("{ a }.", "1:1-2", "plain LARS has no choice rules ('{ a }')", "'a :- not na. na :- not a.'"),
        ("1 { a ; b } 2 :- c.", "1:1-4", "plain LARS has no choice rules ('{ a }')", "'a :- not na. na :- not a.'"),
        ("a ; b.", "1:3-4", "plain LARS has no disjunction ('a ; b')", "'a :- not na. na :- not a.'"),
        ("a | b :- c.", "1:3-4", "plain LARS has no disjunction ('a | b')", "'a :- not na. na :- not a.'"),
        ("q :- a ; b.", "1:8-9", "';' between body literals", "LARS separates body literals with ','"),
        ("q(C) :- C = #count { X : p(X) }.", "1:13-19", "plain LARS has no aggregates ('#count { ... }')", "rules"),
        ("q :- #sum { X : p(X) } > 2.", "1:6-10", "plain LARS has no aggregates ('#sum { ... }')", "rules"),
        (":- 2 { p(X) }.", "1:6-7", "plain LARS has no aggregates ('{ ... }')", "rules"),
        ("#minimize { 1,X : p(X) }.", "1:1-10", "plain LARS has no optimization statements ('#minimize')", ":-"),
        ("#external e.", "1:1-10", "plain LARS has no '#external' directive", "stream"),
        ("#program base.", "1:1-9", "plain LARS has no '#program' directive", "#const, #show and #include"),
        ("#define n = 1.", "1:1-8", "unknown directive '#define'", "#const, #show and #include"),
        (":~ p(X). [1@1,X]", "1:1-3", "plain LARS has no weak constraints (':~')", ":- body."),
        ("q :- p(X) : r(X).", "1:11-12", "plain LARS has no conditional literals ('a : b')", "'q :- a, b.'"),
    ],
)
def test_clingo_constructs_are_named(text, where, message, note):
    """Once bare syntax errors ("unexpected '{'"); each is named, located and one error only (a weak
    constraint's weight is no second error)."""
    ((location, found, notes),) = _diagnostics(text)
    assert (location, found) == (f"f.lars:{where}", message) and note in notes[0]


def test_locations_span_parentheses_and_signs():
    """A location runs from a construct's first token to its last, parentheses included; a term in
    parentheses keeps its own span."""
    rule = parse_program("p(X) :-\n  q(X) in [3],\n  not r(X), (X+1)*2 > -(X), s at (X).", "f.lars").rules[0]
    window, negated, comparison, at = rule.body
    assert [str(x.location) for x in (rule, window, negated, comparison, at)] == [
        "f.lars:1:1-3:38",
        "f.lars:2:3-14",
        "f.lars:3:3-11",
        "f.lars:3:13-27",
        "f.lars:3:29-37",
    ]
    product, neg = comparison.element.left, comparison.element.right
    assert [str(x.location) for x in (product, product.left, neg, at.element.time)] == [
        "f.lars:3:13-20",
        "f.lars:3:14-17",
        "f.lars:3:23-27",
        "f.lars:3:35-36",
    ]


# ---------------------------------------------------------------- one token language for every reader


def _program_kind(text: str):
    """What the program parser reads ``text`` as, where it stands for an argument: the kind of the
    one token it is (name, number, string, variable), or None."""
    try:
        (lit,) = parse_program(f"q :- p({text}).").rules[0].body
    except ProgramError:
        return None
    if not isinstance(lit.element, ast.ExtendedAtom) or len(lit.element.atom.args) != 1:
        return None  # not one atom (text such as '0)<(0' closes it and compares)
    (arg,) = lit.element.atom.args
    loc = arg.location
    if loc is None or (loc.line, loc.column, loc.end_column) != (1, 8, 8 + len(text)):
        return None  # more than one token, or an operation
    kinds = {ast.Constant: "name", ast.Number: "number", ast.String: "string", ast.Variable: "variable"}
    kind = kinds.get(type(arg))
    if kind == "name" and arg.name != text or kind == "string" and str(arg) != text:
        return None
    return kind


def _atom_kind(text: str):
    """What the readers of stream atoms read ``text`` as, as an argument; all of them agree."""
    from ticker_py.syntax.constant_atoms import split_constants
    from ticker_py.syntax.ground_atoms import AtomReader, GroundSyntaxError

    try:
        atom = parse_ground_atom(f"p({text})")
    except GroundSyntaxError as err:
        with pytest.raises(GroundSyntaxError):
            AtomReader().line(f"p({text})")
        return "variable" if err.column == 2 and f"variable '{text}' in" in err.message else None
    assert AtomReader().line(f"p({text})") == (atom,)
    split = split_constants(f"p({text})")
    assert split is None or split[0] == (atom,)
    if len(atom) != 2 or type(atom[1]) is tuple:
        return None
    value = atom[1]
    if type(value) is int:
        return "number"
    return ("string" if text.startswith('"') else "name") if value == text else None


def _constant_name(text: str) -> bool:
    """True if ``text`` names a constant given outside the program (``-c text=1``)."""
    from ticker_py.errors import UsageError
    from ticker_py.syntax import directives, parse_term

    try:
        directives.const_term(text, 1, parse_term)
    except UsageError:
        return False
    return True


def _token_kind(text: str):
    """The kind of ``text`` by the shared token rules (tokens.py)."""
    import re

    from ticker_py.syntax import tokens

    if tokens.is_name(text):
        return "name"
    for kind, pattern in (("number", tokens.INT), ("string", tokens.STRING), ("variable", tokens.VARIABLE)):
        if re.fullmatch(pattern, text):
            return kind
    return "variable" if re.fullmatch(tokens.ANONYMOUS, text) else None


TOKEN_TEXTS = st.one_of(
    # no white space (no part of any token) and no '-' (a sign: test_negative_numbers_are_...)
    st.text(alphabet="abnotiwyszAZ_'019\"\\(),.%:/*<>", max_size=8),
    st.sampled_from(["not", "in", "at", "always", "sec", "min", "h", "_", "_X", "__a", "x'", "a_B", "007"]),
    st.sampled_from(['"a b"', '""', '"\\n"', '"\\""', '"\\\\"', '"\\t"', '"a\\"', '"', '"%"', '"/*"']),
)


@settings(max_examples=scaled(3000, 300), deadline=None)
@given(TOKEN_TEXTS)
def test_every_reader_takes_the_same_tokens(text):
    """Names, numbers, strings and variables: the program parser, every reader of stream atoms (and
    its accelerator) and the reader of -c constant names accept exactly the tokens of tokens.py."""
    kind = _token_kind(text)
    assert _program_kind(text) == kind
    assert _atom_kind(text) == kind
    assert _constant_name(text) == (kind == "name")


@pytest.mark.parametrize("text", ["-7", "-0", "-" + "9" * 30])
def test_negative_numbers_are_numbers_for_every_reader(text):
    assert _program_kind(text) == _atom_kind(text) == "number"


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


# ---------------------------------------------------------------- the analysis' one-pass term scan

IRI_PROGRAM = (
    "@prefix ex: <http://ex.org/> .\nv(1..3). p(ex:a, X) :- q(X, <http://ex.org/b>).\n"
    "r(X, 1..2) :- q(X, Y). s(f(ex:c)) :- t. u(X) :- q(X, Y), Y = 1..4.\n"
)


@pytest.mark.parametrize("text", [IRI_PROGRAM, "p(X) :- q(X). r(1..2). s(X, 1..2) :- q(X)."])
def test_analysis_scan_equals_the_full_walks(text):
    from ticker_py.analysis import analyse
    from ticker_py.analysis.terms import has_subterm, rule_terms, without_iris

    program = parse_program(text)
    analysis = analyse(program)
    plain = analysis.program
    assert plain == program.replace(rules=tuple(without_iris(r) for r in program.rules))
    assert not any(has_subterm(rule_terms(r), ast.Iri) for r in plain.rules)
    intervals = tuple(r for r in plain.proper_rules if has_subterm(rule_terms(r), ast.Interval))
    assert analysis.interval_rules == intervals and intervals
    if "<" not in text:
        assert plain is program


@pytest.mark.slow
@settings(max_examples=scaled(500, 15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strategies.programs())
def test_variables_by_stack_walk(program):
    from ticker_py.analysis.terms import rule_terms

    def walk(term):  # the recursive definition
        if isinstance(term, ast.Variable):
            return {term.name}
        children = getattr(term, "args", ()) or ()
        children += tuple(getattr(term, a) for a in ("left", "right", "low", "high") if hasattr(term, a))
        return set().union(*map(walk, children)) if children else set()

    for rule in program.rules:
        expected = set().union(set(), *map(walk, rule_terms(rule)))
        assert ast.rule_variables(rule) == expected
