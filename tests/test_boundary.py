"""The error boundary: every user error at an input or output ends in a located message and
status 2 (a typed TickerError in the library), never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ticker_py.errors import UsageError

ROOT = Path(__file__).resolve().parents[1]


def ticker(*args, env=None, stdin=None, timeout=120):
    """``python -m ticker_py.cli ARGS`` from this tree: (status, stdout, stderr)."""
    full_env = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    for key in [k for k, v in full_env.items() if v is None]:
        del full_env[key]
    out = subprocess.run([sys.executable, "-m", "ticker_py.cli", *map(str, args)], capture_output=True,
                         text=True, env=full_env, input=stdin, timeout=timeout, cwd=ROOT)
    return out.returncode, out.stdout, out.stderr


def assert_user_error(status, err, *needles):
    assert status == 2, err
    assert "Traceback" not in err and "error: " in err, err
    for needle in needles:
        assert needle in err, err


# ---------------------------------------------------------------- Spark and ticker gen

def test_spark_without_java_is_a_usage_error_with_a_hint(tmp_path):
    status, _, err = ticker("gen", "join", "--out", tmp_path / "g", "--tp", 3,
                            env={"JAVA_HOME": None, "PATH": str(tmp_path)})
    assert_user_error(status, err, "no Java runtime found", "Spark needs a Java runtime", "--no-spark")
    status, _, err = ticker("gen", "join", "--out", tmp_path / "g", "--tp", 3,
                            env={"JAVA_HOME": str(tmp_path / "nojava")})
    assert_user_error(status, err, "has no bin/java", "Spark needs a Java runtime")
    status, out, err = ticker("gen", "join", "--out", tmp_path / "g", "--tp", 3, "--no-spark",
                              env={"JAVA_HOME": None, "PATH": str(tmp_path)})
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
    status, _, err = ticker("gen", "join", "--out", target, "--tp", 3, *([] if spark else ["--no-spark"]))
    assert_user_error(status, err, f"output directory '{target}' exists and is not a directory")
    assert target.read_text() == "keep me\n"


def test_write_stream_refuses_a_file_as_directory(tmp_path):
    from ticker_py.workloads.files import write_stream

    (tmp_path / "f").write_text("")
    with pytest.raises(UsageError, match="is not a directory"):
        write_stream(tmp_path / "f", "join", "jsonl", tp=3)
    with pytest.raises(UsageError, match="cannot create output directory"):
        write_stream(tmp_path / "f" / "sub", "join", "jsonl", tp=3)
