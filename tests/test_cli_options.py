"""Command-line options: none silently drops a value, errors are one line, signals and terminals.

The walk over every command's parser gives each option twice: a repeatable option keeps both
values in order, any other is a usage error (argparse alone keeps the last one without a word).
"""

from __future__ import annotations

import argparse
import json
import os
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ticker

from ticker_py.cli import build_parser
from ticker_py.errors import UsageError

ROOT = Path(__file__).resolve().parent.parent

#: the options that may be given several times, their values merged in order (docs/cli.md)
REPEATABLE = {"--background", "--background-rdf", "--const"}


def _value(action, k: int = 0) -> str:
    """A value the option takes (the k-th of two different ones)."""
    if action.type is int:
        return str(k + 1)
    if action.type is float:
        return str(k + 1.5)
    if action.choices:
        return list(action.choices)[k % len(action.choices)]
    return ["first", "second"][k]


def _commands():
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return parser, sub.choices


def _required(p: argparse.ArgumentParser, leave_out) -> list:
    """The smallest command line ``p`` accepts: its positionals and required options."""
    argv = []
    for action in p._actions:
        if action is leave_out:
            continue
        if not action.option_strings and action.nargs != "?":
            argv.append(_value(action))
        elif action.option_strings and action.required:
            argv += [action.option_strings[-1], _value(action)]
    return argv


def _options():
    parser, commands = _commands()
    for action in parser._actions:
        if action.option_strings and not isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
            yield (), action
    for name, p in commands.items():
        for action in p._actions:
            if action.option_strings and not isinstance(action, argparse._HelpAction):
                yield (name, p), action


def test_no_option_silently_keeps_only_its_last_value():
    parser, _ = _commands()
    checked = 0
    for command, action in _options():
        option = action.option_strings[-1]
        twice = [option, _value(action, 0), option, _value(action, 1)] if action.nargs != 0 else [option, option]
        if command:
            name, p = command
            argv = [name, *_required(p, action), *twice]
        else:
            argv = [*twice, "check", "p.lars"]
        checked += 1
        if option in REPEATABLE:
            args = parser.parse_args(argv)
            assert getattr(args, action.dest) == [_value(action, 0), _value(action, 1)], argv
        else:
            with pytest.raises(UsageError, match=f"argument {option}: given twice"):
                parser.parse_args(argv)
    assert checked > 100  # every option of every command


def test_a_repeated_option_is_one_line_and_status_2(capsys):
    code, out, err = ticker(capsys, "run", "p.lars", "--stream", "a.stream", "--stream", "b.stream")
    assert code == 2 and out == ""
    assert err == (
        "ticker run: error: argument --stream: given twice ('a.stream', then 'b.stream'); it takes one value\n"
    )


def test_background_files_merge_in_order(capsys, tmp_path):
    prog, stream = tmp_path / "m.lars", tmp_path / "s.stream"
    prog.write_text("q(X) :- a(X), p.\n")
    stream.write_text("0: p\n")
    (tmp_path / "bg1.lars").write_text("a(1).\n")
    (tmp_path / "bg2.lars").write_text("a(2).\n")
    code, out, err = ticker(
        capsys,
        "run",
        prog,
        "--stream",
        stream,
        "--background",
        tmp_path / "bg1.lars",
        "--background",
        tmp_path / "bg2.lars",
    )
    assert code == 0, err
    assert json.loads(out)["models"] == [["q(1)", "q(2)"]]


def test_background_rdf_files_merge_in_order(capsys, tmp_path):
    prog, stream = tmp_path / "m.lars", tmp_path / "s.stream"
    prog.write_text("@prefix ex: <http://ex.org/> .\nq(X) :- triple(X, ex:p, ex:o), p.\n")
    stream.write_text("0: p\n")
    for k in (1, 2):
        (tmp_path / f"bg{k}.nt").write_text(f"<http://ex.org/s{k}> <http://ex.org/p> <http://ex.org/o> .\n")
    code, out, err = ticker(
        capsys, "run", prog, "--stream", stream, "--background-rdf", tmp_path / "bg1.nt",
        "--background-rdf", tmp_path / "bg2.nt", "--format", "text",
    )  # fmt: skip
    assert code == 0, err
    assert out == 't=0 c=1: {q(iri("http://ex.org/s1")), q(iri("http://ex.org/s2"))}\n'


@pytest.mark.parametrize(
    "argv,line",
    [
        (["run", "p.lars", "--until", "abc"], "ticker run: error: argument --until: invalid int value: 'abc'"),
        (["explain", "p.lars", "a"], "ticker explain: error: the following arguments are required: --at"),
        (["run", "p.lars", "--nope"], "ticker: error: unrecognized arguments: --nope"),
    ],
)
def test_a_bad_command_line_is_one_line(capsys, argv, line):
    code, out, err = ticker(capsys, *argv)
    assert (code, out, err) == (2, "", line + "\n")


def test_global_options_after_the_command(capsys, tmp_path):
    prog, stream = tmp_path / "p.lars", tmp_path / "s.stream"
    prog.write_text("q :- p.\n")
    stream.write_text("0: p\n")
    for argv in (["-v", "run", prog, "--stream", stream], ["run", "-v", prog, "--stream", stream]):
        code, out, err = ticker(capsys, *argv)
        assert code == 0 and json.loads(out)["models"] == [["q"]], err
    assert build_parser().parse_args(["run", "p.lars", "-v"]).verbose is True
    assert build_parser().parse_args(["run", "p.lars"]).verbose is False


def _start(tmp_path, *argv, **kwargs):
    prog = tmp_path / "q.lars"
    prog.write_text("q(X) :- p(X).\n")
    return subprocess.Popen(
        [sys.executable, "-m", "ticker_py.cli", "run", str(prog), "--format", "text", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        **kwargs,
    )


@pytest.mark.parametrize("signum,status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_sigint_and_sigterm_on_stdin_write_the_open_time_point(tmp_path, signum, status):
    proc = _start(tmp_path, stdin=subprocess.PIPE)
    proc.stdin.write("0: p(1)\n1: p(2)\n")
    proc.stdin.flush()
    assert proc.stdout.readline() == "t=0 c=1: {q(1)}\n"  # time point 1 is open, the run waits for more
    proc.send_signal(signum)
    assert proc.wait(timeout=60) == status
    assert proc.stdout.read() == "t=1 c=2: {q(2)}\n" and "Traceback" not in proc.stderr.read()
    proc.stdin.close()


@pytest.mark.parametrize("signum,status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_sigint_and_sigterm_stop_other_commands_alike(tmp_path, signum, status):
    """Not only ``ticker run``: SIGTERM stops a command as Ctrl-C does, output flushed, 128 + signum
    (it killed ``ticker enumerate`` outright, status -15)."""
    prog = tmp_path / "q.lars"
    prog.write_text("q(X) :- p(X).\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "ticker_py.cli", "enumerate", str(prog), "--stream", "-", "--out", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    proc.stdin.write("0: p(1)\n1: p(2)\n")
    proc.stdin.flush()
    assert proc.stdout.readline() == '{"t": 0, "c": 1, "model": 0, "atoms": ["q(1)"]}\n'
    assert proc.stdout.readline() == '{"t": 0, "c": 1, "answer_streams": 1}\n'  # now it waits for more
    proc.send_signal(signum)
    assert proc.wait(timeout=60) == status
    assert proc.stdout.read() == "" and "Traceback" not in proc.stderr.read()
    proc.stdin.close()


def test_a_run_on_a_terminal_says_it_reads_stdin(tmp_path):
    import pty

    master, slave = pty.openpty()
    proc = _start(tmp_path, stdin=slave)
    os.close(slave)
    try:
        said = select.select([proc.stderr], [], [], 30)[0]  # a missing note must not hang the test
        assert said and "reading the stream from standard input" in proc.stderr.readline()
        os.write(master, b"0: p(1)\n\x04")  # a line, then Ctrl-D
        assert proc.wait(timeout=60) == 0
        assert proc.stdout.read() == "t=0 c=1: {q(1)}\n"
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()


@pytest.mark.parametrize(
    "argv",
    [
        ["compare", "--stream", "-"],
        ["explain", "--at", "0", "q(1)"],
        ["enumerate", "--stream", "-", "--out", "{tmp}/all.jsonl"],
        ["plot", "--stream", "-", "--out", "{tmp}/t.svg"],
    ],
)
def test_every_command_reading_a_terminal_says_so(tmp_path, argv):
    import pty

    prog = tmp_path / "q.lars"
    prog.write_text("q(X) :- p(X).\n")
    command, *rest = (a.format(tmp=tmp_path) for a in argv)
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "ticker_py.cli", command, str(prog), *rest],
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    os.close(slave)
    try:
        said = select.select([proc.stderr], [], [], 60)[0]  # a missing note must not hang the test
        assert said and "reading the stream from standard input" in proc.stderr.readline()
        os.write(master, b"0: p(1)\n\x04")
        assert proc.wait(timeout=60) == 0, proc.stderr.read()
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()


def test_a_run_from_a_pipe_says_nothing(tmp_path):
    proc = _start(tmp_path, stdin=subprocess.PIPE)
    out, err = proc.communicate("0: p(1)\n", timeout=60)
    assert (proc.returncode, out, err) == (0, "t=0 c=1: {q(1)}\n", "")


# ---------------------------------------------------------------- the defaults table of docs/cli.md


def _api_functions():
    import ticker_py
    from ticker_py.live import LiveReasoner

    return {
        "load_program": ticker_py.load_program,
        "run": ticker_py.run,
        "Reasoner": ticker_py.Reasoner.__init__,
        "feed": ticker_py.Reasoner.feed,
        "explain_at": ticker_py.explain_at,
        "compare_engines": ticker_py.compare_engines,
        "compare_semantics": ticker_py.compare_semantics,
        "run_sharded": ticker_py.run_sharded,
        "LiveReasoner": LiveReasoner.__init__,
    }


def _defaults_table() -> str:
    """The table of docs/cli.md, "Defaults: the command line and the API", from the run specification:
    each field's option, keyword, default (the same for both) and the public functions taking it."""
    from ticker_py.spec import OPTIONS, default

    functions = _api_functions()
    rows = ["| option | keyword | default | taken by | what it is |", "|---|---|---|---|---|"]
    for name, (_, text, cli) in OPTIONS.items():
        option = "—" if cli.get("api") else f"`--{name.replace('_', '-')}`"
        takers = ", ".join(f"`{f}`" for f, function in functions.items() if name in function.spec_keywords)
        rows.append(f"| {option} | `{name}` | {_shown(default(name))} | {takers or '—'} | {text} |")
    return "\n".join(rows) + "\n"


def _shown(default) -> str:
    """A default as the table shows it."""
    return "none" if default is None else "off" if default is False else f"`{default}`"


def test_the_defaults_table_is_the_run_specification():
    """docs/cli.md's table is generated from the spec (``TICKER_UPDATE_DOCS=1`` rewrites it), and the
    parser of every command and the signature of every API function state the spec's defaults."""
    import inspect

    from ticker_py.spec import PURPOSES, default

    path = ROOT / "docs" / "cli.md"
    text = path.read_text()
    start = text.index("| option | keyword | default | taken by | what it is |")
    end = text.index("\n\n", start) + 1
    table = _defaults_table()
    if os.environ.get("TICKER_UPDATE_DOCS"):
        path.write_text(text[:start] + table + text[end:])
    assert text[start:end] == table, "run TICKER_UPDATE_DOCS=1 python -m pytest tests/test_cli_options.py -k defaults"
    _, commands = _commands()
    checked = 0
    for command, p in commands.items():
        purpose = command if command in PURPOSES else "run"
        for action in p._actions:
            if action.dest in (p.get_default("spec_fields") or ()) and action.option_strings:
                expected = None if isinstance(action, argparse._StoreTrueAction) else default(action.dest, purpose)
                assert (action.default or None) == (expected or None), (command, action.dest)
                checked += 1
    assert checked > 60
    for name, function in _api_functions().items():
        parameters = inspect.signature(function).parameters
        purpose = {"explain_at": "explain", "compare_engines": "compare", "compare_semantics": "compare"}
        for keyword in function.spec_keywords:
            assert parameters[keyword].default == default(keyword, purpose.get(name, "run")), (name, keyword)


# ---------------------------------------------------------------- what commands say about options and engines


def _all_options() -> set:
    parser, commands = _commands()
    return {o for p in (parser, *commands.values()) for a in p._actions for o in a.option_strings}


def test_encode_names_only_options_that_exist(capsys, tmp_path):
    import re

    prog = tmp_path / "p.lars"
    prog.write_text("a :- b in [2].\nb :- not c.\nc :- not b.\n")
    code, out, _ = ticker(capsys, "encode", prog, "--incremental")
    named = set(re.findall(r"--[a-z][a-z-]*", out))
    assert code == 0 and named and named <= _all_options(), named - _all_options()


#: options of other programs that ticker_py's source names: clingo's (passed to clingo.Control)
#: and git's (the benchmark results record the commit)
OTHER_PROGRAMS = {"--heuristic", "--project", "--porcelain", "--short", "--untracked-files"}


def test_every_option_the_source_names_exists():
    """Every ``--name`` in a string or comment of ticker_py (errors, notes, hints, help, encodings'
    comments) is an option of ``ticker`` or of one of its commands: a renamed or removed option
    leaves no hint behind (``ticker encode --incremental`` once named one that was gone)."""
    import ast
    import re

    options = _all_options()
    stale = {}
    for path in sorted((ROOT / "ticker_py").rglob("*")):
        if path.suffix not in (".py", ".lars"):
            continue
        text = path.read_text()
        texts = [text]  # a .lars file: all of it
        if path.suffix == ".py":
            texts = [
                n.value for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            ]
            texts += re.findall(r"#.*", text)
        for named in texts:
            for option in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", named):
                if option not in options | OTHER_PROGRAMS:
                    stale.setdefault(option, set()).add(str(path.relative_to(ROOT)))
    assert not stale, stale
    assert {"--max-gap", "--engine", "--stream"} <= options  # the walk sees the commands' options


def test_check_and_refusals_name_every_engine_that_can_run_the_program(capsys, tmp_path):
    prog = tmp_path / "p.lars"
    prog.write_text("b :- not c.\nc :- not b.\n")
    code, out, _ = ticker(capsys, "check", prog)
    assert "engines: incremental, incremental-pure, clingo\n" in out
    code, out, err = ticker(capsys, "run", prog, "--engine", "native", "--stream", prog)
    assert code == 2 and "note: engines that can: incremental, incremental-pure, clingo" in err
    prog.write_text("b :- c.\n")
    code, out, _ = ticker(capsys, "check", prog)
    assert "engines: native, incremental, incremental-pure, clingo\n" in out


@pytest.mark.parametrize(
    "argv,message",
    [
        (["run", "--models", "-1"], "error: --models must be an integer >= 0, not -1"),
        (["run", "--show", "x"], "error: unknown --show 'x'"),
        (["run", "--factorize", "--semantics", "r4"], "error: --factorize runs the default semantics"),
        (["explain", "--at", "0", "q", "--models", "-1"], "error: --models must be an integer >= 0, not -1"),
        (["explain", "--at", "0", "q", "--every", "x"], "error: unknown --every 'x'"),
        (["explain", "--at", "-1", "q"], "error: --at -1 is negative"),
    ],
)
def test_cli_errors_name_the_cli_options(capsys, tmp_path, argv, message):
    prog = tmp_path / "p.lars"
    prog.write_text("q :- p in [1].\n")
    code, out, err = ticker(capsys, argv[0], prog, "--stream", os.devnull, *argv[1:])
    assert code == 2 and err.startswith(message + "\n"), err


def test_sigterm_stops_a_long_gap_like_sigint(tmp_path):
    import time

    stream, out = tmp_path / "long.stream", tmp_path / "out.jsonl"
    stream.write_text("0: p(1)\n1000000000: p(2)\n")  # a billion empty time points in between
    proc = _start(tmp_path, "--stream", stream, "--max-gap", "0", "--out", out)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (not out.exists() or out.stat().st_size < 200):
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 143
    finally:
        if proc.poll() is None:
            proc.kill()
    times = [int(line.split()[0][2:]) for line in out.read_text().splitlines()]  # t=K c=...
    assert len(times) >= 2 and times == list(range(len(times)))
