"""Every output format prints byte for byte what it printed before the writers were unified.

``tests/fixtures/writers/golden.json`` holds the standard output and exit status of ``ticker run``
(and of a few ``ticker run --shards``, ``ticker compare`` and DataFrame views) over the programs
and streams of ``tests/fixtures/writers`` — generated workloads (box, diamond, join, cooling, B1),
the examples of the docs, and programs made for the writers' corners: texts JSON and CSV must
escape, pins, answer streams that print the same without their pins, ticks without an answer
stream — for every format and option (``--changes``, ``--show-at``, ``--models 0``,
``--factorize``, ``--consequences``, ``--format none``'s summary, N-Triples and N-Quads) and the
engines whose changes-only paths differ. The file was written by the writers as they were (one
family of plain and one of factorized writers); :func:`regenerate` rewrites it, for a change of a
format made on purpose.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import pytest
from helpers import ticker

HERE = Path(__file__).resolve().parent / "fixtures" / "writers"
GOLDEN = HERE / "golden.json"

#: the options whose writer path depends on the engine (changes-only results, split or plain)
WHOLE = [
    [],
    ["--format", "text"],
    ["--format", "csv"],
    ["--format", "none"],
    ["--changes"],
    ["--changes", "--show-at"],
    ["--show-at"],
    ["--show-at", "--format", "text"],
    ["--show-at", "--format", "csv"],
]
#: several answer streams, factorized, consequences
SEVERAL = [
    ["--models", "0"],
    ["--models", "0", "--format", "text"],
    ["--models", "0", "--format", "csv"],
    ["--models", "0", "--show-at"],
    ["--models", "0", "--show-at", "--format", "text"],
    ["--models", "0", "--show-at", "--format", "csv"],
    ["--models", "0", "--format", "none"],
    ["--factorize"],
    ["--factorize", "--format", "text"],
    ["--factorize", "--format", "csv"],
    ["--factorize", "--format", "none"],
    ["--factorize", "--show-at"],
    ["--factorize", "--show-at", "--format", "text"],
    ["--factorize", "--show-at", "--format", "csv"],
    ["--factorize", "--changes"],
    ["--factorize", "--models", "3", "--format", "text"],
    ["--consequences", "brave"],
    ["--consequences", "cautious", "--show-at"],
]
WORKLOADS = ["box", "diamond", "join", "cooling"]
EXAMPLES = ["alarm", "caching", "semantics", "escape", "single"]
CHOICES = ["b1", "choice", "items", "pick", "pins", "dedupe"]


def _run(name: str, engine: str, options: list) -> list:
    return ["run", f"{name}.lars", "--stream", f"{name}.stream", "--engine", engine, *options]


def cases() -> list:
    """Every command of the golden file (arguments relative to tests/fixtures/writers). Where a tick
    has several answer streams, every one is printed (which one ``--models 1`` gives is the solver's
    choice, not the writers')."""
    out = []
    for name in WORKLOADS + EXAMPLES:  # one answer stream: changes split (native) or a plain pair
        for engine in ("native", "incremental"):
            out += [_run(name, engine, o) for o in WHOLE]
    for name in ["cooling", "escape", "single"]:
        out += [_run(name, engine, o) for engine in ("clingo", "incremental-pure") for o in WHOLE[:6]]
    for name in CHOICES:  # several answer streams, found in another order by each solver
        out += [_run(name, engine, o) for engine in ("incremental", "clingo") for o in SEVERAL]
    for name in ["alarm", "escape", "cooling"]:
        out += [_run(name, "auto", o) for o in SEVERAL]
    rdf = ["run", "alert.lars", "--stream", "obs.nt", "--background-rdf", "weather.ttl", "--owl2rl", "--rdf-output"]
    for engine in ("native", "incremental", "clingo"):
        out += [[*rdf, "alert", "--engine", engine, "--format", fmt] for fmt in ("ntriples", "nquads")]
    out.append([*rdf, "recent", "--format", "ntriples"])
    for name in WORKLOADS:
        out += [_run(name, "auto", ["--shards", "2", *o]) for o in ([], ["--changes"], ["--format", "text"])]
    out += [_run("b1", "auto", ["--shards", "2", "--models", "0", "--format", o]) for o in ("jsonl", "csv")]
    out += [_run("b1", "auto", ["--shards", "2", "--factorize", "--format", "text"])]
    for name in ["choice", "pins", "dedupe", "cooling"]:
        compare = ["compare", f"{name}.lars", "--stream", f"{name}.stream", "--engines", "clingo,incremental"]
        out += [compare, [*compare, "--format", "json"]]
    out.append(["compare", "cooling.lars", "--stream", "cooling.stream", "--engines", "clingo,native", "--changes"])
    out.append(["compare", "pins.lars", "--stream", "pins.stream", "--semantics", "default,lars,r4"])
    out.append(["compare", "pins.lars", "--stream", "pins.stream", "--semantics", "default,r4", "--format", "json"])
    return out


def _key(argv: list) -> str:
    return " ".join(argv)


def _normal(text: str) -> str:
    """The output without what varies from run to run (the evaluation time of ``--format none``)."""
    return re.sub(r"evaluation: \d+\.\d+ s", "evaluation: S s", text)


def _printed(capsys, monkeypatch, argv: list) -> dict:
    monkeypatch.chdir(HERE)
    code, out, _ = ticker(capsys, *argv)
    return {"status": code, "out": _normal(out)}


@functools.cache
def _frames() -> dict:
    """The DataFrame views (``Results.to_dataframe``) of plain and factorized results, as CSV."""
    from ticker_py import run

    out = {}
    for name in CHOICES + ["escape", "cooling", "single"]:
        program, stream = (HERE / f"{name}.lars").read_text(), HERE / f"{name}.stream"
        for options in ({"models": 0}, {"factorize": True}) if name in CHOICES else ({"models": 1},):
            for show_at in (False, True):
                frame = run(program, str(stream), **options).to_dataframe(show_at=show_at)
                out[f"frame {name} {options} show_at={show_at}"] = frame.to_csv(index=False)
    return out


def regenerate() -> None:
    """Rewrite the golden file from the writers of this tree (a format changed on purpose)."""
    import contextlib
    import io
    import os

    from ticker_py.cli import main

    printed = {}
    here = os.getcwd()
    os.chdir(HERE)
    try:
        for argv in cases():
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(argv)
            printed[_key(argv)] = {"status": code, "out": _normal(out.getvalue())}
    finally:
        os.chdir(here)
    printed.update({key: {"status": 0, "out": text} for key, text in _frames().items()})
    texts = list(dict.fromkeys(v["out"] for v in printed.values()))  # engines mostly print alike: once
    index = {text: i for i, text in enumerate(texts)}
    cases_ = {key: [v["status"], index[v["out"]]] for key, v in printed.items()}
    GOLDEN.write_text(json.dumps({"cases": cases_, "outputs": texts}, indent=0, ensure_ascii=False) + "\n")


@pytest.fixture(scope="module")
def golden() -> dict:
    """``{case: {"status": ..., "out": ...}}``."""
    stored = json.loads(GOLDEN.read_text())
    return {key: {"status": code, "out": stored["outputs"][i]} for key, (code, i) in stored["cases"].items()}


def test_the_golden_file_has_every_case(golden):
    assert set(golden) == {_key(a) for a in cases()} | set(_frames())
    assert sum(v["status"] == 0 and v["out"] != "" for v in golden.values()) > 0.8 * len(golden)


@pytest.mark.parametrize("argv", cases(), ids=_key)
def test_output_is_byte_identical(argv, golden, capsys, monkeypatch):
    assert _printed(capsys, monkeypatch, argv) == golden[_key(argv)]


def test_dataframes_are_identical(golden):
    for key, text in _frames().items():
        assert text == golden[key]["out"], key
