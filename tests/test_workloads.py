"""The benchmark workloads: programs parse, generators are deterministic and match BENCHMARKS.md."""

from __future__ import annotations

import argparse
import json
from collections import Counter

import pyarrow.dataset as ds
import pytest
from helpers import scaled

from ticker_py.cli.gen import register as register_gen
from ticker_py.errors import UsageError
from ticker_py.syntax import parse_program
from ticker_py.workloads import WORKLOADS, generate, program, resolve, time_points
from ticker_py.workloads.files import write_stream


def stream(name, **kw):
    return list(generate(name, **kw))


@pytest.mark.parametrize("name", list(WORKLOADS) + ["rules-3", "box-chain-4"])
@pytest.mark.parametrize("window", [1, 20])
def test_program_parses(name, window):
    prog = parse_program(program(name, window=window))
    assert prog.rules


def test_programs_as_specified():
    assert (
        program("caching-tuple", window=20).splitlines()[1]
        == "high at T :- value(V), alpha(V) at T in [20 #], 18 <= V."
    )
    assert "alpha(V) at T in [20]," in program("caching-time", window=20)
    assert program("rules", window=5, r=2) == (
        "q1(A,C) :- p(A,B) in [5], p(B,C) in [5].\nq2(A,C) :- p(A,B) in [5], p(B,C) in [5].\n"
    )
    assert program("box-chain-3", window=5).splitlines() == [
        "h1(X,Y) :- p(X,Y) in [5], q(X,Y) always [5].",
        "h2(X,Y) :- h1(X,Y).",
        "h3(X,Y) :- h2(X,Y).",
    ]
    b = program("b2", window=5, items=2)
    assert "item(1..2)." in b and "edge(3,7). edge(7,3)." in b and "lev(0..2)." in b


def test_resolve_errors():
    with pytest.raises(UsageError, match="unknown scenario 'x'; known: caching-time"):
        resolve("x")
    with pytest.raises(UsageError, match="no parameter 'items'"):
        resolve("diamond", items=2)
    with pytest.raises(UsageError, match="window must be an integer >= 1"):
        resolve("b2", window=0)
    assert resolve("rules-50")[1]["r"] == 50


#: the R4 workloads: 11,000 triples a time point by default
R4 = ("bsbm", "srbench")


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in R4 else n for n in WORKLOADS])
def test_deterministic_and_block_independent(name):
    kw = dict(tp=60, window=7)
    if name in R4:  # 20 offers or observations a time point unless TICKER_SLOW=full
        kw["rate"] = scaled(WORKLOADS[name].defaults["rate"], 20)
    ref = stream(name, seed=3, **kw)
    assert [t for t, _ in ref] == list(range(60))
    assert stream(name, seed=3, **kw) == ref
    assert stream(name, seed=3, size=5, **kw) == ref
    assert stream(name, seed=3, size=1, **kw) == ref


@pytest.mark.parametrize("name", ["caching-time", "b1", "b2", "cooling"])
def test_seed_matters(name):
    assert stream(name, seed=1, tp=100) != stream(name, seed=2, tp=100)


def test_scenario_a():
    n = 10
    s = stream("caching-time", seed=5, tp=4000, window=n)
    assert s == stream("caching-tuple", seed=5, tp=4000, window=n)
    assert all(len(atoms) == 1 and atoms[0][0] == "alpha" for _, atoms in s)
    ranges = {"high": range(18, 31), "mid": range(12, 18), "low": range(0, 12)}
    modes = Counter()
    for b in range(0, 4000, 2 * n):
        values = {atoms[0][1] for _, atoms in s[b : b + 2 * n]}
        fits = [m for m, r in ranges.items() if values <= set(r)]
        assert len(fits) == 1, values
        modes[fits[0]] += 1
    # 200 blocks; low and random share the range 0..11
    assert 30 < modes["high"] < 70 and 30 < modes["mid"] < 70 and 75 < modes["low"] < 125


def by_pred(s):
    return Counter(a[0] for _, atoms in s for a in atoms)


def test_b1_rates():
    n, tp, items = 40, 6000, 2
    s = stream("b1", seed=1, tp=tp, window=n, items=items)
    c = by_pred(s)
    assert c["req"] / tp == pytest.approx(0.1 * items, rel=0.15)
    assert c["cache"] / tp == pytest.approx(0.1, rel=0.15)
    assert c["down"] / tp == pytest.approx(0.1, rel=0.15)
    assert len(s[0][1]) >= 11  # every node reports its initial level
    changes = c["qlev"] - 11
    assert changes / (tp * 11) == pytest.approx(3 / n, rel=0.15)
    level = {}
    for _, atoms in s:
        for a in atoms:
            if a[0] == "qlev":
                assert level.get(a[1]) != a[2], "a reported level is a change"
                level[a[1]] = a[2]
            elif a[0] in ("req", "cache"):
                assert 1 <= a[1] <= items and 0 <= a[2] <= 10


def test_b2_rates():
    n, tp, items = 20, 4000, 2
    s = stream("b2", seed=2, tp=tp, window=n, items=items)
    for _, atoms in s:
        cache = [a for a in atoms if a[0] == "cache"]
        assert 1 <= len(cache) <= 3 and len(set(cache)) == len(cache)
        for i in range(1, items + 1):
            nodes = [a[2] for a in atoms if a[0] == "req" and a[1] == i]
            assert len(nodes) <= 3 and len(set(nodes)) == len(nodes)
    c = by_pred(s)
    assert c["req"] / (tp * items) == pytest.approx(0.5 * 2, rel=0.1)
    assert c["qlev"] / (tp * 11) == pytest.approx(0.25, rel=0.1)
    # consecutive reports of a node at t and t+1 keep the level with p = 0.9
    qlev = [{a[1]: a[2] for a in atoms if a[0] == "qlev"} for _, atoms in s]
    pairs = [(q[m], r[m]) for q, r in zip(qlev, qlev[1:]) for m in q if m in r]
    assert sum(a == b for a, b in pairs) / len(pairs) == pytest.approx(0.9, abs=0.03)
    # down runs last at least 1.5 n time points; about tp / n of them start
    span, starts = (3 * n + 1) // 2, 0
    down = [{a[1] for a in atoms if a[0] == "down"} for _, atoms in s]
    for m in range(11):
        run = 0
        for t in range(tp):
            if m in down[t]:
                run += 1
            elif run:
                assert run >= span
                starts, run = starts + 1, 0
    assert tp / n * 0.6 < starts < tp / n * 1.1  # overlapping events merge


def test_diamond_box_join():
    k, tp = 7, 20
    d = stream("diamond", tp=tp, rate=k)
    atoms = [a for _, atoms in d for a in atoms]
    assert all(len(a) == k for _, a in d) and len(set(atoms)) == k * tp
    assert d[3][1][2] == ("p", "a23", "b23")
    b = stream("box", tp=tp, rate=k)
    assert all(atoms == b[0][1] for _, atoms in b) and len(set(b[0][1])) == k
    j = [a for _, atoms in stream("join", tp=tp, rate=k) for a in atoms]
    assert j == [("p", f"c{i}", f"c{i + 1}") for i in range(k * tp)]
    assert stream("rules", tp=tp, rate=k, r=50) == stream("join", tp=tp, rate=k)


def test_box_chain():
    n, k = 4, 3
    for t, atoms in stream("box-chain", tp=30, window=n, rate=k):
        ps = [a for a in atoms if a[0] == "p"]
        qs = [a for a in atoms if a[0] == "q"]
        assert ps == [("p", f"a{i}", f"a{i}") for i in range(k)]
        assert qs == ([] if (t + 1) % n == 0 else [("q", f"a{i}", f"a{i}") for i in range(k)])


def test_cooling():
    s = stream("cooling", tp=200, rate=50, seed=4)
    values = [a[1] for _, atoms in s for a in atoms]
    assert all(len(a) == 50 for _, a in s)
    assert min(values) == 0 and max(values) == 200
    assert sum(values) / len(values) == pytest.approx(100, rel=0.05)


def test_write_stream_no_spark(tmp_path):
    meta = write_stream(tmp_path, "b2", "parquet", seed=1, tp=50, window=5)
    assert (tmp_path / "program.lars").read_text() == program("b2", window=5)
    assert json.loads((tmp_path / "meta.json").read_text()) == meta
    tab = ds.dataset(tmp_path / "stream.parquet", partitioning="hive").to_table()
    tab = tab.sort_by([("t", "ascending"), ("c", "ascending")])
    ref = list(time_points("b2", 1, tp=50, window=5))
    assert list(zip(tab["t"].to_pylist(), tab["atom"].to_pylist())) == [(t, a) for t, atoms in ref for a in atoms]
    assert tab["c"].to_pylist() == list(range(1, meta["atoms"] + 1))
    assert [json.loads(line) for line in open(tmp_path / "stream.jsonl")] == [{"t": t, "atoms": a} for t, a in ref]
    lines = (tmp_path / "stream.stream").read_text().splitlines()
    assert len(lines) == 50 and lines[0] == "0: " + ", ".join(ref[0][1])


def test_cli_no_spark(tmp_path, capsys):
    parser = argparse.ArgumentParser(prog="ticker")
    register_gen(parser.add_subparsers())
    args = parser.parse_args(
        ["gen", "box-chain-3", "--out", str(tmp_path), "--tp", "10", "--rate", "2", "--format", "text"]
    )
    assert args.func(args) == 0
    assert (tmp_path / "stream.stream").read_text().startswith("0: p(a0,a0), p(a1,a1), q(a0,a0)")
    assert "h3(X,Y)" in (tmp_path / "program.lars").read_text()
    args = parser.parse_args(["gen", "nope", "--out", str(tmp_path)])
    with pytest.raises(UsageError, match="unknown scenario 'nope'"):
        args.func(args)
