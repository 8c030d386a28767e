"""The pyarrow-free Parquet reader (ticker_py/streams/parquet_pages.py) against the pyarrow path.

Bit-unpacking at every width and the RLE/bit-packed hybrid against a reference packer; random
tables written by pyarrow under many writer options read by both paths give the same records
(atoms, t, sources, lines) and the same errors, or the fast reader declines the file; a corrupt
page makes pyarrow take over at that batch; a ``ticker run`` on a Parquet stream the fast reader
takes does not import pyarrow.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import drain, scaled
from hypothesis import given, settings
from hypothesis import strategies as st

from ticker_py.streams import parquet_pages, readers
from ticker_py.streams.readers import read_parquet

ROOT = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------- bit-unpacking and RLE


def _pack(values: list, width: int) -> bytes:
    """Reference bit-packing: LSB first, padded to whole groups of 8 values."""
    values = values + [0] * (-len(values) % 8)
    big = 0
    for i, v in enumerate(values):
        big |= v << (i * width)
    return big.to_bytes(len(values) * width // 8, "little")


def _varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


@pytest.mark.parametrize("width", range(0, 33))
def test_unpack_every_width(width):
    rng = __import__("random").Random(width)
    for count in (8, 16, 40, 200, 1000):
        values = [rng.getrandbits(width) if width else 0 for _ in range(count)]
        values[:2] = [(1 << width) - 1, 0]  # all ones and all zeros
        data = b"\x07" + _pack(values, width)
        assert parquet_pages.unpack(data, 1, count // 8, width) == values


@pytest.mark.parametrize("width", [1, 3, 7, 8, 10, 13, 16, 17, 24, 31, 32])
@pytest.mark.parametrize("seed", [0, 1])
def test_hybrid_runs(width, seed):
    rng = __import__("random").Random(width * 2 + seed)
    runs, expected = [], []
    for i in range(12):
        if i % 3 == 0:  # an RLE run
            value, count = rng.getrandbits(min(width, 12 if seed else width)), rng.randrange(1, 300)
            runs.append(_varint(count << 1) + value.to_bytes((width + 7) // 8, "little"))
            expected += [value] * count
        else:  # a bit-packed run, often of groups that recur
            groups = rng.randrange(1, 40)
            if i % 3 == 1:
                values = [rng.getrandbits(min(width, 12 if seed else width)) for _ in range(8 * groups)]
            else:
                values = [j % 5 & ((1 << width) - 1) for j in range(8 * groups)]
            runs.append(_varint(groups << 1 | 1) + _pack(values, width))
            expected += values
    data = b"".join(runs)
    assert parquet_pages.hybrid(data, 0, len(data), width, len(expected)) == expected
    cut = len(expected) - 5  # the last run holds more than is asked for
    assert parquet_pages.hybrid(data, 0, len(data), width, cut) == expected[:cut]
    if max(expected) >= 1 << 16:
        return
    lookup = [f"v{i}" for i in range(max(expected) + 1)]
    memo: dict = {}
    for _ in range(2):  # the second time from the remembered groups
        assert parquet_pages.hybrid(data, 0, len(data), width, len(expected), lookup, memo) == [
            lookup[v] for v in expected
        ]
    with pytest.raises(parquet_pages.Corrupt):
        parquet_pages.hybrid(data, 0, len(data), width, len(expected) + 9)
    if max(expected) > 0:
        with pytest.raises(parquet_pages.Corrupt):
            parquet_pages.hybrid(data, 0, len(data), width, len(expected), lookup[: max(expected)])


@pytest.mark.parametrize("period", [1000, 64, 24, 7])
def test_recurring_blocks_of_indices(period):
    """Indices that repeat (a time point's atoms again and again) unpack from remembered blocks
    of 8 groups or single groups, with a tail of groups that fill no block."""
    values = [i % period for i in range(8 * 1003)]
    data = _varint(1003 << 1 | 1) + _pack(values, 10) + _varint(5 << 1) + (3).to_bytes(2, "little")
    lookup = [("p", f"a{i}") for i in range(period)]
    memo: dict = {}
    for _ in range(2):
        assert parquet_pages.hybrid(data, 0, len(data), 10, len(values) + 5, lookup, memo) == [
            lookup[v] for v in values + [3] * 5
        ]
    assert memo


@pytest.mark.parametrize("start", [0, 5, 32])
def test_consecutive_indices_take_a_slice_of_the_dictionary(start):
    values = list(range(start, start + 96))
    data = _varint(12 << 1 | 1) + _pack(values, 7)
    lookup = parquet_pages.array("q", range(1000, 1128))
    found = parquet_pages.hybrid(data, 0, len(data), 7, 96, lookup)
    assert found == [1000 + v for v in values] and type(found) is list


@settings(max_examples=scaled(400, 100), deadline=None)
@given(width=st.integers(1, 32), data=st.data())
def test_bit_packed_runs_of_consecutive_integers_are_found_exactly(width, data):
    """Bit-packed integers that are v, v + 1, ... (checked on the packed bytes, without unpacking)
    come as a range; any other come as unpack gives them; counts not a multiple of 8 and a packed
    run past the end behave as before."""
    groups = data.draw(st.integers(1, min(1200, (1 << width) // 8 + 2)))
    n = 8 * groups
    first = data.draw(
        st.one_of(st.integers(0, max(0, min(1 << 16, (1 << width) - n))), st.just(max(0, (1 << width) - n)))
    )
    values = [(first + i) & ((1 << width) - 1) for i in range(n)]
    if data.draw(st.booleans()):
        i = data.draw(st.integers(0, n - 1))
        values[i] = data.draw(st.integers(0, (1 << width) - 1))
    packed = _varint(groups << 1 | 1) + _pack(values, width)
    count = data.draw(st.integers(max(1, n - 7), n))
    found = parquet_pages.hybrid(packed, 0, len(packed), width, count)
    assert list(found) == values[:count]
    assert (type(found) is range) == (values == list(range(values[0], values[0] + n)))
    if max(values) > 1 << 16:
        return
    lookup = [f"v{i}" for i in range(min(1 << width, first + n + 3))]
    if max(values) < len(lookup):
        assert parquet_pages.hybrid(packed, 0, len(packed), width, count, lookup) == [lookup[v] for v in values[:count]]
    else:
        with pytest.raises(parquet_pages.Corrupt):
            parquet_pages.hybrid(packed, 0, len(packed), width, count, lookup)


def test_consecutive_indices_past_the_dictionary_are_corrupt():
    data = _varint(12 << 1 | 1) + _pack(list(range(90, 186)), 8)
    with pytest.raises(parquet_pages.Corrupt):
        parquet_pages.hybrid(data, 0, len(data), 8, 96, list(range(128)))


def test_ascii_cells_split_exactly():
    short = ["p(a)", "q(b,c)", "x" * 31, "r"]
    data = b"".join(len(c).to_bytes(4, "little") + c.encode() for c in short)
    assert parquet_pages._short_cells(data, 4) == short  # the string-method paths are taken
    assert parquet_pages._short_cells(data + b"\x01\x00\x00\x00" + b"y" * 32, 5) is None
    assert parquet_pages._ascii_cells(data + (32).to_bytes(4, "little") + b"y" * 32, 0, 5) == short + ["y" * 32]
    cells = ["p(a)", "x" * 200, "q", "p(\x00\x00\x00)", "", "r(b,c)"]
    data = b"".join(len(c.encode()).to_bytes(4, "little") + c.encode() for c in cells)
    column = parquet_pages.Column("atom", 6, "string", False)
    assert parquet_pages._plain(data, 0, len(cells), column) == cells
    for part in ([c for c in cells if "\x00" not in c and c], ["é(a)", "p(b)"], ["y" * 300]):
        data = b"".join(len(c.encode()).to_bytes(4, "little") + c.encode() for c in part)
        assert parquet_pages._plain(b"...." + data, 4, len(part), column) == part


CELL_TEXT = st.one_of(
    st.sampled_from(
        [
            "p(a)",
            "q(b,c)",
            "",
            "x" * 31,
            "y" * 32,
            "z" * 300,
            "p(\x01)",
            "\x00",
            "\x00\x00\x00\x00",
            "a\x00\x00\x00",
            "\x1f",
            "é",
        ]
    ),
    st.text(st.characters(max_codepoint=300), max_size=40),
)


@settings(max_examples=scaled(500, 150), deadline=None)
@given(cells=st.lists(CELL_TEXT, max_size=30), skip=st.integers(0, 5))
def test_plain_byte_arrays_split_exactly(cells, skip):
    """However the cells look (control characters, zero bytes, lengths around 32 and 255, non-ASCII),
    the string-method splits give exactly the cells or step aside for the cell-by-cell loop."""
    data = b"\xff" * skip + b"".join(len(c.encode()).to_bytes(4, "little") + c.encode() for c in cells)
    column = parquet_pages.Column("atom", 6, "string", False)
    assert parquet_pages._plain(data, skip, len(cells), column) == cells


# ---------------------------------------------------------------- against the pyarrow path


def _both(path, **kwargs) -> tuple:
    fast = drain(read_parquet(path, **kwargs))
    slow = drain(readers._read_parquet_arrow(path, kwargs.get("source") or str(path), kwargs.get("batch_size", 65536)))
    return fast, slow


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

#: writer options the fast reader reads (compression: pyarrow's "lz4" is LZ4_RAW; dictionary, page
#: sizes, page version)
WRITER = st.fixed_dictionaries(
    {
        "compression": st.sampled_from(["none", "snappy", "zstd", "gzip", "lz4"]),
        "use_dictionary": st.booleans(),
        "dictionary_pagesize_limit": st.sampled_from([1, 64, 1 << 20]),
        "data_page_size": st.sampled_from([1, 100, 1 << 20]),
        "data_page_version": st.sampled_from(["1.0", "2.0"]),
        "write_statistics": st.booleans(),
    }
)


@st.composite
def tables(draw):
    n = draw(st.integers(0, 60))
    steps = draw(st.lists(st.sampled_from([0, 0, 0, 1, 2, -1]), min_size=n, max_size=n))
    t, now = [], draw(st.integers(0, 3))
    for s in steps:
        now += s if draw(st.integers(0, 9)) else 0
        t.append(now)
    good = draw(st.booleans())  # mostly valid streams, so that records (not only errors) are compared
    pool = ATOMS[:8] if good else ATOMS
    atoms = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
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


@settings(max_examples=scaled(300, 80), deadline=None)
@given(
    table=tables(),
    options=WRITER,
    row_group_size=st.sampled_from([3, 10, 1000]),
    batch_size=st.sampled_from([4, 65536]),
)
def test_the_fast_reader_gives_what_pyarrow_gives(tmp_path_factory, table, options, row_group_size, batch_size):
    path = tmp_path_factory.mktemp("pq") / "s.parquet"
    pq.write_table(table, path, row_group_size=row_group_size, **options)
    assert readers._pages_plan(path, str(path)) is not None  # the fast reader takes every such file
    fast, slow = _both(path, batch_size=batch_size)
    assert fast == slow


@settings(max_examples=scaled(100, 30), deadline=None)
@given(parts=st.lists(tables(), min_size=1, max_size=4), options=WRITER, hive=st.booleans())
def test_directories_of_several_files(tmp_path_factory, parts, options, hive):
    root = tmp_path_factory.mktemp("dir") / "stream"
    for i, table in enumerate(parts):
        if "t" not in table.column_names:
            continue
        folder = root / (f"block={len(parts) - i}" if hive else f"part{i}")
        folder.mkdir(parents=True, exist_ok=True)
        pq.write_table(
            table.select([c for c in table.column_names if c != "other"]),
            folder / "f.parquet",
            row_group_size=7,
            **options,
        )
    (root / "_SUCCESS").parent.mkdir(parents=True, exist_ok=True)
    (root / "_SUCCESS").write_text("")
    fast, slow = _both(root)
    assert fast == slow


def test_hive_partition_keys_as_columns(tmp_path):
    root = tmp_path / "stream"
    for t in (3, 1, 2):
        folder = root / f"t={t}"
        folder.mkdir(parents=True)
        pq.write_table(pa.table({"atom": [f"p({t})", "q(a)"], "c": [2, 1]}), folder / "x.parquet")
    assert readers._pages_plan(root, str(root)) is not None
    fast, slow = _both(root)
    assert fast == slow and [r[0] for r in fast[0]] == [1, 2, 3] and fast[0][0][1] == (("q", "a"), ("p", 1))


def test_files_ordered_by_statistics(tmp_path):
    root = tmp_path / "stream"
    root.mkdir()
    for name, t in (("a", 5), ("b", 0), ("c", 2)):
        pq.write_table(pa.table({"t": [t, t + 1], "atom": ["p(a)", "p(b)"]}), root / f"{name}.parquet")
    assert readers._pages_plan(root, str(root)) is not None
    fast, slow = _both(root)
    assert fast == slow and [r[0] for r in fast[0]] == [0, 1, 2, 3, 5, 6]


@pytest.mark.parametrize(
    "case", ["delta", "brotli", "nested", "binary", "uint", "timestamp", "string_t", "duration", "string_view"]
)
def test_the_fast_reader_declines_what_it_does_not_read(tmp_path, case):
    path = tmp_path / "s.parquet"
    t, atoms = pa.array([0, 0, 1], pa.int64()), pa.array(["p(a)", "p(b)", "p(c)"])
    options = {}
    if case == "delta":
        options = {"use_dictionary": False, "column_encoding": {"t": "DELTA_BINARY_PACKED"}}
    elif case == "brotli":
        options = {"compression": case}
    table = pa.table({"t": t, "atom": atoms})
    if case == "nested":
        table = table.append_column("c", pa.array([[1], [2], [3]]))
    elif case == "binary":
        table = pa.table({"t": t, "atom": pa.array([b"p(a)", b"p(b)", b"p(c)"])})
    elif case == "uint":
        table = pa.table({"t": pa.array([0, 0, 1], pa.uint32()), "atom": atoms})
    elif case == "timestamp":
        table = pa.table({"t": pa.array([0, 0, 1], pa.timestamp("s")), "atom": atoms})
    elif case == "string_t":
        table = pa.table({"t": ["0", "0", "1"], "atom": atoms})
    elif case == "duration":  # plain INT64 in Parquet; pyarrow reads the type it stored, and refuses it
        table = pa.table({"t": t.cast(pa.duration("s")), "atom": atoms})
    elif case == "string_view":
        table = pa.table({"t": t, "atom": atoms.cast(pa.string_view())})
    pq.write_table(table, path, **options)
    assert readers._pages_plan(path, str(path)) is None
    fast, slow = _both(path)
    assert fast == slow


def test_a_corrupt_page_hands_over_to_pyarrow(tmp_path):
    path = tmp_path / "s.parquet"
    table = pa.table({"t": list(range(2000)), "atom": [f"p({i})" for i in range(2000)]})
    pq.write_table(table, path, compression="snappy", data_page_size=512, use_dictionary=False, row_group_size=500)
    data = bytearray(path.read_bytes())
    meta = pq.ParquetFile(path).metadata.row_group(2).column(1)
    at = meta.data_page_offset + 40
    data[at : at + 30] = b"\xff" * 30
    path.write_bytes(bytes(data))
    (records, error), (before, expected) = _both(path, batch_size=128)
    # pyarrow's batches span row groups: it stops at the batch of rows 897-1024 (which reaches into
    # the corrupt row group); the fast reader yields every row before that row group first
    assert expected.startswith(f"{path}:897:1-2: error: corrupt Parquet data (")
    assert len(records) == 1000 and records[: len(before)] == before
    assert error == expected.replace(":897:", ":1001:")


def test_a_run_on_parquet_does_not_import_pyarrow(tmp_path):
    prog, data = tmp_path / "p.lars", tmp_path / "s.parquet"
    prog.write_text("a(X) :- p(X).\n")
    pq.write_table(
        pa.table({"t": pa.array([0, 0, 1], pa.int32()), "atom": ["p(1)", "p(-2)", 'p("x")']}), data, compression="zstd"
    )
    code = (
        "import json, sys\nfrom ticker_py.cli import main\nstatus = main(sys.argv[1:])\n"
        "print(json.dumps([status, sorted(sys.modules)]), file=sys.stderr)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, "run", str(prog), "--stream", str(data), "--engine", "native"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    status, modules = json.loads(proc.stderr.strip().splitlines()[-1])
    assert status == 0 and proc.stdout == (
        '{"t": 0, "c": 2, "models": [["a(-2)", "a(1)"]]}\n{"t": 1, "c": 3, "models": [["a(\\"x\\")"]]}\n'
    )
    assert not {"pyarrow", "numpy", "pandas"} & {m.split(".")[0] for m in modules}


def test_a_repeated_time_point_is_the_same_tuple(tmp_path):
    """Time points that repeat the one before (box's 1,000 atoms at every time point) come as the
    same tuple, as from a text stream, so that the checker and the driver skip them."""
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


def test_a_spark_written_file_takes_the_fast_path_whole(monkeypatch):
    """parquet-mr (Spark) lists BIT_PACKED among a chunk's encodings (for the repetition levels a flat
    column never has) and writes PLAIN_DICTIONARY pages: the fast reader reads such a file to its
    end without handing it to pyarrow, and gives what pyarrow gives. The file is a ``ticker gen
    diamond --tp 6 --window 3 --rate 20 --format parquet`` block written by Spark 4."""
    path = ROOT / "tests" / "fixtures" / "spark-diamond.parquet"
    assert pq.ParquetFile(path).metadata.created_by.startswith("parquet-mr")
    assert readers._pages_plan(path, str(path)) is not None
    slow = drain(readers._read_parquet_arrow(path, str(path), 65536))

    def no_pyarrow(*args):
        raise AssertionError("the fast reader handed the file to pyarrow")

    monkeypatch.setattr(readers, "_open_parquet", no_pyarrow)
    fast = drain(read_parquet(path))
    assert fast == slow and slow[1] is None
    assert [r[0] for r in fast[0]] == list(range(6)) and sum(len(r[1]) for r in fast[0]) == 120


@pytest.mark.parametrize("options", [{}, {"use_dictionary": False}, {"compression": "brotli"}])
def test_an_atom_cell_that_is_not_utf8_is_a_located_error_after_the_rows_before_it(tmp_path, options):
    """Bytes that are not UTF-8 in the atom column (pyarrow writes and reads them, and fails only
    when it makes a Python string): the time points before the cell are read, then a located
    error; from the command line status 2 and no traceback. The fast reader hands such a page to
    pyarrow, and brotli files go to pyarrow from the start."""
    cells = pa.array([b"p(a)", b"p(b)", b"q(c)", b"q(\xff)", b"p(d)"], pa.binary()).view(pa.string())
    path = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"t": pa.array([0, 0, 1, 2, 2], pa.int64()), "atom": cells}), path, **options)
    records, error = drain(read_parquet(path))
    assert [(t, atoms) for t, atoms, *_ in records] == [(0, (("p", "a"), ("p", "b"))), (1, (("q", "c"),))]
    assert error == f"{path}:4:1-2: error: an atom cell that is not valid UTF-8"
    program = tmp_path / "p.lars"
    program.write_text("r(X) :- q(X).\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ticker_py.cli",
            "run",
            str(program),
            "--stream",
            str(path),
            "--engine",
            "native",
            "--format",
            "text",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().endswith("bad.parquet:4:1-2: error: an atom cell that is not valid UTF-8")
    assert "r(c)" in done.stdout


@settings(max_examples=scaled(500, 150), deadline=None)
@given(
    cells=st.lists(st.one_of(CELL_TEXT, st.from_regex(r"[a-zA-Z0-9_']{1,8}", fullmatch=True)), min_size=1, max_size=30)
)
def test_plain_pages_know_when_every_cell_is_a_name(cells):
    """The names flag of a PLAIN page is True exactly when every cell matches ``[a-z][A-Za-z0-9_']*``
    (False may also mean: not checked)."""
    import re

    data = b"".join(len(c.encode()).to_bytes(4, "little") + c.encode() for c in cells)
    values, names = parquet_pages._plain_names(data, 0, len(cells), parquet_pages.Column("a1", 6, "string", False))
    assert values == cells
    if names:
        assert all(re.fullmatch(r"[a-z][A-Za-z0-9_']*", c) for c in cells)
    if all(re.fullmatch(r"[a-z][A-Za-z0-9_']{0,30}", c) for c in cells):
        assert names


# ---------------------------------------------------------------- pages of constant atoms

GLUED_CELL = st.one_of(
    st.sampled_from(
        [
            "p(a)",
            "q(b,c)",
            "p(a)q(b)",
            "p(f(a))",
            "p(a))",
            "p",
            "",
            ")",
            "r(" + "x" * 27 + ")",
            "r(" + "x" * 28 + ")",
            "p(\x01)",
            "p(\x00)",
        ]
    ),
    st.from_regex(r"[a-z][a-z0-9]{0,3}\([a-z0-9,]{0,6}\)", fullmatch=True),
    st.text(st.characters(max_codepoint=130), max_size=12),
)


def _plain_bytes(cells: list) -> bytes:
    return b"".join(len(c.encode()).to_bytes(4, "little") + c.encode() for c in cells)


@settings(max_examples=scaled(600, 150), deadline=None)
@given(cells=st.lists(GLUED_CELL, min_size=1, max_size=30), skip=st.integers(0, 3))
def test_glued_cells_are_exactly_the_cells(cells, skip):
    """glued_cells gives the cells glued together exactly when each is ASCII without control
    characters, shorter than 32 bytes and holds one ``)``, at its end; else None."""
    data = b"\xff" * skip + _plain_bytes(cells)
    expected = all(
        c.isascii() and 0 < len(c) < 32 and c.count(")") == 1 and c.endswith(")") and not any(ord(x) < 32 for x in c)
        for c in cells
    )
    found = parquet_pages.glued_cells(data, skip, len(cells))
    assert found == ("".join(cells).encode() if expected else None)


@settings(max_examples=scaled(300, 80), deadline=None)
@given(
    sizes=st.one_of(
        st.lists(st.integers(1, 31), min_size=1, max_size=40),
        st.builds(lambda n, k: [n] * k, st.integers(1, 31), st.integers(1, 40)),
    )
)
def test_the_kinds_of_cells_of_given_lengths(sizes):
    """The expected kinds of a page of cells (one length, or four cells at a time) are each cell's in turn."""
    assert parquet_pages._kinds(bytes(sizes)) == b"".join(b"\x01" * 4 + b"\x00" * (n - 1) + b"\x02" for n in sizes)


@settings(max_examples=scaled(300, 80), deadline=None)
@given(
    cells=st.lists(st.from_regex(r"[a-z]{1,3}\([a-z0-9]{1,5}\)", fullmatch=True), min_size=2, max_size=20),
    data=st.data(),
)
def test_glued_cells_refuse_lengths_that_do_not_fit(cells, data):
    """A page whose length bytes are moved, or say another length than their cell has, is refused
    (a reader by the lengths would cut other cells)."""
    sizes = [len(c) for c in cells]
    i, j = data.draw(st.integers(0, len(cells) - 1)), data.draw(st.integers(0, len(cells) - 1))
    wrong = sizes[:]
    wrong[i], wrong[j] = sizes[j], sizes[i]
    if data.draw(st.booleans()):
        wrong[i] = data.draw(st.integers(1, 31).filter(lambda n: n != sizes[i]))
    page = b"".join(n.to_bytes(4, "little") + c.encode() for n, c in zip(wrong, cells))
    found = parquet_pages.glued_cells(page, 0, len(cells))
    assert found == ("".join(cells).encode() if wrong == sizes else None)


@settings(max_examples=scaled(400, 100), deadline=None)
@given(
    values=st.one_of(
        st.builds(lambda a, n: list(range(a, a + n)), st.integers(-3, 1 << 40), st.integers(0, 9000)),
        st.lists(st.integers(0, 1 << 33), max_size=40),
        st.builds(
            lambda a, n, i, d: [a + k + (d if k == i else 0) for k in range(n)],
            st.integers(0, 1000),
            st.integers(1, 9000),
            st.integers(0, 9000),
            st.integers(-2, 2),
        ),
    ),
    typecode=st.sampled_from("iq"),
)
def test_consecutive_integers_are_found_exactly(values, typecode):
    from array import array

    expected = bool(values) and values == list(range(values[0], values[0] + len(values)))
    if typecode == "i" and any(not -(1 << 31) <= v < 1 << 31 for v in values):
        typecode = "q"
    found = parquet_pages._run(array(typecode, values))
    assert list(found) == values and (type(found) is range) == (expected and values[0] >= 0)  # none negative
    assert parquet_pages._consecutive(values) == (expected and values[0] >= 0)


@st.composite
def constant_tables(draw):
    """Streams of atoms with constant arguments (the fast path: pages go from bytes to atoms at once),
    distinct or recurring, mixed now and then with atoms that are not (nested terms, strings with
    escapes, negative and wide integers, bad cells), an order column that is consecutive, shuffled,
    or has ties, and empty time points in between."""
    points = draw(st.integers(1, 12))
    per = draw(st.integers(1, 40))
    distinct = draw(st.booleans())
    arity = draw(st.integers(1, 3))
    odd = ['p(f(a),"x\\"y")', "p(-12,a)", "p(123456789012345678901234,b)", 'q("a\\\\b")', "p(a", "not(a)"]
    t, atoms, n = [], [], 0
    now = 0
    for _ in range(points):
        now += draw(st.sampled_from([0, 1, 1, 1, 3]))
        for _ in range(draw(st.integers(0, per))):
            i = n if distinct else n % 7
            args = ",".join(f"{'abc'[k]}{i}" for k in range(arity))
            atoms.append(f"{'pq'[i % 2] if not distinct else 'p'}({args})")
            t.append(now)
            n += 1
    if atoms and draw(st.integers(0, 3)) == 0:
        atoms[draw(st.integers(0, len(atoms) - 1))] = draw(st.sampled_from(odd))
    order = draw(st.sampled_from(["consecutive", "shuffled", "ties", None]))
    columns = {"t": pa.array(t, pa.int64())}
    if order:
        keys = list(range(1, len(t) + 1))
        if order == "shuffled" and keys:  # a part of them
            a = draw(st.integers(0, len(keys) - 1))
            b = draw(st.integers(a, len(keys)))
            part = keys[a:b]
            draw(st.randoms()).shuffle(part)
            keys[a:b] = part
        elif order == "ties":
            keys = [k // 3 for k in keys]
        columns["c"] = pa.array(keys, pa.int64())
    columns["atom"] = pa.array(atoms, pa.string())
    return pa.table(columns)


@settings(max_examples=scaled(200, 60), deadline=None)
@given(
    table=constant_tables(),
    use_dictionary=st.booleans(),
    page_size=st.sampled_from([64, 300, 1 << 20]),
    dictionary_limit=st.sampled_from([100, 1 << 20]),
    row_group_size=st.sampled_from([17, 1000]),
    compression=st.sampled_from(["none", "snappy"]),
    batch_size=st.sampled_from([5, 65536]),
)
def test_pages_of_constant_atoms_give_what_pyarrow_and_text_give(
    tmp_path_factory, table, use_dictionary, page_size, dictionary_limit, row_group_size, compression, batch_size
):
    """The fast path (pages straight to atoms, dictionaries converted where a page needs them, an order
    column of consecutive integers kept as a range) against pyarrow and against the text reader of the
    same stream; a record said to hold distinct atoms does."""
    folder = tmp_path_factory.mktemp("const")
    path = folder / "s.parquet"
    pq.write_table(
        table,
        path,
        use_dictionary=use_dictionary,
        data_page_size=page_size,
        compression=compression,
        dictionary_pagesize_limit=dictionary_limit,
        row_group_size=row_group_size,
    )
    fast, slow = _both(path, batch_size=batch_size)
    assert fast == slow
    rows = table.to_pylist()
    if "c" in table.column_names:
        rows.sort(key=lambda r: (r["t"], r["c"]))
    points: dict = {}
    for r in rows:
        points.setdefault(r["t"], []).append(r["atom"])
    text = folder / "s.stream"
    text.write_text("".join(f"{t}: {', '.join(a)}\n" for t, a in points.items()))
    by_text = drain(readers.read_text(text.read_text(), str(path)))
    if fast[1] is None and by_text[1] is None:
        assert [(t, atoms) for t, atoms, *_ in fast[0]] == [(t, atoms) for t, atoms, *_ in by_text[0]]
    for record in read_parquet(path, batch_size=batch_size) if fast[1] is None else ():
        if record.known is not None and record.known.distinct:
            assert len(set(record.atoms)) == len(record.atoms)


def test_pages_of_distinct_constant_atoms_take_the_fast_path(tmp_path, monkeypatch):
    """A stream like diamond's (distinct atoms, an arrival count c): each page goes from its bytes to
    atoms at once, and every time point (one page each here) is known to hold distinct atoms."""
    path = tmp_path / "s.parquet"
    n = 3000
    pq.write_table(
        pa.table(
            {"t": [i // 100 for i in range(n)], "c": list(range(1, n + 1)), "atom": [f"p(a{i},b{i})" for i in range(n)]}
        ),
        path,
        use_dictionary=["t"],
        data_page_size=1,
        write_batch_size=100,
    )  # a page per time point
    taken = []
    glued = parquet_pages.glued_cells
    monkeypatch.setattr(parquet_pages, "glued_cells", lambda *a: taken.append(glued(*a)) or taken[-1])
    records = list(read_parquet(path))
    assert len(taken) == 30 and None not in taken
    assert [r.atoms for r in records] == [
        tuple(("p", f"a{i}", f"b{i}") for i in range(t * 100, t * 100 + 100)) for t in range(30)
    ]
    assert all(r.known.distinct for r in records)


@settings(max_examples=scaled(300, 80), deadline=None)
@given(data=st.data())
def test_order_keys_as_ranges_group_as_lists_do(data):
    """The grouper takes an order column's consecutive keys as ranges (kept as a run, not sorted)
    and gives the records it gives for the same keys as lists, however batches mix the two."""
    from ticker_py.syntax.ground_atoms import AtomInterner

    n = data.draw(st.integers(1, 60))
    t = sorted(data.draw(st.lists(st.integers(0, 6), min_size=n, max_size=n)))
    keys = list(range(data.draw(st.integers(0, 3)), n + 3))[:n]
    if data.draw(st.booleans()):
        i = data.draw(st.integers(0, n - 1))
        keys[i] = data.draw(st.integers(0, n + 5))
    atoms = [("p", str(i)) for i in range(n)]
    cuts = sorted(set(data.draw(st.lists(st.integers(1, n), max_size=6))) | {n})
    as_range = data.draw(st.lists(st.booleans(), min_size=len(cuts), max_size=len(cuts)))

    def run(ranges: bool) -> list:
        grouper = readers._Grouper("c", AtomInterner())
        out, a = [], 0
        for b, r in zip(cuts, as_range):
            part = keys[a:b]
            if ranges and r and part == list(range(part[0], part[0] + len(part))):
                part = range(part[0], part[0] + len(part))
            out += grouper.lists(
                "s", a + 1, t[a:b], part, atoms[a:b], (frozenset({("p", 2)}), False), False, False, False
            )
            a = b
        out += grouper.close()
        return [(r.t, r.atoms, r.line) for r in out]

    expected = run(False)
    assert run(True) == expected
    by_time: dict = {}
    for time, _key, atom in sorted(zip(t, keys, atoms), key=lambda x: (x[0], x[1])):
        by_time.setdefault(time, []).append(atom)
    assert [(time, atoms_) for time, atoms_, _ in expected] == [(k, tuple(v)) for k, v in by_time.items()]
