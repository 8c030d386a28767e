"""The benchmark plots of a results document: the command below the axes, a log scale where the
values span more than 10×, the peers' published figures where they measured a comparable case."""

from __future__ import annotations

import textwrap
from collections import OrderedDict
from pathlib import Path

from .report import LASER_US, TICKER_S, _variants

__all__ = ["LASER_US", "LASERPP_US", "TICKER_S", "plot_all", "plot_throughput", "log_if_wide"]

#: Laser++ (C++), CPU µs per input atom: (low, high)
LASERPP_US = {"box": (3.6, 3.9), "diamond": (1430.0, 1430.0)}

_N, _US, _TOTAL = "window size n (time points)", "CPU µs per input atom", "total time (s)"
#: the series drawn as one panel per value of a parameter (None: one panel): (that parameter, inches
#: per panel, the x parameter, the y value, x label, y label, the panel's subtitle from the parameters)
_PANELS = {
    "window": (None, 5.5, "window", "t_total", _N, _TOTAL, "tp = {tp}"),
    "grid": ("window", 4.5, "rate", "cpu_us_per_atom", "atoms per time point k", _US, "n = {window}, tp = {tp}"),
    "rules": (None, 5.5, "r", "cpu_us_per_atom", "rules r", _US, "n = {window}, k = {rate}, tp = {tp}"),
    "pruning": ("w", 5, "window", "t_total", _N, _TOTAL, "w = {w}, k = {rate}, tp = {tp}"),
}
#: the plots each suite draws per workload (the second part of their names)
SUITE_PLOTS = {
    "ticker-a": ("window", "tp"),
    "ticker-b": ("window", "tp"),
    "laser": ("grid", "rules"),
    "pruning": ("pruning",),
    "r4": ("window",),
    "encodings": ("encodings",),
}


def log_if_wide(ax) -> None:
    """A log y scale when the plotted positive values span more than 10×."""
    values = [float(v) for line in ax.lines for v in line.get_ydata() if v is not None and float(v) > 0]
    values += [float(p.get_height()) for p in ax.patches if p.get_height() > 0]
    if values and max(values) > 10 * min(values):
        ax.set_yscale("log")


def _finish(ax, title: str, xlabel: str, ylabel: str) -> None:
    """A panel's labels and title; a log scale where its values span more than 10×."""
    ax.set(xlabel=xlabel, ylabel=ylabel)
    ax.set_title(title, fontsize=9)
    log_if_wide(ax)


def _lines(ax, rs, colors, x_of, y_of, label_of=lambda v: v, style="-") -> None:
    """One line per engine variant, its finished runs' points."""
    for v in _variants(rs):
        pts = sorted((x_of(r), y_of(r)) for r in rs if r["variant"] == v and r["status"] == "ok")
        if pts:
            ax.plot(*zip(*pts), style, marker="o", label=label_of(v), color=colors[v])
    ax.grid(alpha=0.3)


def _peers(ax, w: str, n) -> None:
    """Laser's and Laser++'s figures on the panel they measured (n = 100)."""
    if n == 100 and w in LASER_US:
        ax.axhline(LASER_US[w], color="grey", ls="--", lw=1, label=f"Laser (PyPy), k = 1000: {LASER_US[w]}")
    if n == 100 and w in LASERPP_US:
        low, high = LASERPP_US[w]
        label = f"Laser++, k = 1000: {f'{low:g}–{high:g}' if low != high else f'≈ {low:,.0f}'}"
        if low != high:
            ax.axhspan(low, high, color="#8c564b", alpha=0.25, lw=0, label=label)
        else:
            ax.axhline(low, color="#8c564b", ls="--", lw=1, label=label)


def _panels(plt, series: str, rs: list, wr: list, w: str, title: str, colors: dict):
    split, inches, x, y, xlabel, ylabel, subtitle = _PANELS[series]
    keys = sorted({r["params"][split] for r in rs}) if split else [None]
    fig, axes = plt.subplots(1, len(keys), figsize=(inches * len(keys), 4), squeeze=False)
    for ax, key in zip(axes[0], keys):
        part = [r for r in rs if split is None or r["params"][split] == key]
        if series == "window":
            _window(ax, part, wr, w, colors)
        else:
            _lines(ax, part, colors, lambda r: r["params"][x], lambda r: r[y])
        if series == "grid":
            _peers(ax, w, key)
        params = {**rs[0]["params"], **({split: key} if split else {})}
        _finish(ax, f"{title}\n{subtitle.format(**params)}", xlabel, ylabel)
    return fig


def _window(ax, win: list, wr: list, w: str, colors: dict) -> None:
    """Total time against n; the series with one answer stream per tick dashed; Ticker's figure."""
    one = [r for r in wr if r["series"] == "window-1"]
    suffix = f", models = {win[0].get('models', 1)}" if one else ""
    n_of, total = lambda r: r["params"]["window"], lambda r: r["t_total"]  # noqa: E731
    _lines(ax, win, colors, n_of, total, lambda v: f"{v}{suffix}")
    if one:
        _lines(ax, one, colors, n_of, total, lambda v: f"{v}, models = 1", "--")
    if w in TICKER_S and win[0]["params"]["tp"] == 1000:
        ticker = TICKER_S[w][0]
        ax.plot([40], [ticker], "*", color="black", ms=10, label=f"Ticker incremental, n = 40: {ticker} s")


def _tp(plt, tps: list, title: str, colors: dict):
    """The cumulative time of one run, read at its checkpoints."""
    fig, ax = plt.subplots(figsize=(5.5, 4))
    for r in tps:
        pts = sorted((int(k), v) for k, v in (r.get("checkpoints") or {}).items())
        if pts:
            ax.plot(*zip(*pts), marker="o", label=r["variant"], color=colors[r["variant"]])
    ax.grid(alpha=0.3)
    _finish(ax, f"{title}\nn = {tps[0]['params']['window']}, cumulative time of one run", "time points", _TOTAL)
    return fig


def _encodings(plt, enc: list, title: str, colors: dict):
    """The run's CPU, and the CPU of a tick (median, 99th percentile), against n."""
    fig, (total, tick) = plt.subplots(1, 2, figsize=(9, 4))
    n_of = lambda r: r["params"]["window"]  # noqa: E731
    _lines(total, enc, colors, n_of, lambda r: r["cpu_total"])
    _finish(total, f"{title}\ntp = {enc[0]['params']['tp']}, one answer stream per tick", _N, "CPU of the run (s)")
    _lines(tick, enc, colors, n_of, lambda r: 1000 * r["cpu_tick_median"])
    _lines(tick, enc, colors, n_of, lambda r: 1000 * r["cpu_tick_p99"], lambda v: f"{v}, 99th percentile", "--")
    _finish(tick, "per tick: median (solid), 99th percentile (dashed)", _N, "CPU per tick (ms)")
    return fig


def _save(plt, fig, path: Path, command: str) -> None:
    """One legend for all panels, right of them; the command under them; plain tick numbers."""
    from matplotlib.ticker import FuncFormatter

    width, height = fig.get_size_inches()
    handles: dict = {}
    for ax in fig.axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, handle)
        if ax.get_yscale() == "log":
            ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    extra = 0.7 + 0.065 * max((len(label) for label in handles), default=0) if handles else 0.2
    fig.set_size_inches(width + extra, height)
    if handles:
        fig.legend(list(handles.values()), list(handles), loc="upper right", fontsize=7, frameon=False)
    if command:
        lines = textwrap.wrap(command, int((width + extra) * 17))
        fig.text(0.01, 0.01, "\n".join(lines), fontsize=6, color="#555555", ha="left", va="bottom")
    fig.subplots_adjust(
        left=0.7 / (width + extra), right=(width - 0.1) / (width + extra), bottom=0.22, top=0.86, wspace=0.35
    )
    fig.savefig(path, dpi=80)
    plt.close(fig)


def plot_all(runs: list, img_dir: Path, prefix: str = "", command: str = "", stale: bool = False) -> dict:
    """PNG plots like the Ticker paper's Figs. 4–7 and Laser's; returns {(workload, series): file name}.

    With ``stale`` it also removes the plots of these workloads and suites that this run no longer draws."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    img_dir.mkdir(parents=True, exist_ok=True)
    made: dict = {}
    workloads = OrderedDict.fromkeys(r["workload"] for r in runs)
    for w in workloads:
        wr = [r for r in runs if r["workload"] == w]
        colors = {v: f"C{i % 10}" for i, v in enumerate(_variants(wr))}  # one colour per engine in every panel
        title = f"{wr[0]['title']} ({w})"
        for series in ("window", "tp", "grid", "rules", "encodings", "pruning"):
            rs = [r for r in wr if r["series"] == series]
            if not rs:
                continue
            if series == "tp":
                fig = _tp(plt, rs, title, colors)
            elif series == "encodings":
                fig = _encodings(plt, rs, title, colors)
            else:
                fig = _panels(plt, series, rs, wr, w, title, colors)
            made[(w, series)] = f"{prefix}{w}-{series}.png"
            _save(plt, fig, img_dir / made[(w, series)], command)
    if stale:
        every = {kind for kinds in SUITE_PLOTS.values() for kind in kinds}
        drawn = {kind for r in runs for kind in SUITE_PLOTS.get(r.get("suite"), every)}
        for w in workloads:
            for old in img_dir.glob(f"{prefix}{w}-*.png"):
                series = old.stem[len(prefix) + len(w) + 1 :]
                if (w, series) not in made and series in drawn:
                    old.unlink()
    return made


def plot_throughput(doc: dict, path: Path) -> None:
    """A bar chart: CPU µs per input atom by workload and way of reading, with Laser's and Laser++'s figures."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = doc["runs"]
    series = [
        ("text", lambda r: r["us_per_atom"]["text"]),
        ("JSON Lines", lambda r: r["us_per_atom"]["jsonl"]),
        ("Parquet", lambda r: r["us_per_atom"]["parquet"]),
        ("Parquet args", lambda r: r["us_per_atom"].get("parquet args", 0)),
        ("in-engine", lambda r: r["in_engine_us"]),
        ("plain read", lambda r: r["plain_read_us"]),
    ]
    fig, ax = plt.subplots(figsize=(11.5, 4.5))
    width = 0.8 / len(series)
    for i, (label, get) in enumerate(series):
        ax.bar([x + i * width for x in range(len(runs))], [get(r) for r in runs], width, label=label)
    for peers, name, style in ((LASER_US, "Laser (PyPy)", ("black", "--")), (LASERPP_US, "Laser++", ("#8c564b", ":"))):
        marks = [
            (sum(peers[r["workload"]]) / 2 if isinstance(peers[r["workload"]], tuple) else peers[r["workload"]], x)
            for x, r in enumerate(runs)
            if r["workload"] in peers
        ]
        if marks:
            ys, xs = zip(*marks)
            left = [x - width / 2 for x in xs]
            ax.hlines(ys, left, [x + 0.8 for x in left], colors=style[0], linestyles=style[1], lw=1.5, label=name)
    ax.set_xticks([x + 0.4 - width / 2 for x in range(len(runs))], [r["workload"] for r in runs])
    ax.set_yscale("log")
    ax.set_ylabel("CPU µs per input atom (whole process)")
    ax.set_xlabel("workload (Laser: k = 1000, n = 100, 300 time points; A and B1: 1000 time points, n = 60)")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0, frameon=False)
    ax.grid(axis="y", alpha=0.3)
    ax.set_title("ticker run --format none: whole process vs engine, by stream format")
    if doc.get("command"):
        fig.text(0.01, 0.01, doc["command"], fontsize=6, color="#555555", ha="left", va="bottom")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
