"""The error boundary: every user error at an input or output ends in a located message and
status 2 (a typed TickerError in the library), never a traceback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ticker_py.errors import UsageError

ROOT = Path(__file__).resolve().parents[1]


def ticker(*args, env=None, stdin=None, timeout=120):
    """``python -m ticker_py.cli ARGS`` from this tree: (status, stdout, stderr)."""
    full_env = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    for key in [k for k, v in full_env.items() if v is None]:
        del full_env[key]
    out = subprocess.run(
        [sys.executable, "-m", "ticker_py.cli", *map(str, args)],
        capture_output=True,
        text=True,
        env=full_env,
        input=stdin,
        timeout=timeout,
        cwd=ROOT,
    )
    return out.returncode, out.stdout, out.stderr


def assert_user_error(status, err, *needles):
    assert status == 2, err
    assert "Traceback" not in err and "error: " in err, err
    for needle in needles:
        assert needle in err, err


# ---------------------------------------------------------------- Spark and ticker gen


def test_spark_without_java_is_a_usage_error_with_a_hint(tmp_path):
    status, _, err = ticker(
        "gen", "join", "--out", tmp_path / "g", "--tp", 3, "--spark", env={"JAVA_HOME": None, "PATH": str(tmp_path)}
    )
    assert_user_error(status, err, "no Java runtime found", "Spark needs a Java runtime", "--no-spark")
    status, _, err = ticker(
        "gen", "join", "--out", tmp_path / "g", "--tp", 3, "--spark", env={"JAVA_HOME": str(tmp_path / "nojava")}
    )
    assert_user_error(status, err, "has no bin/java", "Spark needs a Java runtime")
    status, out, err = ticker(
        "gen", "join", "--out", tmp_path / "g", "--tp", 3, "--no-spark", env={"JAVA_HOME": None, "PATH": str(tmp_path)}
    )
    assert status == 0 and (tmp_path / "g" / "stream.parquet").is_dir(), err


def test_java_runtime_is_looked_up_like_spark_does(tmp_path, monkeypatch):
    from ticker_py.spark.session import java_runtime

    java = tmp_path / "jdk" / "bin" / "java"
    java.parent.mkdir(parents=True)
    java.write_text("#!/bin/sh\n")
    java.chmod(0o755)
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "jdk"))
    assert java_runtime() == str(java)
    monkeypatch.delenv("JAVA_HOME")
    monkeypatch.setenv("PATH", str(java.parent))
    assert java_runtime() == str(java)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(UsageError, match="no Java runtime"):
        java_runtime()


@pytest.mark.parametrize("spark", [False, True])
def test_gen_out_onto_a_file_is_refused(tmp_path, spark):
    target = tmp_path / "taken"
    target.write_text("keep me\n")
    status, _, err = ticker("gen", "join", "--out", target, "--tp", 3, "--spark" if spark else "--no-spark")
    assert_user_error(status, err, f"output directory '{target}' exists and is not a directory")
    assert target.read_text() == "keep me\n"


def test_write_stream_refuses_a_file_as_directory(tmp_path):
    from ticker_py.workloads.files import write_stream

    (tmp_path / "f").write_text("")
    with pytest.raises(UsageError, match="is not a directory"):
        write_stream(tmp_path / "f", "join", "jsonl", tp=3)
    with pytest.raises(UsageError, match="cannot create output directory"):
        write_stream(tmp_path / "f" / "sub", "join", "jsonl", tp=3)


# ---------------------------------------------------------------- output targets and source files


@pytest.fixture
def prog(tmp_path):
    (tmp_path / "p.lars").write_text("x :- a [1].\n")
    (tmp_path / "s.stream").write_text("0: a\n1:\n")
    return tmp_path


@pytest.mark.parametrize(
    "target,message",
    [
        ("missing/out.jsonl", "directory '{d}/missing' does not exist"),
        (".", "it is a directory"),
        ("/dev/full", "No space left on device"),
    ],
)
def test_out_that_cannot_be_written(prog, target, message):
    path = target if target.startswith("/") else str(prog / target)
    status, out, err = ticker("run", prog / "p.lars", "--stream", prog / "s.stream", "--out", path)
    assert_user_error(status, err, f"cannot write to '{path}'", message.format(d=prog))


def test_out_dash_is_stdout(prog):
    status, out, err = ticker("run", prog / "p.lars", "--stream", prog / "s.stream", "--out", "-")
    assert status == 0 and out.splitlines()[0] == '{"t": 0, "c": 1, "models": [["x"]]}', err
    assert not (ROOT / "-").exists()


def test_output_wrapper_refuses_failures(tmp_path):
    from ticker_py.stages.output import open_output

    for size in (10, 100_000):  # fails on close (buffered) or on write
        out = open_output("/dev/full")
        with pytest.raises(UsageError, match="cannot write to '/dev/full': No space left on device"):
            out.write("x" * size)
            out.close()
    with open_output(str(tmp_path / "ok.txt")) as ok:
        ok.write("fine\n")
    assert (tmp_path / "ok.txt").read_text() == "fine\n"


@pytest.mark.parametrize(
    "content,message,where",
    [
        (b"x :- a.\n\xff\xfe b.\n", "is not UTF-8 text (byte 0xff)", ":2:1-2:"),
        (b"x :- a.\n% \xc3\x28\n", "is not UTF-8 text (byte 0xc3)", ":2:3-4:"),
        (b"x :- a.\n  c\x00d.\n", "is a binary file (a NUL byte)", ":2:4-5:"),
        (bytes(range(256)), "is a binary file (a NUL byte)", ":1:1-2:"),
    ],
)
@pytest.mark.parametrize("role", ["program", "background"])
def test_binary_or_non_utf8_sources(prog, content, message, where, role):
    bad = prog / "bad.lars"
    bad.write_bytes(content)
    args = [bad] if role == "program" else [prog / "p.lars", "--background", bad]
    status, _, err = ticker("run", *args, "--stream", prog / "s.stream")
    assert_user_error(status, err, f"{bad}{where} error: {role} file {message}")
    status, _, err = ticker("check", *args)
    assert_user_error(status, err, f"{role} file {message}")


# ---------------------------------------------------------------- bounded work


def test_a_huge_gap_is_refused_after_writing_what_came_before(prog):
    (prog / "gap.stream").write_text("0: a\n1: a\n1000000000000000: a\n")
    status, out, err = ticker("run", prog / "p.lars", "--stream", prog / "gap.stream")
    assert_user_error(
        status,
        err,
        f"{prog / 'gap.stream'}:3:1-2: error: time 1000000000000000 is "
        "999999999999999 time points after time point 1, more than the gap limit 100000",
    )
    assert [json.loads(line)["t"] for line in out.splitlines()] == [0, 1]
    status, out, err = ticker("run", prog / "p.lars", "--stream", prog / "gap.stream", "--max-gap", "-1")
    assert_user_error(status, err, "--max-gap must be an integer >= 0")
    status, out, err = ticker("run", prog / "p.lars", "--stream", prog / "s.stream", "--until", 10**12)
    assert_user_error(status, err, "until 1000000000000 is")
    assert [json.loads(line)["t"] for line in out.splitlines()] == [0, 1]


def test_max_gap_in_the_api():
    from ticker_py import run
    from ticker_py.errors import StreamError

    with pytest.raises(StreamError, match="more than the gap limit 2"):
        run("x :- a [1].", [(0, ["a"]), (3, ["a"])], engine="native", max_gap=2)
    assert [r.t for r in run("x :- a [1].", [(0, ["a"]), (3, ["a"])], engine="native", max_gap=3)] == [0, 1, 2, 3]
    assert len(run("x :- a [1].", [(0, ["a"]), (100_001, [])], engine="native", max_gap=0)) == 100_002  # > default
    with pytest.raises(UsageError):
        run("x :- a [1].", [], max_gap=-2)


def test_lazy_driver_yields_each_time_point_of_a_gap_at_once():
    from ticker_py.stages.drive import drive

    class Echo:
        def append(self, t, atoms):
            pass

        def evaluate(self, t):
            return t

    it = drive(Echo(), [(0, []), (10**12, [])])
    assert [next(it) for _ in range(5)] == [0, 1, 2, 3, 4]  # no list of 10**12 results first


@pytest.mark.parametrize("engine", ["native", "clingo", "incremental"])
def test_first_sigint_stops_a_long_run_with_everything_written(prog, engine):
    (prog / "long.stream").write_text("0: a\n1000000000: a\n")
    out_file = prog / "out.jsonl"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ticker_py.cli",
            "run",
            str(prog / "p.lars"),
            "--stream",
            str(prog / "long.stream"),
            "--max-gap",
            "0",
            "--engine",
            engine,
            "--out",
            str(out_file),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (not out_file.exists() or out_file.stat().st_size < 200):
            time.sleep(0.05)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=20)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 130, err
    lines = out_file.read_text().splitlines()
    assert len(lines) >= 2 and [json.loads(line)["t"] for line in lines] == list(range(len(lines)))
