"""Write the R4 workloads as RDF streams and time the whole ``ticker run`` on them.

    python benchmarks/r4_streams.py OUT_DIR [--tp 100] [--seed 0] [--only bsbm] [--windows 1 5 10]
                                    [--repeat 1] [--format jsonl] [--code DIR ...]

writes ``OUT_DIR/{bsbm,srbench}.nt`` once (one line per time point: ``T: <s> <p> <o> . ...``, the
generated atom stream with every term mapped back to its RDF term) and the programs
``OUT_DIR/{bsbm,srbench}-N.lars`` for windows N of 1, 5 and 10 s; then times
``python -m ticker_py.cli run PROGRAM --stream STREAM`` for each, one run at a time, answers to
/dev/null: CPU (user + system) of the child, wall time, peak RSS (its VmHWM), the RSS sampled every 0.2 s over
the run (at a tenth, a quarter, half, three quarters and 95 % of the samples, before the exit
frees it: flat memory is a flat row), how much it grows after the first quarter (``growth``: 0.05 is
5 %) and the load average before and after, as docs/benchmarks.md reports them.
``--format none`` against ``jsonl`` isolates the writer; ``--code DIR`` (repeatable) runs
``python -m ticker_py.cli`` with ``PYTHONPATH=DIR`` instead of the installed ``ticker``, the trees
in turn at each repeat: pairs of old and new code (compile each tree first: ``python -m compileall``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from ticker_py.bench.suites import R4_WINDOWS
from ticker_py.bench.throughput import ticker_command
from ticker_py.rdf.terms import from_value
from ticker_py.workloads import program, time_points
from ticker_py.workloads.r4 import WORKLOADS

RATES = {w.name: w.defaults["rate"] for w in WORKLOADS}
#: seconds between two RSS samples of the child
SAMPLE = 0.2


def write_nt(path: Path, name: str, seed: int, tp: int) -> None:
    from ticker_py.syntax.ground_atoms import parse_ground_atom

    with open(path, "w") as f:
        for t, atoms in time_points(name, seed, tp=tp, rate=RATES[name]):
            triples = []
            for text in atoms:
                _, s, p, o = parse_ground_atom(text)
                triples.append(f"{from_value(s)} {from_value(p)} {from_value(o)} .")
            f.write(f"{t}: {' '.join(triples)}\n")


def _memory_mb(pid: int) -> tuple:
    """``(VmRSS, VmHWM)`` of a running process in MB; ``(None, None)`` once it has exited."""
    found = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(("VmRSS:", "VmHWM:")):
                    found[line[:5]] = int(line.split()[1]) / 1024
    except OSError:
        pass
    return found.get("VmRSS"), found.get("VmHWM")


def timed(cmd: list, env: dict = None) -> dict:
    """CPU seconds, wall seconds, peak RSS and RSS over the run of the child running ``cmd``,
    and the load average around it. The peak is the child's own high-water mark (VmHWM, sampled
    like the RSS): the rusage maximum of a child started by vfork counts this process's too."""
    load = os.getloadavg()[0]
    start = time.perf_counter()
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, env=env)
    samples, peaks, done = [], [0.0], threading.Event()

    def sample():
        while not done.wait(SAMPLE):
            rss, hwm = _memory_mb(child.pid)
            if rss:  # none once the child has exited
                samples.append(rss)
                peaks.append(hwm or 0.0)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    done.set()
    sampler.join()
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"{' '.join(cmd)} exited with {child.returncode}")
    over = (
        [round(samples[min(len(samples) - 1, int(q * len(samples)))]) for q in (0.1, 0.25, 0.5, 0.75, 0.95)]
        if samples
        else []
    )
    return {
        "cpu": round(usage.ru_utime + usage.ru_stime, 2),
        "wall": round(wall, 1),
        "peak_mb": round(max(peaks)),
        "rss_mb": over,
        "growth": growth(samples),
        "load": (round(load, 1), round(os.getloadavg()[0], 1)),
    }


def growth(samples: list):
    """How much the RSS grows after the first quarter of the run: the highest sample after it over
    the median of the samples from 20 to 30 % of the run, minus 1 (0.05: 5 % more); None if too few."""
    n = len(samples)
    if n < 10:
        return None
    quarter = sorted(samples[int(0.2 * n) : int(0.3 * n) + 1])
    return round(max(samples[n // 4 :]) / quarter[len(quarter) // 2] - 1, 3)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--tp", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", choices=sorted(RATES), action="append", help="this workload only (repeatable)")
    ap.add_argument("--windows", type=int, nargs="+", default=list(R4_WINDOWS))
    ap.add_argument("--repeat", type=int, default=1, help="runs per workload and window")
    ap.add_argument("--format", default="jsonl", help="--format of the runs (none: no writer)")
    ap.add_argument("--code", type=Path, action="append", help="a source tree to run (repeatable: in turn)")
    args = ap.parse_args()
    trees = [
        (str(code), [sys.executable, "-m", "ticker_py.cli"], {**os.environ, "PYTHONPATH": str(code)})
        for code in args.code or ()
    ] or [("ticker", ticker_command(), None)]
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.only or RATES:
        stream = args.out / f"{name}.nt"
        if not stream.exists():
            write_nt(stream, name, args.seed, args.tp)
        for n in args.windows:
            prog = args.out / f"{name}-{n}.lars"
            prog.write_text(program(name, window=n, tp=args.tp, rate=RATES[name]))
            for _ in range(args.repeat):
                for label, command, env in trees:
                    run = [*command, "run", str(prog), "--stream", str(stream), "--format", args.format]
                    print(name, n, label, timed(run, env), flush=True)


if __name__ == "__main__":
    main()
