"""Floors: what any Python implementation pays before reasoning starts, next to what we pay.

    python benchmarks/floors.py laser [--workloads box diamond join] [--reps 5] [--root DIR]
    python benchmarks/floors.py window STREAM.nt [--windows 1 10] [--reps 5] [--program-dir DIR]

``laser`` writes each Laser workload (k = 1000 atoms per time point, n = 100, 300 time points) as a
text and a Parquet stream, then measures in separate processes, one at a time and in turn at each
repetition (so every figure of a repetition ran under the same load):

* ``bare`` — ``python -c pass``: the interpreter alone;
* ``start-up`` — ``ticker run`` on a 1-line program and a 1-line stream;
* ``objects`` — creating the stream's distinct atoms as the engine takes them (a tuple of the
  predicate name and the argument strings) from one decoded string per argument column, with
  ``str.split`` and ``zip`` only: no parsing, no checking, no decompression, no grouping. Every
  reader pays at least this, as each distinct atom must exist once (CPU s inside one process);
* ``in-engine`` — the engine alone on atoms parsed in advance (as ``ticker bench throughput``);
* ``text`` and ``parquet`` — the whole ``ticker run --format none`` on those files.

It prints the medians and two floors over ``in-engine``: ``bare + objects + in-engine`` (a reader
that imports nothing of ours, parses nothing and checks nothing) and ``start-up + objects +
in-engine`` (the same with the imports a run needs).

``window`` reads an RDF stream (the R4 BSBM stream of ``benchmarks/r4_streams.py``) once and times,
in child processes, the least a hash-based evaluator does with ``triple(S, P, O) in [N sec]`` and no
rules at all: each triple goes into a dict (triple -> time point) and into a per-property index
(subject -> triples) when it arrives and leaves both N time points later. It prints CPU s per window
and each window's ratio to the first, per repetition and as a median; with ``--program-dir`` it
also runs ``ticker run DIR/bsbm-N.lars --stream STREAM --format none`` for each window in the same
turn, so the engine's growth and the floor's come from the same run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from ticker_py.bench.throughput import LASER, _in_engine, _run, ticker_command

OBJECTS = """
import sys, time
from ticker_py.process import tune_collector
from ticker_py.syntax.ground_atoms import parse_ground_atom
rows = []
with open(sys.argv[1]) as f:
    for line in f:
        rest = line.partition(":")[2].strip()
        if rest:
            rows += [parse_ground_atom(text) for text in rest.split(", ")]
rows = list(dict.fromkeys(rows))  # a reader that interns creates each distinct atom once
arity = max(len(a) for a in rows) - 1
names = [a[0] for a in rows]
columns = ["\\n".join(str(a[i]) for a in rows).encode() for i in range(1, arity + 1)]
del rows
tune_collector()
c0 = time.process_time()
atoms = list(zip(names, *(c.decode().split("\\n") for c in columns)))
print(time.process_time() - c0, len(atoms))
"""

WINDOW = """
import sys, time, gc
from ticker_py.api import records_from
from ticker_py.process import tune_collector
from ticker_py.streams import time_points
window = int(sys.argv[2])
ticks = [list(p.atoms) for p in time_points(records_from(sys.argv[1]))]
gc.collect()
tune_collector()
c0 = time.process_time()
facts, index = {}, {}
for t, batch in enumerate(ticks):
    for fact in batch:
        facts[fact] = t
        index.setdefault(fact[2], {}).setdefault(fact[1], []).append(fact)
    if t >= window:
        for fact in ticks[t - window]:
            if facts.get(fact) == t - window:
                del facts[fact]
                index[fact[2]].pop(fact[1], None)
print(time.process_time() - c0, len(facts))
"""


def _child(code: str, *args) -> float:
    proc = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True, check=True)
    return float(proc.stdout.split()[0])


def laser(workloads: list, reps: int, root) -> dict:
    from ticker_py.workloads.files import write_stream

    found = {}
    with tempfile.TemporaryDirectory(dir=root) as tmp:
        one = Path(tmp) / "one"
        one.mkdir()
        (one / "p.lars").write_text("q(X) :- p(X) in [2].\n")
        (one / "s.stream").write_text("0: p(a)\n")
        startup = [*ticker_command(), "run", one / "p.lars", "--stream", one / "s.stream", "--engine", "native"]
        for name in workloads:
            d = Path(tmp) / name
            for fmt in ("text", "parquet"):
                write_stream(d, name, fmt, 0, **LASER)
            prog = d / "program.lars"
            run = [*ticker_command(), "run", prog, "--engine", "native", "--format", "none", "--stream"]
            cells = {k: [] for k in ("bare", "start-up", "objects", "in-engine", "text", "parquet")}
            for _ in range(reps):
                cells["bare"].append(_run([sys.executable, "-c", "pass"])[0])
                cells["start-up"].append(_run(startup)[0])
                cells["objects"].append(_child(OBJECTS, d / "stream.stream"))
                cells["in-engine"].append(_in_engine(prog, d / "stream.stream", "native")["cpu"])
                cells["text"].append(_run([*run, d / "stream.stream"])[0])
                cells["parquet"].append(_run([*run, d / "stream.parquet"])[0])
            med = {k: statistics.median(v) for k, v in cells.items()}
            engine = med["in-engine"]
            found[name] = {
                "cpu_s": med,
                "runs": cells,
                "floor_bare": (med["bare"] + med["objects"] + engine) / engine,
                "floor_startup": (med["start-up"] + med["objects"] + engine) / engine,
                "text_ratio": med["text"] / engine,
                "parquet_ratio": med["parquet"] / engine,
            }
            f = found[name]
            print(
                f"{name}: "
                + ", ".join(f"{k} {v:.3f} s" for k, v in med.items())
                + f"; ÷ in-engine: floor (bare) {f['floor_bare']:.2f}×, floor (start-up) {f['floor_startup']:.2f}×,"
                f" text {f['text_ratio']:.2f}×, parquet {f['parquet_ratio']:.2f}×",
                flush=True,
            )
    return found


def window(stream: Path, windows: list, reps: int, program_dir) -> dict:
    cells = {("floor", w): [] for w in windows}
    if program_dir:
        cells.update({("ticker", w): [] for w in windows})
    for _ in range(reps):
        for w in windows:
            cells[("floor", w)].append(_child(WINDOW, stream, w))
            if program_dir:
                prog = Path(program_dir) / f"bsbm-{w}.lars"
                cells[("ticker", w)].append(
                    _run([*ticker_command(), "run", prog, "--stream", stream, "--format", "none"])[0]
                )
    found = {}
    for kind in ("floor", "ticker"):
        if (kind, windows[0]) not in cells:
            continue
        base = cells[(kind, windows[0])]
        for w in windows:
            ratios = [b / a for a, b in zip(base, cells[(kind, w)])]
            found[f"{kind} {w}"] = {
                "cpu_s": cells[(kind, w)],
                "median_s": statistics.median(cells[(kind, w)]),
                "ratio_to_first": ratios,
                "median_ratio": statistics.median(ratios),
            }
            print(
                f"{kind} window {w}: median {statistics.median(cells[(kind, w)]):.2f} s CPU, "
                f"÷ window {windows[0]}: median {statistics.median(ratios):.2f} "
                f"(each repetition: {', '.join(f'{r:.2f}' for r in ratios)})",
                flush=True,
            )
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="part", required=True)
    a = sub.add_parser("laser")
    a.add_argument("--workloads", nargs="+", default=["box", "diamond", "join"])
    a.add_argument("--reps", type=int, default=5)
    a.add_argument("--root", type=Path)
    a.add_argument("--json", type=Path)
    b = sub.add_parser("window")
    b.add_argument("stream", type=Path)
    b.add_argument("--windows", nargs="+", type=int, default=[1, 10])
    b.add_argument("--reps", type=int, default=5)
    b.add_argument("--program-dir", type=Path)
    b.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.part == "laser":
        found = laser(args.workloads, args.reps, args.root)
    else:
        found = window(args.stream, args.windows, args.reps, args.program_dir)
    if args.json:
        args.json.write_text(json.dumps(found, indent=1))


if __name__ == "__main__":
    main()
