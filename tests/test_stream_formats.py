"""Stream formats and reader errors at the command line and in the readers.

BOM-tolerant CSV, --stream-format for stdin and unknown suffixes, compressed streams,
``--out -``; decode errors, the line-length limit, corrupt Parquet, stray files and mixed
schemas are located errors with status 2, and everything read before them is evaluated
and written (pull and push).
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from ticker_py.errors import StreamError
from ticker_py.streams import lines, open_stream, read_csv, read_jsonl, read_parquet, read_text

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = "q(X) :- p(X) in [1].\n"


def ticker(*args, stdin: bytes = b""):
    proc = subprocess.run(
        [sys.executable, "-m", "ticker_py.cli", *map(str, args)],
        input=stdin,
        capture_output=True,
        cwd=ROOT,
        timeout=120,
    )
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


@pytest.fixture
def program(tmp_path):
    path = tmp_path / "p.lars"
    path.write_text(PROGRAM)
    return path


def ts(stdout: str) -> list:
    return [json.loads(line)["t"] for line in stdout.splitlines()]


def drain(records):
    out = []
    try:
        for r in records:
            out.append((r.t, r.atoms))
    except StreamError as e:
        return out, str(e)
    return out, None


# ---------------------------------------------------------------- formats


def test_csv_with_a_byte_order_mark(tmp_path, program):
    path = tmp_path / "s.csv"
    path.write_bytes("\ufefft,atom\n0,p(1)\n".encode())
    assert drain(read_csv(path)) == ([(0, (("p", 1),))], None)
    code, out, err = ticker("run", program, "--stream", path)
    assert (code, out, err) == (0, '{"t": 0, "c": 1, "models": [["q(1)"]]}\n', "")


@pytest.mark.parametrize(
    "fmt,data",
    [
        ("jsonl", b'{"t": 0, "atoms": ["p(1)"]}\n{"t": 1}\n'),
        ("csv", b"t,atom\n0,p(1)\n1,\n"),
        ("text", b"0: p(1)\n1:\n"),
    ],
)
def test_stream_format_for_stdin_and_unknown_suffixes(tmp_path, program, fmt, data):
    code, out, err = ticker("run", program, "--stream-format", fmt, stdin=data)
    assert (code, ts(out), err) == (0, [0, 1], "")
    path = tmp_path / "stream.data"
    path.write_bytes(data)
    assert ticker("run", program, "--stream", path, "--stream-format", fmt)[:2] == (code, out)


def test_stream_format_never_overrides_a_known_suffix(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text('{"t": 3, "atoms": ["a"]}\n')
    assert drain(open_stream(path, fmt="csv")) == ([(3, (("a",),))], None)


def test_unknown_stream_format_is_refused(program):
    code, _, err = ticker("run", program, "--stream-format", "xml")
    assert code == 2 and "unknown --stream-format 'xml'" in err


@pytest.mark.parametrize("suffix,opener", [(".gz", gzip.open), (".bz2", bz2.open), (".xz", lzma.open)])
def test_compressed_streams_by_suffix(tmp_path, program, suffix, opener):
    for name, data in [
        ("s.jsonl", b'{"t": 0, "atoms": ["p(1)"]}\n'),
        ("s.stream", b"0: p(1)\n"),
        ("s.csv", b"t,atom\n0,p(1)\n"),
    ]:
        path = tmp_path / (name + suffix)
        with opener(path, "wb") as f:
            f.write(data)
        assert drain(open_stream(path)) == ([(0, (("p", 1),))], None)
        assert ticker("run", program, "--stream", path)[:2] == (0, '{"t": 0, "c": 1, "models": [["q(1)"]]}\n')


def test_corrupt_compressed_stream_is_a_located_error(tmp_path, program):
    good = gzip.compress(b"".join(b"%d: p(%d)\n" % (t, t) for t in range(3000)))
    path = tmp_path / "s.stream.gz"
    path.write_bytes(good[: len(good) // 2])  # truncated
    code, out, err = ticker("run", program, "--stream", path)
    assert code == 2 and err.startswith(f"{path}:") and "error: cannot read the stream" in err
    assert ts(out) == list(range(len(ts(out)))) and len(ts(out)) > 0
    path.write_bytes(b"not gzip at all")
    code, out, err = ticker("run", program, "--stream", path)
    assert (code, out) == (2, "") and err.startswith(f"{path}:1:1") and "Traceback" not in err


def test_out_dash_is_stdout(tmp_path, program):
    code, out, err = ticker("run", program, "--out", "-", stdin=b"0: p(1)\n")
    assert (code, out, err) == (0, '{"t": 0, "c": 1, "models": [["q(1)"]]}\n', "")
    assert not (ROOT / "-").exists()


# ---------------------------------------------------------------- decode errors and line length


@pytest.mark.parametrize("every", ["time", "signal"])
@pytest.mark.parametrize(
    "fmt,good,bad",
    [
        ("stream", b"0: p(1)\n1: p(2)\n", b"2: p(\xff)\n"),
        ("jsonl", b'{"t": 0, "atoms": ["p(1)"]}\n{"t": 1, "atoms": ["p(2)"]}\n', b'{"t": 2, "atoms": ["\xc3("]}\n'),
        ("csv", b"t,atom\n0,p(1)\n1,p(2)\n", b"2,p(\xe9)\n"),
    ],
)
def test_invalid_utf8_late_in_a_stream(tmp_path, program, every, fmt, good, bad):
    path = tmp_path / f"s.{fmt}"
    path.write_bytes(good + bad + b"3: p(3)\n")
    code, out, err = ticker("run", program, "--stream", path, "--every", every)
    line = good.count(b"\n") + 1
    assert code == 2 and err.startswith(f"{path}:{line}:") and "invalid UTF-8" in err, err
    assert "Traceback" not in err
    assert sorted(set(ts(out))) == [0, 1]  # everything read before the bad line is written


def test_binary_stream_on_stdin(program):
    code, out, err = ticker("run", program, stdin=b"0: p(1)\n\x89PNG\r\n\x1a\n\x00\x00\xff\xfe")
    assert code == 2 and err.startswith("<stdin>:2:") and "Traceback" not in err
    assert ts(out) == [0]


def test_invalid_utf8_column_is_the_character_column():
    records, error = drain(read_text(io.BytesIO("0: a\n1: bé, \xff".encode("latin-1")), "s"))
    assert records == [(0, (("a",),))]
    assert error.startswith("s:2:") and "byte 0xe9" in error
    records, error = drain(read_text(io.BytesIO('0: a\n1: "é", '.encode() + b"\xff"), "s"))
    assert error.startswith("s:2:9-10:") and "byte 0xff" in error


def test_line_length_limit(monkeypatch):
    monkeypatch.setattr(lines, "MAX_LINE", 64)
    data = b"0: a\n1: " + b"p(1), " * 20 + b"p(1)\n2: b\n"
    jsonl = b'{"t": 0}\n{"t": 1, "atoms": [' + b'"p(1)", ' * 20 + b'"p(1)"]}\n'
    for reader, text in ((read_text, data), (read_jsonl, jsonl)):
        records, error = drain(reader(io.BytesIO(text), "s"))
        assert error == "s:2:1-2: error: line longer than 64 bytes (the limit for one line)"
    assert drain(read_text(io.BytesIO(data), "s"))[0] == [(0, (("a",),))]
    assert drain(read_text(io.BytesIO(b"0: " + b"x" * 60 + b"\n"), "s")) == ([(0, (("x" * 60,),))], None)


def test_line_length_limit_on_an_endless_line(tmp_path, program, monkeypatch):
    code, out, err = ticker("run", program, "--stream", "/dev/zero")
    assert code == 2 and err.startswith("/dev/zero:1:1") and "longer than" in err


# ---------------------------------------------------------------- Parquet errors


def test_truncated_and_corrupt_parquet(tmp_path, program):
    path = tmp_path / "s.parquet"
    pd.DataFrame({"t": list(range(100)), "atom": [f"p({i})" for i in range(100)]}).to_parquet(path)
    data = path.read_bytes()
    for broken in (data[: len(data) // 2], b"PAR1" + b"\x00" * 100, data[:8] + b"\xff" * 64 + data[72:]):
        path.write_bytes(broken)
        records, error = drain(read_parquet(path))
        assert error is not None and error.startswith(f"{path}:"), error
        code, _, err = ticker("run", program, "--stream", path)
        assert code == 2 and err.startswith(f"{path}:") and "Traceback" not in err


def test_parquet_directory_with_a_stray_file(tmp_path, program):
    root = tmp_path / "stream"
    pd.DataFrame({"t": [0, 1], "atom": ["p(1)", "p(2)"]}).to_parquet(root, partition_cols=["t"])
    (root / "notes.txt").write_text("not parquet\n")
    records, error = drain(read_parquet(root))
    assert error is not None and str(root / "notes.txt") in error and "not a readable Parquet" in error
    code, out, err = ticker("run", program, "--stream", root)
    assert code == 2 and "notes.txt" in err and "Traceback" not in err


def test_parquet_directory_with_mixed_schemas(tmp_path, program):
    root = tmp_path / "stream"
    root.mkdir()
    pd.DataFrame({"t": [0, 1], "atom": ["p(1)", "p(2)"]}).to_parquet(root / "a.parquet")
    pd.DataFrame({"t": ["2"], "atom": ["p(3)"]}).to_parquet(root / "b.parquet")
    records, error = drain(read_parquet(root))
    assert error == f"{root / 'b.parquet'}:1:1-2: error: column 't' holds string, not integers (mixed schemas?)"
    pd.DataFrame({"t": [2], "other": ["p(3)"]}).to_parquet(root / "b.parquet")
    records, error = drain(read_parquet(root))
    assert error == f"{root / 'b.parquet'}:1:1-2: error: missing column 'atom' (columns: t, other)"
    code, _, err = ticker("run", program, "--stream", root)
    assert code == 2 and "b.parquet:1:1" in err


@pytest.mark.parametrize("every", ["time", "signal"])
def test_parquet_bad_row_after_good_rows_is_evaluated_first(tmp_path, program, every):
    path = tmp_path / "s.parquet"
    pd.DataFrame({"t": [0, 1, 1, 2], "atom": ["p(1)", "p(2)", "p(X)", "p(3)"]}).to_parquet(path)
    code, out, err = ticker("run", program, "--stream", path, "--every", every)
    assert code == 2 and err.startswith(f"{path}:3:1") and "variable 'X'" in err
    assert sorted(set(ts(out))) == [0, 1]
