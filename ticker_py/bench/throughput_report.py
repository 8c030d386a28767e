"""The report of ``ticker bench throughput``: its targets, its section of docs/benchmarks.md
and its plot (the measuring: :mod:`.throughput`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

__all__ = ["TARGETS", "render", "plot", "write_docs", "write_throughput", "load_throughput"]

ENUMERATION_TARGET = 8.0  # CPU s, whole process
#: the throughput targets: text stream, --format none, µs per input atom
TARGETS = {"box": 2.0, "diamond": 2.0, "join": 5.0, "cooling": 4.0}
JSONL_TARGET = 0.4  # µs per output atom on top of --format none
STARTUP_TARGET = (0.12, 45.0)  # CPU s, peak MB


def _verdict(ok: bool) -> str:
    return "met" if ok else "not met"


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
        out = "-" if r["jsonl_out_us"] is None else f"{r['jsonl_out_us']:.2f}"
        load = "–".join(f"{x:.1f}" for x in r.get("load", ()))
        lines.append(
            f"| {r['workload']} | {r['engine']} | {r['atoms']} | {u['text']:.2f} | {_figure(r.get('slope_us'))} | "
            f"{u['jsonl']:.2f} | {u['parquet']:.2f} | {_figure(u.get('parquet args'))} | {r['in_engine_us']:.2f} | "
            f"{r['plain_read_us']:.2f} | {out} | {r['peak_mb']['text']:.0f} | {load} |"
        )
    s = doc["startup"]
    bare = f"; a bare `python -c pass` {s['python_cpu_s']:.3f} s" if "python_cpu_s" in s else ""
    cached = {
        True: "; ticker_py's bytecode cached",
        False: "; no bytecode cache (every module compiled at each start)",
    }.get(s.get("bytecode_cached"), "")
    lines += [
        "",
        f"Start-up (`ticker run`, 1-line program and stream, native): {s['cpu_s']:.3f} s CPU, "
        f"{s['peak_mb']:.0f} MB peak RSS{bare}{cached} (load "
        f"{'–'.join(f'{x:.1f}' for x in s.get('load', ()))}).",
    ]
    for e in doc.get("enumeration", ()):
        lines += [
            "",
            f"All answer streams ({e['workload']}: {e['params']}, {e['engine']}, `--format none`): "
            f"{e['all_cpu_s']:.2f} s CPU with `--models 0`, {e['one_cpu_s']:.2f} s with `--models 1` "
            f"(load {'–'.join(f'{x:.1f}' for x in e['load'])}).",
        ]
    lines += ["", "| target | ours | verdict |", "|---|---|---|"]
    by = {r["workload"]: r for r in doc["runs"]}
    for w, lim in TARGETS.items():
        if w in by:
            v = by[w]["us_per_atom"]["text"]
            lines.append(f"| {w}, text, `--format none`: ≤ {lim} µs/atom | {v:.2f} | {_verdict(v <= lim)} |")
    arrow = s.get("pyarrow_cpu_s")
    for w in TARGETS:
        if w in by and arrow is not None:
            r = by[w]
            text, limit = r["cpu_s"]["text"], r["cpu_s"]["text"] + arrow
            for key, what in (("parquet", "Parquet"), ("parquet args", "Parquet args layout")):
                if key in r["cpu_s"]:
                    v = r["cpu_s"][key]
                    lines.append(
                        f"| {w}, {what}: ≤ text ({text:.2f} s) + importing pyarrow ({arrow:.2f} s) | {v:.2f} s | "
                        f"{_verdict(v <= limit)} |"
                    )
    for w in TARGETS:
        if w in by and by[w]["jsonl_out_us"] is not None:
            v = by[w]["jsonl_out_us"]
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


def _figure(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def plot(doc: dict, path: Path) -> None:
    """The throughput bar chart (:func:`ticker_py.bench.plots.plot_throughput`)."""
    from .plots import plot_throughput

    plot_throughput(doc, path)


def write_docs(doc: dict, command: str, docs: Path = Path("docs")) -> None:
    """Replace the throughput section of docs/benchmarks.md, with its plot."""
    from .results import replace_section

    plot(doc, docs / "img" / "bench-throughput.png")
    replace_section(docs / "benchmarks.md", "throughput", render(doc, command, "img/bench-throughput.png"))


def write_throughput(doc: dict, out: Path, docs: bool) -> int:
    """The report and plot of a throughput ``results.json`` (``doc``) in ``out`` (with ``docs`` also
    the throughput section of docs/benchmarks.md and docs/img/bench-throughput.png); status 0."""
    from ..workloads.files import output_directory

    out = output_directory(out)
    plot(doc, out / "img" / "throughput.png")
    (out / "report.md").write_text(render(doc, doc["command"], "img/throughput.png"))
    if docs:
        write_docs(doc, doc["command"])
    print(f"[bench] throughput report: {out}/report.md", file=sys.stderr)
    return 0


def load_throughput(path: Path) -> dict:
    """A throughput ``results.json``; another file is a UsageError."""
    from ..errors import Diagnostic, UsageError

    try:
        doc = json.loads(Path(path).read_text())
    except (OSError, ValueError) as err:
        raise UsageError(Diagnostic(f"cannot read '{path}' as a throughput results.json: {err}")) from None
    if not isinstance(doc, dict) or not all(isinstance(doc.get(k), t) for k, t in (("runs", list), ("command", str))):
        raise UsageError(Diagnostic(f"'{path}' is not a results.json of ticker bench throughput"))
    return doc
