"""The benchmark plots, drawn from a results document (``ticker bench``, ``--report-from``).

Every plot says in its title what was run (workload, parameters, the ``ticker bench`` command
below the axes), has axes with units, a log scale where the values span more than 10×, and the
peers' published figures as reference lines where they were measured on a comparable case:

* Laser (PyPy) at n = 100, k = 1000: diamond 50.6, box 40.4, join 103.7, cooling 41.1 µs/atom;
* Laser++ (C++): box 3.6–3.9 µs/atom, diamond about 1,430 µs/atom;
* Ticker (Beck et al. 2017), 1000 time points at n = 40: scenario A incremental 3.8 s, B1 22.8 s,
  B2 48.7 s.

:func:`plot_all` writes the plots of a results document and returns their names; with
``stale=True`` it first removes the plots of the same workloads and suites that an earlier run
wrote and this one does not (a series no longer measured), so a directory never keeps a stale
picture; a workload measured by several suites keeps the other suites' plots.
"""

from __future__ import annotations

import textwrap
from collections import OrderedDict
from pathlib import Path

from .targets import LASER_US

__all__ = ["LASER_US", "LASERPP_US", "TICKER_S", "plot_all", "plot_throughput", "log_if_wide"]

#: Laser++ (C++), CPU µs per input atom: (low, high)
LASERPP_US = {"box": (3.6, 3.9), "diamond": (1430.0, 1430.0)}
#: Ticker's incremental engine, total seconds for 1000 time points at n = 40
TICKER_S = {"caching-time": 3.8, "caching-tuple": 3.8, "b1": 22.8, "b2": 48.7}


def log_if_wide(ax, axis: str = "y") -> None:
    """A log scale on ``axis`` when the plotted positive values span more than 10×."""
    values = []
    for line in ax.lines:
        data = line.get_ydata() if axis == "y" else line.get_xdata()
        values += [float(v) for v in data if v is not None and float(v) > 0]
    for patch in ax.patches:
        v = patch.get_height() if axis == "y" else patch.get_width()
        if v > 0:
            values.append(float(v))
    if values and max(values) > 10 * min(values):
        (ax.set_yscale if axis == "y" else ax.set_xscale)("log")


def _variants(runs: list) -> list:
    return list(OrderedDict.fromkeys(r["variant"] for r in runs))


def _reference(ax, y: float, label: str, color: str = "grey", span: tuple | None = None) -> None:
    if span is not None and span[0] != span[1]:
        ax.axhspan(span[0], span[1], color=color, alpha=0.25, lw=0, label=label)
    else:
        ax.axhline(y, color=color, ls="--", lw=1, label=label)


#: the plots each suite draws per workload (the second part of their names)
SUITE_PLOTS = {
    "ticker-a": ("window", "tp"),
    "ticker-b": ("window", "tp"),
    "laser": ("grid", "rules"),
    "pruning": ("pruning",),
    "r4": ("window",),
    "encodings": ("encodings",),
}


def plot_all(runs: list, img_dir: Path, prefix: str = "", command: str = "", stale: bool = False) -> dict:
    """PNG plots like the Ticker paper's Figs. 4–7 and Laser's; returns {(workload, series): file name}."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    img_dir.mkdir(parents=True, exist_ok=True)
    made: dict = {}

    def save(fig, key):
        """One legend for all panels, right of them; the command under them; plain tick numbers."""
        name = f"{prefix}{key[0]}-{key[1]}.png"
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
            lines_ = textwrap.wrap(command, int((width + extra) * 17))
            fig.text(0.01, 0.01, "\n".join(lines_), fontsize=6, color="#555555", ha="left", va="bottom")
        fig.subplots_adjust(
            left=0.7 / (width + extra), right=(width - 0.1) / (width + extra), bottom=0.22, top=0.86, wspace=0.35
        )
        fig.savefig(img_dir / name, dpi=80)
        plt.close(fig)
        made[key] = name

    def lines(ax, rs, x_of, y_of, label_of=lambda v: v, style="-"):
        for v in _variants(rs):
            pts = sorted((x_of(r), y_of(r)) for r in rs if r["variant"] == v and r["status"] == "ok")
            if pts:
                ax.plot(*zip(*pts), style, marker="o", label=label_of(v), color=colors[v])
        ax.grid(alpha=0.3)

    def finish(ax):
        log_if_wide(ax)

    workloads = OrderedDict.fromkeys(r["workload"] for r in runs)
    for w in workloads:
        wr = [r for r in runs if r["workload"] == w]
        colors = {v: f"C{i % 10}" for i, v in enumerate(_variants(wr))}  # one colour per engine in every panel
        title = f"{wr[0]['title']} ({w})"
        win = [r for r in wr if r["series"] == "window"]
        one = [r for r in wr if r["series"] == "window-1"]
        if win:
            fig, ax = plt.subplots(figsize=(5.5, 4))
            models = win[0].get("models", 1)
            suffix = f", models = {models}" if one else ""
            lines(ax, win, lambda r: r["params"]["window"], lambda r: r["t_total"], lambda v, s=suffix: f"{v}{s}")
            if one:
                lines(
                    ax, one, lambda r: r["params"]["window"], lambda r: r["t_total"], lambda v: f"{v}, models = 1", "--"
                )
            if w in TICKER_S and win[0]["params"]["tp"] == 1000:
                ax.plot(
                    [40], [TICKER_S[w]], "*", color="black", ms=10, label=f"Ticker incremental, n = 40: {TICKER_S[w]} s"
                )
            ax.set(xlabel="window size n (time points)", ylabel="total time (s)")
            ax.set_title(f"{title}\ntp = {win[0]['params']['tp']}", fontsize=9)
            finish(ax)
            save(fig, (w, "window"))
        tps = [r for r in wr if r["series"] == "tp"]
        if tps:
            fig, ax = plt.subplots(figsize=(5.5, 4))
            for r in tps:
                pts = sorted((int(k), v) for k, v in (r.get("checkpoints") or {}).items())
                if pts:
                    ax.plot(*zip(*pts), marker="o", label=r["variant"], color=colors[r["variant"]])
            ax.grid(alpha=0.3)
            ax.set(xlabel="time points", ylabel="total time (s)")
            ax.set_title(f"{title}\nn = {tps[0]['params']['window']}, cumulative time of one run", fontsize=9)
            finish(ax)
            save(fig, (w, "tp"))
        grid = [r for r in wr if r["series"] == "grid"]
        if grid:
            ns = sorted({r["params"]["window"] for r in grid})
            fig, axes = plt.subplots(1, len(ns), figsize=(4.5 * len(ns), 4), squeeze=False)
            for ax, n in zip(axes[0], ns):
                lines(
                    ax,
                    [r for r in grid if r["params"]["window"] == n],
                    lambda r: r["params"]["rate"],
                    lambda r: r["cpu_us_per_atom"],
                )
                if n == 100 and w in LASER_US:
                    _reference(ax, LASER_US[w], f"Laser (PyPy), k = 1000: {LASER_US[w]}")
                if n == 100 and w in LASERPP_US:
                    low, high = LASERPP_US[w]
                    shown = f"{low:g}–{high:g}" if low != high else f"≈ {low:,.0f}"
                    _reference(ax, low, f"Laser++, k = 1000: {shown}", "#8c564b", (low, high))
                ax.set(xlabel="atoms per time point k", ylabel="CPU µs per input atom")
                ax.set_title(f"{title}\nn = {n}, tp = {grid[0]['params']['tp']}", fontsize=9)
                finish(ax)
            save(fig, (w, "grid"))
        rules = [r for r in wr if r["series"] == "rules"]
        if rules:
            fig, ax = plt.subplots(figsize=(5.5, 4))
            lines(ax, rules, lambda r: r["params"]["r"], lambda r: r["cpu_us_per_atom"])
            p = rules[0]["params"]
            ax.set(xlabel="rules r", ylabel="CPU µs per input atom")
            ax.set_title(f"{title}\nn = {p['window']}, k = {p['rate']}, tp = {p['tp']}", fontsize=9)
            finish(ax)
            save(fig, (w, "rules"))
        enc = [r for r in wr if r["series"] == "encodings"]
        if enc:  # the run's CPU, and the CPU of a tick (median, 99th percentile), against n
            fig, (total, tick) = plt.subplots(1, 2, figsize=(9, 4))
            n_of = lambda r: r["params"]["window"]  # noqa: E731
            lines(total, enc, n_of, lambda r: r["cpu_total"])
            total.set(xlabel="window size n (time points)", ylabel="CPU of the run (s)")
            total.set_title(f"{title}\ntp = {enc[0]['params']['tp']}, one answer stream per tick", fontsize=9)
            finish(total)
            lines(tick, enc, n_of, lambda r: 1000 * r["cpu_tick_median"])
            lines(tick, enc, n_of, lambda r: 1000 * r["cpu_tick_p99"], lambda v: f"{v}, 99th percentile", "--")
            tick.set(xlabel="window size n (time points)", ylabel="CPU per tick (ms)")
            tick.set_title("per tick: median (solid), 99th percentile (dashed)", fontsize=9)
            finish(tick)
            save(fig, (w, "encodings"))
        pr = [r for r in wr if r["series"] == "pruning"]
        if pr:
            ws = sorted({r["params"]["w"] for r in pr})
            fig, axes = plt.subplots(1, len(ws), figsize=(5 * len(ws), 4), squeeze=False)
            for ax, wd in zip(axes[0], ws):
                lines(
                    ax,
                    [r for r in pr if r["params"]["w"] == wd],
                    lambda r: r["params"]["window"],
                    lambda r: r["t_total"],
                )
                ax.set(xlabel="window size n (time points)", ylabel="total time (s)")
                ax.set_title(
                    f"{title}\nw = {wd}, k = {pr[0]['params']['rate']}, tp = {pr[0]['params']['tp']}", fontsize=9
                )
                finish(ax)
            save(fig, (w, "pruning"))
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
    """A bar chart: CPU µs per input atom by workload, for each way of reading (log scale), with
    the peers' figures (Laser, Laser++) as marks over their workloads."""
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
