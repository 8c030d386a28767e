"""``ticker distinguish`` and :mod:`ticker_py.distinguishing`: the smallest streams on which two
semantics or two engines part, and the atlas of the profiles in docs/semantics.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import SLOW_MODE, ticker

import ticker_py
from ticker_py.analysis import Analysis
from ticker_py.api import load_program
from ticker_py.distinguishing import (
    ATLAS,
    ATLAS_MARK,
    Witness,
    _Evaluator,
    _runs,
    _smaller,
    atlas,
    atlas_markdown,
    atlas_section,
    search,
    stream_text,
)
from ticker_py.errors import ProgramError, UsageError

ROOT = Path(__file__).resolve().parents[1]
RECENT = "recent :- p in [2]."
HALF_OPEN = "default,default+window_bounds=half-open"


def locally_smallest(program, semantics, engines, stream: tuple) -> bool:
    """No stream one step smaller (an atom, a time point less, a time point earlier) still differs."""
    evaluator = _Evaluator(program if isinstance(program, Analysis) else load_program(program))
    a, b = _runs(semantics, engines)
    return evaluator.differs(a, b, stream) is not None and all(
        evaluator.differs(a, b, smaller) is None for smaller in _smaller(stream)
    )


def test_the_window_bounds_of_recent_part_on_one_atom_and_compare_confirms(capsys, tmp_path):
    program, out = tmp_path / "recent.lars", tmp_path / "w.stream"
    program.write_text(RECENT + "\n")
    code, text, err = ticker(capsys, "distinguish", program, "--semantics", HALF_OPEN, "--out", out)
    assert code == 3, err
    assert text.splitlines()[:8] == [
        "a stream of 1 atom at 2 time points:",
        "  0: p",
        "  2:",
        "t=2: answer streams differ",
        "  default                          {recent}",
        "  default,window_bounds=half-open  {}",
        "dimension: window_bounds (window_bounds=half-open)",
        "found among 1 stream (seed 0)",
    ]
    assert out.read_text() == "0: p\n2:\n"
    code, text, _ = ticker(capsys, "compare", program, "--stream", out, "--semantics", HALF_OPEN)
    assert code == 3 and "t=2: answer streams differ" in text
    assert locally_smallest(RECENT, HALF_OPEN, None, ((0, ("p",)), (2, ())))


def test_nothing_distinguishes_a_profile_from_itself_nor_two_engines_on_a_positive_program(capsys, tmp_path):
    program = tmp_path / "p.lars"
    program.write_text("q(X) :- p(X) in [2 #], r(X) always [1].\ns(X) :- q(X), X > 1.\n")
    code, text, _ = ticker(capsys, "distinguish", program, "--semantics", "cql,cql", "--max-streams", "60")
    assert (code, text) == (
        0,
        "no stream found on which cql and cql differ: 60 streams tried (seed 0, budget 10 s, at most 60)\n",
    )
    code, text, _ = ticker(capsys, "distinguish", program, "--engines", "clingo,native", "--max-streams", "60")
    assert code == 0 and text.startswith("no stream found on which clingo and native differ: 60 streams tried")


def test_the_search_is_deterministic_for_a_seed_whatever_the_budget():
    program = load_program("q(X) :- p(X) in [1 #].")
    first = search(program, "default,lars", budget=None, seed=3, max_streams=500)
    again = search(program, "default,lars", budget=60, seed=3)
    assert first.witness == again.witness and first.streams == again.streams
    assert (
        first.witness.stream == ((0, ("p(a)", "p(b)")),) and first.witness.dimension == "origin+tuple_ties+future_heads"
    )
    assert locally_smallest(program, "default,lars", None, first.witness.stream)


def test_a_given_stream_is_only_shrunk(capsys, tmp_path):
    program, stream = tmp_path / "recent.lars", tmp_path / "big.stream"
    program.write_text(RECENT)
    stream.write_text("0: p, p\n1: p\n2:\n3: p\n4:\n5:\n")
    code, text, _ = ticker(capsys, "distinguish", program, "--semantics", "default,r4", "--stream", stream)
    assert code == 3 and text.endswith("shrunk from --stream\n") and "  0: p\n  2:\n" in text
    code, text, _ = ticker(capsys, "distinguish", program, "--semantics", "default,ticker", "--stream", stream)
    assert (code, text) == (0, f"default and ticker agree on {stream}: nothing to shrink\n")


def test_engines_and_knobs_by_the_python_api():
    w = ticker_py.distinguish("q at U :- p at T in [1], U = T + 1.", semantics="default,lars", max_streams=200)
    assert isinstance(w, Witness) and w.dimension == "origin+tuple_ties+future_heads"
    assert stream_text(w.stream) == "0: p\n" and w.t == 0
    assert [len(models) for models in w.answers.values()] == [1, 0]  # lars: no answer stream (future heads)
    w = ticker_py.distinguish(RECENT, semantics=["default"], engines=["clingo", "native"], max_streams=40)
    assert w is None
    w = ticker_py.distinguish("q :- p in [1].", semantics="r4+window_bounds=closed,default", max_streams=100)
    assert w is None  # r4 with closed bounds sets the default's knobs


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--semantics", "default,r4", "--engines", "clingo,native"], "2 semantics and 2 engines given"),
        (["--semantics", "default"], "1 semantics and 1 engine given"),
        (["--semantics", "default,nosuch"], "unknown semantics profile 'nosuch'"),
        (["--semantics", "default,lars", "--budget", "-1"], "--budget must be a number of seconds > 0, not -1"),
        (["--semantics", "default,lars", "--max-tp", "0"], "--max-tp must be an integer >= 1, not 0"),
        (["--semantics", "default,lars", "--seed", "-1"], "--seed must be an integer from 0 to 18446744073709551615"),
        (["--atlas"], "--atlas runs the shipped programs"),
    ],
)
def test_bad_arguments_are_status_2(capsys, tmp_path, argv, message):
    program = tmp_path / "p.lars"
    program.write_text("q :- p in [1], not r.\n")
    code, _, err = ticker(capsys, "distinguish", program, *argv)
    assert code == 2 and message in err and "Traceback" not in err


def test_a_profile_that_cannot_read_the_program_is_a_located_error(capsys):
    with pytest.raises(ProgramError, match=r"1:20-21: error: negation 'not r' is not allowed in the r4 profile"):
        search(load_program("q :- p in [1], not r."), "default,r4")
    code, _, err = ticker(capsys, "distinguish", "--semantics", "default,r4")
    assert code == 2 and "distinguish needs a PROGRAM (or --atlas)" in err


# ---------------------------------------------------------------- the atlas

FEW = ["time □", "tuple ties", "negation"]


def docs_atlas() -> str:
    page = (ROOT / "docs" / "semantics.md").read_text(encoding="utf-8")
    start, end = ATLAS_MARK
    assert start in page and end in page, "docs/semantics.md carries the atlas between its marks"
    return page.split(start, 1)[1].split(end, 1)[0]


def program_rows(table: str, name: str) -> list:
    """The table's rows of one program (from its first row to the next program's)."""
    lines = table.strip().splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith(f"| {name}: "))
    rest = lines[first + 1 :]
    return [lines[first]] + rest[: next((i for i, line in enumerate(rest) if not line.startswith("|  |")), len(rest))]


def test_the_docs_atlas_is_what_the_command_writes_for_these_programs():
    """Three programs of the atlas computed again (the whole atlas: the slow test below)."""
    table = atlas_markdown(atlas({name: ATLAS[name] for name in FEW}))
    for name in FEW:
        assert program_rows(docs_atlas(), name) == program_rows(table, name)


@pytest.mark.slow
def test_the_docs_atlas_is_what_the_command_writes(capsys, tmp_path):
    """The whole atlas by the command (TICKER_SLOW=full; about a minute), or three more programs."""
    if SLOW_MODE != "full":
        others = ["time ◇", "tuple ◇", "@-head, future"]
        table = atlas_markdown(atlas({name: ATLAS[name] for name in others}))
        for name in others:
            assert program_rows(docs_atlas(), name) == program_rows(table, name)
        return
    page = tmp_path / "semantics.md"
    page.write_text(f"# x\n\n{ATLAS_MARK[0]}\nold\n{ATLAS_MARK[1]}\n\nafter\n")
    code, _, err = ticker(capsys, "distinguish", "--atlas", "--out", page)
    assert code == 0 and re.match(r"atlas: 15 pairs of profiles x \d+ programs in \d+ s", err)
    assert page.read_text().split(ATLAS_MARK[0])[1].split(ATLAS_MARK[1])[0] == docs_atlas()
    assert page.read_text().endswith(f"{ATLAS_MARK[1]}\n\nafter\n")


def test_the_atlas_replaces_only_its_section():
    start, end = ATLAS_MARK
    page = f"# S\n\ntext\n{start}\nold table\n{end}\nmore\n"
    assert atlas_section(page, "| new |\n") == f"# S\n\ntext\n{start}\n| new |\n{end}\nmore\n"
    assert atlas_section(None, "| new |") == f"{start}\n| new |\n{end}\n"
    with pytest.raises(UsageError, match="no <!-- atlas --> ... <!-- /atlas --> section"):
        atlas_section("# another page\n", "| new |")


def test_atlas_cells():
    rows = atlas({"time □": ATLAS["time □"]}, profiles=["default", "lars", "laser", "r4"], streams=100)
    cells = {(a, b): cell for _, a, b, cell in rows}
    assert cells["default", "lars"].stream == ((1, ("p",)),)  # the box over [0, 1] needs p at 0; lars starts at 1
    assert cells["default", "laser"] == "same knobs"
    assert cells["default", "r4"].startswith("n/a: window atom 'p always [2]' is not allowed in the r4 profile")
