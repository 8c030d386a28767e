"""Parquet streams (ticker_py/streams/parquet.py) read with pyarrow.

Random tables written under many writer options read to what the row-by-row grouping of the same
rows gives (records, sources, lines and errors); directories, hive partition keys and files
ordered by their statistics; files of other encodings, codecs and column types; corrupt,
truncated and hostile files are located errors (status 2, no traceback, no hang).
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

from ticker_py.streams.parquet import read_parquet
from ticker_py.streams.tables import ORDER_COLUMNS, table_records

ROOT = Path(__file__).resolve().parent.parent

ATOMS = [
    "p(a)",
    "p(b)",
    "q(a,b)",
    "q(1,-2)",
    'p("x y")',
    "p(f(a))",
    " p(c) ",
    "r",
    "",
    "  ",
    None,
    "p(",
    "not",
    "p(a), q(b)",
    "P(a)",
    "p(a,b)",
    "s(12345678901234567890)",
]

#: writer options: codecs, dictionary or not, page sizes, page versions, statistics
WRITER = st.fixed_dictionaries(
    {
        "compression": st.sampled_from(["none", "snappy", "zstd", "gzip", "lz4", "brotli"]),
        "use_dictionary": st.booleans(),
        "dictionary_pagesize_limit": st.sampled_from([1, 64, 1 << 20]),
        "data_page_size": st.sampled_from([1, 100, 1 << 20]),
        "data_page_version": st.sampled_from(["1.0", "2.0"]),
        "write_statistics": st.booleans(),
    }
)


@st.composite
def tables(draw, good: bool | None = None):
    n = draw(st.integers(0, 60))
    steps = draw(st.lists(st.sampled_from([0, 0, 0, 1, 2, -1]), min_size=n, max_size=n))
    t, now = [], draw(st.integers(0, 3))
    for s in steps:
        now += s if draw(st.integers(0, 9)) else 0
        t.append(now)
    good = draw(st.booleans()) if good is None else good  # mostly valid streams: records are compared too
    atoms = draw(st.lists(st.sampled_from(ATOMS[:8] if good else ATOMS), min_size=n, max_size=n))
    if good:
        t = sorted(max(0, x) for x in t)
    if n and not good and draw(st.booleans()):
        t[draw(st.integers(0, n - 1))] = None
    columns = {
        "t": pa.array(t, draw(st.sampled_from([pa.int32(), pa.int64(), pa.int16()]))),
        "atom": pa.array(atoms, draw(st.sampled_from([pa.string(), pa.large_string()]))),
    }
    if draw(st.booleans()):  # stored as an Arrow dictionary type (a pandas category), read back as one
        columns["atom"] = columns["atom"].dictionary_encode()
    order = draw(st.sampled_from([None, "c", "seq"]))
    if order:
        keys = draw(st.lists(st.integers(-1 if not good else 0, 5), min_size=n, max_size=n))
        if n and not good and draw(st.booleans()):
            keys[draw(st.integers(0, n - 1))] = None
        columns[order] = pa.array(keys, pa.int64())
    if draw(st.booleans()):
        columns["other"] = pa.array([1.5] * n, pa.float64())
    names = draw(st.permutations(list(columns)))
    required = draw(st.booleans())  # columns without nulls written as REQUIRED (no definition levels)
    schema = pa.schema(
        [pa.field(k, columns[k].type, nullable=not required or columns[k].null_count > 0) for k in names]
    )
    return pa.table([columns[k] for k in names], schema=schema)


def _rows(paths: list) -> list:
    """The rows ``(source, line, t, atom, key)`` of Parquet files, in order, read whole by pyarrow."""
    rows = []
    for source, path in paths:
        table = pq.read_table(path)
        order = next((c for c in ORDER_COLUMNS if c in table.column_names), None)
        columns = [table.column(c).to_pylist() for c in ("t", "atom")]
        keys = table.column(order).to_pylist() if order else [None] * table.num_rows
        rows += [(source, i, t, a, k) for i, (t, a, k) in enumerate(zip(*columns, keys), 1)]
    return rows


def _reference(paths: list, order) -> tuple:
    """The row-by-row grouping of the files' rows: what reading them must give."""
    return drain(table_records(_rows(paths), order))


@settings(max_examples=scaled(300, 80), deadline=None)
@given(
    table=tables(),
    options=WRITER,
    row_group_size=st.sampled_from([3, 10, 1000]),
    batch_size=st.sampled_from([4, 65536]),
)
def test_batches_read_as_the_rows_group(tmp_path_factory, table, options, row_group_size, batch_size):
    path = tmp_path_factory.mktemp("pq") / "s.parquet"
    pq.write_table(table, path, row_group_size=row_group_size, **options)
    order = next((c for c in ORDER_COLUMNS if c in table.column_names), None)
    assert drain(read_parquet(path, batch_size=batch_size)) == _reference([(str(path), path)], order)


@settings(max_examples=scaled(60, 20), deadline=None)
@given(parts=st.lists(tables(good=True), min_size=1, max_size=4), options=WRITER, hive=st.booleans())
def test_directories_of_several_files(tmp_path_factory, parts, options, hive):
    """Files of one schema in time order (each part's times after the one before): read one after
    another, each file's rows located in that file; Spark's marker files are skipped."""
    root = tmp_path_factory.mktemp("dir") / "stream"
    paths, start = [], 0
    for i, table in enumerate(parts):
        table = table.select([c for c in table.column_names if c in ("t", "atom")])
        t = pa.array([x + start for x in table.column("t").to_pylist()], pa.int64())
        start = max(t.to_pylist(), default=start)
        table = pa.table({"t": t, "atom": table.column("atom").cast(pa.string())})
        path = root / (f"block={i}" if hive else f"part{i}") / "f.parquet"
        path.parent.mkdir(parents=True)
        pq.write_table(table, path, row_group_size=7, **options)
        paths.append((str(path), path))
    (root / "_SUCCESS").write_text("")
    (root / ".f.parquet.crc").write_text("")
    assert drain(read_parquet(root)) == _reference(paths, None)


def test_hive_partition_keys_stand_for_columns(tmp_path):
    root = tmp_path / "stream"
    for t in (3, 1, 2):
        folder = root / f"t={t}"
        folder.mkdir(parents=True)
        pq.write_table(pa.table({"atom": [f"p({t})", "q(a)"], "c": [2, 1]}), folder / "x.parquet")
    records, error = drain(read_parquet(root))
    assert error is None and [r[0] for r in records] == [1, 2, 3] and records[0][1] == (("q", "a"), ("p", 1))


def test_files_are_ordered_by_their_statistics(tmp_path):
    root = tmp_path / "stream"
    root.mkdir()
    for name, t in (("a", 5), ("b", 0), ("c", 2)):
        pq.write_table(pa.table({"t": [t, t + 1], "atom": ["p(a)", "p(b)"]}), root / f"{name}.parquet")
    records, error = drain(read_parquet(root))
    assert error is None and [r[0] for r in records] == [0, 1, 2, 3, 5, 6]
    assert records[0][2:] == (str(root / "b.parquet"), 1)


@pytest.mark.parametrize(
    "case, error",
    [
        ("delta", None),
        ("brotli", None),
        ("nested", None),
        ("uint", None),
        ("binary", "column 'atom' holds binary, not strings"),
        ("timestamp", "column 't' holds timestamp[ms], not integers"),
        ("string_t", "column 't' holds string, not integers"),
        ("duration", "column 't' holds duration[s], not integers"),
    ],
)
def test_other_encodings_codecs_and_types(tmp_path, case, error):
    path = tmp_path / "s.parquet"
    t, atoms = pa.array([0, 0, 1], pa.int64()), pa.array(["p(a)", "p(b)", "p(c)"])
    options = {}
    if case == "delta":
        options = {"use_dictionary": False, "column_encoding": {"t": "DELTA_BINARY_PACKED"}}
    elif case == "brotli":
        options = {"compression": case}
    table = pa.table({"t": t, "atom": atoms})
    if case == "nested":
        table = table.append_column("c2", pa.array([[1], [2], [3]]))
    elif case == "binary":
        table = pa.table({"t": t, "atom": pa.array([b"p(a)", b"p(b)", b"p(c)"])})
    elif case == "uint":
        table = pa.table({"t": pa.array([0, 0, 1], pa.uint32()), "atom": atoms})
    elif case == "timestamp":
        table = pa.table({"t": pa.array([0, 0, 1], pa.timestamp("s")), "atom": atoms})
    elif case == "string_t":
        table = pa.table({"t": ["0", "0", "1"], "atom": atoms})
    elif case == "duration":
        table = pa.table({"t": t.cast(pa.duration("s")), "atom": atoms})
    pq.write_table(table, path, **options)
    records, found = drain(read_parquet(path))
    if error is None:
        assert found is None and [r[:2] for r in records] == [(0, (("p", "a"), ("p", "b"))), (1, (("p", "c"),))]
    else:
        assert records == [] and found == f"{path}:1:1-2: error: {error} (mixed schemas?)"


def test_a_corrupt_page_is_located_at_its_batch(tmp_path):
    path = tmp_path / "s.parquet"
    table = pa.table({"t": list(range(2000)), "atom": [f"p({i})" for i in range(2000)]})
    pq.write_table(table, path, compression="snappy", data_page_size=512, use_dictionary=False, row_group_size=500)
    data = bytearray(path.read_bytes())
    meta = pq.ParquetFile(path).metadata.row_group(2).column(1)
    at = meta.data_page_offset + 40
    data[at : at + 30] = b"\xff" * 30
    path.write_bytes(bytes(data))
    records, error = drain(read_parquet(path, batch_size=128))
    # pyarrow's batches span row groups: the batch of rows 897-1024 reaches into the corrupt one
    assert error.startswith(f"{path}:897:1-2: error: corrupt Parquet data (")
    assert [r[0] for r in records] == list(range(896))


def _hostile() -> bytes:
    """21 bytes: ``PAR1``, a footer whose Thrift compact map header claims 2**40 bool entries, its
    length, ``PAR1``."""
    size, varint = 2**40, bytearray()
    while size >= 0x80:
        varint.append(size & 0x7F | 0x80)
        size >>= 7
    footer = b"\x1b" + bytes(varint) + bytes([size]) + b"\x11\x00"
    return b"PAR1" + footer + len(footer).to_bytes(4, "little") + b"PAR1"


def test_a_hostile_footer_is_a_located_error_at_once(tmp_path):
    path = tmp_path / "x.parquet"
    path.write_bytes(_hostile())
    assert len(path.read_bytes()) == 21
    records, error = drain(read_parquet(path))
    assert records == [] and error.startswith(f"{path}:1:1-2: error: not a readable Parquet file (")
    program = tmp_path / "p.lars"
    program.write_text("q(X) :- p(X).\n")
    done = subprocess.run(  # a decoder that believed the header would never end: the timeout fails it
        [sys.executable, "-m", "ticker_py.cli", "run", str(program), "--stream", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert done.returncode == 2 and done.stderr.startswith(f"{path}:1:1") and "Traceback" not in done.stderr


def test_a_repeated_time_point_is_the_same_tuple(tmp_path):
    """Time points that repeat the one before (box's atoms at every time point) come as the same
    tuple, as from a text stream, so that the checker and the driver skip them."""
    path = tmp_path / "s.parquet"
    pq.write_table(
        pa.table(
            {"t": [0, 0, 1, 1, 2, 2], "c": [1, 2, 3, 4, 6, 5], "atom": ["p(a)", "p(b)", "p(a)", "p(b)", "p(a)", "p(b)"]}
        ),
        path,
    )
    records = list(read_parquet(path))
    assert [r.atoms for r in records] == [(("p", "a"), ("p", "b"))] * 2 + [(("p", "b"), ("p", "a"))]
    assert records[0].atoms is records[1].atoms and records[1].atoms is not records[2].atoms


def test_a_spark_written_file():
    """A ``ticker gen diamond --tp 6 --window 3 --rate 20 --format parquet`` block written by Spark 4
    (parquet-mr, PLAIN_DICTIONARY pages)."""
    path = ROOT / "tests" / "fixtures" / "spark-diamond.parquet"
    assert pq.ParquetFile(path).metadata.created_by.startswith("parquet-mr")
    records, error = drain(read_parquet(path))
    assert error is None and drain(read_parquet(path)) == _reference([(str(path), path)], "c")
    assert [r[0] for r in records] == list(range(6)) and sum(len(r[1]) for r in records) == 120


@pytest.mark.parametrize("options", [{}, {"use_dictionary": False}, {"compression": "brotli"}])
def test_an_atom_cell_that_is_not_utf8_is_a_located_error_after_the_rows_before_it(tmp_path, options):
    """Bytes that are not UTF-8 in the atom column (pyarrow writes and reads them, and fails only
    when it makes a Python string): the time points before the cell are read, then a located
    error; from the command line status 2 and no traceback."""
    cells = pa.array([b"p(a)", b"p(b)", b"q(c)", b"q(\xff)", b"p(d)"], pa.binary()).view(pa.string())
    path = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"t": pa.array([0, 0, 1, 2, 2], pa.int64()), "atom": cells}), path, **options)
    records, error = drain(read_parquet(path))
    assert [(t, atoms) for t, atoms, *_ in records] == [(0, (("p", "a"), ("p", "b"))), (1, (("q", "c"),))]
    assert error == f"{path}:4:1-2: error: an atom cell that is not valid UTF-8"
    program = tmp_path / "p.lars"
    program.write_text("r(X) :- q(X).\n")
    done = subprocess.run(
        [sys.executable, "-m", "ticker_py.cli", "run", str(program), "--stream", str(path), "--engine", "native"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr


def test_small_batches_of_a_large_dictionary(tmp_path):
    """Small batches of a file with a large dictionary read as the rows group."""
    path = tmp_path / "s.parquet"
    atoms = [f"p({(i * 7919) % 3000})" if i % 5 else None for i in range(3000)]
    pq.write_table(
        pa.table({"t": [i // 3 for i in range(3000)], "atom": atoms}), path, dictionary_pagesize_limit=1 << 20
    )
    assert drain(read_parquet(path, batch_size=7)) == _reference([(str(path), path)], None)


@pytest.mark.parametrize("use_dictionary", [True, False])
def test_each_distinct_atom_text_is_converted_once(tmp_path, monkeypatch, use_dictionary):
    """Recurring atom texts are converted once per file, whether the file stores a dictionary or not
    (pyarrow then hands each batch a dictionary grown from the previous one), and map to their rows."""
    from ticker_py.streams.tables import Grouper

    converted = []
    convert = Grouper.convert
    monkeypatch.setattr(Grouper, "convert", lambda self, texts: (converted.extend(texts), convert(self, texts))[1])
    path = tmp_path / "s.parquet"
    atoms = [f"p(a{i % 300},b)" if i % 11 else None for i in range(20_000)]
    pq.write_table(
        pa.table({"t": [i // 100 for i in range(20_000)], "atom": atoms}), path, use_dictionary=use_dictionary
    )
    assert drain(read_parquet(path, batch_size=1000)) == _reference([(str(path), path)], None)
    assert sorted(converted) == sorted({a for a in atoms if a is not None})


def test_a_dictionary_that_outgrows_the_mirror_is_decoded_batch_by_batch(tmp_path, monkeypatch):
    """A column stored without a dictionary whose first texts recur and later ones do not: once
    pyarrow's dictionary exceeds what the reader keeps, batches are decoded as they come, and the
    rows still group as they are, a bad cell and blank ones among them."""
    from ticker_py.streams import parquet

    monkeypatch.setattr(parquet, "MIRRORED", 500)
    path = tmp_path / "s.parquet"
    atoms = [f"p(a{i % 7})" for i in range(5000)] + [f"q(b{i})" if i % 13 else None for i in range(5000)]
    atoms[7777] = "q(X)"
    pq.write_table(pa.table({"t": [i // 50 for i in range(10_000)], "atom": atoms}), path, use_dictionary=False)
    records, error = drain(read_parquet(path, batch_size=300))
    assert (records, str(error)) == (lambda r: (r[0], str(r[1])))(_reference([(str(path), path)], None))
    assert len(records) == 7777 // 50 + 1 and ":7778:" in str(error)  # the last: the rows before the bad one


def test_a_footer_whose_chunk_metadata_aborts_pyarrow_is_a_located_error(tmp_path):
    """A file (a flipped byte of a valid one) whose column-chunk metadata makes pyarrow's metadata
    accessors abort the process (an uncaught C++ exception): read as a directory's only file and
    alone, it is a located error, status 2."""
    path = ROOT / "tests" / "fixtures" / "corrupt-chunk-metadata.parquet"
    program = tmp_path / "p.lars"
    program.write_text("r(X) :- p(X).\n")
    (tmp_path / "d" / "b=1").mkdir(parents=True)
    (tmp_path / "d" / "b=1" / "x.parquet").write_bytes(path.read_bytes())
    for stream in (path, tmp_path / "d"):
        done = subprocess.run(
            [sys.executable, "-m", "ticker_py.cli", "run", str(program), "--stream", str(stream)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=600,
        )
        assert done.returncode == 2 and "error: corrupt Parquet data" in done.stderr, done.stderr


@pytest.mark.parametrize("bad", [None, "p(X)", "  ", "q(a), r"])
def test_batches_of_mostly_distinct_atoms(tmp_path, bad):
    """Atoms that do not recur are converted as they come (no numbering): what the rows group to,
    a bad or blank cell among them included."""
    path = tmp_path / "s.parquet"
    atoms = [f'p(a{i},"s{i}",{i})' if i % 3 else f"q(f(b{i}))" for i in range(5000)]
    if bad is not None:
        atoms[3333] = bad
    pq.write_table(pa.table({"t": [i // 10 for i in range(5000)], "atom": atoms}), path)
    expected = _reference([(str(path), path)], None)
    assert drain(read_parquet(path, batch_size=2048)) == expected
    assert (expected[1] is None) == (bad in (None, "  "))
