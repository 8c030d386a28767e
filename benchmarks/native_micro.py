"""Laser micro-benchmarks on the native engine: CPU µs per input atom.

Streams are pre-built lists of atom tuples fed through ``engine.append(t, atoms)`` +
``engine.evaluate(t)`` with ``changes_only`` output (see docs/benchmarks.md for the programs).

    python benchmarks/native_micro.py            # the anchor grid: n in {10,50,100}, k in {100,500,1000}, 300 tp
    python benchmarks/native_micro.py --quick    # a small run
    python benchmarks/native_micro.py --workloads diamond --n 100 --k 1000
    python benchmarks/native_micro.py --memory   # RSS over 10^6 diamond atoms
"""

from __future__ import annotations

import argparse
import gc
import random
import resource
import time

from ticker_py.api import load_program
from ticker_py.engines.base import EngineOptions
from ticker_py.engines.native import NativeEngine

COOLING = """\
steam(V) at T :- temp(V) at T in [{n}], V >= 100.
liquid(V) at T :- temp(V) at T in [{n}], V >= 1, V < 100.
issteam at T :- steam(V) at T in [{n}].
isliquid at T :- liquid(V) at T in [{n}].
alarm :- issteam always [{n}].
normal :- isliquid always [{n}].
veryhot(T) :- steam(V) at T in [{n}], V >= 150.
verycold(T) :- liquid(V) at T in [{n}], V = 1.
freeze :- not alarm, not normal.
"""


def program(name: str, n: int, w: int = 10) -> str:
    if name == "diamond":
        return f"q(A,B) :- p(A,B) in [{n}]."
    if name == "box":
        return f"q(A,B) :- p(A,B) always [{n}]."
    if name == "join":
        return f"q(A,C) :- p(A,B) in [{n}], p(B,C) in [{n}]."
    if name == "cooling":
        return COOLING.format(n=n)
    if name == "box-chain":
        rules = [f"h1(X,Y) :- p(X,Y) in [{n}], q(X,Y) always [{n}]."]
        rules += [f"h{i + 1}(X,Y) :- h{i}(X,Y)." for i in range(1, w)]
        return "\n".join(rules)
    raise ValueError(name)


def stream(name: str, n: int, k: int, tp: int, seed: int = 1):
    """A list of (t, [atom tuples]) built before timing."""
    rnd = random.Random(seed)
    if name == "diamond":
        return [(t, [("p", f"a{j}", f"b{j}") for j in range(t * k, (t + 1) * k)]) for t in range(tp)]
    if name == "box":
        same = [("p", f"a{i}", f"b{i}") for i in range(k)]
        return [(t, same) for t in range(tp)]
    if name == "join":
        return [(t, [("p", f"c{j}", f"c{j + 1}") for j in range(t * k, (t + 1) * k)]) for t in range(tp)]
    if name == "cooling":
        return [(t, [("temp", rnd.randint(0, 200)) for _ in range(k)]) for t in range(tp)]
    if name == "box-chain":
        ps = [("p", f"a{i}", f"a{i}") for i in range(k)]
        qs = [("q", f"a{i}", f"a{i}") for i in range(k)]
        return [(t, ps + (qs if t % n else [])) for t in range(tp)]
    raise ValueError(name)


def run(name: str, n: int, k: int, tp: int, pruning: bool = True, w: int = 10, repeat: int = 1):
    """(µs per input atom, CPU seconds, engine stats) for one workload: the best of ``repeat`` runs."""
    best = None
    for _ in range(repeat):
        res = _run(name, n, k, tp, pruning, w)
        if best is None or res[1] < best[1]:
            best = res
    return best


def _run(name, n, k, tp, pruning, w):
    analysis = load_program(program(name, n, w))
    engine = NativeEngine(analysis, EngineOptions(changes_only=True, pruning=pruning))
    data = stream(name, n, k, tp)
    atoms = sum(len(a) for _, a in data)
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        for t, batch in data:
            engine.append(t, batch)
            engine.evaluate(t)
        cpu = time.process_time() - start
    finally:
        gc.enable()
    return cpu * 1e6 / atoms, cpu, dict(engine.stats)


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def memory(n: int = 100, k: int = 1000, total: int = 1_000_000):
    """Peak RSS while feeding ``total`` diamond atoms, sampled every 10%."""
    engine = NativeEngine(load_program(program("diamond", n)), EngineOptions(changes_only=True))
    tp = total // k
    marks = []
    for t in range(tp):
        engine.append(t, [("p", f"a{j}", f"b{j}") for j in range(t * k, (t + 1) * k)])
        engine.evaluate(t)
        if (t + 1) % (tp // 10) == 0:
            marks.append(((t + 1) * k, round(rss_mb(), 1)))
    return marks


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="n in {10,100}, k in {100,1000}, 100 tp")
    ap.add_argument("--workloads", default="diamond,box,join,cooling")
    ap.add_argument("--n", default=None, help="comma-separated window sizes")
    ap.add_argument("--k", default=None, help="comma-separated atoms per time point")
    ap.add_argument("--tp", type=int, default=None)
    ap.add_argument("--memory", action="store_true")
    ap.add_argument("--no-box-chain", action="store_true")
    ap.add_argument("--repeat", type=int, default=3, help="report the best of this many runs")
    args = ap.parse_args(argv)
    ns = [10, 100] if args.quick else [10, 50, 100]
    ks = [100, 1000] if args.quick else [100, 500, 1000]
    tp = args.tp or (100 if args.quick else 300)
    if args.n:
        ns = [int(x) for x in args.n.split(",")]
    if args.k:
        ks = [int(x) for x in args.k.split(",")]
    if args.memory:
        for atoms, mb in memory():
            print(f"{atoms:>9} atoms  max RSS {mb} MB")
        return
    print(f"CPU µs per input atom, {tp} time points, changes_only")
    print("| workload | " + " | ".join(f"n={n} k={k}" for n in ns for k in ks) + " |")
    print("|---|" + "---|" * (len(ns) * len(ks)))
    for name in args.workloads.split(","):
        cells = [f"{run(name, n, k, tp, repeat=args.repeat)[0]:.2f}" for n in ns for k in ks]
        print(f"| {name} | " + " | ".join(cells) + " |")
    if not args.no_box_chain:
        print()
        print("| box-chain (k, n, w) | pruning | rule evaluations | pruned | CPU s | µs/atom |")
        print("|---|---|---|---|---|---|")
        for w in (10, 20):
            for pruning in (True, False):
                k, n = ks[-1], ns[-1]
                us, cpu, stats = run("box-chain", n, k, tp, pruning=pruning, w=w, repeat=args.repeat)
                print(
                    f"| {k}, {n}, {w} | {'on' if pruning else 'off'} | {stats['rule_evaluations']} |"
                    f" {stats['pruned']} | {cpu:.3f} | {us:.2f} |"
                )


if __name__ == "__main__":
    main()
