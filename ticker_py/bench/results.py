"""A bench session's results: the environment, ``results.json``, and the reports written from it."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import psutil

from ..errors import Diagnostic, UsageError
from ..workloads.files import output_directory
from .plots import plot_all
from .report import render_markdown, render_section
from .runner import Settings, run_cases

__all__ = ["environment", "load_json", "run_bench", "write_reports", "replace_section"]


def _git(*args) -> str | None:
    root = Path(__file__).resolve().parents[2]
    try:
        return subprocess.run(
            ["git", *args], cwd=root, capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def environment() -> dict:
    """Machine and versions (python, clingo, ticker_py, git commit)."""
    from importlib.metadata import version

    from .. import __version__

    commit = _git("rev-parse", "--short", "HEAD")
    dirty = bool(_git("status", "--porcelain", "--untracked-files=no"))
    return {
        "machine": {
            "cpu": _cpu_model(),
            "cores": os.cpu_count(),
            "ram_gb": round(psutil.virtual_memory().total / 2**30, 1),
            "os": platform.platform(),
            "hostname": platform.node(),
        },
        "versions": {
            "python": platform.python_version(),
            "implementation": platform.python_implementation(),
            "clingo": version("clingo"),
            "ticker_py": __version__,
            "git": (commit + ("+dirty" if dirty else "")) if commit else None,
        },
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }


#: the top-level entries of a results.json and their types
_KEYS = {"date": str, "command": str, "machine": dict, "versions": dict, "settings": dict, "runs": list}
#: those of ``ticker bench throughput``'s
THROUGHPUT_KEYS = {"runs": list, "command": str}


def load_json(path: Path, keys: dict = _KEYS, what: str = "ticker bench") -> dict:
    """Read a ``results.json`` of ``what`` (with ``keys``); a missing, unreadable or other file is a UsageError."""
    try:
        doc = json.loads(Path(path).read_text())
    except OSError as err:
        raise UsageError(Diagnostic(f"cannot read '{path}': {err.strerror or err}")) from None
    except ValueError as err:  # not UTF-8, or not JSON
        raise UsageError(Diagnostic(f"'{path}' is not a results.json of {what}: {err}")) from None
    missing = [k for k in keys if not isinstance(doc, dict) or not isinstance(doc.get(k), keys[k])]
    if missing:
        raise UsageError(
            Diagnostic(
                f"'{path}' is not a results.json of {what}: no '{missing[0]}'",
                notes=(f"a results.json has {', '.join(keys)}",),
            )
        )
    return doc


def run_bench(cases, settings: Settings, command: str, out: Path, factories=None) -> dict:
    """Measure ``cases`` and write ``out/results.json`` (also after each case, so a long run keeps its data)."""
    out = output_directory(out)
    conf = {
        "budget": settings.budget,
        "reps": settings.reps,
        "warmup": settings.warmup,
        "seed": settings.seed,
        "isolated_workers": settings.isolate,
    }
    doc = {**environment(), "command": command, "argv": sys.argv, "settings": conf, "runs": []}
    start = time.perf_counter()
    for rec in run_cases(cases, settings, factories):
        doc["runs"].append(rec)
        (out / "results.json").write_text(json.dumps(doc, indent=1, default=str) + "\n")
    runs = doc["runs"]
    print(f"[bench] {len(runs)} runs in {time.perf_counter() - start:.0f} s -> {out}/results.json", file=sys.stderr)
    return load_json(out / "results.json")


def replace_section(page: Path, name: str, text: str) -> None:
    """Put ``text`` between the markers ``<!-- bench:NAME -->`` and ``<!-- /bench:NAME -->`` of ``page``
    (added at its end if missing)."""
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    old = page.read_text() if page.exists() else "# Benchmarks\n"
    head, found, rest = old.partition(start)
    tail = rest.partition(end)[2].lstrip("\n") if found else ""
    body = f"{head.rstrip()}\n\n{start}\n{text.strip()}\n{end}\n"
    page.write_text(body + ("\n" + tail if tail else ""))


def write_reports(doc: dict, out: Path, docs: bool) -> int:
    """Write ``out/report.md`` and plots (with ``docs`` also in docs/); status 0."""
    out = output_directory(out)
    plots = plot_all(doc["runs"], out / "img", command=doc["command"], stale=True)
    (out / "report.md").write_text(render_markdown(doc, "img", plots))
    print(f"[bench] report: {out}/report.md", file=sys.stderr)
    if docs:
        docs_dir = Path("docs")
        plots = plot_all(doc["runs"], docs_dir / "img", prefix="bench-", command=doc["command"], stale=True)
        for suite in dict.fromkeys(r["suite"] for r in doc["runs"]):
            replace_section(docs_dir / "benchmarks.md", suite, render_section(doc, suite, "img", plots))
        print(
            "[bench] docs/benchmarks.md (its sections of these suites) and docs/img/bench-*.png updated",
            file=sys.stderr,
        )
    return 0
