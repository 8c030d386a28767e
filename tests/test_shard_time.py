"""Time and key x time sharding: every shipped program and benchmark workload, sharded by key, by
time and by both, equals the single run at every time point (answers, counts c, and with
``models=0`` every answer stream). Without Spark: the cells run one after another through the
functions the Spark executors run (``ticker_py.shard.evaluate_cell`` and ``merge_shards``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ticker_py import run
from ticker_py.analysis.sharding import time_plan
from ticker_py.api import load_program
from ticker_py.errors import UsageError
from ticker_py.shard import cut_ranges, make_grid, plan_for, run_sharded_local
from ticker_py.streams import printed_models
from ticker_py.workloads import WORKLOADS, generate, program

ENCODINGS = Path(__file__).resolve().parent.parent / "encodings"

#: each shipped program with the workload that makes its stream (small sizes)
SHIPPED = {
    "box.lars": ("box", dict(tp=30, rate=4)),
    "box_chain.lars": ("box-chain", dict(tp=30, rate=3)),
    "caching.lars": ("caching-time", dict(tp=60)),
    "caching_tuple.lars": ("caching-tuple", dict(tp=60)),
    "cooling.lars": ("cooling", dict(tp=30, rate=4)),
    "diamond.lars": ("diamond", dict(tp=30, rate=4)),
    "join.lars": ("join", dict(tp=30, rate=4)),
    "retrieval.lars": ("b1", dict(tp=50, items=1)),
}

#: every benchmark workload, small
WORKLOAD_PARAMS = {
    "caching-time": dict(tp=50, window=7),
    "caching-tuple": dict(tp=50, window=7),
    "b1": dict(tp=40, window=6, items=2),
    "b2": dict(tp=10, window=2, items=1),  # dense: up to 3^5 answer streams per time point
    "diamond": dict(tp=30, window=4, rate=4),
    "box": dict(tp=30, window=4, rate=4),
    "join": dict(tp=30, window=4, rate=4),
    "rules": dict(tp=20, window=3, rate=3, r=3),
    "box-chain": dict(tp=30, window=4, rate=3, w=3),
    "cooling": dict(tp=30, window=4, rate=5),
    "bsbm": dict(tp=12, window=2, rate=20),
    "srbench": dict(tp=12, window=2, rate=30),
}


def view(results):
    return [(r.t, r.c, printed_models(r, show_at=True)) for r in results]


def plans(prog: str) -> list:
    analysis = load_program(prog)
    out = []
    for by in ("key", "time", "both"):
        try:
            plan_for(analysis, by)
        except UsageError:
            continue
        out.append(by)
    return out


def check_equal(prog, stream, shards, by, models):
    single = view(run(prog, stream, models=models))
    got = view(run_sharded_local(prog, stream, shards=shards, models=models, shard_by=by))
    if models == 1 and any(len(m) > 1 for _, _, m in view(run(prog, stream, models=0))):
        # several answer streams: the sharded run gives one of them, with the single run's count
        every = view(run(prog, stream, models=0))
        assert [(t, c) for t, c, _ in got] == [(t, c) for t, c, _ in single]
        assert all(set(m) <= set(e) for (_, _, m), (_, _, e) in zip(got, every))
    else:
        assert got == single
    assert len(single) == len(got) and single


CASES = [(f"enc:{name}", (ENCODINGS / name).read_text(), w, p) for name, (w, p) in SHIPPED.items()] + [
    (f"workload:{w}", program(w, **{k: v for k, v in p.items() if k not in ("tp", "rate")}), w, p)
    for w, p in WORKLOAD_PARAMS.items()
]


def test_every_workload_is_covered():
    assert set(WORKLOAD_PARAMS) == set(WORKLOADS)
    assert set(SHIPPED) == {p.name for p in ENCODINGS.glob("*.lars")}


@pytest.mark.parametrize("name, prog, workload, params", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("models", [1, 0])
def test_sharded_equals_single_at_every_time_point(name, prog, workload, params, models):
    stream = list(generate(workload, seed=5, **params))
    found = plans(prog)
    assert "time" in found  # every shipped program and workload shards by time
    for by in found:
        for shards in (2, 3) if by != "both" else (4,):
            check_equal(prog, stream, shards, by, models)


def test_cut_by_atom_count_spreads_a_burst():
    counts = {t: 1 for t in range(100)}
    counts[10] = 1000  # a burst
    ranges = cut_ranges(counts, 99, 4)
    assert ranges[0][0] == 0 and ranges[-1][1] == 100
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
    assert ranges == [(0, 10), (10, 11), (11, 56), (56, 100)]  # the burst alone, the rest balanced
    even = cut_ranges({}, 99, 4)
    assert even == [(0, 25), (25, 50), (50, 75), (75, 100)]


def test_a_range_reads_its_lookback_and_tuple_lookback():
    tuple_prog = (ENCODINGS / "caching_tuple.lars").read_text()
    analysis = load_program(tuple_prog)
    plan = time_plan(analysis)
    assert plan.lookback == 20 and plan.tuple_lookback == 20
    counts = {t: 1 if t % 10 == 0 else 0 for t in range(1000)}  # one atom every 10 time points
    grid = make_grid(analysis, 4, counts, 999, "time")
    assert [r[0] for r in grid.ranges] == [0, 250, 500, 750]
    # the 20 atoms before 250 start at 50, 200 time points back: the tuple window, not the time window, decides
    assert [s[0] for s in grid.spans] == [0, 50, 300, 550]
    assert grid.bases == (0, 25, 50, 75)


def test_unbounded_lookback_and_inertia_are_refused_with_the_reason():
    at = "q(T) :- p at T.\n"
    with pytest.raises(UsageError, match="@-atom without window reads the whole past"):
        run_sharded_local(at, [(0, ["p"])], shards=2, shard_by="time")
    with pytest.raises(UsageError, match="no argument to key on.*not by time: an @-atom"):
        run_sharded_local("a :- p at T.\nq(T) :- p at T.", [(0, ["p"])], shards=2)
    with pytest.raises(UsageError, match="--inertia"):
        run_sharded_local("q(X) :- p(X,Y) in [2].", [(0, ["p(1,2)"])], shards=2, shard_by="time", inertia=True)
    with pytest.raises(UsageError, match="unknown shard_by"):
        run_sharded_local("q(X) :- p(X) in [2].", [(0, ["p(1)"])], shards=2, shard_by="space")


def test_output_ranges_of_a_key_plan_restart_from_the_whole_answer(monkeypatch):
    """Without time sharding a long run is still cut into output ranges; each starts from the
    cell's whole answer (changes only engine and whole-model engine alike)."""
    from ticker_py.shard import plan

    monkeypatch.setattr(plan, "OUTPUT_RANGE_ATOMS", 20)
    for prog, workload, params in [
        ((ENCODINGS / "box.lars").read_text(), "box", dict(tp=30, rate=4)),
        ((ENCODINGS / "retrieval.lars").read_text(), "b1", dict(tp=40, items=1)),
    ]:
        stream = list(generate(workload, seed=1, **params))
        analysis = load_program(prog)
        grid = make_grid(analysis, 2, {t: len(a) for t, a in stream}, len(stream) - 1, "key")
        assert len(grid.ranges) >= 3 and len(grid.spans) == 1
        assert view(run_sharded_local(prog, stream, shards=2, shard_by="key")) == view(run(prog, stream))


def test_counts_only_for_format_none():
    prog = (ENCODINGS / "join.lars").read_text()
    stream = list(generate("join", seed=1, tp=30, rate=4))
    got = list(run_sharded_local(prog, stream, shards=3, format="none"))
    assert [(r.t, r.c) for r in got] == [(r.t, r.c) for r in run(prog, stream)]
    assert all(r.models == (empty_model(),) for r in got)


def empty_model():
    from ticker_py.streams.model import Model

    return Model(frozenset())


def test_until_and_a_bad_record_by_time():
    from ticker_py.errors import StreamError

    prog = (ENCODINGS / "join.lars").read_text()
    stream = [(0, ["p(a,b)"]), (2, ["p(b,c)", "p(e)"]), (5, ["p(c,d)"]), (7, ["q(e,f)"])]  # q is derived
    got = []
    with pytest.raises(StreamError, match="intensional predicate 'q/2'"):
        for r in run_sharded_local(prog, stream, shards=3, shard_by="time"):
            got.append(r)
    assert view(got) == view(run(prog, stream[:3]))  # what was accepted, then the error
    assert view(run_sharded_local(prog, stream[:3], shards=3, shard_by="time", until=30)) == view(
        run(prog, stream[:3], until=30)
    )


@pytest.mark.parametrize("by, shards", [("time", 3), ("key", 2), ("both", 4)])
def test_factorized_sharded_equals_single(by, shards):
    """``--factorize``: each cell factorizes its answer streams, the key shards' factors side by side."""
    prog = (ENCODINGS / "retrieval.lars").read_text() + "item(2..3).\n"
    stream = list(generate("b1", seed=3, tp=30, window=20, items=3))
    single = list(run(prog, stream, models=0, factorize=True))
    got = list(run_sharded_local(prog, stream, shards=shards, models=0, shard_by=by, factorize=True))
    assert max(r.factors.count for r in single) > 1  # several answer streams, as a product
    assert [(r.t, r.c, r.factors.count) for r in got] == [(r.t, r.c, r.factors.count) for r in single]
    assert view(got) == view(single)
    if by == "time":  # one key shard: the very factorization of the single run
        assert [r.factors for r in got] == [r.factors for r in single]


def test_factorize_through_the_command_line(tmp_path, capsys):
    from ticker_py.cli import main

    prog = tmp_path / "r.lars"
    prog.write_text((ENCODINGS / "retrieval.lars").read_text() + "item(2..3).\n")
    path = tmp_path / "s.stream"
    from ticker_py.workloads import time_points

    path.write_text("".join(f"{t}: {', '.join(a)}\n" for t, a in time_points("b1", 3, tp=30, window=20, items=3)))
    assert main(["run", str(prog), "--stream", str(path), "--factorize"]) == 0
    single = capsys.readouterr().out
    for by in ("time", "key"):
        assert main(["run", str(prog), "--stream", str(path), "--factorize", "--shards", "3", "--shard-by", by]) == 0
        assert capsys.readouterr().out == single


def test_a_name_of_several_arities_is_cut_by_time_only():
    """Key shards split the stream by predicate name: p/1 and p/2 would part; time ranges do not."""
    prog = "q(X) :- p(X) in [2].\nr(X) :- p(X,Y) in [2], p(Y).\n"
    stream = [(t, [f"p({t})", f"p({t},{t - 1})"]) for t in range(8)]
    single = view(run(prog, stream))
    for by in ("auto", "time"):
        assert view(run_sharded_local(prog, stream, shards=2, shard_by=by)) == single, by
    for by in ("key", "both"):
        with pytest.raises(UsageError, match="'p' is used with several arities"):
            list(run_sharded_local(prog, stream, shards=2, shard_by=by))
