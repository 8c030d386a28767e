"""``ticker bench throughput``: the whole ``ticker run`` process against its engine.

For each workload (the Laser ones at k = 1000, n = 100, 300 time points; scenarios A and B1)
the stream is written once as text, JSON Lines and Parquet (``ticker gen``'s layout), then
measured in separate processes, one run of each at a time:

* ``text``, ``jsonl``, ``parquet`` — ``ticker run --format none`` on that file: the whole
  process's CPU time (user + system, from the operating system) per input atom;
* ``parquet args`` — the same on the stream in the predicate-and-arguments Parquet layout
  (``ticker gen --parquet-layout args``: columns predicate, a1 .. ak, no atom parsing);
* ``jsonl out`` — ``ticker run --format jsonl --out /dev/null`` on the text file, run right
  after the ``text`` run: CPU per output atom on top of ``--format none`` (an output atom is one
  atom of a printed model), the median over ``reps`` of each pair's difference (a small
  difference of two noisy figures is steadier as a median of pairs than as a difference of medians);
* ``in-engine`` — the engine alone on atoms parsed in advance (``append`` + ``evaluate``,
  changes only, the garbage collector and the C heap tuned as in the ``ticker`` process), CPU per input atom;
* ``plain read`` — reading the text file and splitting it into atom texts in plain Python;
* ``slope`` — the steady-state cost per input atom: the ``text`` run's CPU at 1,000 time points
  minus at 300, over the atoms between (start-up and warm-up cancel out);
* ``start-up`` — ``ticker run`` on a 1-line program and a 1-line stream (CPU s, peak RSS);
* ``b1-all`` — every answer stream of scenario B1 (n = 200, 1000 time points, ``--models 0
  --format none``) next to one answer stream per tick (``--models 1``), whole-process CPU s.

Each figure carries the load average (1 minute) seen before and after it: the machine is shared.
Regenerate with ``ticker bench throughput [--docs]`` (``--workloads box diamond`` for a part).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["WORKLOADS", "ENUMERATION", "measure_all", "run_throughput"]

LASER = {"tp": 300, "window": 100, "rate": 1000}
#: workload -> (parameters, engine)
WORKLOADS = {
    "box": (LASER, "native"),
    "diamond": (LASER, "native"),
    "join": (LASER, "native"),
    "cooling": (LASER, "native"),
    "caching-time": ({"tp": 1000, "window": 60}, "native"),
    "b1": ({"tp": 1000, "window": 60}, "incremental"),
}
#: all answer streams: workload -> (parameters, engine)
ENUMERATION = {"b1-all": ({"tp": 1000, "window": 200}, "incremental")}
#: the two stream lengths (time points) whose difference gives the slope
SLOPE_TP = (300, 1000)


def _run(args: list) -> tuple:
    """(CPU seconds, peak RSS MB) of one child process, measured by GNU time (a small process of
    its own, so the peak is not inflated by this one's heap as a forked child's would be)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        proc = subprocess.run(
            ["/usr/bin/time", "-f", "%U %S %M", "-o", report.name, *map(str, args)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(map(str, args))} failed: {proc.stderr.decode(errors='replace')[-500:]}")
        user, system, peak_kb = report.read().split()[-3:]
    return float(user) + float(system), int(peak_kb) / 1024


def ticker_command() -> list:
    """The ``ticker`` a user runs: the console script installed next to this interpreter (``python -m
    ticker_py.cli`` only where there is none; it imports :mod:`runpy` on top). Not a version manager's
    shim on ``PATH``, which is a shell script of its own (pyenv's costs about 0.08 s CPU per call)."""
    script = Path(sys.executable).with_name("ticker")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "ticker_py.cli"]


def bytecode_cached() -> bool:
    """Whether every ticker_py module has an up-to-date ``.pyc``: without one (``PYTHONDONTWRITEBYTECODE``
    and an editable install, say) each start compiles the modules it imports from source."""
    import importlib.util

    root = Path(__file__).resolve().parents[1]
    for src in root.rglob("*.py"):
        pyc = Path(importlib.util.cache_from_source(str(src)))
        if not pyc.is_file() or pyc.stat().st_mtime < src.stat().st_mtime:
            return False
    return True


def _ticker(*args) -> list:
    return [*ticker_command(), "run", *map(str, args)]


def _generate(workload: str, params: dict, out: Path) -> dict:
    from ..workloads.files import write_stream

    for fmt in ("parquet", "text", "jsonl"):
        meta = write_stream(out, workload, fmt, 0, **params)
    write_stream(out / "args", workload, "parquet", 0, "args", **params)
    meta["atoms"] = sum(1 for _ in _atoms(out / "stream.stream"))
    return meta


def _atoms(path: Path):
    """Atom texts of a text stream file, split in plain Python (no parsing)."""
    with open(path) as f:
        for line in f:
            rest = line.partition(":")[2].strip()
            if rest:
                yield from rest.split(", ")


def _in_engine_child(program: str, stream: str, engine: str) -> None:
    """Child process body: prints {"cpu": s, "atoms": n, "output_atoms": m, "read": s} as JSON."""
    import time

    from ..api import load_program, records_from
    from ..engines import EngineOptions, create_engine
    from ..process import steady_heap, tune_collector
    from ..streams import time_points
    from ..streams.answers import AnswerState

    c0 = time.process_time()
    texts = sum(1 for _ in _atoms(Path(stream)))
    read = time.process_time() - c0
    analysis = load_program(Path(program))
    points = [(p.t, list(p.atoms)) for p in time_points(records_from(stream))]
    tune_collector()  # as the ticker process does
    steady_heap()
    c0 = time.process_time()
    eng = create_engine(engine, analysis, EngineOptions(models=1, changes_only=True))
    answer = AnswerState(pins=False)
    out = atoms = 0
    for t, batch in points:
        eng.append(t, batch)
        answer.models(eng.evaluate(t))
        atoms += len(batch)
        out += len(answer)
    print(
        json.dumps({"cpu": time.process_time() - c0, "atoms": atoms, "output_atoms": out, "read": read, "texts": texts})
    )


def _in_engine(program: Path, stream: Path, engine: str) -> dict:
    code = "import sys; from ticker_py.bench.throughput import _in_engine_child; _in_engine_child(*sys.argv[1:])"
    proc = subprocess.run(
        [sys.executable, "-c", code, str(program), str(stream), engine], capture_output=True, text=True, check=True
    )
    return json.loads(proc.stdout)


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def measure_workload(
    workload: str,
    reps: int = 1,
    root: Path | None = None,
    log=None,
    params: dict | None = None,
    slope_tp: tuple = SLOPE_TP,
) -> dict:
    """Measure one workload (see the module docstring); medians over ``reps`` runs. ``params``
    overrides the workload's sizes and ``slope_tp`` the two lengths of the slope (tests)."""
    default, engine = WORKLOADS[workload]
    params = params or default
    load = [_load()]
    with tempfile.TemporaryDirectory(dir=root) as tmp:
        d = Path(tmp)
        _generate(workload, params, d)
        prog = d / "program.lars"
        runs = {
            "text": _ticker(prog, "--stream", d / "stream.stream", "--engine", engine, "--format", "none"),
            "jsonl out": _ticker(
                prog, "--stream", d / "stream.stream", "--engine", engine, "--format", "jsonl", "--out", os.devnull
            ),
            "jsonl": _ticker(prog, "--stream", d / "stream.jsonl", "--engine", engine, "--format", "none"),
            "parquet": _ticker(prog, "--stream", d / "stream.parquet", "--engine", engine, "--format", "none"),
            "parquet args": _ticker(
                prog, "--stream", d / "args" / "stream.parquet", "--engine", engine, "--format", "none"
            ),
        }
        cpu: dict = {k: [] for k in runs}
        rss: dict = {k: [] for k in runs}
        inner = []
        for _ in range(reps):
            for key, args in runs.items():
                c, m = _run(args)
                cpu[key].append(c)
                rss[key].append(m)
                if log:
                    log(f"[throughput] {workload} {key}: {c:.2f} s CPU, {m:.0f} MB")
            inner.append(_in_engine(prog, d / "stream.stream", engine))
        slope = _slope(workload, params, engine, d, reps, log, slope_tp)
    load.append(_load())
    atoms = inner[0]["texts"]  # atoms in the file (a time point's duplicates count once in the engine)
    med = {k: statistics.median(v) for k, v in cpu.items()}
    out_atoms = inner[0]["output_atoms"]
    return {
        "workload": workload,
        "engine": engine,
        "params": params,
        "atoms": atoms,
        "load": load,
        "texts": inner[0]["texts"],
        "output_atoms": out_atoms,
        "cpu_s": med,
        "peak_mb": {k: max(v) for k, v in rss.items()},
        "us_per_atom": {k: med[k] / atoms * 1e6 for k in ("text", "jsonl", "parquet", "parquet args")},
        "slope_us": slope,
        "in_engine_us": statistics.median(r["cpu"] for r in inner) / atoms * 1e6,
        "plain_read_us": statistics.median(r["read"] for r in inner) / max(1, inner[0]["texts"]) * 1e6,
        "jsonl_out_us": (
            statistics.median(o - t for t, o in zip(cpu["text"], cpu["jsonl out"])) / out_atoms * 1e6
            if out_atoms
            else None
        ),
    }


def _slope(workload: str, params: dict, engine: str, d: Path, reps: int, log, lengths: tuple) -> float:
    """CPU µs per input atom between the two ``lengths`` (time points): whole ``ticker run`` processes on
    text streams, ``--format none``, medians over ``reps``."""
    from ..workloads.files import write_stream

    found = []
    for tp in lengths:
        sub = d / f"tp{tp}"
        write_stream(sub, workload, "text", 0, **{**params, "tp": tp})
        args = _ticker(sub / "program.lars", "--stream", sub / "stream.stream", "--engine", engine, "--format", "none")
        cpu = statistics.median(_run(args)[0] for _ in range(reps))
        found.append((cpu, sum(1 for _ in _atoms(sub / "stream.stream"))))
        if log:
            log(f"[throughput] {workload} slope, {tp} time points: {cpu:.2f} s CPU")
    (c0, a0), (c1, a1) = found
    return (c1 - c0) / max(1, a1 - a0) * 1e6


def measure_startup(reps: int = 5, root: Path | None = None) -> dict:
    """CPU seconds and peak RSS of ``ticker run`` on a 1-line program and a 1-line stream (medians),
    next to a bare ``python -c pass`` (the interpreter's own start-up on this machine)."""
    load = [_load()]
    with tempfile.TemporaryDirectory(dir=root) as tmp:
        prog, stream = Path(tmp) / "p.lars", Path(tmp) / "s.stream"
        prog.write_text("a :- p.\n")
        stream.write_text("0: p\n")
        found = [_run(_ticker(prog, "--stream", stream, "--engine", "native")) for _ in range(reps)]
        bare = [_run([sys.executable, "-c", "pass"]) for _ in range(reps)]
        arrow = [_run([sys.executable, "-c", "import pyarrow.parquet"]) for _ in range(reps)]
    return {
        "cpu_s": statistics.median(c for c, _ in found),
        "peak_mb": statistics.median(m for _, m in found),
        "python_cpu_s": statistics.median(c for c, _ in bare),
        "pyarrow_cpu_s": statistics.median(c for c, _ in arrow) - statistics.median(c for c, _ in bare),
        "load": load + [_load()],
        "command": Path(ticker_command()[0]).name,
        "bytecode_cached": bytecode_cached(),
    }


def measure_enumeration(workload: str, root: Path | None = None, log=None, params: dict | None = None) -> dict:
    """Whole-process CPU s of every answer stream (``--models 0 --format none``) and of one per tick."""
    from ..workloads.files import write_stream

    default, engine = ENUMERATION[workload]
    params = params or default
    load = [_load()]
    with tempfile.TemporaryDirectory(dir=root) as tmp:
        d = Path(tmp)
        write_stream(d, workload.split("-")[0], "text", 0, **params)
        found = {}
        for models in (0, 1):
            found[models] = _run(
                _ticker(
                    d / "program.lars",
                    "--stream",
                    d / "stream.stream",
                    "--engine",
                    engine,
                    "--models",
                    models,
                    "--format",
                    "none",
                )
            )[0]
            if log:
                log(f"[throughput] {workload} --models {models}: {found[models]:.2f} s CPU")
    return {
        "workload": workload,
        "engine": engine,
        "params": params,
        "all_cpu_s": found[0],
        "one_cpu_s": found[1],
        "load": load + [_load()],
    }


def measure_all(workloads=None, reps: int = 1, log=None) -> dict:
    """Every workload (default: all of :data:`WORKLOADS` and :data:`ENUMERATION`) and the start-up,
    with the environment (see :mod:`ticker_py.bench.report`)."""
    from .results import environment

    chosen = workloads or (*WORKLOADS, *ENUMERATION)
    return {
        "environment": environment(),
        "startup": measure_startup(),
        "runs": [measure_workload(w, reps, log=log) for w in chosen if w in WORKLOADS],
        "enumeration": [measure_enumeration(w, log=log) for w in chosen if w in ENUMERATION],
    }


def run_throughput(workloads: tuple | None, reps: int, out: Path, docs: bool, command: str) -> int:
    """``ticker bench throughput``: measure, write ``out/results.json`` and ``out/report.md``
    (and with ``docs`` the section of docs/benchmarks.md); returns the exit status."""
    from ..errors import Diagnostic, UsageError
    from ..workloads.files import output_directory

    unknown = [w for w in workloads or () if w not in WORKLOADS and w not in ENUMERATION]
    if unknown:
        raise UsageError(
            Diagnostic(
                f"unknown throughput workload '{unknown[0]}'",
                notes=(f"workloads: {', '.join((*WORKLOADS, *ENUMERATION))}",),
            )
        )
    out = output_directory(out)  # a bad --out is refused before minutes of measuring
    doc = measure_all(workloads, reps, log=lambda m: print(m, file=sys.stderr))
    doc["command"] = command
    (out / "results.json").write_text(json.dumps(doc, indent=1) + "\n")
    from .throughput_report import write_throughput

    return write_throughput(doc, out, docs)
