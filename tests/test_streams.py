"""Stream readers and result writers (SPEC §2 and §4)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap
import warnings

import pandas as pd
import pytest
from helpers import scaled
from hypothesis import given, settings
from hypothesis import strategies as st

from ticker_py.errors import StreamError, TickerWarning, UsageError
from ticker_py.stages.output import open_writer
from ticker_py.streams import (
    Model,
    Record,
    Result,
    StreamChecker,
    TimePoint,
    open_stream,
    read_csv,
    read_dataframe,
    read_jsonl,
    read_parquet,
    read_text,
    results_to_dataframe,
    time_points,
)


def collect(records):
    """Drain a reader through the input stage (which refuses a time going back): (records yielded,
    error raised or None)."""
    from ticker_py.api import load_program
    from ticker_py.stages.input import Input

    out = []
    try:
        for r in Input(load_program("")).records(records):
            out.append(r)
    except StreamError as e:
        return out, str(e)
    return out, None


def atoms_by_t(records):
    return [(r.t, r.atoms) for r in records]


# ---------------------------------------------------------------- text


def test_text_reader_full_format():
    text = textwrap.dedent("""\
        % a comment line
        # another
        0: alpha(20), cache(1,3)   % trailing comment

        0: beta ; s("a,b;c % not # a comment")
        2:
        5: f(g(1,h(x)),-3); alpha(20)
        """)
    records = list(read_text(text, "s.stream"))
    assert [(r.t, r.line) for r in records] == [(0, 3), (0, 5), (2, 6), (5, 7)]
    assert records[0].atoms == (("alpha", 20), ("cache", 1, 3))
    assert records[1].atoms == (("beta",), ("s", '"a,b;c % not # a comment"'))
    assert records[2].atoms == ()
    assert records[3].atoms == (("f", ("g", 1, ("h", "x")), -3), ("alpha", 20))
    assert all(r.source == "s.stream" for r in records)
    assert list(time_points(records)) == [
        TimePoint(0, (("alpha", 20), ("cache", 1, 3), ("beta",), ("s", '"a,b;c % not # a comment"'))),
        TimePoint(1, ()),
        TimePoint(2, ()),
        TimePoint(3, ()),
        TimePoint(4, ()),
        TimePoint(5, (("f", ("g", 1, ("h", "x")), -3), ("alpha", 20))),
    ]


def test_text_reader_accepts_lists_and_files():
    assert atoms_by_t(read_text(["1: a\n", "1: a, b\n"])) == [(1, (("a",),)), (1, (("a",), ("b",)))]
    assert list(time_points(read_text(["1: a\n", "1: a, b\n"]))) == [TimePoint(0, ()), TimePoint(1, (("a",), ("b",)))]
    assert atoms_by_t(read_text(io.StringIO("3: x\r\n"))) == [(3, (("x",),))]


def test_text_reader_is_incremental():
    def lines():
        yield "0: a\n"
        yield "1: b\n"
        raise AssertionError("read too far")

    reader = read_text(lines())
    assert next(reader).atoms == (("a",),)
    assert next(reader).atoms == (("b",),)


@pytest.mark.parametrize(
    "bad, expected, times",
    [
        ("2: b\n1: c\n", "s.stream:4:1-2: error: time 1 after time 2", [0, 2]),
        ("2: b, p(X)\n", "s.stream:3:9-10: error: variable 'X' in a stream atom", [0]),
        ("2: b, p(1\n", "s.stream:3:10-11: error: expected ',' or ')', found end of input", [0]),
        ("2: b c\n", "s.stream:3:6-7: error: expected ',' or ';' between atoms, found 'c'", [0]),
        ("-2: b\n", "s.stream:3:1-3: error: negative time -2", [0]),
        ("1.5: b\n", "s.stream:3:1-4: error: time must be a non-negative integer, found '1.5'", [0]),
        ("alpha(1)\n", "s.stream:3:1-2: error: expected 'T: atoms' (a time point, ':', then atoms)", [0]),
        ("2: b,\n", "s.stream:3:6-7: error: expected an atom, found end of input", [0]),
    ],
)
def test_text_reader_errors(bad, expected, times):
    records, error = collect(read_text("0: a\n\n" + bad + "9: z\n", "s.stream"))
    assert error.startswith(expected)
    assert records[0] == Record(0, (("a",),), "s.stream", 1)
    assert [r.t for r in records] == times


def test_text_error_has_caret_excerpt():
    _, error = collect(read_text("0: p(X)\n", "s.stream"))
    assert error.splitlines()[1:] == ["  0: p(X)", "       ^"]


# ---------------------------------------------------------------- JSON Lines


def test_jsonl_reader():
    text = '{"t": 0, "atoms": ["alpha(20)", "cache(1,3)"]}\n\n{"t": 3}\n{"t": 3, "atoms": ["s(\\"x,y\\")"]}\n'
    records = list(read_jsonl(text, "s.jsonl"))
    assert [(r.t, r.atoms, r.line) for r in records] == [
        (0, (("alpha", 20), ("cache", 1, 3)), 1),
        (3, (), 3),
        (3, (("s", '"x,y"'),), 4),
    ]
    assert [p.t for p in time_points(records)] == [0, 1, 2, 3]


@pytest.mark.parametrize(
    "bad, expected",
    [
        ('{"t": 1, "atoms": ["a"]\n', "s.jsonl:2:24-25: error: bad JSON: Expecting ',' delimiter"),
        ('{"t": 0, "atoms": ["b"]}\n', "s.jsonl:2:1-2: error: time 0 after time 1"),
        ('{"t": -1}\n', "s.jsonl:2:1-2: error: negative time -1"),
        ('{"t": 2.0}\n', "s.jsonl:2:1-2: error: time must be a non-negative integer, found 2.0"),
        ('{"t": true}\n', "s.jsonl:2:1-2: error: time must be a non-negative integer, found True"),
        ('{"t": "2", "atoms": ["p"]}\n', "s.jsonl:2:1-2: error: time must be a non-negative integer, found '2'"),
        ('{"t": " 2"}\n', "s.jsonl:2:1-2: error: time must be a non-negative integer, found ' 2'"),
        ('{"atoms": []}\n', 's.jsonl:2:1-2: error: expected an object {"t": T, "atoms": [...]}'),
        ('{"t": 2, "atom": ["a"]}\n', "s.jsonl:2:1-2: error: unknown key 'atom' (expected 't' and 'atoms')"),
        ('{"t": 2, "atoms": "a"}\n', "s.jsonl:2:1-2: error: 'atoms' must be a list of strings"),
        ('{"t": 2, "atoms": ["a", "p(Y)"]}\n', "s.jsonl:2:1-2: error: atom 'p(Y)': variable 'Y'"),
    ],
)
def test_jsonl_errors(bad, expected):
    records, error = collect(read_jsonl('{"t": 1, "atoms": ["a"]}\n' + bad, "s.jsonl"))
    assert error.startswith(expected)
    assert atoms_by_t(records) == [(1, (("a",),))]


# ---------------------------------------------------------------- tables


def test_csv_reader(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text('t,atom\n0,"p(a,1)"\n0,q\n2,\n4,"s(""x,y"")"\n4,r\n')
    records = list(read_csv(path))
    assert [(r.t, r.atoms, r.line, r.source) for r in records] == [
        (0, (("p", "a", 1), ("q",)), 2, str(path)),
        (2, (), 4, str(path)),
        (4, (("s", '"x,y"'), ("r",)), 5, str(path)),
    ]


def test_csv_order_column_sorts_within_time_point(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("seq,atom,t\n2,b,0\n1,a,0\n3,c,1\n")
    assert atoms_by_t(read_csv(path)) == [(0, (("a",), ("b",))), (1, (("c",),))]


@pytest.mark.parametrize(
    "body, expected",
    [
        ("t,atom\n0,a\n1,p(X\n2,c\n", ":3:1-2: error: atom 'p(X': "),
        ("t,atom\n0,a\n1,b\n0,c\n", ":4:1-2: error: time 0 after time 1"),
        ("t,atom\n0,a\n1,b\n-1,c\n", ":4:1-2: error: negative time -1"),
        ("t,atom\n0,a\n1,b\nx,c\n", ":4:1-2: error: time must be a non-negative integer, found 'x'"),
        ("t,atom\n0,a\n1,b,7\n", ":3:1-2: error: expected 2 fields, found 3"),
        ("t,c,atom\n0,1,a\n1,,b\n", ":3:1-2: error: column 'c' must be a non-negative integer, found ''"),
    ],
)
def test_csv_errors(tmp_path, body, expected):
    path = tmp_path / "s.csv"
    path.write_text(body)
    records, error = collect(read_csv(path))
    assert error.startswith(str(path) + expected)
    assert records[0] == Record(0, (("a",),), str(path), 2)


def test_csv_missing_column(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("time,atom\n0,a\n")
    records, error = collect(read_csv(path))
    assert records == []
    assert error == f"{path}:1:1-2: error: missing column 't' (columns: time, atom)"


def test_dataframe_reader_sorts_by_t_and_order_column():
    df = pd.DataFrame({"t": [1, 0, 0, 3], "atom": ["c", "b", "a", None], "c": [3, 2, 1, 4]})
    records = list(read_dataframe(df))
    assert [(r.t, r.atoms, r.line, r.source) for r in records] == [
        (0, (("a",), ("b",)), 3, "<DataFrame>"),
        (1, (("c",),), 1, "<DataFrame>"),
        (3, (), 4, "<DataFrame>"),
    ]


def test_dataframe_reader_without_order_column_keeps_row_order():
    df = pd.DataFrame({"t": [0, 0, 2], "atom": ["b", "a", 'p(f(1),"s")']})
    assert atoms_by_t(read_dataframe(df)) == [(0, (("b",), ("a",))), (2, (("p", ("f", 1), '"s"'),))]
    records, error = collect(read_dataframe(pd.DataFrame({"t": [0, 2, 1], "atom": ["a", "b", "c"]})))
    assert error == "<DataFrame>:3:1-2: error: time 1 after time 2"
    assert atoms_by_t(records) == [(0, (("a",),)), (2, (("b",),))]


def test_dataframe_errors_yield_partial_time_point_first():
    df = pd.DataFrame({"t": [0, 1, 1], "atom": ["a", "b", "bad("]})
    records, error = collect(read_dataframe(df, "frame"))
    assert error.startswith("frame:3:1-2: error: atom 'bad(': expected a term")
    assert atoms_by_t(records) == [(0, (("a",),)), (1, (("b",),))]
    records, error = collect(read_dataframe(pd.DataFrame({"t": [0], "x": ["a"]})))
    assert error == "<DataFrame>:1:1-2: error: missing column 'atom' (columns: t, x)"


def test_parquet_round_trip(tmp_path):
    path = tmp_path / "s.parquet"
    df = pd.DataFrame({"t": [0, 0, 1, 4, 4], "atom": ["b", "a", "p(a,1)", None, 'q("x")'], "order": [2, 1, 3, 4, 5]})
    df.to_parquet(path, row_group_size=2)
    records = list(read_parquet(path, batch_size=2))
    assert [(r.t, r.atoms, r.line, r.source) for r in records] == [
        (0, (("a",), ("b",)), 1, str(path)),
        (1, (("p", "a", 1),), 3, str(path)),
        (4, (("q", '"x"'),), 4, str(path)),
    ]
    assert list(time_points(records))[2:] == [TimePoint(2, ()), TimePoint(3, ()), TimePoint(4, (("q", '"x"'),))]


def test_parquet_partitioned_directory(tmp_path):
    root = tmp_path / "stream"
    df = pd.DataFrame({"t": [0, 1, 10, 11, 2], "atom": ["a", "b", "e", "f", "c"], "bucket": [0, 0, 10, 10, 2]})
    df.to_parquet(root, partition_cols=["bucket"])  # path order: bucket=0, bucket=10, bucket=2
    records = list(open_stream(root))
    assert atoms_by_t(records) == [(0, (("a",),)), (1, (("b",),)), (2, (("c",),)), (10, (("e",),)), (11, (("f",),))]
    assert "bucket=2" in records[2].source and records[2].line == 1


def test_parquet_partitioned_by_t(tmp_path):
    root = tmp_path / "by_t"
    pd.DataFrame({"t": [0, 12, 3], "atom": ["a", "b", "c"]}).to_parquet(root, partition_cols=["t"])
    assert atoms_by_t(read_parquet(root)) == [(0, (("a",),)), (3, (("c",),)), (12, (("b",),))]


def test_parquet_errors(tmp_path):
    path = tmp_path / "bad.parquet"
    pd.DataFrame({"t": [0, 1, 0], "atom": ["a", "b", "c"]}).to_parquet(path)
    records, error = collect(read_parquet(path))
    assert error == f"{path}:3:1-2: error: time 0 after time 1"
    assert atoms_by_t(records) == [(0, (("a",),)), (1, (("b",),))]
    path = tmp_path / "cols.parquet"
    pd.DataFrame({"t": [0]}).to_parquet(path)
    assert collect(read_parquet(path))[1] == f"{path}:1:1-2: error: missing column 'atom' (columns: t)"


# ---------------------------------------------------------------- open_stream


def test_open_stream_dispatch(tmp_path):
    for name, content in [
        ("a.stream", "1: x\n"),
        ("a.txt", "1: x\n"),
        ("a.data", "1: x\n"),
        ("a.jsonl", '{"t": 1, "atoms": ["x"]}\n'),
        ("a.csv", "t,atom\n1,x\n"),
    ]:
        path = tmp_path / name
        path.write_text(content)
        assert [(r.t, r.atoms, r.source) for r in open_stream(path)] == [(1, (("x",),), str(path))]
    assert next(open_stream(tmp_path / "a.stream", source="named")).source == "named"


def test_open_stream_missing_file(tmp_path):
    with pytest.raises(UsageError, match="stream file '.*nope.stream' does not exist"):
        open_stream(tmp_path / "nope.stream")


def test_open_stream_stdin_is_live():
    """A record is yielded as soon as its line arrives on a pipe, before EOF."""
    code = (
        "import sys\nfrom ticker_py.streams import open_stream\n"
        "for r in open_stream('-'):\n    print(r.t, r.atoms, r.source, flush=True)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        proc.stdin.write("4: a(1)\n")
        proc.stdin.flush()
        assert proc.stdout.readline() == "4 (('a', 1),) <stdin>\n"
        proc.stdin.write("5: b\n")
        proc.stdin.close()
        assert proc.stdout.read() == "5 (('b',),) <stdin>\n"
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


# ---------------------------------------------------------------- StreamChecker


def test_stream_checker():
    checker = StreamChecker({"alpha": 1, "high": 0}, {"high"})
    good = Record(0, (("alpha", 20), ("cache", 1, 3)), "s.stream", 1)
    assert checker.check(good) is good
    with pytest.raises(StreamError) as e:
        checker.check(Record(1, (("high",),), "s.stream", 2))
    assert str(e.value) == "s.stream:2:1-2: error: intensional predicate 'high/0' in the stream"
    # a predicate is a name and an arity: alpha/2 is not the program's alpha/1 (a warning, once),
    # cache/1 is not the stream's cache/2, high/1 is not the intensional high/0
    with pytest.warns(TickerWarning) as caught:
        for line in (3, 4):
            checker.check(Record(1, (("alpha", 1, 2), ("cache", 1), ("high", 1)), "s.stream", line))
    assert [str(w.message) for w in caught] == [
        "s.stream:3:1-2: warning: 'alpha/2' in the stream, but the program uses alpha/1\n"
        "  note: no rule reads alpha/2: a predicate is a name and an arity",
        "s.stream:3:1-2: warning: 'high/1' in the stream, but the program uses high/0\n"
        "  note: no rule reads high/1: a predicate is a name and an arity",
    ]
    assert checker.seen() == {("alpha", 1), ("alpha", 2), ("cache", 1), ("cache", 2), ("high", 1)}


def _checked_atom_by_atom(program: dict, intensional: set, records: list) -> list:
    """What the stream checks must say, atom by atom: the index of the first bad record, or None."""
    for i, rec in enumerate(records):
        for name, *args in rec:
            if name in intensional and program[name] == len(args):
                return [i]
    return [None]


@settings(max_examples=scaled(200, 60), deadline=None)
@given(st.lists(st.lists(st.tuples(st.sampled_from(["p", "q", "r", "h"]), st.integers(0, 2)), max_size=4), max_size=6))
def test_stream_checker_equals_atom_by_atom_checks(shapes):
    """The checks by (predicate, arity) pairs (from the distinct names when all atoms have one length)
    refuse exactly the first record that atom-by-atom checks refuse."""
    records = [tuple((name, *["a"] * arity) for name, arity in rec) for rec in shapes]
    checker = StreamChecker({"p": 1, "h": 0}, {"h"})
    outcome = [None]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TickerWarning)  # p/0, p/2, h/1, h/2: another predicate
        for i, atoms in enumerate(records):
            try:
                checker.check(Record(i, atoms, "s", i + 1))
            except StreamError:
                outcome = [i]
                break
    assert outcome == _checked_atom_by_atom({"p": 1, "h": 0}, {"h"}, records)


# ---------------------------------------------------------------- writers

MA = Model(frozenset({("b", "y"), ("a", 1)}), frozenset({(("a", "y"), 5), (("z",), 10)}))
MB = Model(frozenset({("c", "y")}))
MB_HIDDEN_PIN = Model(frozenset({("c", "y")}), frozenset({(("d",), 2)}))
EMPTY = Model(frozenset())
RESULTS = [Result(7, 3, (MB, MA, MB_HIDDEN_PIN)), Result(8, 3, (EMPTY,)), Result(9, 4, ())]


def written(fmt, results=RESULTS, **options):
    out = io.StringIO()
    writer = open_writer(fmt, out, **options)
    for r in results:
        writer.write(r)
    writer.close({"time_points": 10, "atoms": 4, "seconds": 0.12345})
    return out.getvalue()


def test_jsonl_writer():
    assert written("jsonl") == (
        '{"t": 7, "c": 3, "models": [["a(1)", "b(y)"], ["c(y)"]]}\n'
        '{"t": 8, "c": 3, "models": [[]]}\n'
        '{"t": 9, "c": 4, "models": []}\n'
    )


def test_jsonl_writer_show_at():
    lines = [json.loads(line) for line in written("jsonl", show_at=True).splitlines()]
    assert lines[0] == {
        "t": 7,
        "c": 3,
        "models": [["a(1)", "b(y)"], ["c(y)"], ["c(y)"]],
        "at": [["a(y) at 5", "z at 10"], [], ["d at 2"]],
    }
    assert lines[1:] == [{"t": 8, "c": 3, "models": [[]], "at": [[]]}, {"t": 9, "c": 4, "models": [], "at": []}]


def test_text_writer():
    assert written("text") == "t=7 c=3: {a(1), b(y)} {c(y)}\nt=8 c=3: {}\nt=9 c=4: no answer stream\n"
    assert written("text", show_at=True).splitlines()[0] == (
        "t=7 c=3: {a(1), b(y), a(y) at 5, z at 10} {c(y)} {c(y), d at 2}"
    )


def test_csv_writer():
    assert written("csv") == ("t,c,model,atom\n7,3,0,a(1)\n7,3,0,b(y)\n7,3,1,c(y)\n8,3,0,\n9,4,,\n")
    assert (
        written("csv", [Result(1, 1, (Model(frozenset({("p", "a", 1)}), frozenset({(("q",), 3)})),))], show_at=True)
        == 't,c,model,atom\n1,1,0,"p(a,1)"\n1,1,0,q at 3\n'
    )


def test_changes_writer():
    results = [
        Result(0, 1, (Model(frozenset({("b", "x"), ("k",)})),)),
        Result(1, 2, (Model(frozenset({("b", "z"), ("k",)})),)),
        Result(2, 2, (Model(frozenset({("b", "z"), ("k",)})),)),
        Result(3, 2, ()),
        Result(4, 3, (Model(frozenset({("k",)}), frozenset({(("a", "y"), 5)})),)),
    ]
    assert written("jsonl", results, changes=True) == (
        '{"t": 0, "c": 1, "added": ["b(x)", "k"], "removed": []}\n'
        '{"t": 1, "c": 2, "added": ["b(z)"], "removed": ["b(x)"]}\n'
        '{"t": 2, "c": 2, "added": [], "removed": []}\n'
        '{"t": 3, "c": 2, "added": [], "removed": ["b(z)", "k"], "models": 0}\n'
        '{"t": 4, "c": 3, "added": ["k"], "removed": []}\n'
    )
    assert written("changes", results[-1:], show_at=True) == (
        '{"t": 4, "c": 3, "added": ["k", "a(y) at 5"], "removed": []}\n'
    )


def test_changes_writer_refuses_several_models():
    with pytest.raises(UsageError, match="--changes needs a single answer stream; use --models 1"):
        written("changes", [Result(0, 0, (MA, MB))])
    # models that print the same count once
    assert written("changes", [Result(0, 0, (MB, MB_HIDDEN_PIN))]) == (
        '{"t": 0, "c": 0, "added": ["c(y)"], "removed": []}\n'
    )


def test_none_writer_prints_only_summary():
    assert written("none") == "time points: 10, atoms: 4, evaluation: 0.123 s\n"
    assert written("none", changes=True) == "time points: 10, atoms: 4, evaluation: 0.123 s\n"


def test_open_writer_errors():
    with pytest.raises(
        UsageError, match=r"unknown output format 'xml' \(known: jsonl, text, csv, changes, none, ntriples, nquads\)"
    ):
        open_writer("xml", io.StringIO())
    with pytest.raises(UsageError, match="--changes .* --format csv"):
        open_writer("csv", io.StringIO(), changes=True)


def test_open_writer_refuses_rdf_output_of_several_answer_streams():
    for options in ({"models": 0}, {"changes": True}):
        with pytest.raises(UsageError, match="--format ntriples writes a single answer stream"):
            open_writer("ntriples", io.StringIO(), **options)


@pytest.mark.parametrize(
    "fmt,options,wanted",
    [
        ("jsonl", {}, True),  # the whole-model formats of one answer stream keep it from the changes
        ("text", {}, True),
        ("csv", {}, True),
        ("jsonl", {"show_at": True}, False),  # pins printed: whole models
        ("jsonl", {"models": 0}, False),
        ("text", {"models": 0, "factorize": True}, False),
        ("jsonl", {"changes": True}, True),
        ("none", {"models": 0, "show_at": True}, True),
        ("ntriples", {}, False),
    ],
)
def test_the_writer_says_whether_the_engine_sends_only_changes(fmt, options, wanted):
    from ticker_py.stages.output import wants_changes

    writer = open_writer(fmt, io.StringIO(), **options)
    assert writer.wants_changes is wanted and wants_changes(fmt, **options) is wanted


def test_open_writer_prints_factorized_results_as_products_only_with_every_answer_stream():
    from ticker_py.streams.factorized import Factorized, factorized_result

    f = Factorized.build(Model(frozenset()), [[Model(frozenset({("a",)})), Model(frozenset({("b",)}))]])
    printed = {}
    for models in (0, 2):
        out = io.StringIO()
        open_writer("text", out, models=models, factorize=True).write(factorized_result(0, 1, f, models))
        printed[models] = out.getvalue()
    assert printed == {0: "t=0 c=1: 2 answer streams: {} * ({a} | {b})\n", 2: "t=0 c=1: {a} {b}\n"}


def test_writer_flushes_each_result():
    class Out(io.StringIO):
        flushes = 0

        def flush(self):
            Out.flushes += 1

    out = Out()
    writer = open_writer("jsonl", out)
    writer.write(RESULTS[1])
    assert Out.flushes == 1 and out.getvalue() == '{"t": 8, "c": 3, "models": [[]]}\n'


def test_results_to_dataframe():
    df = results_to_dataframe(RESULTS)
    assert list(df.columns) == ["t", "c", "model", "atom"]
    assert [str(d) for d in df.dtypes] == ["int64", "int64", "Int64", "string"]
    assert df.astype(object).where(df.notna(), None).values.tolist() == [
        [7, 3, 0, "a(1)"],
        [7, 3, 0, "b(y)"],
        [7, 3, 1, "c(y)"],
        [8, 3, 0, None],
        [9, 4, None, None],
    ]
    assert results_to_dataframe([], show_at=True).empty
    shown = results_to_dataframe([RESULTS[0]], show_at=True)
    assert shown["atom"].tolist() == ["a(1)", "b(y)", "a(y) at 5", "z at 10", "c(y)", "c(y)", "d at 2"]
    assert shown["model"].tolist() == [0, 0, 0, 0, 1, 2, 2]


@settings(max_examples=scaled(300, 60), deadline=None)
@given(
    st.lists(
        st.tuples(
            st.frozensets(st.sampled_from([("a",), ("b",), ("c", 1), ("d", "x")])),
            st.frozensets(st.tuples(st.sampled_from([("a",), ("p", 2)]), st.integers(0, 3))),
        ),
        max_size=8,
    ),
    st.booleans(),
)
def test_answer_state_follows_changes_as_the_models(answers, split):
    """:class:`AnswerState` applies the changes between consecutive answers (a plain pair, or the
    native engine's pair that carries the atoms apart) to the answer itself, and says what changed
    as :meth:`AnswerState.diff` does; without pins kept, only the atoms."""
    from ticker_py.engines.native.output import Delta
    from ticker_py.streams.answers import AnswerState

    kept, atoms_only = AnswerState(), AnswerState(pins=False)
    old = Model(frozenset())
    for atoms, pins in answers:
        new = Model(atoms, frozenset(pins))
        diff = AnswerState.diff(old, new)
        added, removed, pins_added, pins_removed = diff
        changes = (
            Delta(added, set(pins_added), removed, set(pins_removed))
            if split
            else (added | pins_added, removed | pins_removed)
        )
        assert kept.apply(changes) == diff
        assert atoms_only.apply(changes)[:2] == diff[:2]
        assert kept.model() == new and atoms_only.model() == Model(new.atoms) and len(kept) == len(new.atoms)
        old = new
    kept.set((old, old))  # several answer streams (or none): the state is empty
    assert kept.model() == Model(frozenset()) and kept.apply((frozenset({("a",)}), frozenset()))[0] == {("a",)}
