"""Long-run memory check of the incremental engine: scenario B for many ticks.

Prints RSS after 10^4 ticks and at the end (default 10^5 ticks); exits 1 if the end RSS is
more than 20 % above the first. Usage: python benchmarks/incremental_memory.py [TICKS] [N]
"""

import resource
import sys
import time

from ticker_py.api import load_program
from ticker_py.engines import EngineOptions
from ticker_py.engines.incremental import IncrementalEngine
from ticker_py.workloads import generate, program


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(ticks: int = 100_000, n: int = 40) -> int:
    engine = IncrementalEngine(load_program(program("b1", window=n)), EngineOptions(changes_only=True))
    first, t0 = None, time.perf_counter()
    for t, atoms in generate("b1", seed=7, tp=ticks, window=n):
        engine.append(t, atoms)
        engine.evaluate(t)
        if t + 1 == min(10_000, ticks // 10):
            first = rss_mb()
            print(f"after {t + 1} ticks: RSS {first:.1f} MB ({time.perf_counter() - t0:.0f} s)", flush=True)
    end = rss_mb()
    print(f"after {ticks} ticks: RSS {end:.1f} MB ({time.perf_counter() - t0:.0f} s); "
          f"ratio {end / first:.3f}")
    return 0 if end <= 1.2 * first else 1


if __name__ == "__main__":
    sys.exit(main(*map(int, sys.argv[1:])))
