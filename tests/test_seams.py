"""The seams between the inputs, the options and the outputs hold (issue 36, "The seams hold").

Every user error, in every input path, is a located status-2 error (CLI) or a typed TickerError
(API); no option silently drops what the user gave; one rule for every format. Each test below
was written against a defect reproduced on an earlier main.
"""

import os
import re
import subprocess
import sys

import pytest

from tests.helpers import drain, ticker  # noqa: F401 (drain: below)

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


# ---------------------------------------------------------------- pictures (defects 7, 8, 17)


@pytest.fixture
def alarm(tmp_path):
    prog = tmp_path / "alarm.lars"
    prog.write_text("warm :- temp(V) in [3], V > 30.\nq(X) :- temp(X) in [1].\ncold :- temp(V), V < 0.\n")
    stream = tmp_path / "alarm.stream"
    stream.write_text("0: temp(25)\n1: temp(34)\n2: temp(30)\n3: temp(28)\n4:\n5: temp(31)\n")
    return prog, stream


@pytest.mark.parametrize("command", ["plot", "compare"])
def test_a_picture_from_past_the_last_time_point_is_refused(capsys, tmp_path, alarm, command):
    prog, stream = alarm
    out = (
        ["--out", tmp_path / "a.svg"]
        if command == "plot"
        else ["--engines", "clingo,native", "--plot", tmp_path / "a.svg"]
    )
    code, _, err = ticker(capsys, command, prog, "--stream", stream, *out, "--from", "50")
    assert code == 2 and "nothing to draw from t = 50 on: the last time point evaluated is 5" in err
    assert not (tmp_path / "a.svg").exists()
    code, _, err = ticker(capsys, command, prog, "--stream", stream, *out, "--from", str(10**23))
    assert code == 2 and "the last time point evaluated is 5" in err and "Traceback" not in err


def test_picture_options_without_a_picture_are_refused(capsys, alarm):
    prog, stream = alarm
    for option, value in (("--from", "2"), ("--atoms", "q/1"), ("--max-atoms", "5")):
        code, _, err = ticker(capsys, "compare", prog, "--stream", stream, option, value)
        assert code == 2 and f"{option} chooses what --plot draws, and there is no --plot" in err


@pytest.mark.parametrize(
    "options,message",
    [
        ({"start": 5, "end": 1}, "start 5 is after end 1"),
        ({"start": 50}, "nothing to draw from t = 50 on: the last time point evaluated is 5"),
        ({"end": 10**23}, "would show 100000000000000000000001 time points"),
        ({"start": -1}, "start must be an integer >= 0, not -1"),
        ({"start": True}, "start must be an integer >= 0, not True"),
        ({"end": 2.0}, "end must be an integer >= 0, not 2.0"),
        ({"max_atoms": -1}, "max_atoms must be an integer >= 0, not -1"),
        ({"atoms": "zz/3"}, "atoms 'zz/3': the program has no predicate zz/3"),
        ({"atoms": "q/2"}, "did you mean q/1?"),
        ({"atoms": "wram"}, "did you mean warm?"),
        ({"atoms": "q(a"}, "bad atom pattern 'q(a'"),
    ],
)
def test_results_plot_refuses_what_ticker_plot_refuses(alarm, options, message):
    from ticker_py import run
    from ticker_py.errors import UsageError

    pytest.importorskip("matplotlib")
    results = run(*alarm)
    with pytest.raises(UsageError, match=re.escape(message)):
        results.plot(**options)


def test_results_plot_knows_the_programs_predicates_as_ticker_plot_does():
    # a predicate of the program that never holds is an empty lane, not "the results have no ..."
    from ticker_py import run

    pytest.importorskip("matplotlib")
    results = run("q(X) :- p(X), X > 5.", [(0, ["p(1)"])])
    assert ("q", 1) in results.predicates and not results[0].models[0].atoms
    from ticker_py.plot.timeline import view

    assert [lane.atom for lane in view(results, atoms="q/1").lanes] == ["q/1: no atom holds"]
    assert results.plot(atoms="q/1").axes  # drawn, not refused


def test_ticker_plot_refuses_a_pattern_of_no_predicate_with_a_did_you_mean(capsys, tmp_path, alarm):
    prog, stream = alarm
    code, _, err = ticker(capsys, "plot", prog, "--stream", stream, "--out", tmp_path / "a.svg", "--atoms", "q/2")
    assert code == 2 and "--atoms 'q/2': the program has no predicate q/2" in err and "did you mean q/1?" in err


def test_a_predicate_that_never_holds_is_an_empty_lane_that_says_so(capsys, tmp_path, alarm):
    import xml.etree.ElementTree as ET

    pytest.importorskip("matplotlib")
    prog, stream = alarm
    out = tmp_path / "a.svg"
    code, _, err = ticker(capsys, "plot", prog, "--stream", stream, "--out", out, "--atoms", "cold,q(34)")
    assert (code, err) == (0, "")
    texts = {t.text for t in ET.parse(out).getroot().iter("{http://www.w3.org/2000/svg}text")}
    assert "cold: no atom holds" in texts and "q(34)" in texts


def test_a_picture_without_any_answer_stream_warns_nothing(capsys, tmp_path):
    import warnings

    from ticker_py import run

    pytest.importorskip("matplotlib")
    prog = tmp_path / "none.lars"
    prog.write_text("x :- a(X), not x.\n")  # no answer stream at any time point
    stream = tmp_path / "s.stream"
    stream.write_text("0: a(1)\n1: a(2)\n2: a(3)\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a library warning would make the command fail
        code, out, err = ticker(capsys, "plot", prog, "--stream", stream, "--out", tmp_path / "a.svg")
        assert (code, out, err) == (0, "", "")
        run(prog, stream, models=0).plot()


# ---------------------------------------------------------------- numeric options (defect 9)

INT_GE0, INT_GE1 = ("-1",), ("0", "-1")
SECONDS_GE0 = ("-1", "nan")  # inf: wait forever (as --idle-timeout 0)
SECONDS_GT0 = ("0", "-1", "nan", "inf")
SEED = ("-1", str(2**64))
BEYOND = (str(10**23),)  # a time point after the stream's last

#: every numeric option of every command and the values it refuses (a new numeric option must be
#: added here with the values it refuses)
NUMERIC = {
    ("run", "--models"): INT_GE0,
    ("run", "--until"): INT_GE0,
    ("run", "--max-gap"): INT_GE0,
    ("run", "--shards"): INT_GE1,
    ("run", "--grace"): SECONDS_GE0,
    ("run", "--idle-timeout"): SECONDS_GE0,
    ("encode", "--at"): INT_GE0,
    ("compare", "--until"): INT_GE0,
    ("compare", "--max-gap"): INT_GE0,
    ("compare", "--models"): INT_GE0,
    ("compare", "--max-diffs"): INT_GE0,
    ("compare", "--from"): INT_GE0 + BEYOND,
    ("compare", "--max-atoms"): INT_GE0,
    ("explain", "--at"): INT_GE0 + BEYOND,
    ("explain", "--model"): INT_GE1 + BEYOND,
    ("explain", "--models"): INT_GE0,
    ("plot", "--models"): INT_GE0,
    ("plot", "--until"): INT_GE0,
    ("plot", "--max-gap"): INT_GE0,
    ("plot", "--from"): INT_GE0 + BEYOND,
    ("plot", "--max-atoms"): INT_GE0,
    ("enumerate", "--until"): INT_GE0,
    ("enumerate", "--max-gap"): INT_GE0,
    ("gen", "--seed"): SEED,
    ("gen", "--tp"): INT_GE0,
    ("gen", "--window"): INT_GE1,
    ("gen", "--items"): INT_GE1,
    ("gen", "--rate"): INT_GE1,
    ("gen", "--partitions"): INT_GE1,
    ("bench", "--tp"): INT_GE1,
    ("bench", "--models"): INT_GE0,
    ("bench", "--reps"): INT_GE1,
    ("bench", "--warmup"): INT_GE0,
    ("bench", "--budget"): SECONDS_GT0,
    ("bench", "--seed"): SEED,
    ("distinguish", "--budget"): SECONDS_GT0,
    ("distinguish", "--seed"): SEED,
    ("distinguish", "--max-tp"): INT_GE1,
    ("distinguish", "--max-streams"): INT_GE1,
}


def _numeric_options() -> set:
    import argparse

    from ticker_py.cli import build_parser

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    return {
        (name, action.option_strings[-1])
        for name, parser in commands.items()
        for action in parser._actions
        if action.type in (int, float)
    }


def test_every_numeric_option_is_walked():
    assert _numeric_options() == set(NUMERIC)


def _base(command: str, option: str, root) -> list:
    """A cheap command line that succeeds as it is (so that an accepted value shows as status 0)."""
    prog, stream, out = root / "p.lars", root / "s.stream", root / "out"
    return {
        "run": ["run", prog, "--stream", stream, "--format", "none"],
        "encode": ["encode", prog],
        "compare": ["compare", prog, "--stream", stream, "--engines", "clingo,native"]
        + (["--plot", out / "c.svg"] if option in ("--from", "--max-atoms") else []),
        "explain": ["explain", prog, "--stream", stream, "--at", "1", "q(1)"],
        "plot": ["plot", prog, "--stream", stream, "--out", out / "p.svg"],
        "enumerate": ["enumerate", prog, "--stream", stream, "--out", out / "e.jsonl"],
        "gen": ["gen", "b1" if option == "--items" else "diamond", "--out", out / "g", "--format", "text", "--tp", "2"],
        "bench": ["bench", "nosuchsuite"],  # the options are checked before the suite is looked up
        "distinguish": ["distinguish", prog, "--semantics", "default,r4", "--max-streams", "3"],
    }[command]


@pytest.mark.parametrize(
    "command,option,value", [(c, o, v) for (c, o), values in NUMERIC.items() for v in values], ids=str
)
def test_a_numeric_option_out_of_range_is_refused_naming_it(capsys, tmp_path, command, option, value):
    (tmp_path / "p.lars").write_text("q(X) :- a(X) in [2].\n")
    (tmp_path / "s.stream").write_text("0: a(1)\n1: a(2)\n2: a(3)\n")
    (tmp_path / "out").mkdir()
    argv = _base(command, option, tmp_path)
    if option in argv:  # the base's own value of this option goes
        i = argv.index(option)
        del argv[i : i + 2]
    code, out, err = ticker(capsys, *argv, f"{option}={value}")
    assert code == 2, (out, err)
    beyond = value in BEYOND and ("last time point" in err or "is out of range: there is 1 answer stream" in err)
    named = option.lstrip("-") in err or beyond
    assert named and "Traceback" not in err and "internal error" not in err


@pytest.mark.parametrize(
    "argv,message",
    [
        (["bench", "throughput", "--budget", "nan"], "--budget must be a number of seconds > 0, not nan"),
        (["bench", "throughput", "--budget", "5"], "--budget does not apply to the throughput suite"),
        (["bench", "throughput", "--engines", "native"], "--engines does not apply to the throughput suite"),
        (["bench", "throughput", "--quick"], "--quick does not apply to the throughput suite"),
        (["bench", "laser", "--report-from", "r.json", "--sizes", "3"], "--sizes does not apply to --report-from"),
        (["bench", "ticker-a", "--rates", "5"], "--rates does not apply to the ticker-a suite"),
        (["bench", "r4", "--rates", "5,6"], "the r4 suite takes one rate"),
        (["gen", "diamond", "--out", "g", "--format", "text", "--partitions", "3"], "--partitions sets Spark's"),
        (["gen", "diamond", "--out", "g", "--no-spark", "--partitions", "3"], "--partitions sets Spark's"),
        (["gen", "diamond", "--out", "g", "--format", "text", "--parquet-layout", "args"], "needs --format parquet"),
    ],
)
def test_an_option_a_command_would_not_use_is_refused(capsys, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    code, _, err = ticker(capsys, *argv)
    assert code == 2 and message in err
    assert not (tmp_path / "g").exists() and not (tmp_path / "benchmarks").exists()


# ---------------------------------------------------------------- compare_semantics (defect 12)

SEM_PROGRAM, SEM_STREAM = "q :- p in [1].", [(0, ["p"]), (1, []), (2, [])]


def test_compare_semantics_takes_the_clis_comma_list():
    from ticker_py.semantics_compare import compare_semantics

    assert list(compare_semantics(SEM_PROGRAM, SEM_STREAM, "default,lars").runs) == ["default", "lars"]
    cmp = compare_semantics(SEM_PROGRAM, SEM_STREAM, "default, default+window_bounds=half-open", engines="clingo")
    assert list(cmp.runs) == ["default", "default,window_bounds=half-open"]
    cmp = compare_semantics(SEM_PROGRAM, SEM_STREAM, ["default", "r4"], engines="clingo,native")
    assert list(cmp.runs) == ["default@clingo", "default@native", "r4@clingo", "r4@native"]


@pytest.mark.parametrize(
    "semantics,engines,message",
    [
        ([], ("auto",), "no semantics profile to compare"),
        ("", ("auto",), "no semantics profile to compare"),
        (" , ", ("auto",), "no semantics profile to compare"),
        ("default", [], "no engine to compare"),
        ("default", "", "no engine to compare"),
        (["default", "default"], ("auto",), "the run 'default' is given twice"),
        ("r4,r4", "clingo", "the run 'r4' is given twice"),
        ("default", "clingo,clingo", "the run 'default@clingo' is given twice"),
        ("default,nosuch", ("auto",), "unknown semantics profile 'nosuch'"),
    ],
)
def test_compare_semantics_refuses_no_run_and_a_run_twice(semantics, engines, message):
    from ticker_py.errors import UsageError
    from ticker_py.semantics_compare import compare_semantics

    with pytest.raises(UsageError, match=re.escape(message)):
        compare_semantics(SEM_PROGRAM, SEM_STREAM, semantics, engines=engines)


# ---------------------------------------------------------------- times: one rule for every format (defect 13)

TRIPLE = ("<http://s>", "<http://p>", "<http://o>")


class FakeSparkFrame:
    """What :func:`read_spark_dataframe` calls of a Spark DataFrame without an order column."""

    def __init__(self, rows):
        self.rows, self.columns = rows, ["t", "atom"]

    def select(self, *columns):
        return self

    def toLocalIterator(self):
        return iter(self.rows)


def _read(fmt: str, times: list, tmp_path):
    """``(records as (t, line), error)`` of a stream of one atom per row with these time cells, in ``fmt``."""
    import json

    import pandas as pd

    from ticker_py.streams import rdf, read_dataframe, read_jsonl, read_text
    from ticker_py.streams.spark_frame import read_spark_dataframe
    from ticker_py.streams.tables import read_csv

    atoms = [f"p({i})" for i in range(len(times))]
    path = tmp_path / "s"
    if fmt == "text":
        records = read_text("".join(f"{t}: {a}\n" for t, a in zip(times, atoms)), "s")
    elif fmt == "jsonl":
        records = read_jsonl("".join(json.dumps({"t": t, "atoms": [a]}) + "\n" for t, a in zip(times, atoms)), "s")
    elif fmt == "csv":
        path.write_text("t,atom\n" + "".join(f'{t},"{a}"\n' for t, a in zip(times, atoms)))
        records = read_csv(path, "s")
    elif fmt == "dataframe":
        records = read_dataframe(pd.DataFrame({"t": times, "atom": atoms}), "s")
    elif fmt == "spark":
        records = read_spark_dataframe(FakeSparkFrame([(t, a) for t, a in zip(times, atoms)]), "s")
    elif fmt == "nt":
        records = rdf.read_rdf_text("".join(f"{t}: {' '.join(TRIPLE)} .\n" for t in times), "s")
    elif fmt == "rdf-csv":
        path.write_text("t,s,p,o\n" + "".join(f"{t},{','.join(TRIPLE)}\n" for t in times))
        records = rdf.read_rdf_csv(path, "s")
    elif fmt == "rdf-dataframe":
        records = rdf.read_rdf_dataframe(
            pd.DataFrame({"t": times, "s": TRIPLE[0], "p": TRIPLE[1], "o": TRIPLE[2]}), "s"
        )
    else:
        raise AssertionError(fmt)
    records, error = drain(records)
    times = [t for i, (t, *_) in enumerate(records) if i == 0 or records[i - 1][0] != t]
    if error is not None and fmt in ("csv", "rdf-csv"):  # the row of the cell, not the line (the header is 1)
        where, rest = error.split(":", 2)[1:]
        error = f"s:{int(where) - 1}:{rest}"
    return times, error


TEXT_FORMATS = ["text", "csv", "nt", "rdf-csv"]
TYPED_FORMATS = ["jsonl", "dataframe", "spark", "rdf-dataframe"]


@pytest.mark.parametrize("fmt", TEXT_FORMATS + TYPED_FORMATS)
def test_integer_times_are_read_alike_in_every_format(tmp_path, fmt):
    assert _read(fmt, [0, 0, 3] if fmt not in TEXT_FORMATS else ["0", "0", "03"], tmp_path) == ([0, 3], None)


@pytest.mark.parametrize("fmt", TYPED_FORMATS)
def test_a_string_time_is_refused_in_every_typed_format(tmp_path, fmt):
    records, error = _read(fmt, [0, "1", 2], tmp_path)
    assert records == [0] and error.startswith("s:2:1") and "time must be a non-negative integer, found '1'" in error


@pytest.mark.parametrize("fmt", TYPED_FORMATS)
def test_a_float_time_is_refused_in_every_typed_format(tmp_path, fmt):
    records, error = _read(fmt, [0, 1, 2.0], tmp_path)
    assert "time must be a non-negative integer, found" in error
    if fmt in ("dataframe", "rdf-dataframe"):  # a column of floats: refused as a whole, at its first row
        assert (records, error.split(": error")[0]) == ([], "s:1:1-2") and "convert it" in error
    else:
        assert records == [0, 1] and error.startswith("s:3:1") and "found 2.0" in error


@pytest.mark.parametrize("fmt", TEXT_FORMATS)
def test_a_text_time_is_digits(tmp_path, fmt):
    for cell, message in (("2.0", "found '2.0'"), ("x", "found 'x'"), ("-2", "negative time -2")):
        records, error = _read(fmt, ["0", cell], tmp_path)
        assert records == [0] and error.startswith("s:2:") and message in error, (cell, error)


@pytest.mark.parametrize("fmt", ["dataframe", "rdf-dataframe"])
@pytest.mark.parametrize("missing", ["nan", "none", "na"])
def test_a_missing_time_in_a_dataframe_is_reported_at_its_row(tmp_path, fmt, missing):
    import numpy as np
    import pandas as pd

    times = {
        "nan": [0, np.nan, 2],  # pandas makes the column floats
        "none": [0, None, 2],
        "na": pd.array([0, pd.NA, 2], dtype="Int64"),
    }[missing]
    records, error = _read(fmt, times, tmp_path)
    shown = "<NA>" if missing == "na" else "NaN"
    assert (
        error.startswith("s:2:1") and f"time must be a non-negative integer, found {shown} (a missing value)" in error
    )
    assert "found 0.0" not in error and records == ([0] if missing == "na" else [])


def test_a_missing_order_key_in_a_dataframe_is_reported_at_its_row():
    import numpy as np
    import pandas as pd

    from ticker_py.streams import read_dataframe

    frame = pd.DataFrame({"t": [0, 1, 2], "atom": ["a", "b", "c"], "c": [1, np.nan, 2]})
    records, error = drain(read_dataframe(frame, "s"))
    assert error.startswith("s:2:1") and "column 'c' must be a non-negative integer, found NaN" in error
    frame = pd.DataFrame({"t": [0, "x", 2], "atom": ["a", "b", "c"], "c": [1, 1, 2]})  # not sortable: checked first
    records, error = drain(read_dataframe(frame, "s"))
    assert error.startswith("s:2:1") and "found 'x'" in error and "Traceback" not in error


def test_parquet_times_are_a_column_of_integers(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ticker_py.streams.parquet import read_parquet
    from ticker_py.streams.rdf import read_rdf_parquet

    path = tmp_path / "s.parquet"
    pq.write_table(pa.table({"t": pa.array([0, None, 2], pa.int64()), "atom": ["a", "b", "c"]}), path)
    assert drain(read_parquet(path, "s")) == (
        [(0, (("a",),), "s", 1)],
        "s:2:1-2: error: time must be a non-negative integer, found None (a missing value)",
    )
    pq.write_table(
        pa.table({"t": ["0", "1"], "s": list(TRIPLE[:1]) * 2, "p": [TRIPLE[1]] * 2, "o": [TRIPLE[2]] * 2}), path
    )
    records, error = drain(read_rdf_parquet(path, "s"))  # was read as times 0 and 1
    assert records == [] and "s:1:1-2: error: time must be a non-negative integer, found '0'" == error


# ---------------------------------------------------------------- lines that lack a part, keys given twice (14, 18)

S, P, O = TRIPLE


@pytest.mark.parametrize(
    "line,column",
    [
        (f"1: {S} {P} {O}", 36),  # the final '.' is missing
        (f"1: {S} {P} {O} . {S} {P} <http://o2>", 72),
        (f"1: {S} {P} {O} # the dot went into the comment", 68),
    ],
)
def test_an_n_triples_line_without_its_final_dot_is_refused(line, column):
    from ticker_py.streams.rdf import read_rdf_text

    for batch in (1, 4096):  # a pipe, a file
        records, error = drain(read_rdf_text(f"0: {S} {P} {O} .\n{line}\n2: {S} {P} {O} .\n", "s.nt", batch=batch))
        assert [t for t, *_ in records] == [0]
        assert error.startswith(f"s.nt:2:{column}-") and "bad triple: '.' expected at its end" in error


def test_n_triples_lines_that_end_well_are_read():
    from ticker_py.streams.rdf import read_rdf_text

    text = f'0: {S} {P} {O} . # a comment\n1: # nothing but a comment\n2:\n3: {S} {P} "a . b" .\n'
    assert [t for t, *_ in drain(read_rdf_text(text, "s.nt"))[0]] == [0, 1, 2, 3]


def test_an_n_quads_line_without_its_final_dot_is_refused():
    from ticker_py.streams.rdf import read_nquads

    records, error = drain(read_nquads(f"{S} {P} {O} <urn:ticker:t:0> .\n{S} {P} {O} <urn:ticker:t:1>\n", "s.nq"))
    assert [t for t, *_ in records] == [0] and error.startswith("s.nq:2:") and "followed by a dot" in error


def test_t_lines_in_an_n_quads_stream_name_the_line_format():
    from ticker_py.streams.rdf import read_nquads, read_rdf_text

    records, error = drain(read_nquads(f"{S} {P} {O} <urn:ticker:t:0> .\n1: {S} {P} {O} .\n", "s.nq"))
    assert [t for t, *_ in records] == [0]
    assert error.startswith("s.nq:2:1-3: error: a 'T: triples' line (the .nt stream format) in an N-Quads stream")
    assert "the graph name is the time point" in error and "--stream-format nt" in error
    records, error = drain(read_rdf_text(f"0: {S} {P} {O} .\n{S} {P} {O} <urn:ticker:t:1> .\n", "s.nt"))
    assert error.startswith("s.nt:2:1-2: error: expected 'T: triples'") and "this is an N-Quads line" in error


@pytest.mark.parametrize(
    "line,key,column",
    [
        ('{"t": 1, "t": 5, "atoms": ["p"]}', "t", 10),
        ('{"t": 1, "atoms": ["p"], "atoms": ["q"]}', "atoms", 26),
        ('{"t": 1, "\\u0074": 5}', "t", 1),
        ('{"atoms": [], "t": 1, "t": 1}', "t", 23),
    ],
)
def test_a_json_key_given_twice_is_refused(line, key, column):
    from ticker_py.streams import read_jsonl

    records, error = drain(read_jsonl(f'{{"t": 0, "atoms": ["p"]}}\n{line}\n', "s.jsonl"))
    assert [t for t, *_ in records] == [0]
    assert error.startswith(f"s.jsonl:2:{column}-") and f'key "{key}" given twice in one object' in error


def test_json_lines_with_t_and_atoms_as_texts_are_read():
    from ticker_py.streams import read_jsonl

    records, error = drain(read_jsonl('{"t": 0, "atoms": ["t", "atoms", "p(\\"t\\")"]}\n', "s.jsonl"))
    assert error is None and records[0][1] == (("t",), ("atoms",), ("p", '"t"'))


def test_an_rdf_table_with_a_column_twice_is_refused(tmp_path):
    import pandas as pd

    from ticker_py.streams.rdf import read_rdf_csv, read_rdf_dataframe

    path = tmp_path / "s.csv"
    path.write_text(f"t,s,p,o,s\n0,{S},{P},{O},<http://other>\n")
    assert drain(read_rdf_csv(path, "s.csv")) == ([], "s.csv:1:1-2: error: column 's' appears 2 times")
    frame = pd.DataFrame([[0, S, P, O, "<http://other>"]], columns=["t", "s", "p", "o", "s"])
    assert drain(read_rdf_dataframe(frame, "d")) == ([], "d:1:1-2: error: column 's' appears 2 times")


# ---------------------------------------------------------------- --rdf-output (defect 6)

RDF_PROGRAM = (
    'triple(iri("http://s"), iri("http://p"), O) :- a(O).\nedge(X, Y, Z) :- a(X), a(Y), a(Z).\nq(X) :- a(X).\n'
)


@pytest.fixture
def rdf_run(tmp_path):
    prog, stream = tmp_path / "w.lars", tmp_path / "w.stream"
    prog.write_text(RDF_PROGRAM)
    stream.write_text("0: a(1)\n")
    return prog, stream


@pytest.mark.parametrize(
    "name,message",
    [
        ("nosuch", "its ternary predicates: edge, triple"),
        ("edg", "did you mean edge?"),
        ("q", "its ternary predicates: edge, triple"),  # q/1 is no ternary predicate
    ],
)
def test_rdf_output_of_no_ternary_predicate_is_refused(capsys, rdf_run, name, message):
    for fmt in ("ntriples", "nquads"):
        code, out, err = ticker(
            capsys, "run", *rdf_run[:1], "--stream", rdf_run[1], "--format", fmt, "--rdf-output", name
        )
        assert (code, out) == (2, "")
        assert f"--rdf-output {name}: the program has no ternary predicate {name}/3" in err and message in err


def test_rdf_output_names_what_it_writes(capsys, rdf_run):
    prog, stream = rdf_run
    code, out, err = ticker(capsys, "run", prog, "--stream", stream, "--format", "ntriples")
    assert (code, err) == (
        0,
        "",
    ) and out == '0: <http://s> <http://p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .\n'
    code, out, err = ticker(capsys, "run", prog, "--stream", stream, "--format", "ntriples", "--rdf-output", "edge")
    assert (code, out, err) == (0, "", "")  # edge(1,1,1) is no RDF triple: nothing to write, as documented
    code, out, err = ticker(capsys, "run", prog, "--stream", stream, "--rdf-output", "edge")
    assert code == 2 and "--rdf-output edge names what --format ntriples or nquads writes" in err


def test_rdf_output_of_a_program_without_triples_warns(capsys, tmp_path):
    prog, stream = tmp_path / "p.lars", tmp_path / "s.stream"
    prog.write_text("q(X) :- a(X).\n")
    stream.write_text("0: a(1)\n")
    code, out, err = ticker(capsys, "run", prog, "--stream", stream, "--format", "ntriples")
    assert (code, out) == (0, "")
    assert "warning: --format ntriples writes the triple/3 atoms, and the program has none" in err


def test_an_engine_given_twice_is_refused(capsys, alarm):
    prog, stream = alarm
    code, _, err = ticker(capsys, "compare", prog, "--stream", stream, "--engines", "clingo,native,clingo")
    assert code == 2 and "engine 'clingo' given twice in --engines" in err


@pytest.mark.parametrize("atom", [("p", 10**5000), ("p", ("f", -(10**5000)))])
def test_a_tuple_atom_with_an_integer_python_cannot_print_is_a_located_stream_error(atom):
    from ticker_py import run
    from ticker_py.errors import StreamError

    with pytest.raises(
        StreamError, match=r"bad tuple atom 'p'\(\.\.\.\) at time 0: an integer with more than \d+ digits"
    ):
        run("q(X) :- p(X).", [(0, [atom])])


def test_a_constant_whose_arithmetic_has_more_digits_than_python_prints_is_a_located_program_error():
    from ticker_py import load_program
    from ticker_py.errors import ProgramError

    big = "1" + "0" * 3000
    with pytest.raises(ProgramError, match=r"<string>:2:12-15: error: .* computes .*, an integer of more than"):
        load_program(f"#const a = {big}.\n#const b = a*a.\nv(b).\nq(X) :- v(X).")


def test_numpy_bools_are_no_integers_anywhere(alarm):
    # numpy 2.2 keeps np.bool_.__index__: one rule (limits.integral) refuses it for every number
    np = pytest.importorskip("numpy")
    pytest.importorskip("matplotlib")
    from ticker_py import run
    from ticker_py.errors import UsageError
    from ticker_py.limits import integral

    assert integral(np.True_) is None and integral(True) is None and integral(np.int64(3)) == 3
    with pytest.raises(UsageError, match="until must be an integer >= 0, not"):
        run(*alarm, until=np.True_)
    with pytest.raises(UsageError, match="start must be an integer >= 0, not"):
        run(*alarm).plot(start=np.True_)
