"""The ``ticker`` commands at the edges of their inputs: odd files, wrong formats, values out of
range. Every user error is status 2 with an ``error:`` diagnostic (located where there is a
location), never a traceback; records before a bad one are evaluated and written."""

from __future__ import annotations

import json

import pytest

from ticker_py.cli import main

PROGRAM = "q(X) :- p(X) in [2].\n"


def ticker(capsys, *args):
    """``ticker ARGS`` in this process: (status, stdout, stderr)."""
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def assert_user_error(status, err, *needles):
    assert status == 2, err
    assert "Traceback" not in err and "internal error" not in err and "error: " in err, err
    for needle in needles:
        assert needle in err, err


@pytest.fixture
def program(tmp_path):
    path = tmp_path / "p.lars"
    path.write_text(PROGRAM)
    return path


def _models(out: str) -> list:
    return [json.loads(line)["models"] for line in out.splitlines()]


# ---------------------------------------------------------------- RDF streams


@pytest.mark.parametrize("fmt", ["nt", "nq", "rdf-csv", "rdf-parquet"])
def test_rdf_stream_that_is_a_directory(capsys, tmp_path, program, fmt):
    (tmp_path / "d").mkdir()
    status, _, err = ticker(capsys, "run", program, "--stream", tmp_path / "d", "--stream-format", fmt)
    assert_user_error(status, err, "is a directory")


@pytest.mark.parametrize("content", [b"", b"0: <http://a> <http://b> <http://c> .\n"])
def test_rdf_parquet_stream_that_is_not_parquet(capsys, tmp_path, program, content):
    path = tmp_path / "s.bin"
    path.write_bytes(content)
    status, _, err = ticker(capsys, "run", program, "--stream", path, "--stream-format", "rdf-parquet")
    assert_user_error(status, err, f"{path}:1:1", "not a readable Parquet file")


def test_rdf_csv_with_bytes_that_are_not_utf8_keeps_the_rows_before(capsys, tmp_path, program):
    path = tmp_path / "s.csv"
    path.write_bytes(b"t,s,p,o\n0,<http://a>,<http://b>,<http://c>\n1,<http://a>,<http://b>,\xff\n")
    status, out, err = ticker(capsys, "run", program, "--stream", path, "--stream-format", "rdf-csv", "--show", "all")
    assert_user_error(status, err, f"{path}:3:", "invalid UTF-8")
    assert _models(out) == [[['triple(iri("http://a"),iri("http://b"),iri("http://c"))']]]


def test_rdf_csv_may_start_with_a_byte_order_mark(capsys, tmp_path, program):
    path = tmp_path / "s.csv"
    path.write_bytes(b"\xef\xbb\xbft,s,p,o\r\n0,<http://a>,<http://b>,<http://c>\r\n")
    status, out, err = ticker(capsys, "run", program, "--stream", path, "--stream-format", "rdf-csv", "--show", "all")
    assert status == 0, err
    assert _models(out) == [[['triple(iri("http://a"),iri("http://b"),iri("http://c"))']]]


# ---------------------------------------------------------------- output paths


@pytest.mark.parametrize("where", ["dir", "missing/out.jsonl"])
def test_enumerate_out_that_cannot_be_written(capsys, tmp_path, program, where):
    (tmp_path / "dir").mkdir()
    stream = tmp_path / "s.stream"
    stream.write_text("0: p(a)\n")
    status, _, err = ticker(capsys, "enumerate", program, "--stream", stream, "--out", tmp_path / where)
    assert_user_error(status, err, "cannot write to")


# ---------------------------------------------------------------- gaps and ranges


@pytest.fixture
def gap_stream(tmp_path):
    path = tmp_path / "gap.stream"
    path.write_text("0: p(a)\n10: p(b)\n")
    return path


@pytest.mark.parametrize("extra", [[], ["--consequences", "brave"], ["--semantics", "default,lars"], ["--explain"]])
def test_compare_refuses_a_gap_wider_than_max_gap(capsys, program, gap_stream, extra):
    status, _, err = ticker(capsys, "compare", program, "--stream", gap_stream, "--max-gap", "3", *extra)
    assert_user_error(status, err, f"{gap_stream}:2:1", "more than the gap limit 3")


def test_enumerate_refuses_a_gap_wider_than_max_gap_after_writing_the_ticks_before(
    capsys, tmp_path, program, gap_stream
):
    out = tmp_path / "models.jsonl"
    status, stdout, err = ticker(capsys, "enumerate", program, "--stream", gap_stream, "--max-gap", "3", "--out", out)
    assert_user_error(status, err, f"{gap_stream}:2:1", "more than the gap limit 3")
    assert [json.loads(line)["t"] for line in stdout.splitlines()] == [0]
    assert [json.loads(line)["atoms"] for line in out.read_text().splitlines()] == [["q(a)"]]


@pytest.mark.parametrize("command", ["compare", "enumerate"])
def test_until_further_than_max_gap_is_refused(capsys, tmp_path, program, gap_stream, command):
    extra = ["--out", tmp_path / "o.jsonl"] if command == "enumerate" else []
    status, _, err = ticker(
        capsys, command, program, "--stream", gap_stream, "--max-gap", "20", "--until", "100", *extra
    )
    assert_user_error(status, err, "until 100 is 90 time points after time point 10")


@pytest.mark.parametrize("command", ["run", "compare", "enumerate"])
def test_negative_until_is_a_usage_error(capsys, tmp_path, program, gap_stream, command):
    extra = ["--out", tmp_path / "o.jsonl"] if command == "enumerate" else []
    status, out, err = ticker(capsys, command, program, "--stream", gap_stream, "--until", "-1", *extra)
    assert_user_error(status, err, "--until must be an integer >= 0, not -1")
    assert out == ""


@pytest.mark.parametrize("option", ["--max-diffs", "--max-gap"])
def test_compare_negative_limits_are_usage_errors(capsys, program, gap_stream, option):
    status, out, err = ticker(capsys, "compare", program, "--stream", gap_stream, option, "-1")
    assert_user_error(status, err, f"{option} must be")
    assert out == ""


# ---------------------------------------------------------------- live options


@pytest.mark.parametrize(
    "name, fmt",
    [
        ("s.jsonl", None),
        ("s.csv", None),
        ("s.parquet", None),
        ("s.nt", None),
        ("s.stream.gz", None),
        ("s.data", "jsonl"),
        ("s.data", "rdf-csv"),
        ("-", "jsonl"),
    ],
)
def test_wall_clock_refuses_a_stream_format_other_than_text(capsys, tmp_path, program, name, fmt):
    stream = name if name == "-" else tmp_path / name
    if name != "-":
        stream.write_text("0: p(a)\n")
    status, out, err = ticker(
        capsys,
        "run",
        program,
        "--stream",
        stream,
        "--wall-clock",
        "--clock",
        "100ms",
        *(["--stream-format", fmt] if fmt else []),
    )
    assert_user_error(status, err, "--wall-clock reads the stream as text lines of atoms, not as")
    assert out == ""


def test_tcp_input_refuses_a_stream_format_other_than_text(capsys, program):
    status, out, err = ticker(capsys, "run", program, "--input", "tcp:127.0.0.1:0", "--stream-format", "jsonl")
    assert_user_error(status, err, "--input reads the stream as text lines of atoms, not as jsonl")
    assert out == ""


@pytest.mark.parametrize(
    "name, content, fmt, expected",
    [
        (
            "s.nt",
            "0: <http://a> <http://b> <http://c> .\n",
            None,
            'triple(iri("http://a"),iri("http://b"),iri("http://c"))',
        ),
        ("s.data", '{"t": 0, "atoms": ["p(a)"]}\n', "jsonl", "p(a)"),
    ],
)
def test_save_input_reads_the_stream_in_its_own_format(capsys, tmp_path, program, name, content, fmt, expected):
    stream, saved = tmp_path / name, tmp_path / "saved.stream"
    stream.write_text(content)
    status, out, err = ticker(
        capsys,
        "run",
        program,
        "--stream",
        stream,
        "--save-input",
        saved,
        "--show",
        "all",
        *(["--stream-format", fmt] if fmt else []),
    )
    assert status == 0, err
    assert expected in _models(out)[0][0]
    assert saved.read_text() == f"0: {expected}\n"


@pytest.mark.parametrize("what, message", [("dir", "is a directory"), ("missing", "does not exist")])
def test_wall_clock_stream_file_errors_say_what_is_wrong(capsys, tmp_path, program, what, message):
    (tmp_path / "dir").mkdir()
    status, _, err = ticker(capsys, "run", program, "--stream", tmp_path / what, "--wall-clock")
    assert_user_error(status, err, message)


@pytest.mark.parametrize("grace", ["-1", "nan"])
def test_negative_grace_is_a_usage_error(capsys, program, grace):
    status, _, err = ticker(capsys, "run", program, "--input", "tcp:127.0.0.1:0", "--grace", grace)
    assert_user_error(status, err, "--grace must be 0 or more seconds")


@pytest.mark.parametrize("command", ["run", "compare"])
def test_stream_directory_without_parquet_files(capsys, tmp_path, program, command):
    (tmp_path / "d" / "_temporary").mkdir(parents=True)
    (tmp_path / "d" / "_SUCCESS").write_text("")
    status, _, err = ticker(capsys, command, program, "--stream", tmp_path / "d")
    assert_user_error(status, err, "holds no Parquet files")


def test_encode_at_a_negative_time_is_a_usage_error(capsys, program):
    status, out, err = ticker(capsys, "encode", program, "--at", "-1")
    assert_user_error(status, err, "--at -1 is negative")
    assert out == ""


def test_save_input_on_a_full_disk_is_a_usage_error(capsys, program, gap_stream):
    status, _, err = ticker(capsys, "run", program, "--stream", gap_stream, "--save-input", "/dev/full")
    assert_user_error(status, err, "cannot write '/dev/full'")


@pytest.mark.parametrize("option", ["program", "--background"])
def test_an_endless_binary_program_file_is_refused_without_reading_it_all(tmp_path, program, gap_stream, option):
    import os
    import resource
    import subprocess
    import sys
    from pathlib import Path

    def limit_memory():
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    args = ["/dev/zero"] if option == "program" else [program, "--background", "/dev/zero"]
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    done = subprocess.run(
        [sys.executable, "-m", "ticker_py.cli", "run", *args, "--stream", gap_stream],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        preexec_fn=limit_memory,
    )
    assert_user_error(done.returncode, done.stderr, "/dev/zero:1:1", "a binary file (a NUL byte)")


def test_rdf_csv_and_rdf_parquet_on_stdin(capsys, monkeypatch, program):
    import io
    import sys

    def stdin(data: bytes):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))

    stdin(b"t,s,p,o\n0,<http://a>,<http://b>,<http://c>\n1,,,\n")
    status, out, err = ticker(capsys, "run", program, "--stream", "-", "--stream-format", "rdf-csv", "--show", "all")
    assert status == 0, err
    assert _models(out)[0] == [['triple(iri("http://a"),iri("http://b"),iri("http://c"))']]
    stdin(b"PAR1")
    status, out, err = ticker(capsys, "run", program, "--stream", "-", "--stream-format", "rdf-parquet")
    assert_user_error(status, err, "rdf-parquet reads a file, not stdin")


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("bad.rdf", b"x", "bad.rdf: not valid RDF"),
        ("cut.owl", b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><x', "cut.owl: not valid RDF"),
        ("d.ttl", None, "is a directory"),
    ],
)
def test_background_rdf_errors_without_a_position(capsys, tmp_path, program, name, content, message):
    path = tmp_path / name
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    status, _, err = ticker(capsys, "check", program, "--background-rdf", path)
    assert_user_error(status, err, message)


@pytest.mark.parametrize("idle_timeout", [float("inf"), 1e300])
def test_tcp_input_with_an_endless_idle_timeout(idle_timeout):
    import socket
    import threading

    from ticker_py.live.source import LiveInput

    live = LiveInput(listen_on="tcp:127.0.0.1:0", idle_timeout=idle_timeout, grace=0.1)
    host, port = live.address.removeprefix("tcp:").rsplit(":", 1)

    def produce():
        with socket.create_connection((host, int(port))) as s:
            s.sendall(b"0: p(a)\n1: p(b)\n")

    threading.Thread(target=produce, daemon=True).start()
    assert [(r.t, r.atoms) for r in live] == [(0, (("p", "a"),)), (1, (("p", "b"),))]


@pytest.mark.parametrize(
    "command, output, victim",
    [
        ("run", "--out", "stream"),
        ("run", "--save-input", "stream"),
        ("run", "--out", "program"),
        ("run", "--out", "background"),
        ("enumerate", "--out", "stream"),
        ("enumerate", "--out", "program"),
    ],
)
def test_an_output_that_is_an_input_file_is_refused_before_it_is_emptied(
    capsys, tmp_path, program, command, output, victim
):
    stream, background = tmp_path / "s.stream", tmp_path / "bg.lars"
    stream.write_text("0: p(a)\n")
    background.write_text("p(z).\n")
    target = {"stream": stream, "program": program, "background": background}[victim]
    before = target.read_text()
    status, out, err = ticker(
        capsys,
        command,
        program,
        "--stream",
        stream,
        "--background",
        background,
        output,
        tmp_path / ".." / tmp_path.name / target.name,
    )
    assert_user_error(status, err, "would destroy the input")
    assert target.read_text() == before


# ---------------------------------------------------------------- JSON escapes and table columns


@pytest.mark.parametrize("engine", ["clingo", "incremental", "native"])
@pytest.mark.parametrize("fmt", ["jsonl", "text", "csv"])
def test_a_json_escape_for_a_lone_surrogate_is_refused_after_the_records_before(capsys, tmp_path, program, engine, fmt):
    stream = tmp_path / "s.jsonl"
    stream.write_text('{"t": 0, "atoms": ["p(a)"]}\n{"t": 1, "atoms": ["p(\\"x\\ud800\\")"]}\n')
    status, out, err = ticker(capsys, "run", program, "--stream", stream, "--engine", engine, "--format", fmt)
    assert_user_error(status, err, f"{stream}:2:1", "lone surrogate")
    assert "q(a)" in out


def test_an_escaped_character_in_json_is_still_read(capsys, tmp_path, program):
    stream = tmp_path / "s.jsonl"
    stream.write_text('{"t": 0, "atoms": ["p(\\"\\u00e9\\ud83d\\ude00\\")"]}\n')
    status, out, err = ticker(capsys, "run", program, "--stream", stream, "--engine", "native")
    assert status == 0, err
    assert _models(out) == [[['q("\u00e9\U0001f600")']]]


@pytest.mark.parametrize("column", ["t", "atom", "c"])
def test_a_table_with_a_stream_column_twice_is_refused(tmp_path, column):
    import pandas as pd

    from ticker_py import run
    from ticker_py.errors import StreamError

    frame = pd.DataFrame([[0, "p(a)", 1, "p(b)"]], columns=["t", "atom", "c", column])
    with pytest.raises(StreamError, match=f"column '{column}' appears 2 times"):
        run(PROGRAM, frame, engine="native")


def test_a_sharded_run_refuses_a_gap_wider_than_max_gap(capsys, tmp_path, program):
    """The sharded run checks gaps as the single run does (a jump to t=2**70 ran forever)."""
    stream = tmp_path / "s.stream"
    stream.write_text("0: p(a)\n1: p(b)\n300: p(c)\n")
    single = ticker(capsys, "run", program, "--stream", stream, "--max-gap", "100")
    sharded = ticker(capsys, "run", program, "--stream", stream, "--max-gap", "100", "--shards", "2")
    assert_user_error(*sharded[::2], f"{stream}:3:1", "more than the gap limit 100")
    assert sharded[0] == single[0] and sharded[1] == single[1]
    assert _models(sharded[1]) == [[["q(a)"]], [["q(a)", "q(b)"]]]
    status, out, err = ticker(capsys, "run", program, "--stream", stream, "--max-gap", "0", "--shards", "2")
    assert status == 0, err
    assert len(out.splitlines()) == 301


@pytest.mark.parametrize("at", [7, 10**20])
def test_explain_at_a_time_past_the_stream_says_so(capsys, tmp_path, program, at):
    """Not a --until/--max-gap error, options explain does not have."""
    stream = tmp_path / "s.stream"
    stream.write_text("0: p(a)\n1: p(b)\n5: p(c)\n")
    status, out, err = ticker(capsys, "explain", program, "q(b)", "--stream", stream, "--at", at)
    assert_user_error(status, err, f"time {at} is outside the stream", "its last time point is 5")
    assert "--until" not in err and "--max-gap" not in err
    status, out, err = ticker(capsys, "explain", program, "q(b)", "--stream", stream, "--at", 2)
    assert status == 0 and out.startswith("why q(b): t=2"), err
