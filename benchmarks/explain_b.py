"""Explaining one atom in Ticker scenario B (n = 200) after 1000 time points: CPU time per explanation.

    python benchmarks/explain_b.py                 # b1, n = 200, tp = 1000, engine auto
    python benchmarks/explain_b.py --scenario b2 --window 80 --tp 500

Runs the stream through a Reasoner (one answer stream per tick), then explains, at the last
time point, every atom of the answer stream of a few predicates (why) and a few atoms that do
not hold (why not), each ``--repeat`` times, and prints the median and maximum CPU time
(``time.process_time``) per explanation. The target of docs/explain.md is <= 100 ms.
"""

from __future__ import annotations

import argparse
import statistics
import time

from ticker_py import Reasoner
from ticker_py.values import format_atom
from ticker_py.workloads import generate, program


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", default="b1", help="b1 or b2")
    ap.add_argument("--window", type=int, default=200)
    ap.add_argument("--tp", type=int, default=1000)
    ap.add_argument("--engine", default="auto")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    name = args.scenario
    reasoner = Reasoner(program(name, window=args.window), engine=args.engine)
    start = time.process_time()
    for t, atoms in generate(name, tp=args.tp, window=args.window):
        reasoner.append(t, atoms)
        result = reasoner.evaluate(t)
    run_cpu = time.process_time() - start
    model = result.models[0]
    queries = [
        (format_atom(a), False)
        for a in sorted(model.atoms, key=format_atom)
        if a[0] in ("get", "need", "source", "qual", "reach", "conn")
    ][:40]
    queries += [
        (q, True)
        for q in ("get(1,0,5)", "need(1,4)", "avail(1,2)", "conn(0,1)", "qual(3,0)")
        if q not in {format_atom(a) for a in model.atoms}
    ]
    times = {}
    for atom, why_not in queries:
        for _ in range(args.repeat):
            t0 = time.process_time()
            reasoner.explain(result.t, atom, why_not=why_not)
            times.setdefault((atom, why_not), []).append(time.process_time() - t0)
    per = [statistics.median(v) for v in times.values()]
    worst = max(times, key=lambda k: max(times[k]))
    print(
        f"{name} n={args.window} tp={args.tp} engine={reasoner.engine_name}: run {run_cpu:.1f} s CPU; "
        f"{len(queries)} explanations at t={result.t}: median {1000 * statistics.median(per):.1f} ms, "
        f"max {1000 * max(max(v) for v in times.values()):.1f} ms "
        f"({'why not ' if worst[1] else 'why '}{worst[0]})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
