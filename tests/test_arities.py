"""Predicates by name and arity (p/1 and p/2 are two predicates, as in clingo) and the warnings
clingo users expect: a body predicate nothing gives (with a "did you mean"), a stream atom of a
known name with an arity the program does not use."""

from __future__ import annotations

import re
import warnings

import pytest
from helpers import ticker

from ticker_py import Reasoner, load_program, run
from ticker_py.engines import ENGINE_NAMES
from ticker_py.errors import StreamError, TickerWarning

MIXED = """#show alarm/1. #show alarm/2. #show p/1.
alarm(S) :- temp(S,V) in [3], V > 90.
alarm(S,high) :- alarm(S), temp(S).
temp(S) :- temp(S,_).
p(X) :- p(X,Y), not p(Y,X).
"""
MIXED_STREAM = "0: temp(s1,95), p(1,2), p(2,1), p(3,4)\n1: temp(s1,20)\n"


def _answers(results) -> list:
    return [(r.t, [m.sorted_atoms() + m.sorted_pinned() for m in r.models]) for r in results]


@pytest.mark.parametrize("engine", ENGINE_NAMES)
def test_one_name_with_several_arities_runs_on_every_engine(engine, capsys, tmp_path):
    prog, stream = tmp_path / "m.lars", tmp_path / "m.stream"
    prog.write_text(MIXED)
    stream.write_text(MIXED_STREAM)
    code, out, err = ticker(capsys, "run", prog, "--stream", stream, "--engine", engine, "--format", "text")
    assert (code, err) == (0, "")
    assert out == "t=0 c=4: {alarm(s1), alarm(s1,high), p(3)}\nt=1 c=5: {alarm(s1), alarm(s1,high)}\n"


def test_roles_are_per_name_and_arity(capsys, tmp_path):
    prog = tmp_path / "m.lars"
    prog.write_text(MIXED)
    code, out, _ = ticker(capsys, "check", prog)
    assert code == 0
    assert "intensional: alarm/1, alarm/2, p/1, temp/1\nextensional: p/2, temp/2\n" in out
    analysis = load_program(MIXED)
    assert sorted(analysis.renamed.values()) == ["alarm", "alarm", "p", "p", "temp", "temp"]


def test_an_intensional_arity_in_the_stream_is_refused_the_other_read():
    reasoner = Reasoner(MIXED)
    reasoner.append(0, ["p(1,2)", "temp(s1,95)"])
    with pytest.raises(StreamError, match="intensional predicate 'p/1'"):
        reasoner.append(1, ["p(1)"])


def test_the_api_keeps_the_program_names():
    program = "q(X) :- q(X,Y), Y > 1.\nr(X,X) :- r(X)."
    results = run(program, [(0, ["q(a,2)", "r(b)", "r(c,d,e)"])], show="all")
    assert _answers(results) == [(0, [["q(a)", "q(a,2)", "r(b)", "r(b,b)", "r(c,d,e)"]])]
    (result,) = run(program, [(0, ["q(a,2)", "r(b)"])], engine="clingo", explainable=True)
    assert str(result.explain("r(b,b)")) == (
        "why r(b,b): t=0 c=2, answer stream 1 of 1\n"
        "  r(b,b) at 0  <-  r(X,X) :- r(X).  [X=b]  (<string>:2)\n"
        "    r(b) arrived at t=0"
    )
    assert "q(a,2) arrived at t=0" in str(result.explain("q(a)"))


def test_a_stream_atom_of_an_arity_the_program_does_not_use_is_one_warning(capsys, tmp_path):
    prog, stream = tmp_path / "p.lars", tmp_path / "s.stream"
    prog.write_text("q(X) :- p(X).\n")
    stream.write_text("0: p(1), p(1,2)\n1: p(2,3)\n2: p(4,5), p\n")
    code, out, err = ticker(capsys, "run", prog, "--stream", stream, "--format", "text")
    assert code == 0 and out.startswith("t=0 c=2: {q(1)}\n")
    assert err == (
        f"{stream}:1:1-2: warning: 'p/2' in the stream, but the program uses p/1\n"
        "  note: no rule reads p/2: a predicate is a name and an arity\n"
        f"{stream}:3:1-2: warning: 'p/0' in the stream, but the program uses p/1\n"
        "  note: no rule reads p/0: a predicate is a name and an arity\n"
    )


# ---------------------------------------------------------------- a predicate nothing gives

TYPO = "alarm(S) :- temprature(S,V) in [3], V > 90.\n"


def test_the_typo_is_a_located_warning_with_a_suggestion(capsys, tmp_path):
    prog, stream = tmp_path / "t.lars", tmp_path / "t.stream"
    prog.write_text(TYPO)
    stream.write_text("0: temperature(s1,95)\n")
    code, out, err = ticker(capsys, "run", prog, "--stream", stream, "--format", "text")
    assert (code, out) == (0, "t=0 c=1: {}\n")
    assert err == (
        f"{prog}:1:13-28: warning: 'temprature/2' is in no rule head, no fact and no stream atom:"
        " 'temprature(S,V)' never holds\n"
        "  note: did you mean 'temperature/2'?\n"
    )
    for switch in (("-W", "none"), ("--warn", "none")):
        code, out, err = ticker(capsys, "run", prog, "--stream", stream, "--format", "text", *switch)
        assert (code, out, err) == (0, "t=0 c=1: {}\n", "")
    code, _, err = ticker(capsys, "run", prog, "--stream", stream, "-W", "some")
    assert code == 2 and "-W/--warn" in err


def test_the_api_warns_through_python_warnings():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run(TYPO, [(0, ["temperature(s1,95)"])])
    (warning,) = [w.message for w in caught if isinstance(w.message, TickerWarning)]
    assert warning.diagnostic.kind == "warning" and warning.diagnostic.location.line == 1
    assert warning.diagnostic.notes == ("did you mean 'temperature/2'?",)


def test_no_warning_for_what_a_head_a_fact_or_the_stream_gives():
    program = "a(X) :- b(X), c(X), d(X) in [2].\nb(1).\nc(X) :- e(X).\nf :- g.\n"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run(program, [(0, ["d(1)"]), (1, ["e(1)", "g"])])
        assert not [w for w in caught if isinstance(w.message, TickerWarning)]
        run(program, [])  # an empty stream says nothing about names
        assert not [w for w in caught if isinstance(w.message, TickerWarning)]
        run(program, [(0, ["d(1)"])])
    found = [str(w.message).split(": warning: ")[1].split(" is ")[0] for w in caught]
    assert found == ["'e/1'", "'g/0'"]  # in source order; no close name: no suggestion
    assert all("did you mean" not in str(w.message) for w in caught)


def test_no_warning_from_a_run_cut_short(capsys, tmp_path):
    """--until (and explain --at) stop before the end of the stream: a later atom may give the name."""
    prog, stream = tmp_path / "t.lars", tmp_path / "t.stream"
    prog.write_text("q :- mute in [1].\n")
    stream.write_text("0: x\n1: x\n2: mute\n")
    code, out, err = ticker(capsys, "run", prog, "--stream", stream, "--format", "text", "--until", "1")
    assert (code, err) == (0, "")
    code, out, err = ticker(capsys, "explain", prog, "--stream", stream, "--at", "1", "q", "--why-not")
    assert code == 0 and "warning" not in err
    stream.write_text("0: x\n1: x\n")
    code, out, err = ticker(capsys, "run", prog, "--stream", stream, "--format", "text")
    assert code == 0 and "warning: 'mute/0'" in err


def test_every_checker_of_a_program_knows_its_names_of_several_arities():
    """The checker every input path builds (API, compare, shards' driver, live input) reads the
    internal names back: q/1 derived is refused, p/3 is a warning, p/1 and p/2 pass."""
    from ticker_py.streams import Record, StreamChecker

    checker = StreamChecker.of(load_program("q(X) :- p(X) in [2].\nq(X,Y) :- p(X,Y), p(Y).\n"))
    checker.check(Record(0, (("p", 1), ("p", 1, 2)), "s", 1))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        checker.check(Record(1, (("p", 1, 2, 3),), "s", 2))
    assert ["'p/3' in the stream, but the program uses p/1 and p/2" in str(w.message) for w in caught] == [True]
    with pytest.raises(StreamError, match="intensional predicate 'q/1'"):
        checker.check(Record(2, (("q", 1),), "s", 3))


# ---------------------------------------------------------------- every check per name and arity


def test_the_checks_run_per_name_and_arity_and_speak_the_programs_names():
    """The checks that refuse a program run on a name per arity (no check keyed by name alone
    sees p/1 and p/2 as one predicate), and their messages show the program's names."""
    from ticker_py.errors import ProgramError

    load_program("p(X) :- a(X).\np(X,Y) :- p(X) always [1], a(Y).\na(X,Y) :- a(X) in [1 #], b(Y).")
    program = "p(1).\np(X,Y) :- p(X,Y) always [1], a(Y,X).\nq(X) :- q(X,X) in [2 #], b(X).\nq(X,X) :- b(X)."
    with pytest.raises(ProgramError) as err:
        load_program(program)
    assert [d.message for d in err.value.diagnostics] == [
        "positive cycle through a box window: 'p/2' depends on 'p(X,Y) always [1]'",
        "tuple window over intensional predicate 'q/2'",
    ]
    assert err.value.diagnostics[0].notes[0] == "predicates on the cycle: p/2"
    assert not re.search(r"[pq]'\d", str(err.value))  # no internal name in the notes and excerpts either


def test_messages_after_the_analysis_speak_the_programs_names(capsys, tmp_path):
    """The native engine's refusal and a semantics profile's show rules of the analysed program:
    in the program's names (p, not its internal p'2)."""
    prog = tmp_path / "c.lars"
    prog.write_text("p(X) :- a(X).\np(X,Y) :- p(X), a(Y).\n:- p(X,X), p(3).\nq :- not p(1).\n")
    code, out, _ = ticker(capsys, "check", prog)
    assert code == 0 and "constraint ':- p(X,X), p(3).' needs a solver" in out
    code, _, err = ticker(capsys, "run", prog, "--stream", prog, "--engine", "native")
    assert code == 2 and "constraint ':- p(X,X), p(3).' needs a solver" in err
    code, _, err = ticker(capsys, "check", prog, "--semantics", "r4")
    assert code == 2 and "negation 'not p(1)' is not allowed" in err
    assert not re.search(r"p'\d", out + err)


def test_internal_names_read_back_beside_quotes_and_primed_names():
    from ticker_py.analysis.arities import internal_names, names_out
    from ticker_py.syntax import parse_program

    _, renamed = internal_names(parse_program("p(1). p(1,2). p'1'x. p'2(a) :- p'2'1."))
    assert sorted(renamed) == ["p'1'1", "p'2'2"]  # never a program name, nor one before a prime
    out = names_out(renamed)
    assert out("'p'1'1/1' depends on 'p'2'2(X,Y) in [1]'") == "'p/1' depends on 'p(X,Y) in [1]'"
    assert out("p'1'x :- q'p'1'1, p'2'1, p'1'12.") == "p'1'x :- q'p'1'1, p'2'1, p'1'12."


# ---------------------------------------------------------------- #show and ticker check


def test_a_show_of_a_predicate_nothing_has_is_a_warning(capsys, tmp_path):
    """clingo's "no atoms over signature occur in program": '#show q/2.' over a program of q/1."""
    prog, stream = tmp_path / "s.lars", tmp_path / "s.stream"
    prog.write_text("q(X) :- p(X).\n#show q/2.\n#show r/0.\n")
    stream.write_text("0: p(1)\n")
    code, out, err = ticker(capsys, "run", prog, "--stream", stream, "--format", "text")
    assert (code, out) == (0, "t=0 c=1: {}\n")
    assert err == (
        f"{prog}:2:1-11: warning: no atom of 'q/2' in the program and no stream atom: this #show shows nothing\n"
        "  note: did you mean 'q/1'?\n"
        f"{prog}:3:1-11: warning: no atom of 'r/0' in the program and no stream atom: this #show shows nothing\n"
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run(prog.read_text(), [(0, ["p(1)"])])
    found = [w.message.diagnostic for w in caught if isinstance(w.message, TickerWarning)]
    assert [(d.location.line, d.notes) for d in found] == [(2, ("did you mean 'q/1'?",)), (3, ())]
    # q/2 from the stream: shown, no warning about the #show
    stream.write_text("0: p(1), q(1,2)\n")
    code, out, err = ticker(capsys, "run", prog, "--stream", stream, "--format", "text", "-W", "none")
    assert (code, out, err) == (0, "t=0 c=2: {q(1,2)}\n", "")
    code, out, err = ticker(capsys, "run", prog, "--stream", stream, "--format", "text")
    assert [line for line in err.splitlines() if "#show" in line] == [
        f"{prog}:3:1-11: warning: no atom of 'r/0' in the program and no stream atom: this #show shows nothing"
    ]


def test_check_gives_the_did_you_mean_warnings_that_need_no_stream(capsys, tmp_path):
    """``ticker check`` has no stream: a body predicate (or a #show) in no rule head and no fact is
    warned when a head or a fact has a close name; any other may come from the stream."""
    prog = tmp_path / "c.lars"
    prog.write_text("sensor(1).\nalarm(X) :- sensr(X), reading(X,V), V > 3.\n#show alrm/1.\n#show reading/2.\n")
    code, out, err = ticker(capsys, "check", prog)
    assert code == 0 and out.startswith(f"{prog}: ok\n")
    assert err == (
        f"{prog}:2:13-21: warning: 'sensr/1' is in no rule head and no fact: 'sensr(X)' holds only if the"
        " stream gives it\n"
        "  note: did you mean 'sensor/1'?\n"
        f"{prog}:3:1-14: warning: no atom of 'alrm/1' in the program: this #show shows only what the stream gives\n"
        "  note: did you mean 'alarm/1'?\n"
    )
    code, out, err = ticker(capsys, "check", prog, "-W", "none")
    assert (code, err) == (0, "")
    prog.write_text("alarm(X) :- sensor(X), reading(X,V), V > 3.\n")
    assert ticker(capsys, "check", prog)[::2] == (0, "")


def test_a_large_program_still_gets_its_did_you_mean(capsys, tmp_path):
    # past 500 predicates only names of the same first letter are compared (linear, not quadratic)
    prog = tmp_path / "big.lars"
    facts = "".join(f"f{i}(1).\n" for i in range(600))
    prog.write_text(facts + "sensor(1).\nalarm(X) :- sensr(X).\n")
    code, _, err = ticker(capsys, "check", prog)
    assert code == 0 and "warning: 'sensr/1' is in no rule head and no fact" in err
    assert "did you mean 'sensor/1'?" in err
