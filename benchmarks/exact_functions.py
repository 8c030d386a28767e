"""What a Python function costs clingo's grounder per rule instance (docs/semantics.md, "Values
and limits": why the encodings compute through Python only where a value could need it).

    python benchmarks/exact_functions.py [--facts 200000] [--repeat 5]

grounds ``p(0..n-1)`` alone, then with ``q(X) :- p(X), X > 100.`` (clingo's own comparison) and
with ``q(X) :- p(X), @_cmp(X,100,0) > 0.`` (ticker_py's exact comparison,
:class:`ticker_py.engines.wide.ExactContext`), each in a fresh process, and prints the median CPU
seconds of each and the cost per rule instance beyond grounding the facts.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys

RULES = {
    "facts only": "",
    "clingo's comparison": "q(X) :- p(X), X > 100.",
    "Python's comparison": "q(X) :- p(X), @_cmp(X,100,0) > 0.",
}

CHILD = """
import sys, clingo
from ticker_py import ast
from ticker_py.engines.wide import ExactContext
n, rule = int(sys.argv[1]), sys.argv[2]
ctl = clingo.Control(["--warn=none"])
ctl.add("base", [], f"p(0..{n - 1}).\\n" + rule)
ctl.ground([("base", [])], context=ExactContext([ast.Comparison(">", ast.Variable("X"), ast.Number(100))]))
"""


def cpu(n: int, rule: str) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", CHILD, str(n), rule], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    times = {name: [] for name in RULES}
    for _ in range(args.repeat):  # in turn, so that a drift of the machine's speed hits all alike
        for name, rule in RULES.items():
            times[name].append(cpu(args.facts, rule))
    base = statistics.median(times["facts only"])
    for name, ts in times.items():
        median = statistics.median(ts)
        per = "" if name == "facts only" else f"  {(median - base) / args.facts * 1e6:.2f} µs per rule instance"
        print(f"{name:22} {median:.3f} s{per}")


if __name__ == "__main__":
    main()
