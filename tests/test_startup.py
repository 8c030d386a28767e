"""Start-up: ``ticker run`` imports only what the command needs.

With the native engine on a small text stream, none of pandas, pyarrow, numpy, clingo,
matplotlib, pyspark or psutil is imported (their import alone costs more than the run), nor
sockets, nor ticker_py's explanations, Spark, benchmarks, RDF streams, sharding,
live input and output (``ticker_py.live``, also its options), factorizing or the other commands'
modules; ctypes (for glibc's heap settings) only once the stream has a second record. ``--help``
is the same whether the parser holds every command or only the one named.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ticker_py.cli import COMMANDS, build_parser, main

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("pandas", "pyarrow", "numpy", "clingo", "matplotlib", "pyspark", "psutil", "socket", "selectors")
#: ticker_py's own modules a plain run does not need
LAZY = (
    "ticker_py.explain",
    "ticker_py.spark",
    "ticker_py.bench",
    "ticker_py.streams.rdf_writer",
    "ticker_py.streams.rdf",
    "ticker_py.rdf.terms",
    "ticker_py.shard",
    "ticker_py.analysis.sharding",
    "ticker_py.live",
    "ticker_py.streams.factorized",
    "ticker_py.engines.wide",
    "ticker_py.engines.history",
    "ticker_py.engines.clingo",
    "ticker_py.encode",
    "ticker_py.compare",
    "ticker_py.enumeration",
    "ticker_py.plot",
    *(f"ticker_py.cli.{name}" for name in COMMANDS if name != "run"),
)

CODE = """
import json, sys
from ticker_py.cli import main
status = main(sys.argv[1:])
print(json.dumps([status, sorted(sys.modules)]), file=sys.stderr)
"""


def _imports(*args):
    proc = subprocess.run(
        [sys.executable, "-c", CODE, *map(str, args)], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    status, modules = json.loads(proc.stderr.strip().splitlines()[-1])
    return status, proc.stdout, {m.split(".")[0] for m in modules}, set(modules)


@pytest.mark.parametrize("stream,fmt", [("0: p\n1: p, q(1)\n", "jsonl"), ("0: p\n", "none"), ("0: p\n", "text")])
def test_run_with_the_native_engine_imports_nothing_heavy(tmp_path, stream, fmt):
    prog, data = tmp_path / "p.lars", tmp_path / "s.stream"
    prog.write_text("a :- p.\nb(X) :- q(X) in [2].\n")
    data.write_text(stream)
    status, out, modules, full = _imports("run", prog, "--stream", data, "--engine", "native", "--format", fmt)
    assert status == 0 and out
    assert modules.isdisjoint(HEAVY), sorted(modules & set(HEAVY))
    own = sorted(m for m in full if m.startswith(LAZY))
    assert not own, own


@pytest.mark.parametrize("stream", ["0: p(1)\n", "0: p(1)\n1: p(2)\n"])
def test_glibc_heap_settings_wait_for_a_second_record(tmp_path, stream):
    """``steady_heap`` (and with it ctypes) comes with the stream's second record: a one-record run
    leaves glibc's settings alone, a longer one sets them (on Linux, unless the environment sets
    glibc's malloc knobs)."""
    prog, data = tmp_path / "p.lars", tmp_path / "s.stream"
    prog.write_text("q(X) :- p(X) in [2].\n")
    data.write_text(stream)
    status, out, modules, _ = _imports("run", prog, "--stream", data, "--engine", "native")
    assert status == 0 and out.startswith('{"t": 0, "c": 1, "models": [["q(1)"]]}\n')
    second = stream.count("\n") == 2
    own = any(k.startswith("MALLOC_") for k in os.environ) or "glibc.malloc." in os.environ.get("GLIBC_TUNABLES", "")
    assert ("ctypes" in modules) == (second and sys.platform.startswith("linux") and not own)


def test_live_options_are_imported_for_a_live_run_only(tmp_path):
    """``--save-input`` (live input from a file) still runs, through ``ticker_py.live.options``; a bad
    ``--idle-timeout`` is refused without any live option too."""
    prog, data, saved = tmp_path / "p.lars", tmp_path / "s.stream", tmp_path / "saved.stream"
    prog.write_text("q(X) :- p(X) in [2].\n")
    data.write_text("0: p(1)\n2: p(2)\n")
    plain = _imports("run", prog, "--stream", data, "--engine", "native")
    live = _imports("run", prog, "--stream", data, "--engine", "native", "--save-input", saved)
    assert plain[0] == live[0] == 0 and plain[1] == live[1] and plain[1].count("\n") == 3
    assert saved.read_text() == "0: p(1)\n2: p(2)\n"
    assert "ticker_py.live.options" in live[3] and not any(m.startswith("ticker_py.live") for m in plain[3])
    proc = subprocess.run(
        [sys.executable, "-m", "ticker_py.cli", "run", str(prog), "--stream", str(data), "--idle-timeout", "-1"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert (proc.returncode, proc.stdout) == (2, "")
    assert "--idle-timeout must be 0 or more seconds, not -1" in proc.stderr


def test_a_clingo_run_imports_clingo_but_no_table_libraries(tmp_path):
    prog, data = tmp_path / "p.lars", tmp_path / "s.stream"
    prog.write_text("a :- p.\n")
    data.write_text("0: p\n")
    status, out, modules, _ = _imports("run", prog, "--stream", data, "--engine", "clingo")
    assert (status, out) == (0, '{"t": 0, "c": 1, "models": [["a"]]}\n')
    assert "clingo" in modules and modules.isdisjoint({"pandas", "pyarrow", "matplotlib", "pyspark"})


def test_version_imports_no_command_and_no_ast():
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json, sys\nfrom ticker_py.cli import main\ntry:\n"
            "    main(['--version'])\nexcept SystemExit:\n    pass\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('ticker_py'))))",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    version, modules = proc.stdout.splitlines()
    assert version.startswith("ticker_py ")
    assert json.loads(modules) == [
        "ticker_py",
        "ticker_py.cli",
        "ticker_py.cli.common",
        "ticker_py.cli.parser",
        "ticker_py.errors",
    ]


@pytest.mark.parametrize("command", [(), *((name,) for name in COMMANDS), ("bench", "throughput")])
def test_help_is_the_same_with_only_the_named_command(command, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")

    def help_of(parse):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as done:
            parse([*command, "--help"])
        assert done.value.code == 0
        return out.getvalue()

    full = help_of(build_parser().parse_args)
    assert full.startswith("usage: ticker")
    assert help_of(main) == full


def test_help_still_lists_every_command():
    proc = subprocess.run(
        [sys.executable, "-m", "ticker_py.cli", "--help"], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    for command in ("run", "check", "encode", "compare", "enumerate", "gen", "bench"):
        assert f"    {command}" in proc.stdout


def test_a_parquet_run_imports_pyarrow_but_not_pandas(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    prog, data = tmp_path / "p.lars", tmp_path / "s.parquet"
    prog.write_text("a(X) :- p(X).\n")
    pq.write_table(pa.table({"t": pa.array([0, 0, 1], pa.int32()), "atom": ["p(1)", "p(-2)", 'p("x")']}), data)
    status, out, modules, _ = _imports("run", prog, "--stream", data, "--engine", "native")
    assert (status, out) == (
        0,
        '{"t": 0, "c": 2, "models": [["a(-2)", "a(1)"]]}\n{"t": 1, "c": 3, "models": [["a(\\"x\\")"]]}\n',
    )
    assert "pyarrow" in modules and "pandas" not in modules


def test_the_ticker_process_leaves_its_garbage_to_the_exit(tmp_path):
    """``main()`` as the ``ticker`` process freezes what the command left behind (the engine's
    cycles), so that the interpreter does not collect it at exit; a caller's ``main(argv)`` does not."""
    prog, data = tmp_path / "p.lars", tmp_path / "s.stream"
    prog.write_text("q(A,C) :- p(A,B) in [3], p(B,C) in [3].\n")
    data.write_text("".join(f"{t}: p(c{t},c{t + 1}), p(c{t + 1},c{t + 2})\n" for t in range(20)))
    code = (
        "import gc, sys\nfrom ticker_py.cli import main\nargs = {args}\nsys.argv[1:] = args\n"
        "status = main({call})\nprint(status, gc.collect(), file=sys.stderr)\n"
    )
    argv = ["run", str(prog), "--stream", str(data), "--engine", "native", "--format", "none"]
    found = {}
    for call in ("", "args"):
        proc = subprocess.run(
            [sys.executable, "-c", code.format(args=argv, call=call)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=60,
        )
        status, garbage = map(int, proc.stderr.split()[-2:])
        found[call] = (status, garbage)
    assert found[""] == (0, 0)
    assert found["args"][0] == 0 and found["args"][1] > 0


def test_a_stream_of_constant_atoms_compiles_none_of_the_atom_parsers_expressions(tmp_path):
    """The ground-atom reader's regular expressions are compiled when first used: a run on lines of
    constant atoms (split by the accelerator's bytes methods) compiles none of them; a nested term
    compiles them."""
    prog, data = tmp_path / "p.lars", tmp_path / "s.stream"
    prog.write_text("q(A,B) :- p(A,B) in [2].\n")
    code = (
        "import sys\nfrom ticker_py.cli import main\nfrom ticker_py.syntax import ground_atoms as g\n"
        f"status = main(['run', {str(prog)!r}, '--stream', {str(data)!r}, '--engine', 'native'])\n"
        "print(status, g._re.cache_info().currsize, file=sys.stderr)\n"
    )
    compiled = []
    for stream in ("0: p(a,b), p(c,d)\n1: p(e,f), p(g,h)\n", "0: p(a,f(b))\n"):
        data.write_text(stream)
        env = {**os.environ, "TICKER_ACCELERATORS": "on"}
        proc = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60, env=env
        )
        status, used = map(int, proc.stderr.split()[-2:])
        assert status == 0
        compiled.append(used)
    assert compiled[0] == 0 and compiled[1] > 0
