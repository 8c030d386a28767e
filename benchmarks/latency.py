"""Live latency: the delay from the last atom of a time point to its result, at a fixed input rate.

    python benchmarks/latency.py                                   # both scenarios, every engine, both modes
    python benchmarks/latency.py --scenario cooling --engines native --mode tcp --tp 200
    python benchmarks/latency.py --engines incremental-pure      # the pure incremental encoding

Scenarios (docs/benchmarks.md): ``caching`` is scenario A with time windows (``caching-time``,
n = 200 by default, one atom per time point, 20 time points per second); ``cooling`` is the
cooling program (n = 10, k = 100 atoms per time point, 10 time points per second, i.e.
1000 atoms per second). Atoms are spread evenly over their time point's real-time slot.

Modes: ``inproc`` pushes atom by atom into a :class:`~ticker_py.live.LiveReasoner` and
closes each time point right after its last atom; ``tcp`` runs ``ticker run --input tcp
--output tcp --changes`` as a subprocess on loopback (127.0.0.1), sends one line per atom
and a heartbeat ``T+1:`` right after the last atom of T, and reads the result lines. The
delay of time point T is (result line received) - (last atom of T sent), both measured with
``time.perf_counter`` in this process. The first ``--warmup`` time points are left out of the
statistics. Prints one line per run and, with ``--json FILE``, writes all numbers.
"""

from __future__ import annotations

import argparse
import json
import re
import select
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ticker_py.live import LiveReasoner  # noqa: E402
from ticker_py.values import format_atom  # noqa: E402
from ticker_py.workloads import generate, program  # noqa: E402

SCENARIOS = {
    "caching": ("caching-time", dict(window=200), 20.0),  # workload, parameters, time points per second
    "cooling": ("cooling", dict(window=10, rate=100), 10.0),
}
TIMEOUT = 120.0


def stats(delays_ms: list) -> dict:
    s = sorted(delays_ms)
    if not s:
        return {}
    return {
        "n": len(s),
        "median_ms": statistics.median(s),
        "p99_ms": s[min(len(s) - 1, int(round(0.99 * (len(s) - 1))))],
        "max_ms": s[-1],
    }


def _sleep_until(deadline: float) -> None:
    while (left := deadline - time.perf_counter()) > 0:
        time.sleep(min(left, 0.002) if left > 0.0005 else 0)


def schedule(points, tps: float):
    """``(t, atom or None, send time, last of t?)``: atoms spread evenly over each time point's slot."""
    period = 1.0 / tps
    for t, atoms in points:
        step = period / max(1, len(atoms))
        if not atoms:
            yield t, None, t * period, True
        for i, atom in enumerate(atoms):
            yield t, atom, t * period + i * step, i == len(atoms) - 1


def live_reasoner(prog: str, engine: str) -> LiveReasoner:
    """A live reasoner on a registered engine (``incremental-pure``: the pure incremental encoding)."""
    return LiveReasoner(prog, engine=engine)


def run_inproc(prog: str, points: list, engine: str, tps: float) -> dict:
    live = live_reasoner(prog, engine)
    last, done = {}, {}
    start = time.perf_counter() + 0.05
    current = 0
    for t, atom, at, _ in schedule(points, tps):
        if t != current:
            live.close_time(current)
            done[current] = time.perf_counter()
            current = t
        _sleep_until(start + at)
        live.push(t, [] if atom is None else [atom])
        last[t] = time.perf_counter()
    live.close_time(current)
    done[current] = time.perf_counter()
    return {t: (done[t] - last[t]) * 1000 for t in last}


def run_tcp(prog: str, points: list, engine: str, tps: float, tmp: Path) -> dict:
    prog_path = tmp / "latency.lars"
    prog_path.write_text(prog)
    cmd = [
        sys.executable,
        "-m",
        "ticker_py.cli",
        "run",
        str(prog_path),
        "--engine",
        engine,
        "--changes",
        "--input",
        "tcp:127.0.0.1:0",
        "--output",
        "tcp:127.0.0.1:0",
        "--grace",
        "0.2",
    ]
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        ports = {}
        deadline = time.monotonic() + TIMEOUT
        while len(ports) < 2 and time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line:
                raise RuntimeError("ticker exited: " + (proc.stderr.read() or "?"))
            m = re.match(r"ticker: (listening on|results on) tcp:127\.0\.0\.1:(\d+)", line)
            if m:
                ports[m.group(1)] = int(m.group(2))
        threading.Thread(target=proc.stderr.read, daemon=True).start()  # keep stderr drained
        out = socket.create_connection(("127.0.0.1", ports["results on"]), timeout=TIMEOUT)
        inp = socket.create_connection(("127.0.0.1", ports["listening on"]), timeout=TIMEOUT)
        inp.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        out.setblocking(False)
        received, last, buffer = {}, {}, b""

        def receive(until: float) -> bool:
            """Read result lines (timestamped on arrival) until ``until``; False at end of output."""
            nonlocal buffer
            while (left := until - time.perf_counter()) > 0:
                if not select.select([out], [], [], max(0.0, left))[0]:
                    return True
                chunk = out.recv(65536)
                if not chunk:
                    return False
                now = time.perf_counter()
                *lines, buffer = (buffer + chunk).split(b"\n")
                for line in lines:
                    received[json.loads(line)["t"]] = now
            return True

        start = time.perf_counter() + 0.2
        for t, atom, at, is_last in schedule(points, tps):
            receive(start + at)  # single thread: no GIL hand-over in the measurement
            text = f"{t}:" if atom is None else f"{t}: {format_atom(atom)}"
            inp.sendall((text + "\n").encode())
            last[t] = time.perf_counter()
            if is_last:
                inp.sendall(f"{t + 1}:\n".encode())  # closes t at once
        inp.close()
        end = time.perf_counter() + TIMEOUT
        while receive(end) and time.perf_counter() < end:
            pass
        proc.wait(TIMEOUT)
        return {t: (received[t] - last[t]) * 1000 for t in last if t in received}
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(TIMEOUT)


def engine_available(prog: str, engine: str):
    try:
        live_reasoner(prog, engine)
        return None
    except Exception as err:  # noqa: BLE001 - reported, not raised
        return f"{type(err).__name__}: {str(err).splitlines()[0]}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenario", default="all", choices=["all", *SCENARIOS])
    ap.add_argument("--engines", default="clingo,incremental,native")
    ap.add_argument("--mode", default="both", choices=["both", "inproc", "tcp"])
    ap.add_argument("--tp", type=int, default=300, help="time points per run (default 300)")
    ap.add_argument("--window", type=int, help="window size n (default: 200 caching, 10 cooling)")
    ap.add_argument("--tps", type=float, help="time points per second (default: 20 caching, 10 cooling)")
    ap.add_argument("--warmup", type=int, default=5, help="time points left out of the statistics")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", help="write the numbers to this file")
    args = ap.parse_args(argv)
    tmp = Path(__import__("tempfile").mkdtemp(prefix="ticker_py-latency-"))
    rows = []
    for name in SCENARIOS if args.scenario == "all" else [args.scenario]:
        workload, params, tps = SCENARIOS[name]
        params = dict(params, **({"window": args.window} if args.window else {}))
        tps = args.tps or tps
        prog = program(workload, **params)
        points = list(generate(workload, seed=args.seed, tp=args.tp, **params))
        atoms = sum(len(a) for _, a in points)
        for engine in args.engines.split(","):
            why = engine_available(prog, engine)
            modes = ["inproc", "tcp"] if args.mode == "both" else [args.mode]
            for mode in modes:
                row = {
                    "scenario": name,
                    "engine": engine,
                    "mode": mode,
                    "tp": args.tp,
                    "tps": tps,
                    "atoms_per_s": atoms / args.tp * tps,
                    **params,
                }
                if why:
                    row["unavailable"] = why
                else:
                    delays = (
                        run_inproc(prog, points, engine, tps)
                        if mode == "inproc"
                        else run_tcp(prog, points, engine, tps, tmp)
                    )
                    kept = [d for t, d in sorted(delays.items()) if t >= args.warmup]
                    row.update(stats(kept), lost=args.tp - len(delays))
                rows.append(row)
                print(_line(row), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    return 0


def _line(row: dict) -> str:
    head = f"{row['scenario']:8} n={row['window']:<4} {row['engine']:12} {row['mode']:7}"
    if "unavailable" in row:
        return f"{head} unavailable ({row['unavailable']})"
    return (
        f"{head} {row['atoms_per_s']:7.0f} atoms/s  median {row['median_ms']:7.2f} ms  "
        f"p99 {row['p99_ms']:7.2f} ms  max {row['max_ms']:7.2f} ms  ({row['n']} time points)"
    )


if __name__ == "__main__":
    sys.exit(main())
