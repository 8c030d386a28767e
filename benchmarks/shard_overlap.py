"""The overlap cost of time sharding: python benchmarks/shard_overlap.py DIR [SHARDS ...]

Runs the time-sharded plan in this process (the cells one after another, no Spark) and reports,
per number of shards, the atoms the cells read (each reads its range plus the lookback before it)
and the cells' total CPU time, both relative to one shard. See docs/spark.md.
"""

import sys
import time

from ticker_py.api import load_program
from ticker_py.shard import cell_rows, evaluate_cell, make_grid, read_stream
from ticker_py.spec import RunSpec

path = sys.argv[1]
counts_of = [int(a) for a in sys.argv[2:]] or [1, 2, 4, 8]
analysis = load_program(f"{path}/program.lars")
points, last, _ = read_stream(f"{path}/stream.parquet", analysis, RunSpec())
counts = {t: len(a) for t, a in points}
base = None
for shards in counts_of:
    grid = make_grid(analysis, shards, counts, last, "time")
    rows = cell_rows(points, grid)
    read = sum(len(r) for r in rows.values())
    cpu = time.process_time()
    for cell in range(grid.cells):
        for _row in evaluate_cell(analysis, grid, cell, rows[cell], RunSpec()):
            pass
    cpu = time.process_time() - cpu
    if base is None:
        base = (read, cpu)
    longest = max(t1 - t0 for t0, t1 in grid.ranges)
    print(
        f"{shards} shards: ranges of <= {longest} time points, lookback {analysis.lookback}; "
        f"atoms read {read / base[0]:.3f}x, cell CPU {cpu:.2f} s = {cpu / base[1]:.3f}x of one shard",
        flush=True,
    )
