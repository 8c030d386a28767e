"""Factorized answer streams (``--factorize``): the targets and the ``ticker-b`` factorized series.

    python benchmarks/factorized.py                 # targets + series, markdown on stdout
    python benchmarks/factorized.py --no-series     # only the whole-process targets
    python benchmarks/factorized.py --check         # also count plain enumeration at every tick (slow)

Targets (whole process, ``ticker run`` as a subprocess; CPU = user + system time of the child):

* B1, n = 200, 1000 time points, ``--models 0 --factorize --format jsonl``: CPU, output size, the
  sum and maximum of the per-tick counts; with ``--check`` every tick is compared with plain
  enumeration (the incremental engine with ``--models 0``, in this process): the count, and the
  expanded answer streams as sets (ticks with at most 20,000);
* B1 with three items per node (same n and tp): CPU and every tick's exact count;
* the baselines ``--models 1 --format none`` and ``--models 0 --format none`` (no factorizing).

The series (``ticker bench ticker-b`` runs them too, as ``factorized`` and ``factorized-3``): B1 and
B2 at every n of the grid with the incremental engine, time, CPU and answer streams (total / largest
tick), measured by the bench runner (engine construction + every tick, no output).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ticker_py.bench.throughput import ticker_command  # noqa: E402
from ticker_py.values import format_atom  # noqa: E402
from ticker_py.workloads import generate, program  # noqa: E402


def write_case(tmp: Path, name: str, n: int, tp: int, items: int, seed: int) -> tuple:
    prog, stream = tmp / f"{name}-{items}.lars", tmp / f"{name}-{items}.stream"
    prog.write_text(program(name, window=n, items=items))
    with stream.open("w") as f:
        for t, atoms in generate(name, seed, tp=tp, window=n, items=items):
            f.write(f"{t}: " + ", ".join(format_atom(a) for a in atoms) + "\n")
    return str(prog), str(stream)


def cli_run(prog: str, stream: str, *flags, out: str = os.devnull) -> tuple:
    """``ticker run`` in a child process: (CPU seconds, wall seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [*ticker_command(), "run", prog, "--stream", stream, *flags, "--out", out],
        check=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, wall


def counts(path: str) -> list:
    with open(path) as f:
        return [int(json.loads(line)["count"]) for line in f]


def check_ticks(prog: str, stream: str, got: list) -> int:
    """Ticks where the factorized result equals plain enumeration (the incremental engine, in this
    process): the count, and the expanded answer streams as sets where there are at most 20,000."""
    from ticker_py.api import Reasoner, records_from

    text = Path(prog).read_text()
    plain = Reasoner(text, engine="incremental", models=0).feed(records_from(stream))
    fact = Reasoner(text, engine="incremental", models=0, factorize=True).feed(records_from(stream))
    same = 0
    for count, p, f in zip(got, plain, fact):
        expected = {(m.atoms, m.pinned) for m in p.models}
        same += count == len(expected) == f.factors.count and (
            count > 20_000 or {(m.atoms, m.pinned) for m in f.models} == expected
        )
    return same


def targets(tmp: Path, n: int, tp: int, seed: int, check: bool) -> list:
    out = [
        "| run | CPU (whole process) | wall | output | answer streams (total / largest tick) |",
        "|---|---|---|---|---|",
    ]
    for items in (1, 3):
        prog, stream = write_case(tmp, "b1", n, tp, items, seed)
        if items == 1:
            for flags in (("--models", "1", "--format", "none"), ("--models", "0", "--format", "none")):
                cpu, wall = cli_run(prog, stream, *flags)
                out.append(f"| B1 items=1 `{' '.join(flags)}` | {cpu:.2f} s | {wall:.2f} s | – | – |")
        jsonl = str(tmp / f"b1-{items}.jsonl")
        cpu, wall = cli_run(prog, stream, "--models", "0", "--factorize", "--format", "jsonl", out=jsonl)
        got = counts(jsonl)
        note = ""
        if check and items == 1:
            note = f"; equal to plain enumeration at {check_ticks(prog, stream, got)} of {len(got)} ticks"
        size = os.path.getsize(jsonl) / 1e6
        out.append(
            f"| B1 items={items} `--models 0 --factorize --format jsonl` | {cpu:.2f} s | {wall:.2f} s | "
            f"{size:.1f} MB | {sum(got):,} / {max(got):,}{note} |"
        )
    return out


def series(quick: bool, budget: float) -> list:
    from ticker_py.bench.report import _section_factorized
    from ticker_py.bench.runner import Settings, run_cases
    from ticker_py.bench.suites import Options, plan

    cases = [
        c for c in plan("ticker-b", Options(engines=("incremental",), quick=quick)) if c.series.startswith("factorized")
    ]
    runs = list(run_cases(cases, Settings(budget=budget)))
    out = []
    for w in ("b1", "b2"):
        out += [f"**{w.upper()}**", ""] + _section_factorized([r for r in runs if r["workload"] == w])
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--tp", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--check", action="store_true", help="compare every tick's count with plain enumeration")
    ap.add_argument("--no-series", dest="series", action="store_false")
    ap.add_argument("--quick", action="store_true", help="the series on the --quick grid")
    ap.add_argument("--budget", type=float, default=60.0)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        lines = targets(Path(tmp), args.n, args.tp, args.seed, args.check)
    if args.series:
        lines += [""] + series(args.quick, args.budget)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
