"""ticker compare / enumerate: agreement, a broken engine caught, tuple order, consequences."""

from __future__ import annotations

import json

import pytest

from ticker_py import compare
from ticker_py.api import load_program
from ticker_py.cli import main
from ticker_py.cli.compare import EXIT_DIFFER
from ticker_py.engines import create_engine
from ticker_py.errors import Diagnostic, EngineUnsupported
from ticker_py.stages.consequences import consequences
from ticker_py.streams import Model, Result

CHOICE = "a :- not b. b :- not a. c :- a. c :- b.\n"


def ticker(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def files(tmp_path):
    def make(name, text):
        p = tmp_path / name
        p.write_text(text)
        return p

    return make


class DropAtom:
    """A broken engine stand-in: the clingo engine, but it loses ``atom`` at time ``at``."""

    def __init__(self, analysis, options, atom=("q", "c"), at=3):
        self.inner = create_engine("clingo", analysis, options)
        self.atom, self.at = atom, at

    def append(self, t, atoms):
        self.inner.append(t, atoms)

    def evaluate(self, t):
        res = self.inner.evaluate(t)
        if t != self.at:
            return res
        models = tuple(Model(m.atoms - {self.atom}, m.pinned) for m in res.models)
        return Result(res.t, res.c, models)


def clingo_factory(analysis, options):
    return create_engine("clingo", analysis, options)


def refuses(analysis, options):
    raise EngineUnsupported(Diagnostic("the stand-in refuses every program"))


PROG = "q(X) :- p(X) in [2].\n"
STREAM = "0: p(a)\n1: p(b)\n3: p(c)\n5: p(d)\n"


def test_engines_agree_exit_0(capsys, files):
    code, out, err = ticker(
        capsys, "compare", files("p.lars", PROG), "--stream", files("s.stream", STREAM), "--engines", "clingo,native"
    )
    assert code == 0, err
    assert "agree on all 6 ticks" in out


def test_answer_streams_compared_as_sets(capsys, files, monkeypatch):
    class Reversed(DropAtom):  # the same answer streams, enumerated in the opposite order
        def evaluate(self, t):
            res = self.inner.evaluate(t)
            return Result(res.t, res.c, tuple(reversed(res.models)))

    monkeypatch.setattr(compare, "default_factory", lambda name: Reversed if name == "incremental" else clingo_factory)
    code, out, err = ticker(
        capsys,
        "compare",
        files("p.lars", CHOICE),
        "--stream",
        files("s.stream", "0:\n2:\n"),
        "--engines",
        "clingo,incremental",
        "--models",
        "0",
    )
    assert code == 0, err


def test_broken_engine_reported_with_time_and_atom(capsys, files, monkeypatch):
    real = compare.default_factory
    monkeypatch.setattr(compare, "default_factory", lambda name: DropAtom if name == "native" else real(name))
    code, out, err = ticker(
        capsys, "compare", files("p.lars", PROG), "--stream", files("s.stream", STREAM), "--engines", "clingo,native"
    )
    assert code == EXIT_DIFFER, err
    assert "t=3 c=3: engines differ" in out
    assert "native is missing (vs clingo): q(c)" in out
    assert "1 of 6 ticks differ (first at t=3 c=3)" in out


def test_compare_engines_api_and_unavailable_engine():
    a = load_program(PROG)
    stream = [(0, ["p(a)"]), (3, ["p(c)"])]
    cmp = compare.compare_engines(a, stream, {"clingo": clingo_factory, "broken": DropAtom, "refuses": refuses})
    assert cmp.engines == ["clingo", "broken"]
    assert "refuses" in cmp.unavailable
    assert [(t.t, t.c) for t in cmp.differing] == [(3, 2)]
    tick = cmp.differing[0]
    assert tick.models["clingo"] - tick.models["broken"]
    assert "broken is missing (vs clingo): q(c)" in compare.format_tick(tick, "clingo")


def test_an_engine_that_cannot_read_the_program_is_listed_with_its_located_reason(capsys, files, tmp_path):
    """Not only 'the native engine cannot run this program': where in the program, in the text,
    the JSON and the picture; the others are compared."""
    prog = files("p.lars", "q(X) :- p(X) in [2].\n" + CHOICE)
    stream = files("s.stream", "0: p(a)\n1:\n")
    why = f"the native engine cannot run this program: {prog}:2:10-11: 'a' depends negatively on 'b' through"
    code, out, err = ticker(capsys, "compare", prog, "--stream", stream, "--engines", "clingo,native,incremental")
    assert code == 0, err
    assert out.startswith(f"native: not applicable: {why}") and "(and 1 more)" in out.splitlines()[0]
    assert "clingo, incremental: agree on all 2 ticks" in out
    code, out, _ = ticker(capsys, "compare", prog, "--stream", stream, "--engines", "clingo,native", "--format", "json")
    assert json.loads(out.splitlines()[-1])["summary"]["unavailable"]["native"].startswith(why)
    picture = tmp_path / "cmp.svg"
    assert ticker(capsys, "compare", prog, "--stream", stream, "--engines", "clingo,native", "--plot", picture)[0] == 0
    text = " ".join(picture.read_text().split())  # the key's line is wrapped: its words
    assert "not applicable — the native engine cannot run this program:" in text and f"{prog}:2:10-11:" in text


def test_extra_answer_stream_is_named():
    class ExtraModel(DropAtom):
        def evaluate(self, t):
            res = self.inner.evaluate(t)
            return Result(res.t, res.c, res.models + (Model(frozenset({("z",)})),))

    cmp = compare.compare_engines(
        load_program(CHOICE), [(0, [])], {"clingo": clingo_factory, "x": ExtraModel}, models=0
    )
    text = compare.format_comparison(cmp)
    assert "x has extra answer stream (vs clingo): {z}" in text


def test_tuple_order_reverse_changes_tuple_window(capsys, files):
    prog = files("t.lars", "q(X) :- p(X) [1 #].\n")
    stream = files("s.stream", "0: p(a), p(b)\n")
    results = {}
    for order in ("arrival", "reverse"):
        out_file = files(f"{order}.jsonl", "")
        code, out, err = ticker(
            capsys, "enumerate", prog, "--stream", stream, "--out", out_file, "--tuple-order", order
        )
        assert code == 0, err
        results[order] = [json.loads(line)["atoms"] for line in out_file.read_text().splitlines()]
    assert results == {"arrival": [["q(b)"]], "reverse": [["q(a)"]]}
    a = load_program("q(X) :- p(X) [1 #].")
    rev = compare.compare_engines(a, [(0, ["p(a)", "p(b)"])], {"clingo": clingo_factory}, tuple_order="reverse")
    assert rev.ticks[0].models["clingo"] == frozenset({((("q", "a"),), ())})


def test_bad_arguments_exit_2(capsys, files):
    prog, stream = files("p.lars", PROG), files("s.stream", STREAM)
    for extra in (
        ["--engines", "clingo,nope"],
        ["--tuple-order", "sideways"],
        ["--every", "never"],
        ["--consequences", "timid"],
        ["--models", "-1"],
    ):
        code, out, err = ticker(capsys, "compare", prog, "--stream", stream, *extra)
        assert code == 2 and "error:" in err, extra


def test_consequences_function():
    a = load_program(CHOICE)
    brave = list(consequences(compare.iter_results(a, [(0, []), (1, [])], models=0), "brave"))
    cautious = list(consequences(compare.iter_results(a, [(0, [])], models=0), "cautious"))
    assert [(c.t, c.answer_streams, c.atoms) for c in brave] == [(0, 2, ["a", "b", "c"]), (1, 2, ["a", "b", "c"])]
    assert [(c.answer_streams, c.atoms) for c in cautious] == [(2, ["c"])]
    none = list(consequences(compare.iter_results(load_program("a :- not a."), [(0, [])], models=0), "cautious"))
    assert [(c.answer_streams, c.atoms) for c in none] == [(0, None)]


def test_enumerate_streams_answer_streams_to_file(capsys, files):
    prog = files("c.lars", CHOICE)
    stream = files("s.stream", "0:\n1:\n")
    out_file = files("all.jsonl", "")
    code, out, err = ticker(
        capsys, "enumerate", prog, "--stream", stream, "--out", out_file, "--consequences", "cautious"
    )
    assert code == 0, err
    per_tick = [json.loads(line) for line in out.splitlines()]
    assert per_tick == [
        {"t": 0, "c": 0, "answer_streams": 2, "cautious": ["c"]},
        {"t": 1, "c": 0, "answer_streams": 2, "cautious": ["c"]},
    ]
    lines = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert {(x["t"], tuple(x["atoms"])) for x in lines} == {
        (0, ("a", "c")),
        (0, ("b", "c")),
        (1, ("a", "c")),
        (1, ("b", "c")),
    }
    assert sorted(x["model"] for x in lines) == [0, 0, 1, 1]
    code, out, err = ticker(
        capsys, "compare", prog, "--stream", stream, "--engines", "clingo", "--consequences", "brave"
    )
    assert code == 0 and json.loads(out.splitlines()[0])["brave"] == ["a", "b", "c"]


def test_enumerate_no_answer_stream_line(capsys, files):
    out_file = files("none.jsonl", "")
    code, out, err = ticker(
        capsys, "enumerate", files("n.lars", "a :- not a.\n"), "--stream", files("s.stream", "0:\n"), "--out", out_file
    )
    assert code == 0, err
    assert json.loads(out_file.read_text()) == {"t": 0, "c": 0, "model": None, "atoms": None}
    assert json.loads(out) == {"t": 0, "c": 0, "answer_streams": 0}


def test_docstring_examples():
    import doctest

    failed, attempted = doctest.testmod(compare, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert attempted > 0 and failed == 0


def test_crashing_engine_is_a_difference_not_a_crash():
    class Crashes(DropAtom):
        def evaluate(self, t):
            if t == 1:
                raise RuntimeError("boom")
            return self.inner.evaluate(t)

    cmp = compare.compare_engines(
        load_program(PROG), [(0, ["p(a)"]), (2, [])], {"clingo": clingo_factory, "crashes": Crashes}
    )
    assert [t.t for t in cmp.differing][:1] == [1]
    assert "crashes raised RuntimeError: boom" in compare.format_comparison(cmp)
