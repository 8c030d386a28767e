"""The seams between the inputs, the options and the outputs hold (issue 36, "The seams hold").

Every user error, in every input path, is a located status-2 error (CLI) or a typed TickerError
(API); no option silently drops what the user gave; one rule for every format. Each test below
was written against a defect reproduced on an earlier main.
"""

import os
import subprocess
import sys

import pytest

from tests.helpers import drain, ticker

# ---------------------------------------------------------------- closed pipes (defect 20)

#: twenty errors (the most reported) of about 9 KB each: far more than a pipe holds
LONG_NAME = "p" + "x" * 3000
BAD_PROGRAM = "".join(f"{LONG_NAME}{i}(X) :- q(Y).\n" for i in range(30))


@pytest.fixture(scope="module")
def pipe_files(tmp_path_factory):
    root = tmp_path_factory.mktemp("pipes")
    (root / "bad.lars").write_text(BAD_PROGRAM)
    (root / "ok.lars").write_text("q(X) :- a(X) in [3].\n")
    (root / "long.stream").write_text("".join(f"{t}: a({t})\n" for t in range(5000)))
    return root


def _ticker_command(*argv) -> list:
    return [sys.executable, "-m", "ticker_py.cli", *argv]


def _closed_from_the_start(root, argv, which: str):
    """Run ``ticker ARGV`` with ``which`` (stdout, stderr or both) a pipe nobody reads: its read end is
    closed before the command starts, so its first write fails. (status, what the other stream said)"""
    r, w = os.pipe()
    os.close(r)
    kwargs = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    for name in ("stdout", "stderr"):
        if which in (name, "both"):
            kwargs[name] = w
    try:
        proc = subprocess.run(_ticker_command(*argv), cwd=root, timeout=120, **kwargs)
    finally:
        os.close(w)
    return proc.returncode, (proc.stdout or b"") + (proc.stderr or b"")


def _one_line_then_closed(root, argv, which: str):
    """Run ``ticker ARGV`` with ``which`` (stdout, stderr, or both: ``2>&1``) a pipe whose reader
    takes one line and leaves (``| head -1``). (status, that line, what the other stream said)"""
    kwargs = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    if which == "both":
        kwargs["stderr"] = subprocess.STDOUT
    proc = subprocess.Popen(_ticker_command(*argv), cwd=root, **kwargs)
    read = proc.stderr if which == "stderr" else proc.stdout
    other = proc.stdout if which == "stderr" else proc.stderr
    line = read.readline()
    read.close()
    rest = other.read() if other is not None else b""
    if other is not None:
        other.close()
    return proc.wait(timeout=120), line, rest


BAD_RUN = ("run", "bad.lars", "--stream", "long.stream")
LONG_RUN = ("run", "ok.lars", "--stream", "long.stream")


def _clean(text: bytes) -> None:
    assert b"internal error" not in text and b"Traceback" not in text and b"Exception ignored" not in text, text


@pytest.mark.parametrize("which", ["stdout", "stderr", "both"])
def test_a_user_error_stays_status_2_when_a_pipe_is_closed(pipe_files, which):
    code, other = _closed_from_the_start(pipe_files, BAD_RUN, which)
    assert code == 2
    _clean(other)
    if which == "stdout":
        assert other.startswith(b"bad.lars:1:")


@pytest.mark.parametrize("which", ["stderr", "both"])
def test_a_long_user_error_read_one_line_at_a_time_stays_status_2(pipe_files, which):
    code, line, other = _one_line_then_closed(pipe_files, BAD_RUN, which)
    assert code == 2 and line.startswith(b"bad.lars:1:")
    _clean(other)


@pytest.mark.parametrize("which", ["stdout", "both"])
def test_long_output_cut_short_ends_quietly_with_status_0(pipe_files, which):
    code, line, other = _one_line_then_closed(pipe_files, LONG_RUN, which)
    assert code == 0 and line.startswith(b'{"t": 0')
    _clean(other)
    code, other = _closed_from_the_start(pipe_files, LONG_RUN, which)
    assert code == 0
    _clean(other)


def test_a_closed_stderr_loses_warnings_not_the_output(pipe_files):
    # the warning on the first line (a/0 in the stream, the program uses a/1) cannot be printed:
    # the run goes on and writes every answer
    (pipe_files / "warn.stream").write_text("0: a\n" + (pipe_files / "long.stream").read_text())
    code, out = _closed_from_the_start(pipe_files, ("run", "ok.lars", "--stream", "warn.stream"), "stderr")
    assert code == 0 and out.count(b"\n") == 5000

