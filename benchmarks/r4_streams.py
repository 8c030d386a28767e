"""Write the R4 workloads as RDF streams and time the whole ``ticker run`` on them.

    python benchmarks/r4_streams.py OUT_DIR [--tp 100] [--seed 0]

writes ``OUT_DIR/{bsbm,srbench}.nt`` (one line per time point: ``T: <s> <p> <o> . ...``, the
generated atom stream with every term mapped back to its RDF term) and the programs
``OUT_DIR/{bsbm,srbench}-N.lars`` for windows N of 1, 5 and 10 s; then times
``python -m ticker_py.cli run PROGRAM --stream STREAM`` for each (CPU of the child, peak RSS,
the load average before and after), as docs/benchmarks.md reports them.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from ticker_py.bench.suites import R4_WINDOWS
from ticker_py.rdf.terms import from_value
from ticker_py.workloads import program, time_points
from ticker_py.workloads.r4 import WORKLOADS

RATES = {w.name: w.defaults["rate"] for w in WORKLOADS}


def write_nt(path: Path, name: str, seed: int, tp: int) -> None:
    from ticker_py.syntax.ground_atoms import parse_ground_atom

    with open(path, "w") as f:
        for t, atoms in time_points(name, seed, tp=tp, rate=RATES[name]):
            triples = []
            for text in atoms:
                _, s, p, o = parse_ground_atom(text)
                triples.append(f"{from_value(s)} {from_value(p)} {from_value(o)} .")
            f.write(f"{t}: {' '.join(triples)}\n")


def timed(cmd: list) -> dict:
    """CPU seconds and peak RSS of the child running ``cmd``, and the load average around it."""
    load = os.getloadavg()[0]
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"{' '.join(cmd)} exited with {child.returncode}")
    return {"cpu": round(usage.ru_utime + usage.ru_stime, 1), "peak_mb": round(usage.ru_maxrss / 1024),
            "load": (round(load, 1), round(os.getloadavg()[0], 1))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--tp", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name in RATES:
        stream = args.out / f"{name}.nt"
        if not stream.exists():
            write_nt(stream, name, args.seed, args.tp)
        for n in R4_WINDOWS:
            prog = args.out / f"{name}-{n}.lars"
            prog.write_text(program(name, window=n, tp=args.tp, rate=RATES[name]))
            print(name, n, timed([sys.executable, "-m", "ticker_py.cli", "run", str(prog), "--stream", str(stream)]),
                  flush=True)


if __name__ == "__main__":
    main()
