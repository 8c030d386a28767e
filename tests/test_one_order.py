"""One order of answer streams everywhere: sorted by their printed atoms, then their pins.

``ticker run`` prints several answer streams in that order; ``Result.models``, ``--model K``,
``ticker enumerate``, ``ticker compare`` (engines and semantics), factors and their alternatives,
and the first N of a factorized product all follow it.
"""

from __future__ import annotations

import itertools
import json

import pytest
from helpers import ticker

from ticker_py import run
from ticker_py.streams.factor_writers import printed_factors
from ticker_py.streams.factorized import Factorized, factorized_result
from ticker_py.streams.model import Model

#: two independent choices, written so that the solver's order is not the printed one
CHOICES = "z :- not y, p. y :- not z, p. b :- not a, p. a :- not b, p.\n"
PRINTED = [["a", "y"], ["a", "z"], ["b", "y"], ["b", "z"]]


@pytest.fixture
def files(tmp_path):
    prog, stream = tmp_path / "p.lars", tmp_path / "s.stream"
    prog.write_text(CHOICES)
    stream.write_text("0: p\n")
    return prog, stream


def _m(*atoms):
    return Model(frozenset((a,) for a in atoms))


@pytest.mark.parametrize("engine", ["clingo", "incremental", "incremental-pure"])
def test_result_models_are_in_printed_order(engine):
    (result,) = run(CHOICES, [(0, ["p"])], engine=engine, models=0)
    assert [m.sorted_atoms() for m in result.models] == PRINTED


def test_factors_and_alternatives_are_in_printed_order():
    f = Factorized.build(_m(), [[_m("z"), _m("y")], [_m("b", "c"), _m("a")]])
    assert f.factors == ((_m("a"), _m("b", "c")), (_m("y"), _m("z")))
    count, common, factors = printed_factors(factorized_result(0, 1, f))
    assert factors == [[["a"], ["b", "c"]], [["y"], ["z"]]]  # factor i + 1, alternative k: f.factors[i][k]
    assert [m.sorted_atoms() for m in f.models()] == [["a", "y"], ["a", "z"], ["b", "c", "y"], ["b", "c", "z"]]


@pytest.mark.parametrize("engine", ["clingo", "incremental", "incremental-pure"])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_factorize_models_n_is_the_first_n_of_the_product_as_printed(engine, n):
    (whole,) = run(CHOICES, [(0, ["p"])], engine=engine, factorize=True)
    printed = printed_factors(whole)[2]
    product = [sorted(itertools.chain(*alts)) for alts in itertools.product(*printed)][:n]
    (first,) = run(CHOICES, [(0, ["p"])], engine=engine, factorize=True, models=n)
    assert [m.sorted_atoms() for m in first.models] == product == PRINTED[:n]


def test_cli_factorize_models_n(capsys, files):
    prog, stream = files
    code, out, err = ticker(capsys, "run", prog, "--stream", stream, "--factorize", "--models", "2")
    assert code == 0, err
    assert json.loads(out)["models"] == PRINTED[:2]


@pytest.mark.parametrize("spill", [10**6, 1])
def test_enumerate_numbers_in_printed_order(capsys, files, tmp_path, spill, monkeypatch):
    from ticker_py import enumeration

    monkeypatch.setattr(enumeration, "SPILL", spill)  # 1: every answer stream goes through a file
    prog, stream = files
    out = tmp_path / "all.jsonl"
    code, printed, err = ticker(capsys, "enumerate", prog, "--stream", stream, "--out", out)
    assert code == 0, err
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(x["model"], x["atoms"]) for x in lines] == list(enumerate(PRINTED))


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_explain_model_k_is_the_kth_printed(capsys, files, k):
    prog, stream = files
    atom = PRINTED[k - 1][0]
    code, out, err = ticker(capsys, "explain", prog, "--stream", stream, "--at", "0", atom, "--model", str(k))
    assert code == 0, err
    assert f"answer stream {k} of 4" in out
    (result,) = run(CHOICES, [(0, ["p"])], engine="clingo", models=0, explainable=True)
    assert result.models[k - 1].sorted_atoms() == PRINTED[k - 1]
    assert f"answer stream {k} of 4" in str(result.explain(atom, model=k))


TIES = "q(X) :- p(X) in [1 #].\n"


def test_compare_semantics_prints_answer_streams_in_printed_order(capsys, tmp_path):
    prog, stream = tmp_path / "p.lars", tmp_path / "s.stream"
    prog.write_text(TIES)
    stream.write_text("0: p(1), p(2)\n")
    code, out, _ = ticker(capsys, "compare", prog, "--stream", stream, "--semantics", "default,lars")
    assert code == 3 and "  lars     {q(1)} {q(2)}\n" in out
    code, out, _ = ticker(
        capsys, "compare", prog, "--stream", stream, "--semantics", "default,lars", "--format", "json"
    )
    assert json.loads(out.splitlines()[0])["answers"]["lars"] == [["q(1)"], ["q(2)"]]


@pytest.mark.parametrize(
    "extra", [[], ["--consequences", "brave"], ["--explain"], ["--changes"], ["--semantics", "default"]]
)
def test_compare_format_json_in_every_mode(capsys, files, extra):
    prog, stream = files
    code, out, err = ticker(
        capsys, "compare", prog, "--stream", stream, "--engines", "clingo,incremental", "--format", "json", *extra
    )
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines and "summary" in lines[-1]


def test_compare_engines_json_lists_differing_ticks_in_printed_order(capsys, files, monkeypatch):
    from ticker_py import compare as comparing
    from ticker_py.streams.model import Result

    class Reversed:  # an engine that finds the same answer streams, one fewer, in reverse order
        def __init__(self, inner):
            self.inner = inner
            self.append = inner.append

        def evaluate(self, t):
            r = self.inner.evaluate(t)
            return Result(r.t, r.c, tuple(m for m in reversed(r.models) if m.sorted_atoms() != ["b", "z"]))

    from ticker_py.cli import build_parser
    from ticker_py.cli.compare import cmd_compare

    prog, stream = files
    args = build_parser().parse_args(["compare", str(prog), "--stream", str(stream), "--format", "json"])
    factories = {
        "clingo": comparing.default_factory("clingo"),
        "odd": lambda a, o: Reversed(comparing.default_factory("clingo")(a, o)),
    }
    assert cmd_compare(args, factories) == 3
    first, summary = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert first["answers"] == {"clingo": PRINTED, "odd": PRINTED[:3]}
    assert summary["summary"]["differing"] == 1 and summary["summary"]["agree"] is False


def test_the_semantics_table_of_the_docs_is_in_printed_order():
    """docs/semantics.md's worked table: each cell the answer streams ``ticker compare --semantics``
    prints, in its order (``<br>`` between answer streams, ``–`` not evaluated, ``∅`` none)."""
    import re
    from pathlib import Path

    from ticker_py.semantics_compare import compare_semantics, format_text

    text = (Path(__file__).resolve().parent.parent / "docs" / "semantics.md").read_text()
    section = text[text.index("## Example: one program under every profile") :]
    code = section[section.index("```python\n") + 10 : section.index("```\n\n")]
    names = {"compare_semantics": compare_semantics}
    exec(code.split("cmp = ")[0], names)  # the program and stream of the example
    runs = ["default", "lars", "ticker", "laser", "cql", "default,window_bounds=half-open"]
    printed = {}
    for line in format_text(
        compare_semantics(names["program"], names["stream"], runs, engines=["clingo"])
    ).splitlines():
        if line.startswith("t="):
            t = int(line[2 : line.index(":")])
        elif line.startswith("  ") and line.split()[0] in runs:
            printed[t, line.split()[0]] = line.split(None, 1)[1].strip()
    rows = [line for line in section.splitlines() if re.match(r"\| \d+ \|", line)]
    assert len(rows) == 6
    for row in rows:
        t, *cells = (cell.strip() for cell in row.strip("|").split("|"))
        for name, cell in zip(runs, cells, strict=True):
            cell = {"–": "not evaluated", "∅": "no answer stream"}.get(cell, cell.replace("<br>", " "))
            assert cell == printed[int(t), name], (t, name)
