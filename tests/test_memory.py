"""Memory over a run (docs/rdf.md, "Memory over a run"): the JSON Lines writer writes a long line in
pieces (no line-sized copies)."""

from __future__ import annotations

import io
import json
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import scaled

from ticker_py.streams import Model, Result, make_writer
from ticker_py.streams import writers
from ticker_py.values import format_atom

ATOMS = [("p", i) for i in range(40)] + [("q", f"a{i}", i) for i in range(20)] + [("r", '"s\\"x"'), ("z",)]


def _reference(results) -> str:
    """JSON Lines the slow way: one answer stream per result, json.dumps of its sorted texts."""
    return "".join(json.dumps({"t": r.t, "c": r.c, "models": [sorted(format_atom(a) for a in atoms)]}) + "\n"
                   for r, atoms in results)


@settings(max_examples=scaled(100, 40), deadline=None)
@given(st.lists(st.tuples(st.sets(st.sampled_from(ATOMS)), st.booleans()), min_size=1, max_size=6),
       st.integers(1, 5))
def test_jsonl_lines_written_in_pieces_equal_json_dumps(steps, piece):
    """Whole answers and answers rebuilt from changes, with and without texts that need escaping,
    written in pieces of a few texts, print what json.dumps prints, and ``lines`` gives the same line."""
    sent, before = [], set()
    for t, (atoms, as_changes) in enumerate(steps):
        changes = (frozenset(atoms - before), frozenset(before - atoms))
        sent.append((Result(t, 0, None, changes) if as_changes and t else Result(t, 0, (Model(frozenset(atoms)),)),
                     atoms))
        before = atoms
    old = writers.PIECE
    writers.PIECE = piece
    try:
        out = io.StringIO()
        writer = make_writer("jsonl", out)
        for r, _ in sent:
            writer.write(r)
        lines = [next(iter(make_writer("jsonl", io.StringIO()).lines(r))) for r, _ in sent if r.models is not None]
    finally:
        writers.PIECE = old
    assert out.getvalue() == _reference(sent)
    assert lines == [json.dumps({"t": r.t, "c": r.c, "models": [sorted(format_atom(a) for a in atoms)]})
                     for r, atoms in sent if r.models is not None]


def test_a_long_jsonl_line_is_written_in_pieces():
    atoms = frozenset(("p", i) for i in range(4 * writers.PIECE))
    written = []

    class Out(io.StringIO):
        def write(self, s):
            written.append(s)
            return super().write(s)

    out = Out()
    make_writer("jsonl", out).write(Result(0, 0, (Model(atoms),)))
    assert out.getvalue() == _reference([(Result(0, 0, None), atoms)])
    assert max(map(len, written)) < len(out.getvalue()) // 2   # four pieces of about a quarter
