"""Long-run memory check of the incremental engine: scenario B for many ticks.

Prints RSS at every tenth of the run; exits 1 if the end RSS is more than 20 % above the RSS
after 10^4 ticks (or a tenth of the run if shorter).
Usage: python benchmarks/incremental_memory.py [TICKS] [N] [b1|b2] [--pure]
(``--pure``: the incremental encoding without the native prefix).
"""

import resource
import sys
import time

from ticker_py.api import load_program
from ticker_py.engines import EngineOptions, create_engine
from ticker_py.workloads import generate, program


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(ticks: int = 100_000, n: int = 40, workload: str = "b1", native_prefix: bool = True) -> int:
    engine = create_engine(
        "incremental" if native_prefix else "incremental-pure",
        load_program(program(workload, window=n)),
        EngineOptions(changes_only=True),
    )
    first, t0 = None, time.perf_counter()
    mark = min(10_000, ticks // 10)
    step = max(1, ticks // 10)
    for t, atoms in generate(workload, seed=7, tp=ticks, window=n):
        engine.append(t, atoms)
        engine.evaluate(t)
        if t + 1 == mark:
            first = rss_mb()
        if t + 1 == mark or (t + 1) % step == 0:
            print(f"after {t + 1} ticks: RSS {rss_mb():.1f} MB ({time.perf_counter() - t0:.0f} s)", flush=True)
    end = rss_mb()
    print(
        f"{workload} n={n} {'native prefix' if native_prefix else 'pure'}: after {ticks} ticks RSS "
        f"{end:.1f} MB ({time.perf_counter() - t0:.0f} s); ratio to {mark} ticks {end / first:.3f}"
    )
    return 0 if end <= 1.2 * first else 1


if __name__ == "__main__":
    flags = [a for a in sys.argv[1:] if a.startswith("--")]
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    conv = [int, int, str]
    sys.exit(main(*(f(a) for f, a in zip(conv, args)), native_prefix="--pure" not in flags))
