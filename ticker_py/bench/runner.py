"""Measuring: one stream per case, every engine variant fed the same pre-parsed time points.

Each run happens in a forked worker (POSIX; else in-process) that inherits the stream, not the heap
of earlier runs: it stops itself past the budget, and the parent kills it if a tick overruns by far.
"""

from __future__ import annotations

import gc
import math
import multiprocessing as mp
import os
import statistics
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import psutil

from ..engines import EngineOptions, can_run, create_engine, engine_class
from ..errors import Diagnostic, EngineUnsupported, UsageError
from .suites import Case, Variant

__all__ = ["Settings", "generate_stream", "measure", "run_variant", "run_cases"]


@dataclass
class Settings:
    """How to measure: time budget per run (s), repetitions, warm-up runs, worker isolation, seed."""

    budget: float = 60.0
    reps: int = 1
    warmup: int = 0
    isolate: bool = True
    seed: int = 0
    progress: bool = True

    def __post_init__(self):
        if not 0 < self.budget < math.inf:  # also refuses NaN, which every comparison lets through
            raise UsageError(Diagnostic(f"--budget must be a number of seconds > 0, not {self.budget}"))
        self.isolate = self.isolate and hasattr(os, "fork")


def generate_stream(case: Case, seed: int = 0):
    """``(program text, [(t, [atom tuples])])`` of a case, generated once."""
    from ..workloads import generate, program

    return program(case.workload, **case.params), list(generate(case.workload, seed, **case.params))


def _options(case: Case, variant: Variant) -> EngineOptions:
    return EngineOptions(
        models=case.models,
        changes_only=case.models == 1 and not case.factorize,
        factorize=case.factorize,
        pruning=variant.pruning,
    )


def measure(
    analysis,
    stream,
    variant: Variant,
    case: Case,
    budget: float,
    factory: Callable | None = None,
    warmup: int = 0,
    progress=None,
    marks=None,
) -> dict:
    """Run one engine variant over ``stream`` in this process and return the measurements."""
    factory = factory or (lambda a, o: create_engine(variant.engine, a, o))
    options = _options(case, variant)
    for _ in range(warmup):  # unmeasured, on the first tenth of the stream
        eng = factory(analysis, options)
        for t, atoms in stream[: max(1, len(stream) // 10)]:
            eng.append(t, atoms)
            eng.evaluate(t)
        del eng
    rss0 = psutil.Process().memory_info().rss
    cps = {cp: i for i, cp in enumerate(case.checkpoints)}
    checkpoints = {}
    ticks, cpu_ticks, counts, atoms_in = [], [], [], 0  # counts: answer streams per tick
    thread_time = time.thread_time
    status = "ok"
    c0, w0 = time.process_time(), time.perf_counter()
    engine = factory(analysis, options)
    t_init = time.perf_counter() - w0
    for i, (t, atoms) in enumerate(stream):
        s, cs = time.perf_counter(), thread_time()
        engine.append(t, atoms)
        res = engine.evaluate(t)
        n = res.factors.count if res.factors is not None else 1 if res.models is None else len(res.models)
        ticks.append(time.perf_counter() - s)
        cpu_ticks.append(thread_time() - cs)
        atoms_in += len(atoms)
        counts.append(n)
        elapsed = time.perf_counter() - w0
        if progress is not None:
            progress.value = i + 1
        if i + 1 in cps:
            checkpoints[i + 1] = elapsed
            if marks is not None:
                marks[cps[i + 1]] = elapsed
        if elapsed > budget and i + 1 < len(stream):
            status = "timeout"
            break
    t_total = time.perf_counter() - w0
    cpu = time.process_time() - c0
    stats = getattr(engine, "stats", None)
    return {
        "status": status,
        "ticks": len(ticks),
        "atoms": atoms_in,
        "t_init": t_init,
        "t_tick_median": statistics.median(ticks) if ticks else None,
        "t_tick_p99": _p99(ticks),
        "t_tick_max": max(ticks) if ticks else None,
        "cpu_tick_median": statistics.median(cpu_ticks) if cpu_ticks else None,
        "cpu_tick_p99": _p99(cpu_ticks),
        "t_total": t_total,
        "cpu_total": cpu,
        "cpu_us_per_atom": 1e6 * cpu / atoms_in if atoms_in else None,
        "wall_us_per_atom": 1e6 * t_total / atoms_in if atoms_in else None,
        "rss_start_mb": rss0 / 2**20,
        "answer_streams": {"total": sum(counts), "max": max(counts, default=0), "ticks_without": counts.count(0)},
        "stats": dict(stats) if isinstance(stats, dict) else None,
        "checkpoints": {str(k): v for k, v in checkpoints.items()},
    }


def _p99(values: list) -> float | None:
    """The 99th percentile of ``values`` (nearest rank)."""
    return float(np.percentile(values, 99, method="inverted_cdf")) if values else None


class _Sampler(threading.Thread):
    """Samples a process's RSS every 10 ms while in its ``with`` block; ``peak`` in bytes."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.proc, self.peak, self.stop = psutil.Process(pid), 0, threading.Event()

    def run(self):
        while not self.stop.is_set():
            try:
                self.peak = max(self.peak, self.proc.memory_info().rss)
            except psutil.Error:
                return
            self.stop.wait(0.01)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *_):
        self.stop.set()
        self.join()


def _guarded(*args) -> dict:
    """:func:`measure`, with an engine's refusal or failure turned into a status."""
    try:
        return measure(*args)
    except EngineUnsupported as err:
        return {"status": "n/a", "reason": err.diagnostics[0].message}
    except ImportError as err:
        return {"status": "n/a", "reason": f"not installed ({err})"}
    except Exception as err:  # an engine bug: report it, keep benchmarking
        return {"status": "error", "reason": f"{type(err).__name__}: {err}"[:500]}


def _child(conn, *args):
    gc.freeze()  # the parent's heap is shared copy-on-write: a collection would copy it page by page
    conn.send(_guarded(*args))
    conn.close()


def run_variant(
    analysis, stream, variant: Variant, case: Case, settings: Settings, factory: Callable | None = None
) -> dict:
    """One measured run (a forked worker unless ``settings.isolate`` is off)."""
    args = (analysis, stream, variant, case, settings.budget, factory, settings.warmup)
    if not settings.isolate:
        with _Sampler(os.getpid()) as sampler:
            out = _guarded(*args)
        return {**out, "peak_rss_mb": sampler.peak / 2**20}
    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    progress = ctx.Value("q", 0, lock=False)
    marks = ctx.Array("d", [float("nan")] * max(1, len(case.checkpoints)), lock=False)
    proc = ctx.Process(target=_child, args=(send, *args, progress, marks))
    start = time.perf_counter()
    proc.start()
    send.close()
    hard = settings.budget * (1.25 + 0.2 * settings.warmup) + 10
    out = None
    try:
        with _Sampler(proc.pid) as sampler:
            while out is None:
                if recv.poll(0.05) or not proc.is_alive():  # a dead worker's pipe is at its end
                    try:
                        out = recv.recv()
                    except EOFError:
                        proc.join(5)
                        out = {"status": "error", "reason": f"worker died (exit code {proc.exitcode})"}
                elif time.perf_counter() - start > hard:
                    proc.kill()
                    out = {
                        "status": "timeout",
                        "ticks": progress.value,
                        "t_total": time.perf_counter() - start,
                        "reason": "killed: a single tick overran the budget",
                        "checkpoints": {
                            str(cp): marks[i] for i, cp in enumerate(case.checkpoints) if marks[i] == marks[i]
                        },
                    }
    finally:
        proc.join(5)
        if proc.is_alive():
            proc.kill()
            proc.join()
    out["peak_rss_mb"] = sampler.peak / 2**20 if sampler.peak else None
    return out


def _available(name: str, analysis) -> str | None:
    """Why an engine cannot run at all here (not installed / refuses the program), or None."""
    try:
        engine_class(name)
    except ImportError as err:
        return f"not installed ({err.name or err})"
    if not can_run(name, analysis):
        return f"the {name} engine cannot run this program"
    return None


#: the parameters' names in the progress lines
_SHORT = {"window": "n", "rate": "k"}


def run_cases(cases: list, settings: Settings, factories: dict | None = None, log=sys.stderr):
    """Measure every case; yields one record per (case, variant) as it is measured.

    ``factories`` maps engine names to ``factory(analysis, options)`` (tests). A variant that timed
    out is not run on a case whose parameters are all at least as large (recorded as a timeout).
    """
    from ..api import load_program

    timed_out = {}
    total = sum(len(c.variants) for c in cases)
    done = 0
    for case in cases:
        t0 = time.perf_counter()
        text, stream = generate_stream(case, settings.seed)
        analysis = load_program(text)
        gen_s = time.perf_counter() - t0
        shown = " ".join(f"{_SHORT.get(k, k)}={v}" for k, v in case.params.items())
        for v in case.variants:
            done += 1
            rec = {
                "suite": case.suite,
                "workload": case.workload,
                "title": case.title,
                "series": case.series,
                "params": dict(case.params),
                "engine": v.engine,
                "variant": v.label,
                "pruning": v.pruning,
                "models": case.models,
                "factorize": case.factorize,
                "checkpoints_tp": list(case.checkpoints),
                "budget": settings.budget,
                "generate_s": gen_s,
            }
            tkey = (case.workload, v.label, case.models, case.factorize)
            reason = None if factories and v.engine in factories else _available(v.engine, analysis)
            smaller = next(
                (p for p in timed_out.get(tkey, []) if all(case.params.get(k, 0) >= x for k, x in p.items())), None
            )
            if reason:
                rec.update(status="n/a", reason=reason)
            elif smaller is not None:
                rec.update(
                    status="timeout",
                    skipped=True,
                    reason="not run: timed out at " + " ".join(f"{k}={x}" for k, x in smaller.items()),
                )
            else:
                factory = (factories or {}).get(v.engine)
                reps = [run_variant(analysis, stream, v, case, settings, factory) for _ in range(settings.reps)]
                ok = [r for r in reps if r.get("status") == "ok"]
                best = sorted(ok, key=lambda r: r["t_total"])[len(ok) // 2] if ok else reps[0]
                rec.update(best)
                if len(reps) > 1:
                    rec["reps"] = [
                        {
                            k: r.get(k)
                            for k in ("status", "t_init", "t_total", "t_tick_median", "cpu_total", "peak_rss_mb")
                        }
                        for r in reps
                    ]
                if rec["status"] == "timeout":
                    timed_out.setdefault(tkey, []).append(dict(case.params))
                    if rec.get("ticks"):
                        rec["estimate_s"] = rec["t_total"] / rec["ticks"] * case.params["tp"]
            if settings.progress:
                print(
                    f"[bench {done}/{total}] {case.workload} {shown} {v.label}: {_summary(rec)}", file=log, flush=True
                )
            yield rec


def _summary(rec: dict) -> str:
    st = rec["status"]
    if st == "ok":
        us = rec.get("cpu_us_per_atom")
        return (
            f"{rec['t_total']:.2f} s total, init {rec['t_init']:.2f} s"
            + (f", {us:.1f} µs/atom CPU" if us is not None else "")
            + (f", {rec['peak_rss_mb']:.0f} MB" if rec.get("peak_rss_mb") else "")
        )
    if st == "timeout":
        return f"timeout (> {rec['budget']:g} s) {rec.get('reason', '')}"
    return f"{st} ({rec.get('reason', '')})"
