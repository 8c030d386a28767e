"""The sharded Spark run against the single process, and Spark generation against the Python one
(docs/spark.md, "Measured"): whole commands, in pairs (A B A B ...: the ratio of each pair
survives a machine whose speed drifts), medians printed.

    python benchmarks/spark_pays.py --pairs 3 --shards 2,4 box cooling caching gen

For each workload: ``ticker run PROGRAM --stream stream.parquet --out x.jsonl`` (the single process)
and ``ticker run ... --spark --shards S --out DIR``; the sharded run's wall time less the session
and worker start it reports, over the single run's wall time, and the CPU of all its tasks (which
it reports) over the single process's CPU. ``gen``: ``ticker gen cooling`` of 2*10^7 atoms with
``--spark`` against ``--no-spark`` plus the session start. Streams are generated once into
``--dir`` (default /tmp/spark_pays).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

WORKLOADS = {
    "box": ("box", ["--tp", "5000", "--rate", "1000"]),  # 5*10^6 atoms
    "cooling": ("cooling", ["--tp", "10000", "--rate", "1000"]),  # 10^7 atoms
    "caching": ("caching-time", ["--tp", "100000", "--window", "200"]),  # scenario A, n = 200
}
GEN = ["cooling", "--tp", "20000", "--rate", "1000"]  # 2*10^7 atoms


def timed(cmd: list) -> tuple:
    """(wall seconds, CPU seconds of the command's process and the children it waited for, stderr)."""
    before, start = os.times(), time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall, after = time.perf_counter() - start, os.times()
    if proc.returncode:
        sys.exit(f"{' '.join(cmd)} failed:\n{proc.stderr}")
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return wall, cpu, proc.stderr


def seconds(pattern: str, text: str) -> float:
    return sum(float(x) for x in re.findall(pattern, text))


def sharded_pairs(name: str, root: Path, pairs: int, shards: int) -> None:
    scenario, params = WORKLOADS[name]
    data = root / name
    if not (data / "meta.json").exists():
        subprocess.run(["ticker", "gen", scenario, *params, "--out", str(data), "--no-spark"], check=True)
    program, stream = str(data / "program.lars"), str(data / "stream.parquet")
    walls, cpus = [], []
    for _ in range(pairs):
        single_wall, single_cpu, _ = timed(
            ["ticker", "run", program, "--stream", stream, "--out", str(root / "x.jsonl")]
        )
        out = root / f"{name}.out"
        cmd = ["ticker", "run", program, "--stream", stream, "--spark", "--shards", str(shards), "--out", str(out)]
        wall, _, err = timed(cmd)
        start = seconds(r"session started in ([\d.]+)s", err) + seconds(r"its Python workers in ([\d.]+)s", err)
        tasks = seconds(r"tasks ([\d.]+) s CPU", err)
        walls.append((wall - start) / single_wall)
        cpus.append(tasks / single_cpu)
        print(
            f"{name} shards={shards}: single {single_wall:.1f} s wall {single_cpu:.1f} s CPU; sharded {wall:.1f} s "
            f"wall, {start:.1f} s of it session and workers, tasks {tasks:.1f} s CPU",
            flush=True,
        )
    print(
        f"{name} shards={shards}: (wall - session start) / single wall = {statistics.median(walls):.2f}, "
        f"task CPU / single CPU = {statistics.median(cpus):.2f} (medians of {pairs} pairs)",
        flush=True,
    )


def gen_pairs(root: Path, pairs: int) -> None:
    ratios = []
    for _ in range(pairs):
        python, _, _ = timed(["ticker", "gen", *GEN, "--out", str(root / "gp"), "--no-spark"])
        spark, _, err = timed(["ticker", "gen", *GEN, "--out", str(root / "gs"), "--spark"])
        start = seconds(r"spark session started in ([\d.]+)s", err)
        ratios.append(spark / (python + start))
        print(f"gen: --no-spark {python:.1f} s, --spark {spark:.1f} s ({start:.1f} s of it the session)", flush=True)
    print(f"gen: spark / (python + session start) = {statistics.median(ratios):.2f} (median of {pairs} pairs)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", nargs="+", choices=[*WORKLOADS, "gen"])
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--shards", default="2", help="shard counts, comma-separated: 2,4")
    ap.add_argument("--dir", default="/tmp/spark_pays")
    args = ap.parse_args()
    root = Path(args.dir)
    root.mkdir(parents=True, exist_ok=True)
    for what in args.what:
        if what == "gen":
            gen_pairs(root, args.pairs)
        else:
            for shards in map(int, args.shards.split(",")):
                sharded_pairs(what, root, args.pairs, shards)


if __name__ == "__main__":
    main()
