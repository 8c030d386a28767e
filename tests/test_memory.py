"""Memory over a run (docs/rdf.md, "Memory over a run"): the JSON Lines writer writes a long line in
pieces (no line-sized copies), and ``ticker run`` fixes glibc's malloc thresholds."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import scaled
from hypothesis import given, settings
from hypothesis import strategies as st

from ticker_py.stages.output import open_writer
from ticker_py.streams import Model, Result, writers
from ticker_py.values import format_atom

ROOT = Path(__file__).resolve().parent.parent

ATOMS = [("p", i) for i in range(40)] + [("q", f"a{i}", i) for i in range(20)] + [("r", '"s\\"x"'), ("z",)]


def _reference(results) -> str:
    """JSON Lines the slow way: one answer stream per result, json.dumps of its sorted texts."""
    return "".join(
        json.dumps({"t": r.t, "c": r.c, "models": [sorted(format_atom(a) for a in atoms)]}) + "\n"
        for r, atoms in results
    )


@settings(max_examples=scaled(100, 40), deadline=None)
@given(st.lists(st.tuples(st.sets(st.sampled_from(ATOMS)), st.booleans()), min_size=1, max_size=6), st.integers(1, 5))
def test_jsonl_lines_written_in_pieces_equal_json_dumps(steps, piece):
    """Whole answers and answers rebuilt from changes, with and without texts that need escaping,
    written in pieces of a few texts, print what json.dumps prints, and ``lines`` gives the same line."""
    sent, before = [], set()
    for t, (atoms, as_changes) in enumerate(steps):
        changes = (frozenset(atoms - before), frozenset(before - atoms))
        sent.append(
            (Result(t, 0, None, changes) if as_changes and t else Result(t, 0, (Model(frozenset(atoms)),)), atoms)
        )
        before = atoms
    old = writers.PIECE
    writers.PIECE = piece
    try:
        out = io.StringIO()
        writer = open_writer("jsonl", out)
        for r, _ in sent:
            writer.write(r)
        lines = [next(iter(open_writer("jsonl", io.StringIO()).lines(r))) for r, _ in sent if r.models is not None]
    finally:
        writers.PIECE = old
    assert out.getvalue() == _reference(sent)
    assert lines == [
        json.dumps({"t": r.t, "c": r.c, "models": [sorted(format_atom(a) for a in atoms)]})
        for r, atoms in sent
        if r.models is not None
    ]


def test_a_long_jsonl_line_is_written_in_pieces():
    atoms = frozenset(("p", i) for i in range(4 * writers.PIECE))
    written = []

    class Out(io.StringIO):
        def write(self, s):
            written.append(s)
            return super().write(s)

    out = Out()
    open_writer("jsonl", out).write(Result(0, 0, (Model(atoms),)))
    assert out.getvalue() == _reference([(Result(0, 0, None), atoms)])
    assert max(map(len, written)) < len(out.getvalue()) // 2  # four pieces of about a quarter


def _glibc() -> bool:
    import ctypes

    try:
        ctypes.CDLL(None).gnu_get_libc_version  # noqa: B018 - raises where not glibc
    except (OSError, AttributeError):
        return False
    return sys.platform.startswith("linux")


#: prints whether blocks of 2 MB and 6 MB are mapped (glibc's mallinfo2: mapped blocks before and after)
MAPPED = """
import ctypes, sys
from ticker_py.process import steady_heap
set_ = steady_heap() if sys.argv[1] == "set" else None
class Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()]
libc = ctypes.CDLL(None)
libc.mallinfo2.restype = Info
libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, (ctypes.c_size_t,)
mapped = []
for size in (2 << 20, 6 << 20):
    before = libc.mallinfo2().hblks
    block = libc.malloc(size)
    mapped.append(libc.mallinfo2().hblks > before)
print(set_, mapped)
"""


@pytest.mark.skipif(not _glibc(), reason="glibc's malloc only")
def test_steady_heap_maps_only_blocks_of_4_mb_and_more():
    """With :func:`steady_heap` a 2 MB block comes from the heap and a 6 MB block is mapped; without
    it (glibc's default, which starts at 128 KB and moves up over a run) both are mapped."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    env["PYTHONPATH"] = str(ROOT)

    def run(mode):
        return subprocess.run(
            [sys.executable, "-c", MAPPED, mode], capture_output=True, text=True, env=env, check=True
        ).stdout.strip()

    assert run("set") == "True [False, True]"
    assert run("default") == "None [True, True]"


def test_steady_heap_leaves_the_users_malloc_settings():
    from ticker_py.process import steady_heap

    assert not steady_heap({"MALLOC_MMAP_THRESHOLD_": "262144"})
    assert not steady_heap({"MALLOC_TRIM_THRESHOLD_": "0"})
    assert not steady_heap({"GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=262144"})
    assert steady_heap({"GLIBC_TUNABLES": "glibc.pthread.rseq=0"}) == _glibc()


def test_ticker_run_sets_the_heap(tmp_path, monkeypatch, capsys):
    from ticker_py import process
    from ticker_py.cli import main

    calls = []
    monkeypatch.setattr(process, "steady_heap", lambda: calls.append(1) or True)
    prog, data = tmp_path / "p.lars", tmp_path / "s.stream"
    prog.write_text("q(X) :- p(X) in [2].\n")
    data.write_text("0: p(1)\n3: p(2)\n")
    assert main(["run", str(prog), "--stream", str(data)]) == 0
    assert calls == [1]
    assert capsys.readouterr().out.splitlines()[3] == '{"t": 3, "c": 2, "models": [["q(2)"]]}'
