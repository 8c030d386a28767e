"""The command line: run/check/encode, and every kind of bad input (status 2, located, no traceback)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ticker_py.cli import main

ROOT = Path(__file__).resolve().parent.parent


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


def test_run_jsonl_default(capsys, files):
    prog = files("p.lars", "q(X) :- p(X) in [1].\n")
    stream = files("s.stream", "0: p(a)\n2: p(b), p(c)\n")
    code, out, err = ticker(capsys, "run", prog, "--stream", stream, "--engine", "clingo")
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines == [
        {"t": 0, "c": 1, "models": [["q(a)"]]},
        {"t": 1, "c": 1, "models": [["q(a)"]]},
        {"t": 2, "c": 3, "models": [["q(b)", "q(c)"]]},
    ]


def test_run_text_no_answer_vs_empty(capsys, files):
    prog = files("p.lars", "a :- p, not a.\n")
    stream = files("s.stream", "0: p\n1:\n")
    code, out, _ = ticker(capsys, "run", prog, "--stream", stream, "--format", "text", "--engine", "clingo")
    assert code == 0
    assert out.splitlines() == ["t=0 c=1: no answer stream", "t=1 c=1: {}"]


def test_run_models_all_and_show_at(capsys, files):
    prog = files("p.lars", "b :- not c.\nc :- not b.\na at T :- p at T in [2], c.\n")
    stream = files("s.stream", "0: p\n")
    code, out, _ = ticker(
        capsys, "run", prog, "--stream", stream, "--models", "0", "--show-at", "--until", "1", "--engine", "clingo"
    )
    assert code == 0
    first, second = (json.loads(x) for x in out.splitlines())
    assert first == {"t": 0, "c": 1, "models": [["a", "c"], ["b"]], "at": [[], []]}
    assert second == {"t": 1, "c": 1, "models": [["b"], ["c"]], "at": [[], ["a at 0"]]}


def test_run_changes(capsys, files):
    prog = files("p.lars", "q(X) :- p(X) in [1].\n")
    stream = files("s.stream", "0: p(a)\n1: p(b)\n")
    code, out, _ = ticker(capsys, "run", prog, "--stream", stream, "--changes", "--until", "3")
    assert code == 0
    assert [json.loads(x) for x in out.splitlines()] == [
        {"t": 0, "c": 1, "added": ["q(a)"], "removed": []},
        {"t": 1, "c": 2, "added": ["q(b)"], "removed": []},
        {"t": 2, "c": 2, "added": [], "removed": ["q(a)"]},
        {"t": 3, "c": 2, "added": [], "removed": ["q(b)"]},
    ]


def test_check_reports_fragment(capsys):
    code, out, _ = ticker(capsys, "check", ROOT / "encodings" / "retrieval.lars")
    assert code == 0
    assert "fragment: general" in out and "engines: incremental, incremental-pure, clingo" in out
    assert "not stratified" in out


def test_encode_at(capsys):
    code, out, _ = ticker(capsys, "encode", ROOT / "encodings" / "diamond.lars", "--at", "7")
    assert code == 0
    assert "q(A,B,N) :- _now(N), _d10_p(A,B)." in out and "_now(7)." in out


# --------------------------------------------------------------------------- bad input

BAD_PROGRAMS = {
    "syntax": ("a :- b c.\n", "p.lars:1:8-9: error: syntax error, unexpected 'c'", "expected"),
    "unsafe": ("a(X) :- b.\n", "p.lars:1:3-4: error: unsafe variable 'X'", "positive body atom"),
    "tuple-intensional": (
        "a :- b [2 #].\nb :- c.\n",
        "p.lars:1:6-13: error: tuple window over intensional predicate 'b/0'",
        "extensional",
    ),
    "box-cycle": ("a :- a always [3].\n", "p.lars:1:6-18: error: positive cycle through a box window", "cycle"),
    "tuple-zero": ("a :- b [0 #].\n", "p.lars:1:8-13: error: tuple window of size 0", "n >= 1"),
    "negative-size": ("a :- b [-2].\n", "p.lars:1:8-12: error: negative window size", "n >= 0"),
    "unknown-unit": ("a :- b [3 days].\n", "p.lars:1:11-15: error: unknown window unit 'days'", "sec, ms, min, h"),
    "clock": (
        "a :- b [500 ms].\n",
        "p.lars:1:8-16: error: window [500 ms] is not a whole number of time points",
        "clock",
    ),
}


@pytest.mark.parametrize("kind", sorted(BAD_PROGRAMS))
def test_bad_program(kind, capsys, files, monkeypatch):
    text, first_line, note = BAD_PROGRAMS[kind]
    monkeypatch.chdir(files("p.lars", text).parent)
    code, out, err = ticker(capsys, "check", "p.lars")
    assert code == 2
    assert err.splitlines()[0].startswith(first_line)
    assert note in err and "^" in err
    assert "Traceback" not in err and out == ""


BAD_STREAMS = {
    # text, where, what, the time points evaluated before the refused record
    "intensional": ("0: p\n1: q\n", "s.stream:2", "intensional predicate 'q/0'", [0]),
    "non-ground": ("0: p\n1: p, r(X)\n", "s.stream:2", "variable 'X'", [0]),
    "time-back": ("0: p\n3: p\n2: p\n", "s.stream:3", "time", [0, 1, 2, 3]),
    "unparsable": ("0: p\n1: p((\n", "s.stream:2", "expected", [0]),
    "negative-time": ("-1: p\n", "s.stream:1", "time", []),
}


@pytest.mark.parametrize("every", ["time", "signal"])
@pytest.mark.parametrize("kind", sorted(BAD_STREAMS))
def test_bad_stream_keeps_accepted_output(kind, every, capsys, files, monkeypatch):
    text, where, what, evaluated = BAD_STREAMS[kind]
    prog = files("p.lars", "q :- p.\n")
    monkeypatch.chdir(files("s.stream", text).parent)
    code, out, err = ticker(capsys, "run", prog, "--stream", "s.stream", "--engine", "clingo", "--every", every)
    assert code == 2
    assert err.startswith(where) and "error:" in err.splitlines()[0] and what in err
    assert "Traceback" not in err
    # every time point of an accepted record before the bad one was evaluated and written, and
    # nothing else: the refused record's time point only if an accepted record opened it
    assert sorted({json.loads(x)["t"] for x in out.splitlines()}) == evaluated


@pytest.mark.parametrize(
    "argv,what",
    [
        (["run", "{prog}", "--engine", "warp"], "unknown --engine 'warp'"),
        (["run", "{prog}", "--format", "xml"], "unknown --format 'xml'"),
        (["run", "{missing}"], "does not exist"),
        (["run", "{prog}", "--stream", "{missing}"], "does not exist"),
        (["run", "{general}", "--engine", "native"], "the native engine cannot run this program"),
        (["run", "{prog}", "--clock", "fast"], "bad clock"),
    ],
)
def test_bad_arguments(argv, what, capsys, files):
    paths = {
        "prog": files("p.lars", "q :- p.\n"),
        "missing": files("x", "").parent / "missing.lars",
        "general": files("g.lars", "a :- not b.\nb :- not a.\n"),
    }
    stdin = files("in.stream", "0: p\n")
    argv = [a.format(**paths) for a in argv]
    if "--stream" not in argv:
        argv += ["--stream", str(stdin)]
    code, out, err = ticker(capsys, *argv)
    assert code == 2 and what in err and "Traceback" not in err


def test_installed_command_runs_the_shipped_example():
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "ticker_py.cli",
            "run",
            "encodings/caching.lars",
            "--stream",
            "encodings/caching.stream",
            "--format",
            "text",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 120 and lines[0].startswith("t=0 c=1: {") and "lfu" in lines[0]


def test_changes_from_engine_deltas_equal_model_diffs(capsys):
    # the native engine reports deltas only (changes-only mode); clingo's models are diffed
    outs = []
    for engine in ("clingo", "native", "incremental"):
        code, out, err = ticker(
            capsys,
            "run",
            ROOT / "encodings" / "caching.lars",
            "--stream",
            ROOT / "encodings" / "caching.stream",
            "--changes",
            "--show-at",
            "--engine",
            engine,
        )
        assert code == 0, err
        outs.append(out)
    assert len(outs[0].splitlines()) == 120
    assert outs[0] == outs[1] == outs[2]


def test_run_consequences(capsys, files):
    prog = files("p.lars", "a :- not b.\nb :- not a.\nc :- a.\nc :- b.\nd :- not d, p.\n")
    stream = files("s.stream", "0:\n1: p\n")
    code, out, err = ticker(capsys, "run", prog, "--stream", stream, "--consequences", "cautious")
    assert code == 0, err
    assert [json.loads(x) for x in out.splitlines()] == [
        {"t": 0, "c": 0, "answer_streams": 2, "cautious": ["c"]},
        {"t": 1, "c": 1, "answer_streams": 0, "cautious": None},
    ]
    code, out, _ = ticker(capsys, "run", prog, "--stream", stream, "--consequences", "brave", "--until", "0")
    assert json.loads(out) == {"t": 0, "c": 0, "answer_streams": 2, "brave": ["a", "b", "c"]}


def test_one_error_boundary_internal_error_and_interrupt(capsys, files, monkeypatch):
    from ticker_py.cli import check as check_command
    from ticker_py.stages import input as input_stage
    from ticker_py.streams import Record

    prog, stream = files("p.lars", "q :- p.\n"), files("s.stream", "0: p\n")

    def broken(args):
        raise RuntimeError("boom")

    monkeypatch.setattr(check_command, "load", broken)
    code, out, err = ticker(capsys, "check", prog)
    assert code == 1 and "internal error" in err and "RuntimeError: boom" in err

    def interrupted(stream, *formats):  # Ctrl-C after the third record
        for t in range(3):
            yield Record(t, (("p",),))
        raise KeyboardInterrupt

    monkeypatch.setattr(input_stage, "records_from", interrupted)
    code, out, err = ticker(capsys, "run", prog, "--stream", stream, "--engine", "clingo")
    assert code == 130 and "Traceback" not in err
    assert [json.loads(x)["t"] for x in out.splitlines()] == [0, 1]  # what was written stays written


def test_help_shows_choices_and_defaults(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--engine {auto,clingo,incremental,incremental-pure,native}" in text
    assert "--every {time,signal}" in text and "--format {jsonl,text,csv,none,ntriples,nquads}" in text
    assert "(default: auto)" in text and "(default: 1)" in text and "(default: 1s)" in text


@pytest.mark.parametrize(
    "clock,ms", [("1s", 1000), ("2", 2000), ("500ms", 500), ("3 sec", 3000), ("1min", 60_000), ("1h", 3_600_000)]
)
def test_clock_units_are_the_window_units_and_s(clock, ms):
    from ticker_py.api import parse_clock

    assert parse_clock(clock) == ms


def test_background_file_through_the_one_loader(files):
    from ticker_py.api import load_program
    from ticker_py.errors import UsageError

    prog = files("p.lars", "hot(V) :- limit(L), temp(V), V > L.\n")
    analysis = load_program(prog, background=files("bg.lars", "limit(30).\n"), clock="1s")
    assert ("limit", 30) in analysis.background
    with pytest.raises(UsageError, match="background files hold facts only"):
        load_program(prog, background=files("bad.lars", "a :- b.\n"))
    with pytest.raises(UsageError, match="does not exist"):
        load_program(prog, background=prog.parent / "missing.lars")


@pytest.mark.parametrize("engine,noted", [("native", True), ("clingo", True), ("incremental", False)])
def test_inertia_without_effect_is_noted(capsys, files, engine, noted):
    prog = files("p.lars", "q :- p.\n")
    stream = files("s.stream", "0: p\n")
    code, out, err = ticker(capsys, "run", prog, "--stream", stream, "--engine", engine, "--inertia")
    assert code == 0 and json.loads(out) == {"t": 0, "c": 1, "models": [["q"]]}
    assert ("--inertia has no effect with the " + engine in err) is noted
