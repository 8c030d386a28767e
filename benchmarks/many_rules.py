"""Time ``ticker check`` and ``ticker run`` on generated programs of many simple rules.

    python benchmarks/many_rules.py [N ...]           # default: 10000 100000

Each program has N rules over 100 stream predicates: windows, joins, negation, comparisons and
chains of derived predicates (``rules(n)`` below). Prints the CPU and wall time of a fresh
``python -m ticker_py.cli check`` (and ``run`` on a 3-tick stream) per N. See docs/cli.md.
"""

import os
import resource
import subprocess
import sys
import tempfile
import time

STREAMS = 100


def rules(n: int):
    """n simple rules, every fifth one of each shape."""
    for i in range(n):
        s, k = f"s{i % STREAMS}", i % 5
        if k == 0:
            yield f"d{i}(X) :- {s}(X, Y) in [{1 + i % 7}], Y > {i % 50}."
        elif k == 1:
            yield f"d{i}(X) :- d{i - 1}(X), not {s}(X, 1) in [2]."
        elif k == 2:
            yield f"d{i}(X, Y) :- {s}(X, Y) always [3], d{i - 2}(X)."
        elif k == 3:
            yield f"d{i}(X) :- d{i - 1}(X, Y), Y != {i % 9}."
        else:
            yield f"alarm{i % 13} :- d{i - 1}(X) at T in [5], T > 1."


def main(sizes):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root)
    with tempfile.TemporaryDirectory() as tmp:
        stream = os.path.join(tmp, "s.stream")
        with open(stream, "w") as f:
            f.write("0: s0(1, 60), s1(2, 1)\n1: s0(1, 60)\n2: s3(4, 4)\n")
        for n in sizes:
            prog = os.path.join(tmp, f"p{n}.lars")
            with open(prog, "w") as f:
                f.write("\n".join(rules(n)) + "\n")
            for cmd in (["check", prog], ["run", prog, "--stream", stream, "--engine", "native"]):
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                t = time.perf_counter()
                out = subprocess.run(
                    [sys.executable, "-m", "ticker_py.cli", *cmd], env=env, capture_output=True, text=True
                )
                wall = time.perf_counter() - t
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
                status = "ok" if out.returncode == 0 else f"status {out.returncode}: {out.stderr[-300:]}"
                print(f"{cmd[0]:5} {n:>7} rules: cpu {cpu:6.2f} s, wall {wall:6.2f} s  {status}", flush=True)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [10_000, 100_000])
