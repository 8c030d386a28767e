"""The native engine alone, counted in instructions instead of timed: old and new code side by side.

On a shared machine timings of the engine alone vary by ±20 % between runs; instruction counts
(valgrind's cachegrind) do not, so small changes can be compared. For each workload and each source
tree this runs the engine over the first N time points of the stream, atoms parsed in advance and
loaded from a pickle, the cycle collector tuned as ``ticker`` tunes it, and subtracts a run over 0 time
points (start-up, imports, loading). Compile the trees first (``python -m compileall -q TREE/ticker_py``)
or both sides pay the compilation.

    python benchmarks/native_instructions.py --trees /path/to/old /path/to/new \
        --streams /tmp/s20 --points 150 box diamond join cooling

``--streams`` holds one directory per workload with ``program.lars`` and ``stream.stream`` (as
``ticker gen`` writes them). Needs valgrind; each run takes 10–60 s.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = """
import pickle, sys
from pathlib import Path
from ticker_py.api import load_program
from ticker_py.process import steady_heap, tune_collector
from ticker_py.engines import EngineOptions, create_engine
program, points, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
analysis = load_program(Path(program))
points = pickle.load(open(points, "rb"))[:n]
tune_collector()
steady_heap()
engine = create_engine("native", analysis, EngineOptions(models=1, changes_only=True))
for t, atoms in points:
    engine.append(t, atoms)
    engine.evaluate(t)
"""


def _points(tree: Path, stream: Path, out: Path) -> None:
    """The stream's time points as ``[(t, [atom, ...])]``, parsed by ``tree``, pickled to ``out``."""
    code = (
        "import pickle, sys; from ticker_py.api import records_from; from ticker_py.streams import time_points; "
        "pickle.dump([(p.t, list(p.atoms)) for p in time_points(records_from(sys.argv[1]))], "
        "open(sys.argv[2], 'wb'))"
    )
    subprocess.run([sys.executable, "-c", code, str(stream), str(out)], check=True, env=_env(tree))


def _env(tree: Path) -> dict:
    return {**os.environ, "PYTHONPATH": str(tree)}


def instructions(tree: Path, program: Path, points: Path, n: int) -> int:
    """Instructions (cachegrind's ``I refs``) of one child run over the first n time points."""
    proc = subprocess.run(
        [
            "valgrind",
            "--tool=cachegrind",
            "--cache-sim=no",
            "--cachegrind-out-file=/dev/null",
            sys.executable,
            "-c",
            CHILD,
            str(program),
            str(points),
            str(n),
        ],
        capture_output=True,
        text=True,
        env=_env(tree),
        check=True,
    )
    return int(re.search(r"I\s+refs:\s+([\d,]+)", proc.stderr).group(1).replace(",", ""))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trees", nargs=2, type=Path, required=True, metavar=("OLD", "NEW"))
    ap.add_argument("--streams", type=Path, default=Path("/tmp/s20"))
    ap.add_argument("--points", type=int, default=150)
    ap.add_argument("workloads", nargs="*", default=["box", "diamond", "join", "cooling"])
    args = ap.parse_args(argv)
    print(f"| workload ({args.points} time points) | old (M instructions) | new | new ÷ old |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for w in args.workloads:
            d = args.streams / w
            pk = Path(tmp) / f"{w}.pickle"
            _points(args.trees[0], d / "stream.stream", pk)
            old, new = (
                instructions(tree, d / "program.lars", pk, args.points) - instructions(tree, d / "program.lars", pk, 0)
                for tree in args.trees
            )
            print(f"| {w} | {old / 1e6:.0f} | {new / 1e6:.0f} | {new / old:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
