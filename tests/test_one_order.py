"""One order of answer streams everywhere: sorted by their printed atoms, then their pins.

``ticker run`` prints several answer streams in that order; ``Result.models``, ``--model K``,
``ticker enumerate``, ``ticker compare`` (engines and semantics), factors and their alternatives,
and the first N of a factorized product all follow it. ``Model.printed_key`` is its one definition:
with the key changed (:func:`other_order`) every one of them follows, and no sort in the package
keys answer streams by their texts by hand.
"""

from __future__ import annotations

import itertools
import json

import pytest
from helpers import ticker

from ticker_py import run
from ticker_py.streams.factorized import Factorized, factorized_result
from ticker_py.streams.model import Model
from ticker_py.streams.writers import printed_factors

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


# ------------------------------------------------------------------ one definition of the order

#: PRINTED in the other order of :func:`other_order` (atoms sorted backwards in the key)
OTHER = [["a", "y"], ["b", "y"], ["a", "z"], ["b", "z"]]


@pytest.fixture
def other_order(monkeypatch):
    """``Model.printed_key`` changed to another order: its atoms sorted backwards. Every output
    follows the change only if it orders answer streams by ``printed_key`` and has no order of its
    own; a second definition keeps printing PRINTED and fails the tests below."""
    original = Model.printed_key

    def printed_key(self, *args, **kwargs):
        atoms, pins = original(self, *args, **kwargs)
        return tuple(sorted(atoms, reverse=True)), pins

    monkeypatch.setattr(Model, "printed_key", printed_key)


def _sets(models) -> list:
    return [sorted(m) for m in models]


@pytest.mark.parametrize("engine", ["clingo", "incremental"])
def test_result_models_follow_printed_key(other_order, engine):
    (result,) = run(CHOICES, [(0, ["p"])], engine=engine, models=0)
    assert _sets(m.sorted_atoms() for m in result.models) == OTHER


@pytest.mark.parametrize("fmt", ["jsonl", "text", "csv"])
def test_run_output_follows_printed_key(other_order, capsys, files, fmt):
    prog, stream = files
    code, out, err = ticker(capsys, "run", prog, "--stream", stream, "--models", "0", "--format", fmt)
    assert code == 0, err
    if fmt == "jsonl":
        models = json.loads(out)["models"]
    elif fmt == "text":
        models = [m.split(", ") for m in out.split(": ", 1)[1].strip()[1:-1].split("} {")]
    else:
        rows = [line.split(",") for line in out.splitlines()[1:]]
        models = [[atom for _, _, k, atom in rows if int(k) == i] for i in range(4)]
    assert _sets(models) == OTHER


def test_enumerate_follows_printed_key(other_order, capsys, files, tmp_path):
    prog, stream = files
    out = tmp_path / "all.jsonl"
    code, _, err = ticker(capsys, "enumerate", prog, "--stream", stream, "--out", out)
    assert code == 0, err
    assert _sets(json.loads(line)["atoms"] for line in out.read_text().splitlines()) == OTHER


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_explain_model_k_follows_printed_key(other_order, capsys, files, k):
    prog, stream = files
    code, out, err = ticker(capsys, "explain", prog, "--stream", stream, "--at", "0", "a", "--model", str(k))
    assert (code == 0) == ("a" in OTHER[k - 1]), out + err


def test_compare_follows_printed_key(other_order, capsys, tmp_path):
    from ticker_py.semantics_compare import compare_semantics, format_json

    prog, stream = tmp_path / "p.lars", tmp_path / "s.stream"
    prog.write_text(TIES + "r(1) :- q(2). r(2) :- q(1).\n")
    stream.write_text("0: p(1), p(2)\n")
    code, out, _ = ticker(
        capsys, "compare", prog, "--stream", stream, "--semantics", "default,lars", "--format", "json"
    )
    assert code == 3
    # the two answer streams {q(1), r(2)} and {q(2), r(1)}: backwards, r(1) < r(2) decides
    assert _sets(json.loads(out.splitlines()[0])["answers"]["lars"]) == [["q(2)", "r(1)"], ["q(1)", "r(2)"]]
    cmp = compare_semantics(prog.read_text(), [(0, ["p(1)", "p(2)"])], ["default", "lars"], engines=["clingo"])
    assert _sets(json.loads(format_json(cmp).splitlines()[0])["answers"]["lars"]) == [
        ["q(2)", "r(1)"],
        ["q(1)", "r(2)"],
    ]


def test_factors_follow_printed_key(other_order, capsys, tmp_path):
    f = Factorized.build(_m(), [[_m("a", "z"), _m("b")]])  # backwards: (b) < (z, a)
    assert [m.atoms for m in f.factors[0]] == [_m("b").atoms, _m("a", "z").atoms]
    prog, stream = tmp_path / "p.lars", tmp_path / "s.stream"
    prog.write_text("a :- not b, p. b :- not a, p. z :- a.\n")
    stream.write_text("0: p\n")
    code, out, err = ticker(capsys, "run", prog, "--stream", stream, "--factorize", "--format", "text")
    assert code == 0 and out == "t=0 c=1: 2 answer streams: {} * ({b} | {z, a})\n", err


def test_no_second_definition_of_the_order():
    """No sort in the package keys answer streams by their texts by hand (``sorted_atoms``,
    ``sorted_pinned``, cached texts): :meth:`Model.printed_key` (or ``AtomTexts.key``, the same from
    cached texts) is the key."""
    import ast
    from pathlib import Path

    package = Path(__file__).resolve().parent.parent / "ticker_py"
    found = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            if name not in ("sorted", "sort", "min", "max"):
                continue
            for kw in node.keywords:
                key = ast.unparse(kw.value)
                if kw.arg == "key" and any(
                    x in key for x in ("sorted_atoms", "sorted_pinned", "texts.sorted", "texts.pinned")
                ):
                    found.append(f"{path.relative_to(package.parent)}:{node.lineno}: {key}")
    assert found == []


def test_compare_engines_follows_printed_key(other_order):
    from ticker_py import compare as comparing
    from ticker_py.api import load_program

    class Fewer:  # the same answer streams but the last printed one
        def __init__(self, inner):
            self.inner, self.append = inner, inner.append

        def evaluate(self, t):
            r = self.inner.evaluate(t)
            return r.replace(models=tuple(m for m in r.models if m.sorted_atoms() != ["z", "b"]))

    clingo = comparing.default_factory("clingo")
    factories = {"clingo": clingo, "odd": lambda a, o: Fewer(clingo(a, o))}
    cmp = comparing.compare_engines(load_program(CHOICES), [(0, ["p"])], factories)
    first = json.loads(comparing.format_comparison_json(cmp).splitlines()[0])
    assert _sets(first["answers"]["clingo"]) == OTHER and _sets(first["answers"]["odd"]) == OTHER[:3]
    assert "{y, b}" in comparing.format_tick(cmp.differing[0]).splitlines()[1]
