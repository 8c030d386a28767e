"""``ticker bench throughput``: the whole ``ticker run`` process against its engine, and its report.

Every figure is measured in a process of its own, one at a time, with the load average before and
after it (the machine is shared). The extra CPU of ``--format jsonl`` is the median of each pair's
difference, steadier than a difference of medians.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["WORKLOADS", "ENUMERATION", "TARGETS", "run_throughput", "render", "write_throughput"]

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

ENUMERATION_TARGET = 8.0  # CPU s, whole process
#: the throughput targets: text stream, --format none, µs per input atom
TARGETS = {"box": 2.0, "diamond": 2.0, "join": 5.0, "cooling": 4.0}
JSONL_TARGET = 0.4  # µs per output atom on top of --format none
STARTUP_TARGET = (0.12, 45.0)  # CPU s, peak MB


def _run(args: list) -> tuple:
    """(CPU seconds, peak RSS MB) of one child process, measured by GNU time (not a fork of this
    process, whose heap would inflate the peak)."""
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
    """The ``ticker`` a user runs: the console script next to this interpreter (``python -m
    ticker_py.cli`` where there is none), not a version manager's shim on ``PATH``."""
    script = Path(sys.executable).with_name("ticker")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "ticker_py.cli"]


def bytecode_cached() -> bool:
    """Whether every ticker_py module has an up-to-date ``.pyc`` (else each start compiles them)."""
    import importlib.util

    for src in Path(__file__).resolve().parents[1].rglob("*.py"):
        pyc = Path(importlib.util.cache_from_source(str(src)))
        if not pyc.is_file() or pyc.stat().st_mtime < src.stat().st_mtime:
            return False
    return True


def _ticker(program: Path, stream: Path, engine: str, *more, fmt: str | None = "none") -> list:
    """``ticker run`` of ``program`` over ``stream`` with ``more`` options, ``--format fmt`` (None: the default)."""
    more = (*more, "--format", fmt) if fmt else more
    return [*ticker_command(), "run", str(program), "--stream", str(stream), "--engine", engine, *map(str, more)]


def _atoms(path: Path):
    """Atom texts of a text stream file, split in plain Python (no parsing)."""
    with open(path) as f:
        for line in f:
            rest = line.partition(":")[2].strip()
            if rest:
                yield from rest.split(", ")


def _in_engine_child(program: str, stream: str, engine: str) -> None:
    """Child process body: prints {"cpu": s, "output_atoms": m, "read": s, "texts": atoms in the file} as JSON."""
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
    out = 0
    for t, batch in points:
        eng.append(t, batch)
        answer.models(eng.evaluate(t))
        out += len(answer)
    print(json.dumps({"cpu": time.process_time() - c0, "output_atoms": out, "read": read, "texts": texts}))


def _in_engine(program: Path, stream: Path, engine: str) -> dict:
    code = "import sys; from ticker_py.bench.throughput import _in_engine_child; _in_engine_child(*sys.argv[1:])"
    proc = subprocess.run(
        [sys.executable, "-c", code, str(program), str(stream), engine], capture_output=True, text=True, check=True
    )
    return json.loads(proc.stdout)


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def measure_workload(
    workload: str, reps: int = 1, root: Path | None = None, log=None, params: dict | None = None, slope_tp=SLOPE_TP
) -> dict:
    """Measure one workload; medians over ``reps`` runs (``params``, ``slope_tp``: smaller sizes for tests)."""
    from ..workloads.files import write_stream

    default, engine = WORKLOADS[workload]
    params = params or default
    load = [_load()]
    with tempfile.TemporaryDirectory(dir=root) as tmp:
        d = Path(tmp)
        for fmt in ("parquet", "text", "jsonl"):
            write_stream(d, workload, fmt, 0, **params)
        write_stream(d / "args", workload, "parquet", 0, "args", **params)
        prog, text = d / "program.lars", d / "stream.stream"
        runs = {
            "text": _ticker(prog, text, engine),
            "jsonl out": _ticker(prog, text, engine, "--out", os.devnull, fmt="jsonl"),
            "jsonl": _ticker(prog, d / "stream.jsonl", engine),
            "parquet": _ticker(prog, d / "stream.parquet", engine),
            "parquet args": _ticker(prog, d / "args" / "stream.parquet", engine),
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
            inner.append(_in_engine(prog, text, engine))
        slope = _slope(workload, params, engine, d, reps, log, slope_tp)
    load.append(_load())
    atoms = inner[0]["texts"]  # atoms in the file (a time point's duplicates count once in the engine)
    med = {k: statistics.median(v) for k, v in cpu.items()}
    out_atoms = inner[0]["output_atoms"]
    jsonl_out = statistics.median(o - t for t, o in zip(cpu["text"], cpu["jsonl out"]))
    return {
        "workload": workload,
        "engine": engine,
        "params": params,
        "atoms": atoms,
        "load": load,
        "output_atoms": out_atoms,
        "cpu_s": med,
        "peak_mb": {k: max(v) for k, v in rss.items()},
        "us_per_atom": {k: med[k] / atoms * 1e6 for k in ("text", "jsonl", "parquet", "parquet args")},
        "slope_us": slope,
        "in_engine_us": statistics.median(r["cpu"] for r in inner) / atoms * 1e6,
        "plain_read_us": statistics.median(r["read"] for r in inner) / max(1, atoms) * 1e6,
        "jsonl_out_us": jsonl_out / out_atoms * 1e6 if out_atoms else None,
    }


def _slope(workload: str, params: dict, engine: str, d: Path, reps: int, log, lengths: tuple) -> float:
    """CPU µs per input atom between the two ``lengths`` (time points) of text streams, medians over ``reps``."""
    from ..workloads.files import write_stream

    found = []
    for tp in lengths:
        sub = d / f"tp{tp}"
        write_stream(sub, workload, "text", 0, **{**params, "tp": tp})
        cpu = statistics.median(
            _run(_ticker(sub / "program.lars", sub / "stream.stream", engine))[0] for _ in range(reps)
        )
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
        found = [_run(_ticker(prog, stream, "native", fmt=None)) for _ in range(reps)]
        bare, arrow = (
            [_run([sys.executable, "-c", code]) for _ in range(reps)] for code in ("pass", "import pyarrow.parquet")
        )
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
            found[models] = _run(_ticker(d / "program.lars", d / "stream.stream", engine, "--models", models))[0]
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


def run_throughput(workloads: tuple | None, reps: int, out: Path, docs: bool, command: str) -> int:
    """``ticker bench throughput``: measure the ``workloads`` (default: all) and the start-up, write
    ``out/results.json`` and the report (:func:`write_throughput`); returns the exit status."""
    from ..errors import Diagnostic, UsageError
    from ..workloads.files import output_directory
    from .results import environment

    chosen = workloads or (*WORKLOADS, *ENUMERATION)
    unknown = [w for w in chosen if w not in WORKLOADS and w not in ENUMERATION]
    if unknown:
        raise UsageError(
            Diagnostic(
                f"unknown throughput workload '{unknown[0]}'",
                notes=(f"workloads: {', '.join((*WORKLOADS, *ENUMERATION))}",),
            )
        )
    out = output_directory(out)  # a bad --out is refused before minutes of measuring
    log = lambda m: print(m, file=sys.stderr)  # noqa: E731
    doc = {
        "environment": environment(),
        "startup": measure_startup(),
        "runs": [measure_workload(w, reps, log=log) for w in chosen if w in WORKLOADS],
        "enumeration": [measure_enumeration(w, log=log) for w in chosen if w in ENUMERATION],
        "command": command,
    }
    (out / "results.json").write_text(json.dumps(doc, indent=1) + "\n")
    return write_throughput(doc, out, docs)


# ------------------------------------------------------------------ the report


def _verdict(ok: bool) -> str:
    return "met" if ok else "not met"


def _figure(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _loads(figures) -> str:
    return "–".join(f"{x:.1f}" for x in figures)


def render(doc: dict, command: str, img: str | None = None) -> str:
    """The throughput section of docs/benchmarks.md (and of ``report.md``)."""
    env = doc["environment"]
    machine, versions = env.get("machine", {}), env.get("versions", {})
    lines = [
        "## The whole `ticker run` process (suite `throughput`)",
        "",
        f"`{command}` (machine: {machine.get('cpu', '?')}, {machine.get('cores', '?')} cores; Python "
        f"{versions.get('python', '?')}; ticker_py git {versions.get('git', '?')}).",
        "",
        "Whole-process CPU (user + system) per input atom of `ticker run --format none`, by stream format; "
        "`slope`: the cost of one more atom at scale (CPU at 1,000 time points minus at 300, over the atoms "
        "between, text stream); `in-engine`: the engine alone on atoms parsed in advance; `plain read`: "
        "reading the text file and splitting it into atom texts in plain Python; `jsonl out`: the extra CPU "
        "of `--format jsonl` per printed atom; `load`: the 1-minute load average before and after the row "
        "(the machine is shared: compare figures of one row).",
        "",
        "| workload | engine | atoms in | text µs/atom | slope | JSON Lines | Parquet | Parquet args | in-engine | "
        "plain read | jsonl out µs/output atom | peak MB (text) | load |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in doc["runs"]:
        u = r["us_per_atom"]
        lines.append(
            f"| {r['workload']} | {r['engine']} | {r['atoms']} | {u['text']:.2f} | {_figure(r.get('slope_us'))} | "
            f"{u['jsonl']:.2f} | {u['parquet']:.2f} | {_figure(u.get('parquet args'))} | {r['in_engine_us']:.2f} | "
            f"{r['plain_read_us']:.2f} | {_figure(r['jsonl_out_us'])} | {r['peak_mb']['text']:.0f} | "
            f"{_loads(r.get('load', ()))} |"
        )
    s = doc["startup"]
    bare = f"; a bare `python -c pass` {s['python_cpu_s']:.3f} s" if "python_cpu_s" in s else ""
    cached = {True: "; ticker_py's bytecode cached", False: "; no bytecode cache (every module compiled at each start)"}
    lines += [
        "",
        f"Start-up (`ticker run`, 1-line program and stream, native): {s['cpu_s']:.3f} s CPU, "
        f"{s['peak_mb']:.0f} MB peak RSS{bare}{cached.get(s.get('bytecode_cached'), '')} (load {_loads(s.get('load', ()))}).",
    ]
    for e in doc.get("enumeration", ()):
        lines += [
            "",
            f"All answer streams ({e['workload']}: {e['params']}, {e['engine']}, `--format none`): "
            f"{e['all_cpu_s']:.2f} s CPU with `--models 0`, {e['one_cpu_s']:.2f} s with `--models 1` "
            f"(load {_loads(e['load'])}).",
        ]
    lines += ["", "| target | ours | verdict |", "|---|---|---|"]
    found = {r["workload"]: r for r in doc["runs"]}
    by = {w: found[w] for w in TARGETS if w in found}
    for w, r in by.items():
        v, lim = r["us_per_atom"]["text"], TARGETS[w]
        lines.append(f"| {w}, text, `--format none`: ≤ {lim} µs/atom | {v:.2f} | {_verdict(v <= lim)} |")
    arrow = s.get("pyarrow_cpu_s")
    for w, r in by.items():
        for key, what in (("parquet", "Parquet"), ("parquet args", "Parquet args layout")):
            if arrow is not None and key in r["cpu_s"]:
                text, v = r["cpu_s"]["text"], r["cpu_s"][key]
                lines.append(
                    f"| {w}, {what}: ≤ text ({text:.2f} s) + importing pyarrow ({arrow:.2f} s) | {v:.2f} s | "
                    f"{_verdict(v <= text + arrow)} |"
                )
    for w, r in by.items():
        if (v := r["jsonl_out_us"]) is not None:
            verdict = "within noise (negative)" if v < 0 else _verdict(v <= JSONL_TARGET)
            lines.append(f"| {w}, `--format jsonl`: ≤ {JSONL_TARGET} µs/output atom over none | {v:.2f} | {verdict} |")
    lines.append(
        f"| start-up: ≤ {STARTUP_TARGET[0]} s CPU, ≤ {STARTUP_TARGET[1]:.0f} MB | {s['cpu_s']:.3f} s, "
        f"{s['peak_mb']:.0f} MB | {_verdict(s['cpu_s'] <= STARTUP_TARGET[0] and s['peak_mb'] <= STARTUP_TARGET[1])} |"
    )
    for e in doc.get("enumeration", ()):
        lines.append(
            f"| {e['workload']}, `--models 0`: ≤ {ENUMERATION_TARGET} s CPU | {e['all_cpu_s']:.2f} s | "
            f"{_verdict(e['all_cpu_s'] <= ENUMERATION_TARGET)} |"
        )
    if img:
        lines += ["", f"![throughput]({img})"]
    return "\n".join(lines) + "\n"


def write_throughput(doc: dict, out: Path, docs: bool) -> int:
    """The report and plot of a throughput ``results.json`` (``doc``) in ``out`` (with ``docs`` also in
    docs/); status 0."""
    from ..workloads.files import output_directory
    from .plots import plot_throughput
    from .results import replace_section

    out = output_directory(out)
    plot_throughput(doc, out / "img" / "throughput.png")
    (out / "report.md").write_text(render(doc, doc["command"], "img/throughput.png"))
    if docs:
        plot_throughput(doc, Path("docs") / "img" / "bench-throughput.png")
        replace_section(
            Path("docs") / "benchmarks.md", "throughput", render(doc, doc["command"], "img/bench-throughput.png")
        )
    print(f"[bench] throughput report: {out}/report.md", file=sys.stderr)
    return 0
