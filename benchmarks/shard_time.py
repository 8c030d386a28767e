"""Sharded run vs the single process: python benchmarks/shard_time.py DIR SHARDS [SHARD_BY] [MASTER] [MODELS] [--out] [--factorize]

DIR is a ``ticker gen`` directory (program.lars, stream.parquet). Prints the single-process
``ticker run --format none`` wall time, the Spark session start and warm-up (reported apart), and the
sharded run as ``--format none`` (counts to the driver), with ``--out`` also the run writing every
answer as Parquet from the executors.
See docs/spark.md, "Measurements (time sharding)".
"""

import subprocess
import sys
import tempfile
import time

from ticker_py.spark.session import get_spark
from ticker_py.spark.shard import run_sharded, write_sharded

path, shards = sys.argv[1], int(sys.argv[2])
shard_by = sys.argv[3] if len(sys.argv) > 3 and not sys.argv[3].startswith("--") else "auto"
factorize = "--factorize" in sys.argv
args = [a for a in sys.argv if a not in ("--out", "--factorize")]
master = args[4] if len(args) > 4 else "local[2]"
models = args[5] if len(args) > 5 else "1"
prog, stream = f"{path}/program.lars", f"{path}/stream.parquet"

t = time.perf_counter()
subprocess.run(
    [sys.executable, "-m", "ticker_py.cli", "run", prog, "--stream", stream, "--format", "none", "--models", models]
    + (["--factorize"] if factorize else []),
    check=True,
)
single = time.perf_counter() - t
print("single process", round(single, 2), flush=True)

t0 = time.perf_counter()
spark = get_spark(master, **{"spark.driver.memory": "2g"})  # local mode: the executors share this heap
t1 = time.perf_counter()
kw = dict(shard_by=shard_by, models=int(models), factorize=factorize)
for _r in run_sharded(prog, stream, spark, shards=shards, until=2, **kw):
    pass
t2 = time.perf_counter()
print("spark session", round(t1 - t0, 1), "warm-up job", round(t2 - t1, 1), flush=True)
t = time.perf_counter()
# as --format none: the executors evaluate every time point and send the counts only
n = sum(
    1 for _r in run_sharded(prog, stream, spark, shards=shards, shard_by=shard_by, models=int(models), format="none")
)
sharded = time.perf_counter() - t
print(f"sharded ({shards}, {shard_by}), counts to the driver: {sharded:.2f} s, {n} time points", flush=True)
if "--out" in sys.argv:  # also write every answer as Parquet from the executors
    with tempfile.TemporaryDirectory() as out:
        t = time.perf_counter()
        info = write_sharded(prog, stream, f"{out}/res", spark, shards=shards, **kw)
        written = time.perf_counter() - t
    print(f"sharded ({info['plan']}), --out Parquet: {written:.2f} s", flush=True)
print(f"speed-up over the single process: {single / sharded:.2f}x (counts only, as --format none)")
spark.stop()
