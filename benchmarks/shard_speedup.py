"""Time a sharded run: python benchmarks/shard_speedup.py MASTER SHARDS ENGINE DIR [REPS] (see docs/spark.md)."""

import sys
import time

from ticker_py.spark import run_sharded
from ticker_py.spark.session import get_spark

master, shards, engine, path = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
t0 = time.perf_counter()
spark = get_spark(master)
t1 = time.perf_counter()
print("session", round(t1 - t0, 1), flush=True)
# warm-up on a tiny slice
for _r in run_sharded(f"{path}/program.lars", f"{path}/stream.parquet", spark, shards=shards, engine=engine, until=2):
    pass
print("warmup", round(time.perf_counter() - t1, 1), flush=True)
for _rep in range(int(sys.argv[5]) if len(sys.argv) > 5 else 2):
    tm = {}
    t = time.perf_counter()
    for _r in run_sharded(f"{path}/program.lars", f"{path}/stream.parquet", spark, tm, shards=shards, engine=engine):
        pass
    print(
        master,
        shards,
        engine,
        "run",
        round(time.perf_counter() - t, 2),
        {k: round(v, 2) for k, v in tm.items()},
        flush=True,
    )
