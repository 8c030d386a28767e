"""The directives clingo users write: #const (and -c), #include, #show; all errors at once.

The programs of tests/fixtures/clingo are the Ticker paper's scenarios A and B written as a clingo
user writes them (window sizes as ``#const n``, background in an included file, ``#show``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import ticker

from ticker_py import Reasoner, load_program, run
from ticker_py.engines import ENGINE_NAMES
from ticker_py.errors import ProgramError, UsageError
from ticker_py.syntax import parse_program

ROOT = Path(__file__).resolve().parent.parent
CLINGO = ROOT / "tests" / "fixtures" / "clingo"
CACHING = ROOT / "encodings" / "caching.lars"
CACHING_STREAM = ROOT / "encodings" / "caching.stream"
RETRIEVAL_STREAM = "0: req(1,0), cache(1,3), cache(1,8), qlev(3,1), qlev(8,2)\n1: down(4)\n3: req(1,5)\n6: cache(1,5)\n"


def _answers(results) -> list:
    return [(r.t, sorted(tuple(m.sorted_atoms()) for m in r.models)) for r in results]


# ---------------------------------------------------------------- #const and -c


def test_const_is_put_in_windows_comparisons_and_heads():
    program = parse_program("#const n = 3. #const limit = 2*45. hot(n) :- temp(V) in [n], V > limit.")
    assert str(program) == "#const n = 3.\n#const limit = 90.\nhot(3) :- temp(V) in [3], V > 90.\n"
    assert parse_program(str(program)) == program


def test_the_command_line_overrides_the_program_and_defines_new_constants():
    program = parse_program("#const n = 3. p(X, k) :- q(X) in [n].", const={"n": 5, "k": "f(a)"})
    assert str(program.rules[0]) == "p(X,f(a)) :- q(X) in [5]."


def test_later_constants_read_earlier_ones():
    assert str(parse_program("#const n = 4. #const m = n + 1. p :- q in [m].").rules[0]) == "p :- q in [5]."


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("p :- q in [n].", "undefined constant 'n' as a window size"),
        ("#const n = a. p :- q in [n].", "window size 'n' is a, not a number >= 0"),
        ("#const n = 0. p :- q in [n #].", "window size 'n' is 0, not a number >= 1"),
        ("#const n = 1. #const n = 2. p :- q in [n].", "constant 'n' defined again with another value"),
    ],
)
def test_bad_constants_are_located_errors(text, message):
    with pytest.raises(ProgramError) as info:
        parse_program(text, "c.lars")
    (diag,) = info.value.diagnostics
    assert diag.message == message and diag.location.file == "c.lars" and diag.location.line == 1


def test_const_in_the_api(tmp_path):
    stream = [(0, ["temp(95)"]), (2, [])]
    program = "#const n = 1. hot :- temp(V) in [n], V > 90."
    assert _answers(run(program, stream)) == [(0, [("hot",)]), (1, [("hot",)]), (2, [()])]
    assert _answers(run(program, stream, const={"n": 2})) == [(0, [("hot",)]), (1, [("hot",)]), (2, [("hot",)])]
    assert Reasoner(program, const={"n": "0"}).analysis.lookback == 0
    with pytest.raises(UsageError, match="not a term"):
        load_program(program, const={"n": "1 +"})
    with pytest.raises(UsageError, match="not a name"):
        load_program(program, const={"N": 1})
    with pytest.raises(UsageError, match="an int or term text"):
        load_program(program, const={"n": 1.5})


DEPENDENT = "#const m = 2*n.\nq(X) :- b(X), X < m.\nv(m).\n"


@pytest.mark.parametrize("engine", ENGINE_NAMES)
@pytest.mark.parametrize(
    ("program", "const"), [(DEPENDENT + "#const n = 3.\n", None), (DEPENDENT, {"n": 3}), (DEPENDENT, {"n": "3"})]
)
def test_constants_are_evaluated_after_those_they_use(engine, program, const):
    """As clingo: ``m = 2*n`` is 6 whether n is defined after m or with -c (once the other way round,
    ``X < m`` compared with the term 2*n and q(5) silently never held, and ``v(m).`` was refused)."""
    loaded = parse_program(program, const=const)
    assert "q(X) :- b(X), X < 6.\nv(6).\n" in str(loaded)
    got = run(program, [(0, ["b(5)", "b(6)"])], engine=engine, const=const)
    assert _answers(got) == [(0, [("q(5)",)])]


def test_constants_on_the_command_line_are_evaluated_in_order_too(capsys, tmp_path):
    prog, stream = tmp_path / "p.lars", tmp_path / "s.stream"
    prog.write_text(DEPENDENT)
    stream.write_text("0: b(5)\n")
    code, out, err = ticker(capsys, "run", prog, "--stream", stream, "-c", "n=3", "--format", "text")
    assert (code, err) == (0, "") and "q(5)" in out


@pytest.mark.parametrize(
    ("text", "message", "column"),
    [
        ("#const n = n+1. p(n).", "constant 'n' is defined through itself: n -> n", 1),
        ("p(a). #const a = b+1. #const b = f(c). #const c = a.", "'a' is defined through itself: a -> b -> c -> a", 7),
        ("#const b = a. #const a = b. p(a).", "constant 'b' is defined through itself: b -> a -> b", 1),
    ],
)
def test_constants_defined_through_themselves_are_refused_located(text, message, column):
    with pytest.raises(ProgramError) as info:
        parse_program(text, "c.lars")
    (diag,) = info.value.diagnostics
    assert message in diag.message and (diag.location.line, diag.location.column) == (1, column)


def test_a_command_line_constant_in_a_cycle_is_refused_at_the_program_s_definition():
    with pytest.raises(ProgramError) as info:
        parse_program("#const m = n. p(m).", "c.lars", const={"n": "m+1"})
    (diag,) = info.value.diagnostics
    assert diag.message.endswith("m -> n -> m") and str(diag.location) == "c.lars:1:1-14"


def test_numpy_integers_are_constants_as_they_are_times():
    np = pytest.importorskip("numpy")
    program = "#const n = 1. hot :- temp(V) in [n], V > 90."
    assert Reasoner(program, const={"n": np.int64(2)}).analysis.lookback == 2
    assert str(parse_program("p(n).", const={"n": np.uint8(7)})) == "#const n = 7.\np(7).\n"
    for bad in (True, np.bool_(True), np.float64(2.0), 2.0):
        with pytest.raises(UsageError, match="an int or term text"):
            load_program(program, const={"n": bad})


def test_a_keyword_is_no_constant_name():
    with pytest.raises(UsageError, match="is no keyword"):
        load_program("p.", const={"not": 1})


@pytest.mark.parametrize("engine", ENGINE_NAMES)
def test_scenario_a_with_const_n_is_the_shipped_encoding(engine):
    shipped = run(CACHING, CACHING_STREAM, engine=engine, until=60)
    written = run(CLINGO / "caching.lars", CACHING_STREAM, engine=engine, until=60)
    assert _answers(written) == _answers(shipped)
    smaller = parse_program(CACHING.read_text().replace("[20]", "[5]"))
    assert _answers(run(CLINGO / "caching.lars", CACHING_STREAM, engine=engine, until=60, const={"n": 5})) == (
        _answers(run(smaller, CACHING_STREAM, engine=engine, until=60))
    )


@pytest.mark.parametrize("engine", ["clingo", "incremental", "incremental-pure"])
def test_scenario_b_with_const_n_and_show(engine, tmp_path):
    stream = tmp_path / "b.stream"
    stream.write_text(RETRIEVAL_STREAM)
    shipped = ROOT / "encodings" / "retrieval.lars"
    for n in (20, 2):
        plain = parse_program(shipped.read_text().replace("[20]", f"[{n}]"))
        expected = [
            (r.t, sorted({tuple(a for a in m.sorted_atoms() if a.startswith("get(")) for m in r.models}))
            for r in run(plain, stream, engine=engine, models=0)
        ]
        got = _answers(run(CLINGO / "retrieval.lars", stream, engine=engine, models=0, const={"n": n}))
        assert got == expected
        assert any(atoms for _, models in got for atoms in models)  # it shows something


def test_const_on_the_command_line(capsys, tmp_path):
    code, out, err = ticker(
        capsys, "run", CLINGO / "caching.lars", "--stream", CACHING_STREAM, "--until", "3", "--format", "text"
    )
    assert code == 0 and err == ""
    code, out5, _ = ticker(
        capsys, "run", CLINGO / "caching.lars", "--stream", CACHING_STREAM, "--until", "3", "-c", "n=1"
    )
    assert code == 0 and out5.count("lfu") >= 1
    for command in ("check", "encode"):
        code, out, err = ticker(capsys, command, CLINGO / "caching.lars", "--const", "n=7")
        assert (code, err) == (0, "")
    code, out, _ = ticker(capsys, "encode", CLINGO / "caching.lars", "--const", "n=7")
    seven = tmp_path / "seven.lars"
    seven.write_text(CACHING.read_text().replace("[20]", "[7]"))
    assert out == ticker(capsys, "encode", seven)[1]
    assert out != ticker(capsys, "encode", CLINGO / "caching.lars")[1]
    code, _, err = ticker(capsys, "check", CLINGO / "caching.lars", "-c", "n")
    assert code == 2 and "write -c NAME=VALUE" in err


# ---------------------------------------------------------------- #include


def test_include_is_relative_to_the_including_file_and_read_once(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "main.lars").write_text('#include "lib/a.lars".\n#include "lib/b.lars".\nq(X) :- p(X), c(X).\n')
    (tmp_path / "lib" / "a.lars").write_text('#include "b.lars".\nc(1).\n')
    (tmp_path / "lib" / "b.lars").write_text("c(2).\n")
    analysis = load_program(tmp_path / "main.lars")
    assert sorted(analysis.background) == [("c", 1), ("c", 2)]
    results = run(tmp_path / "main.lars", [(0, ["p(1)", "p(2)", "p(3)"])])
    assert _answers(results) == [(0, [("q(1)", "q(2)")])]


def test_include_errors_are_located_in_the_included_file(tmp_path):
    (tmp_path / "main.lars").write_text('#include "bg.lars".\nq(X) :- p(Y).\n')
    (tmp_path / "bg.lars").write_text("c(1).\nr(Z) :- c(1).\n")
    with pytest.raises(ProgramError) as info:
        load_program(tmp_path / "main.lars")
    where = [(Path(d.location.file).name, d.location.line, d.message) for d in info.value.diagnostics]
    assert where == [("main.lars", 2, "unsafe variable 'X'"), ("bg.lars", 2, "unsafe variable 'Z'")]
    assert "r(Z) :- c(1)." in str(info.value)  # the excerpt is the included file's line


def test_include_cycles_and_missing_files_are_refused(tmp_path, capsys):
    (tmp_path / "a.lars").write_text('#include "b.lars".\np.\n')
    (tmp_path / "b.lars").write_text('q.\n#include "a.lars".\n')
    code, _, err = ticker(capsys, "check", tmp_path / "a.lars")
    assert code == 2
    assert "b.lars:2:1-19: error: #include cycle: 'a.lars' is being read already" in err
    assert "a.lars -> b.lars -> a.lars" in err
    (tmp_path / "c.lars").write_text('#include "c.lars".\n')
    with pytest.raises(ProgramError, match="#include cycle"):
        load_program(tmp_path / "c.lars")
    (tmp_path / "d.lars").write_text('p.\n#include "nowhere.lars".\n')
    with pytest.raises(ProgramError) as info:
        load_program(tmp_path / "d.lars")
    (diag,) = info.value.diagnostics
    assert "included file" in diag.message and "nowhere.lars" in diag.message and diag.location.line == 2


def test_a_syntax_error_in_an_included_file_is_located_there(tmp_path):
    (tmp_path / "main.lars").write_text('#include "bad.lars".\n')
    (tmp_path / "bad.lars").write_text("p :- .\n")
    with pytest.raises(ProgramError) as info:
        load_program(tmp_path / "main.lars")
    assert str(info.value).startswith(f"{tmp_path / 'bad.lars'}:1:6")


# ---------------------------------------------------------------- #show

SHOW = """#show alarm/1.
alarm(S) :- temp(S,V) in [2], V > 90.
warm(S) :- temp(S,V), V > 20.
"""
SHOW_STREAM = [(0, ["temp(s1,95)", "temp(s2,30)"]), (1, ["temp(s2,91)"]), (3, [])]


@pytest.mark.parametrize("engine", ENGINE_NAMES)
def test_show_keeps_the_named_predicates_on_every_engine(engine):
    got = _answers(run(SHOW, SHOW_STREAM, engine=engine))
    assert got == [
        (0, [("alarm(s1)",)]),
        (1, [("alarm(s1)", "alarm(s2)")]),
        (2, [("alarm(s1)", "alarm(s2)")]),
        (3, [("alarm(s2)",)]),
    ]
    every = _answers(run(SHOW, SHOW_STREAM, engine=engine, show="all"))
    assert "warm(s1)" in every[0][1][0] and "temp(s1,95)" in every[0][1][0]


def test_show_names_input_and_background_predicates_too():
    program = "#show temp/2. #show site/1. site(a). alarm :- temp(_,V), V > 90."
    assert _answers(run(program, SHOW_STREAM[:1])) == [(0, [("site(a)", "temp(s1,95)", "temp(s2,30)")])]
    assert _answers(run("#show. " + program, SHOW_STREAM[:1])) == _answers(run(program, SHOW_STREAM[:1]))
    assert _answers(run("#show. a :- not b.", [(0, [])])) == [(0, [()])]


def test_show_projects_answer_streams_and_factors():
    program = "#show a/0. a :- not b. b :- not a. c :- not d. d :- not c."
    assert _answers(run(program, [(0, [])], models=0)) == [(0, [(), ("a",)])]
    (result,) = run(program, [(0, [])], factorize=True)
    assert result.factors.count == 2 and sorted(m.sorted_atoms() for m in result.models) == [[], ["a"]]


@pytest.mark.parametrize("fmt", ["text", "jsonl", "csv"])
def test_show_in_every_output_format(capsys, tmp_path, fmt):
    prog, stream = tmp_path / "p.lars", tmp_path / "s.stream"
    prog.write_text(SHOW)
    stream.write_text("0: temp(s1,95), temp(s2,30)\n")
    code, out, err = ticker(capsys, "run", prog, "--stream", stream, "--format", fmt)
    assert code == 0 and "alarm(s1)" in out and "warm" not in out and "temp" not in out
    code, out, err = ticker(capsys, "run", prog, "--stream", stream, "--changes")
    assert code == 0 and "alarm(s1)" in out and "warm" not in out


def test_show_in_rdf_output(capsys, tmp_path):
    prog, stream = tmp_path / "p.lars", tmp_path / "s.stream"
    prog.write_text(
        "@prefix ex: <http://ex.org/> .\n#show out/3.\n"
        "out(S, ex:hot, ex:yes) :- temp(S,V), V > 90.\nout(S, ex:warm, ex:yes) :- temp(S,V), V > 20.\n"
        "other(S) :- temp(S,_).\n"
    )
    stream.write_text('0: temp(iri("http://ex.org/s1"),95)\n')
    args = ("run", prog, "--stream", stream, "--format", "ntriples", "--rdf-output", "out")
    code, out, err = ticker(capsys, *args)
    assert (code, err) == (0, "") and out.count("<http://ex.org/s1>") == 2
    prog.write_text(prog.read_text().replace("#show out/3.", "#show other/1."))
    code, out, err = ticker(capsys, *args)
    assert (code, out, err) == (0, "", "")  # out/3 is not shown: no triple


def test_show_of_terms_is_refused_located():
    with pytest.raises(ProgramError) as info:
        parse_program("p(1).\n#show q(X) : p(X).\n#show f(1).\n", "s.lars")
    messages = [(d.location.line, d.message) for d in info.value.diagnostics]
    assert messages == [
        (2, "#show of terms ('#show t : body.') is not supported"),
        (3, "'#show f(1).' is not supported: #show takes a predicate name/arity"),
    ]


def test_directives_print_back_as_they_parse():
    program = parse_program("#show p/1. #show. #show q/0. #const k = 2. p(k) :- q. q :- r in [k].")
    assert program.shows == (("p", 1), ("q", 0))
    assert parse_program(str(program)) == program


# ---------------------------------------------------------------- all errors at once


def test_every_error_of_a_program_at_once_in_source_order():
    text = "a(X) :- b.\nc(Y) :- d.\ne :- f in [0 #].\ng :- h in [-1].\ni :- j in [3 weeks].\n"
    with pytest.raises(ProgramError) as info:
        load_program(text)
    lines = [(d.location.line, d.message) for d in info.value.diagnostics]
    assert lines == [
        (1, "unsafe variable 'X'"),
        (2, "unsafe variable 'Y'"),
        (3, "tuple window of size 0"),
        (4, "negative window size -1"),
        (5, "unknown window unit 'weeks'"),
    ]


def test_errors_are_capped():
    text = "".join(f"p{i}(X) :- q.\n" for i in range(30))
    with pytest.raises(ProgramError) as info:
        load_program(text)
    diags = info.value.diagnostics
    assert len(diags) == 21 and diags[-1].message == "too many errors: 10 more not shown"
    assert [d.location.line for d in diags[:20]] == list(range(1, 21))


def test_a_syntax_error_hides_no_other_error():
    text = 'a(X) :- b c.\nq(Y) :- r.\np :- .\n@prefix ex: <http://ex.org/> .\ns :- t in [0 #].\nu :- "a.b" = v w.\n'
    with pytest.raises(ProgramError) as info:
        load_program(text)
    lines = [(d.location.line, d.message) for d in info.value.diagnostics]
    assert lines == [
        (1, "syntax error, unexpected 'c'"),
        (2, "unsafe variable 'Y'"),
        (3, "syntax error, unexpected '.'"),
        (5, "tuple window of size 0"),
        (6, "syntax error, unexpected 'w'"),
    ]
    assert "  a(X) :- b c.\n" in str(info.value)  # excerpts of the text as written


def test_profile_errors_are_in_source_order():
    """The r4 profile's checks (negation, @-heads, windows) each found their errors in their own
    order; together they are reported in source order, as every other error of a program."""
    program = (
        "a(X) :- p(X) in [3].\n"
        "t(X) :- p(X) always [3], not a(X).\n"
        "u(X) at T :- p(X) in [3], q(T).\n"
        "w(X) :- p(X) at 2.\n"
    )
    with pytest.raises(ProgramError) as info:
        Reasoner(program, semantics="r4")
    where = [(d.location.line, d.location.column) for d in info.value.diagnostics]
    assert where == [(2, 9), (2, 30), (3, 1), (4, 9)]
