"""The predicate-and-arguments Parquet layout (columns predicate, a1 .. ak; docs/formats.md).

A random stream written in this layout reads to exactly the records and located errors of the
same stream written in the atom layout;
``ticker gen --parquet-layout args`` writes it and every engine answers alike on both layouts;
rows that are no atom (an argument without a predicate, an argument after an empty one, columns
of other types) are located status-2 errors.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import drain, scaled
from hypothesis import given, settings
from hypothesis import strategies as st
from test_parquet import WRITER

from ticker_py.engines import ENGINE_NAMES
from ticker_py.streams import args_layout
from ticker_py.streams.parquet import read_parquet
from ticker_py.syntax.ground_atoms import parse_ground_atom, parse_ground_term
from ticker_py.values import format_term
from ticker_py.workloads import layout

ROOT = Path(__file__).resolve().parent.parent

PREDICATES = ["p", "q", "r_1", "tempX'"]
TERMS = [
    "a",
    "b0",
    0,
    7,
    -3,
    2**31,
    -(2**40),
    2**63 - 1,
    -(2**63),
    2**64 + 5,
    '"x y"',
    '"a\\"b"',
    '"line\\nnext"',
    '"\\\\"',
    '""',
    ("f", "a"),
    ("g", 1, ("h", '"s"', -2)),
    ("f", ("f", ("f", 0))),
]
#: cells that do not parse, each as one argument or predicate: the atom parser's message for the
#: atom they stand in is the term parser's for the cell alone
BAD_TERMS = ["X", "_y", '"a\\tb"', "not", "in"]
BAD_PREDICATES = ["P", "not", "always"]


@st.composite
def rows(draw):
    """(t, cells): cells None (a heartbeat), or (predicate text, [argument values or texts])."""
    n = draw(st.integers(0, 40))
    t, now, out = [], draw(st.integers(0, 2)), []
    for _ in range(n):
        now += draw(st.sampled_from([0, 0, 0, 1, 2]))
        t.append(now)
    bad = draw(st.integers(0, 3)) == 0
    for i in range(n):
        if draw(st.integers(0, 9)) == 0:
            out.append((t[i], None))
            continue
        predicate = draw(st.sampled_from(PREDICATES + (BAD_PREDICATES if bad else [])))
        args = draw(st.lists(st.sampled_from(TERMS + (BAD_TERMS if bad else [])), max_size=3))
        out.append((t[i], (predicate, args)))
    if n and draw(st.integers(0, 5)) == 0:  # a time that goes back
        i = draw(st.integers(0, n - 1))
        out[i] = (max(0, out[i][0] - 3), out[i][1])
    return out


def _text(term) -> str:
    return term if type(term) is str else format_term(term)


def atom_table(stream: list) -> pa.Table:
    texts = [
        None if cells is None else cells[0] + (f"({','.join(map(_text, cells[1]))})" if cells[1] else "")
        for _, cells in stream
    ]
    return pa.table({"t": pa.array([t for t, _ in stream], pa.int64()), "atom": pa.array(texts, pa.string())})


def args_table(stream: list, draw) -> pa.Table:
    k = max((len(cells[1]) for _, cells in stream if cells is not None), default=0)
    columns = {
        "t": pa.array([t for t, _ in stream], pa.int64()),
        "predicate": pa.array(
            [draw(st.sampled_from([None, "", " "])) if c is None else c[0] for _, c in stream], pa.string()
        ),
    }  # a heartbeat's predicate: null or blank
    for i in range(k):
        values = [c[1][i] if c is not None and len(c[1]) > i else None for _, c in stream]
        ints = all(type(v) is int and -(2**63) <= v < 2**63 for v in values if v is not None)
        if ints and draw(st.booleans()):
            columns[f"a{i + 1}"] = pa.array(
                values,
                draw(st.sampled_from([pa.int64(), pa.int32()]))
                if all(v is None or -(2**31) <= v < 2**31 for v in values)
                else pa.int64(),
            )
        else:
            column = pa.array([None if v is None else _text(v) for v in values], pa.string())
            columns[f"a{i + 1}"] = column.dictionary_encode() if draw(st.booleans()) else column
    names = draw(st.permutations(list(columns)))
    return pa.table([columns[c] for c in names], names=names)


@settings(max_examples=scaled(300, 60), deadline=None)
@given(stream=rows(), options=WRITER, data=st.data())
def test_the_args_layout_reads_as_the_atom_layout(tmp_path_factory, stream, options, data):
    root = tmp_path_factory.mktemp("args")
    atom_path, args_path = root / "atom.parquet", root / "args.parquet"
    pq.write_table(atom_table(stream), atom_path, **options)
    pq.write_table(
        args_table(stream, data.draw), args_path, row_group_size=data.draw(st.sampled_from([5, 1000])), **options
    )
    expected = drain(read_parquet(atom_path, source="s.parquet"))
    assert drain(read_parquet(args_path, source="s.parquet")) == expected


@settings(max_examples=scaled(60, 15), deadline=None)
@given(parts=st.lists(rows(), min_size=1, max_size=3), data=st.data())
def test_a_directory_in_the_args_layout(tmp_path_factory, parts, data):
    """Hive-partitioned files of one schema (the widest arity, the same column types)."""
    root = tmp_path_factory.mktemp("dir")
    start, whole = 0, []
    for part in parts:
        whole += [(t + start, cells) for t, cells in part]
        start = max([t for t, _ in whole], default=start)
    table, at = args_table(whole, data.draw), 0
    for i, part in enumerate(parts):
        folder = root / "stream" / f"block={i}"
        folder.mkdir(parents=True)
        pq.write_table(table.slice(at, len(part)), folder / "part-0.parquet")
        at += len(part)
    pq.write_table(atom_table(whole), root / "atom.parquet")
    expected = drain(read_parquet(root / "atom.parquet"))
    fast = drain(read_parquet(root / "stream", "s"))
    if expected[1] is None and fast[1] is None:
        assert [(t, atoms) for t, atoms, *_ in fast[0]] == [(t, atoms) for t, atoms, *_ in expected[0]]
    else:  # an error: files are ordered by their smallest t, which may differ from the whole's row order
        assert fast[1] is not None and expected[1] is not None


def test_a_predicate_partition_key(tmp_path):
    """A stream partitioned by ``predicate`` (``predicate=p/``): the key is the predicate of its rows."""
    for name, a1 in (("p", ["a", "b"]), ("q", ["c", "d"])):
        folder = tmp_path / "s" / f"predicate={name}"
        folder.mkdir(parents=True)
        pq.write_table(pa.table({"t": [0 if name == "p" else 1] * 2, "a1": a1}), folder / "f.parquet")
    fast = drain(read_parquet(tmp_path / "s", "s"))
    assert [(t, atoms) for t, atoms, *_ in fast[0]] == [(0, (("p", "a"), ("p", "b"))), (1, (("q", "c"), ("q", "d")))]


def test_cells_parse_as_terms():
    """A UTF-8 argument cell is one term of the term parser, whose nesting counts from the
    argument (as in the atom it stands in)."""
    term = args_layout.cell_term
    assert term("abc") == "abc" and term("-12") == -12 and term(" 5 ") == 5 and term(7) == 7
    assert term('"a\\"b"') == '"a\\"b"' and term("f(a,g(1))") == ("f", "a", ("g", 1))
    for bad in ("a b", "a,b", "", "f(", "X", "not"):
        assert type(term(bad)) is not str and term(bad).message
    deep = "f(" * 100 + "a" + ")" * 100
    assert parse_ground_term(deep) == parse_ground_atom(f"p({deep})")[1]
    assert term("f(" + deep + ")").message.endswith("levels deep")
    assert args_layout.cell_predicate(" p ") == "p" and args_layout.cell_predicate(" ") is None
    assert args_layout.cell_predicate("q(a)").message == "a predicate cell holds an atom, not a name"


def _cell_texts():
    name = st.sampled_from(["a", "b0", "f", "not", "X", "g_'"])
    arg = st.one_of(name, st.integers(-20, 20).map(str), st.sampled_from(["007", "-0", " 5", '"s"']))
    space = st.sampled_from(["", "", " "])
    function = st.builds(
        lambda f, args, s1, s2: f"{s1}{f}{s2}({','.join(args)}){s1}",
        name,
        st.lists(arg, min_size=1, max_size=3),
        space,
        space,
    )
    string = st.one_of(st.from_regex(r'"[a-z \\"]{0,6}"', fullmatch=True), st.sampled_from(['"a\\"b"', '"\\n"']))
    return st.one_of(function, string, arg)


@settings(max_examples=scaled(500, 150), deadline=None)
@given(
    values=st.one_of(
        st.lists(_cell_texts(), min_size=1, max_size=8),
        st.lists(st.from_regex(r'"[a-z ]{0,5}"', fullmatch=True), min_size=1, max_size=8),
        st.lists(st.from_regex(r"-?[0-9]{1,25}", fullmatch=True), min_size=1, max_size=8),
        st.lists(st.from_regex(r"[a-g]\((?:[a-c]|-?[0-9]),[a-c]\)", fullmatch=True), min_size=1, max_size=8),
    )
)
def test_argument_cells_convert_as_the_term_parser_parses_them(values):
    """Argument cells of a column (each distinct value once) give exactly what the term parser
    gives for each, or its error."""
    import pyarrow as pa

    from ticker_py.syntax.ground_atoms import GroundSyntaxError

    for column in (pa.array(values), pa.array(values).dictionary_encode()):
        for value, term in zip(values, args_layout._values(column, args_layout.cell_term)):
            try:
                expected = parse_ground_term(value)
            except GroundSyntaxError as e:
                assert term.message == e.message
            else:
                assert term == expected and type(term) is type(expected)


def _errors(tmp_path, table: pa.Table) -> tuple:
    path = tmp_path / "bad.parquet"
    pq.write_table(table, path)
    fast = drain(read_parquet(path, "bad.parquet"))
    return [(t, atoms) for t, atoms, *_ in fast[0]], fast[1]


def test_rows_that_are_no_atom_are_located_errors(tmp_path):
    good = {"t": [0, 1, 1]}
    records, error = _errors(tmp_path, pa.table({**good, "predicate": ["p", None, "q"], "a1": ["a", "b", "c"]}))
    assert records == [(0, (("p", "a"),))]
    assert error == "bad.parquet:2:1-2: error: arguments without a predicate (an empty 'predicate' cell)"
    records, error = _errors(
        tmp_path,
        pa.table({**good, "predicate": ["p", "q", "q"], "a1": ["a", None, "c"], "a2": pa.array([1, 2, 3], pa.int64())}),
    )
    assert records == [(0, (("p", "a", 1),))] and error == "bad.parquet:2:1-2: error: argument a2 after the empty a1"
    records, error = _errors(tmp_path, pa.table({**good, "predicate": ["p", "q", "q"], "a1": ["a", "f(X)", "c"]}))
    assert error == (
        "bad.parquet:2:1-2: error: atom 'q(f(X))': variable 'X' in a stream atom (stream atoms must be ground)"
    )
    records, error = _errors(tmp_path, pa.table({**good, "predicate": ["p", "q(a)", "q"]}))
    assert error == "bad.parquet:2:1-2: error: atom 'q(a)': a predicate cell holds an atom, not a name"
    # a heartbeat: no predicate (null or blank), no argument
    for blank in (None, " ", ""):
        records, error = _errors(tmp_path, pa.table({**good, "predicate": ["p", blank, "q"], "a1": ["a", None, "c"]}))
        assert error is None and records == [(0, (("p", "a"),)), (1, (("q", "c"),))]
        records, error = _errors(tmp_path, pa.table({**good, "predicate": ["p", "q", blank], "a1": ["a", "b", "c"]}))
        assert records == [(0, (("p", "a"),)), (1, (("q", "b"),))]  # the rows of time 1 before the bad one
        assert error.startswith("bad.parquet:3:1-2: error: arguments without")


@pytest.mark.parametrize(
    "columns, message",
    [
        ({"predicate": pa.array([1, 2, 3], pa.int64())}, "column 'predicate' holds int64, not strings"),
        (
            {"predicate": ["p"] * 3, "a1": pa.array([1.5, 2.0, 3.0])},
            "column 'a1' holds double, not integers or strings",
        ),
        ({"predicate": ["p"] * 3, "a1": pa.array([1, 2, 3], pa.uint64())}, None),
    ],
)
def test_column_types(tmp_path, columns, message):
    records, error = _errors(tmp_path, pa.table({"t": [0, 1, 1], **columns}))
    if message is None:  # unsigned integers: pyarrow reads them
        assert error is None and records == [(0, (("p", 1),)), (1, (("p", 2), ("p", 3)))]
    else:
        assert error == f"bad.parquet:1:1-2: error: {message} (mixed schemas?)"


def test_layout_shapes():
    atoms = [("p", "a", 1), ("q",), ("r", 2**63, 3, "x")]
    assert layout.shape(atoms) == (3, (False, True, False))
    assert layout.merge([(1, (True,)), (3, (False, True, True)), (0, ())]) == (3, (False, True, True))
    names = [n for n, _ in layout.schema((3, (False, True, False)))]
    columns = layout.columns(atoms + [("s", ("f", -1), 5)], (3, (False, True, False)))
    assert names == ["predicate", "a1", "a2", "a3"]
    assert [c.to_pylist() for c in columns] == [
        ["p", "q", "r", "s"],
        ["a", None, "9223372036854775808", "f(-1)"],
        [1, None, 3, 5],
        [None, None, "x", None],
    ]


def _ticker(*args, check=True) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "-m", "ticker_py.cli", *map(str, args)], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert not check or done.returncode == 0, done.stderr
    return done


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """cooling (integer arguments) and join (constants) in both layouts, written without Spark."""
    root = tmp_path_factory.mktemp("gen")
    for name in ("cooling", "join"):
        for kind in layout.LAYOUTS:
            _ticker(
                "gen",
                name,
                "--out",
                root / f"{name}-{kind}",
                "--tp",
                12,
                "--window",
                3,
                "--rate",
                5,
                "--format",
                "parquet",
                "--no-spark",
                "--parquet-layout",
                kind,
            )
    return root


@pytest.mark.parametrize("engine", list(ENGINE_NAMES))
@pytest.mark.parametrize("name", ["cooling", "join"])
def test_every_engine_answers_alike_on_both_layouts(generated, engine, name):
    base = generated / f"{name}-atom"
    outputs = [
        _ticker(
            "run",
            base / "program.lars",
            "--stream",
            generated / f"{name}-{kind}" / "stream.parquet",
            "--engine",
            engine,
        ).stdout
        for kind in layout.LAYOUTS
    ]
    text = _ticker("run", base / "program.lars", "--stream", base / "stream.stream", "--engine", engine).stdout
    assert outputs[0] == outputs[1] == text and text.count("\n") == 12


def test_gen_writes_typed_argument_columns(generated):
    files = sorted((generated / "cooling-args" / "stream.parquet").rglob("*.parquet"))
    schema = pq.read_schema(files[0])
    assert schema.names[:4] == ["t", "c", "predicate", "a1"] and str(schema.field("a1").type) == "int64"
    schema = pq.read_schema(sorted((generated / "join-args" / "stream.parquet").rglob("*.parquet"))[0])
    assert [str(schema.field(c).type) for c in ("predicate", "a1", "a2")] == ["string"] * 3


def test_bad_rows_from_the_command_line(tmp_path):
    program = tmp_path / "p.lars"
    program.write_text("r(X) :- q(X).\n")
    for i, table in enumerate(
        [
            pa.table({"t": [0, 1], "predicate": ["q", None], "a1": ["a", "b"]}),
            pa.table({"t": [0, 1], "predicate": ["s", "s"], "a1": ["a", None], "a2": ["x", "y"]}),
            pa.table({"t": [0, 1], "predicate": ["q", "q"], "a1": [1.0, 2.0]}),
        ]
    ):
        path = tmp_path / f"bad{i}.parquet"
        pq.write_table(table, path)
        done = _ticker("run", program, "--stream", path, "--engine", "native", check=False)
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert f"bad{i}.parquet:{1 if i == 2 else 2}:1-2: error: " in done.stderr
