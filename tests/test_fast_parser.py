"""The fast program parser (ticker_py/syntax/fast.py) gives exactly what the lark parser gives.

Exactly: the same AST *with* every location (AST equality ignores locations, so ``exact``
compares them field by field). Where it is not sure it gives up (``None``) and parse_program
uses lark, so errors are lark's: malformed inputs are checked to give up, and random edits of
valid programs either give up or agree with lark.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import strategies
from helpers import scaled
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ticker_py.syntax as syntax
from ticker_py import ast
from ticker_py.errors import ProgramError
from ticker_py.limits import MAX_TERM_DEPTH
from ticker_py.node import Node
from ticker_py.syntax import parse_lark, parse_program
from ticker_py.syntax.fast import parse_fast

ROOT = Path(__file__).resolve().parent.parent


def exact(node):
    """Every field of an AST, locations and IRI texts included."""
    if isinstance(node, Node):
        return (type(node).__name__,) + tuple((name, exact(getattr(node, name))) for name in node._fields)
    if isinstance(node, tuple):
        return tuple(exact(x) for x in node)
    return node


def assert_fast(text: str, file: str = "f.lars") -> ast.Program:
    """The fast path reads ``text`` and gives lark's program."""
    fast = parse_fast(text, file)
    assert fast is not None, text
    assert exact(fast) == exact(parse_lark(text, file)), text
    return fast


def assert_agrees(text: str) -> None:
    """The fast path gives up, or reads what lark reads."""
    fast = parse_fast(text, "f.lars")
    if fast is not None:
        assert exact(fast) == exact(parse_lark(text, "f.lars")), text


def lark_error(text: str) -> str:
    with pytest.raises(ProgramError) as info:
        parse_lark(text, "f.lars")
    return str(info.value)


# ---------------------------------------------------------------- shipped and generated programs


@pytest.mark.parametrize("path", sorted((ROOT / "encodings").glob("*.lars")), ids=lambda p: p.name)
def test_golden_programs(path):
    assert_fast(path.read_text(), str(path))


def test_workload_and_behaviour_programs():
    from test_behaviour import CASES

    from ticker_py.workloads import WORKLOADS, program

    texts = [program(name) for name in WORKLOADS] + [case[0] for case in CASES.values()]

    def without_iris(text):
        program = parse_lark(text)
        return not program.prefixes and not any(ast.has_subterm(ast.rule_terms(r), ast.Iri) for r in program.rules)

    fast = [t for t in texts if without_iris(t)]
    assert len(fast) >= len(texts) - 5 and len(fast) > 30
    for text in fast:
        assert_fast(text)


def test_programs_with_iris_give_up():
    owl = (ROOT / "ticker_py" / "rdf" / "owl2rl.lars").read_text()
    for text in (owl, "@prefix ex: <http://ex.org/> .\np(ex:a).", "p(<http://ex.org/a>).", "q :- p(ex:a)."):
        assert parse_fast(text) is None
        assert_agrees(text)


@pytest.mark.slow
@settings(max_examples=scaled(2000, 25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strategies.programs())
def test_random_programs(program):
    assert assert_fast(str(program)) == program


@pytest.mark.slow
@settings(max_examples=scaled(2000, 40), deadline=None)
@given(st.lists(__import__("test_syntax").rules, max_size=4).map(tuple))
def test_random_asts_round_trip(rules):
    program = ast.Program(rules)
    assert assert_fast(str(program)) == program


# ---------------------------------------------------------------- every construct by hand

CONSTRUCTS = [
    "",
    "% only a comment\n",
    "p.",
    'p(1). q(a, "s").',
    "value(0..30).",
    "v(1..N) :- n(N).",
    "p(-3). q(- 4). r(--5). s(-(2)).",
    "p(X) :- q(X), not r(X).",
    ":- p(X), q(X).",
    "high at T :- alpha(V) at T in [20 #], V >= 18.",
    "lfu :- high always [20].",
    "a :- b in [3]. a :- b [3]. a :- b always in [3 sec]. a :- b at T [2 min], c(T).",
    "w :- a in [1 ms], b in [2 sec], c in [3 min], d in [4 h], e in [5 #], f in [0].",
    "p(X) :- q(X,Y), X = Y+1*2-3/4\\5, Y != (X+1)*2, X < Y, X <= Y, X > 1, X >= 0, X == Y.",
    "p(X) :- q(Y), X = -Y. p(X) :- q(Y), X = -(Y+1). p(X) :- q(Y), X = 2 - -Y.",
    'p(f(X, g(Y)), "a\\nb\\\\c\\"d") :- q(f(X, g(Y))).',
    "p(X) :- q(X), a = b. p(X) :- q(X), f(X) != g(1). p(X) :- q(X), c + 1 > 2. p :- q, f(1)..2 = X, r(X).",
    "p(X) :- q(X), not X = 1, not f(X) = f(2).",
    "p(X) :- q(X, _), r(_, _, X) at _ in [3].",
    "p(X) :- q(X, _Anon1, _).",
    "p at T + 1 :- q at T.",
    "p(X) at T :- q(X) at T in [3], T > 1.",
    "note(X) :- inx(X), at1(X), always'(X), not'(X), h(X), sec(X), ms(min).",
    "p(X) :- q(X,Y), X<Y, q(Y,Y) > 3.",
    "a:-b.c:-d,not e.",
    "p(X)  :-\tq(X) ,\r\n  r(X) . % trailing\n// line\n/* block\n over lines */ s.",
    "p :- q. /* a\n\nb */ r(X) :- s(X)\n  , t(X).\n\n\n  u.",
    'p(X) :- q(X), X = "". p("a b, c. d :- e").',
    "p(X) :- q(X), X = 2147483648 * 99999999999999999999.",
    "p(" + "f(" * MAX_TERM_DEPTH + "1" + ")" * MAX_TERM_DEPTH + ").",
    "p(X) :- q(X), X = " + "(" * (MAX_TERM_DEPTH - 1) + "1" + ")" * (MAX_TERM_DEPTH - 1) + ".",
]


@pytest.mark.parametrize("text", CONSTRUCTS)
def test_constructs(text):
    assert_fast(text)


def test_locations_are_lark_locations():
    prog = assert_fast("p(X) :-\n  q(X) in [3],\n  not r(X).")
    lit = prog.rules[0].body[1]
    assert str(lit.location) == "f.lars:3:3-11"
    assert str(prog.rules[0].location) == "f.lars:1:1-3:12"


def test_parse_program_takes_the_fast_path(monkeypatch):
    def no_lark(text, file="<string>"):
        raise AssertionError("lark was used")

    monkeypatch.setattr(syntax, "_lark_unit", no_lark)
    assert str(parse_program("p(X) :- q(X) in [3].")) == "p(X) :- q(X) in [3].\n"
    with pytest.raises(AssertionError):
        parse_program("p(X) :- q(X) in [-3].")


LAZY_LARK = """
import json, sys
from ticker_py.errors import ProgramError
from ticker_py.syntax import parse_program
program = parse_program("p(X) :- q(X) in [3], not r(X). s :- p(1).", "f.lars")
before = sorted(m for m in sys.modules if m.split(".")[0] in ("lark", "regex"))
try:
    parse_program(sys.argv[1], "f.lars")
    error = None
except ProgramError as err:
    error = str(err)
after = "lark" in sys.modules
print(json.dumps([str(program), before, error, after]))
"""


@pytest.mark.parametrize("bad", ["a :- b c.", "p :- q in [3 weeks].", 'p(X) :- q(X), X = "tab\\tx".'])
def test_the_fast_path_imports_no_lark_and_a_rejected_program_gets_larks_error(bad):
    import json
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", LAZY_LARK, bad], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    program, before, error, after = json.loads(proc.stdout)
    assert program == "p(X) :- q(X) in [3], not r(X).\ns :- p(1).\n"
    assert before == []  # neither lark nor its regex module for a program the fast path reads
    assert error == lark_error(bad) and after


# ---------------------------------------------------------------- malformed input: lark decides

MALFORMED = [
    "a :- b c.",
    "a :- .",
    "a(.",
    "a :- b [3 #",
    "a :- b always.",
    ":- .",
    "a :- b %",
    "p",
    "p(). ",
    "not(X) :- q(X).",
    "p :- in [3].",
    "p :- at.",
    "p(at).",
    "p :- q atX.",
    "p :- q, not not r.",
    "p :- q in [-3].",
    "p :- q in [0 #].",
    "p :- q in [3 weeks].",
    "p :- q in [3 in].",
    'p(X) :- q(X), X = "tab\\tx".',
    "p(_).",
    "p :- not q(_).",
    "p :- q(X), _ < X.",
    "p(" + "f(" * (MAX_TERM_DEPTH + 1) + "1" + ")" * (MAX_TERM_DEPTH + 1) + ").",
    "p(X) :- q(X), X = 1" + "+1" * (MAX_TERM_DEPTH + 1) + ".",
    "p(" + "-" * (MAX_TERM_DEPTH + 1) + "1).",
    "p :- q(1..2..3).",
    "p(1)..",
    "p :- q /* open",
    "p :- q. \x0b",
    "p :- q\x0b, r.",
    "p :- q?. % c ",
    "p :- q$r. /* c */ ",
    "p ? :- q.",
    "p :- q. ?",
    "p(x:y).",
    "p(<a>).",
    "p(X) :- q(X), X < <a>.",
    "p(" + "9" * 5000 + ").",
    "p(X) :- q(X), X = " + "(" * 5000 + "1" + ")" * 5000 + ".",
    "p(" + "f(" * 3000 + ").",
    "p :- q in [3 # ].  p :- q in [3 ##].",
    "P :- q.",
    "p :- Q.",
    "_ :- q.",
    "p :- q, .",
]


@pytest.mark.parametrize("text", MALFORMED)
def test_malformed_input_gives_up_with_lark_error(text):
    assert parse_fast(text, "f.lars") is None
    try:
        expected = parse_lark(text, "f.lars")
    except ProgramError as err:
        with pytest.raises(ProgramError) as info:
            parse_program(text, "f.lars")
        assert str(info.value) == str(err)
    else:
        assert exact(parse_program(text, "f.lars")) == exact(expected)


TOKENS = [
    "p",
    "q(X)",
    "X",
    "_",
    "1",
    "-",
    "+",
    "*",
    "/",
    "\\",
    "..",
    ".",
    ",",
    ":-",
    ":",
    "(",
    ")",
    "[",
    "]",
    "#",
    "sec",
    "h",
    "in",
    "at",
    "always",
    "not",
    "=",
    "==",
    "<",
    ">",
    "!=",
    '"s"',
    '"\\',
    "%",
    "//",
    "/*",
    "*/",
    "\n",
    " ",
    "<a>",
    "ex:a",
    "@prefix",
    "T",
    "f(",
    "'",
]


@pytest.mark.slow
@settings(max_examples=scaled(20000, 150), deadline=None)
@given(st.sampled_from(CONSTRUCTS[1:] + MALFORMED), st.data())
def test_random_edits_give_up_or_agree(text, data):
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(text)))
        if data.draw(st.booleans()):
            text = text[:at] + data.draw(st.sampled_from(TOKENS)) + text[at:]
        else:
            text = text[:at] + text[at + data.draw(st.integers(1, 4)) :]
    assert_agrees(text)


def _outcome(parse, text: str):
    try:
        return exact(parse(text, "f.lars"))
    except ProgramError as err:
        return str(err)


@pytest.mark.slow
@settings(max_examples=scaled(20000, 200), deadline=None)
@given(st.lists(st.sampled_from(TOKENS) | st.text(max_size=3), max_size=12).map("".join))
def test_hostile_text_parses_as_the_grammar_parses_it(text):
    """On any text, parse_program (the fast parser first) gives the program or the error of the
    grammar parser alone (parse_lark: the canonical path, ``TICKER_ACCELERATORS=off``)."""
    assert _outcome(parse_program, text) == _outcome(parse_lark, text)


def test_comments_are_never_taken_apart_again():
    """A comment line of many ``%`` before a character no token takes: the fast parser gives up
    at once (matching the comment in every possible way takes 2^n steps; Python 3.10 has no
    possessive quantifier, so the space before a token is matched in a lookahead)."""
    code = "from ticker_py.syntax.fast import parse_fast\nprint(parse_fast('a.\\n% ' + '% ' * 200 + '\\n$', 'f'))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert (proc.returncode, proc.stdout) == (0, "None\n"), proc.stderr


# ---------------------------------------------------------------- the analysis' one-pass term scan

IRI_PROGRAM = (
    "@prefix ex: <http://ex.org/> .\nv(1..3). p(ex:a, X) :- q(X, <http://ex.org/b>).\n"
    "r(X, 1..2) :- q(X, Y). s(f(ex:c)) :- t. u(X) :- q(X, Y), Y = 1..4.\n"
)


@pytest.mark.parametrize("text", [IRI_PROGRAM, "p(X) :- q(X). r(1..2). s(X, 1..2) :- q(X)."])
def test_analysis_scan_equals_the_full_walks(text):
    from ticker_py.analysis import _plain_terms, rule_has_interval

    program = parse_program(text)
    plain, intervals = _plain_terms(program)
    assert exact(plain) == exact(ast._without_iris(program)) and plain == ast.without_iris(program)
    assert intervals == tuple(r for r in plain.proper_rules if rule_has_interval(r)) and intervals
    if "<" not in text:
        assert plain is program


@pytest.mark.slow
@settings(max_examples=scaled(500, 15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strategies.programs())
def test_variables_by_stack_walk(program):
    def walk(term):  # the recursive definition
        if isinstance(term, ast.Variable):
            return {term.name}
        children = getattr(term, "args", ()) or ()
        children += tuple(getattr(term, a) for a in ("left", "right", "low", "high") if hasattr(term, a))
        return set().union(*map(walk, children)) if children else set()

    for rule in program.rules:
        assert ast.rule_variables(rule) == set().union(set(), *map(walk, ast.rule_terms(rule)))
