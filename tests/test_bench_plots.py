"""The benchmark plots (ticker_py.bench.plots): log scales where values span more than 10x, the
peers' figures as reference lines, titles saying what ran, stale plots removed."""

from __future__ import annotations

import pytest

pytest.importorskip("matplotlib")

from matplotlib.figure import Figure  # noqa: E402

from ticker_py.bench.plots import plot_all, plot_throughput  # noqa: E402


def run(workload, series, variant, status="ok", **values):
    params = {k: values.pop(k) for k in ("tp", "window", "rate", "r", "w") if k in values}
    return {
        "workload": workload,
        "title": f"Workload {workload}",
        "series": series,
        "variant": variant,
        "engine": variant,
        "status": status,
        "params": params,
        "models": values.pop("models", 1),
        **values,
    }


@pytest.fixture
def saved(monkeypatch):
    """The figures plot_all saves, by file name."""
    figures = {}
    real = Figure.savefig

    def keep(fig, path, *args, **kwargs):
        figures[getattr(path, "name", str(path))] = fig
        return real(fig, path, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", keep)
    return figures


def legend_labels(fig):
    """The labels of the figure's one legend (right of its panels)."""
    return [t.get_text() for t in fig.legends[0].get_texts()]


def labels_of(ax) -> list:
    return ax.get_legend_handles_labels()[1]


def test_log_scale_only_where_values_span_more_than_ten_times(tmp_path, saved):
    runs = [run("b1", "window", "clingo", tp=1000, window=n, t_total=t) for n, t in ((20, 8.8), (40, 30.0))]
    runs += [run("b1", "window", "incremental", tp=1000, window=n, t_total=t) for n, t in ((20, 0.8), (40, 0.84))]
    runs += [run("b2", "window", "incremental", tp=500, window=n, t_total=t) for n, t in ((20, 0.75), (40, 0.58))]
    made = plot_all(runs, tmp_path, prefix="bench-", command="ticker bench ticker-b")
    assert made == {("b1", "window"): "bench-b1-window.png", ("b2", "window"): "bench-b2-window.png"}
    b1, b2 = saved["bench-b1-window.png"].axes[0], saved["bench-b2-window.png"].axes[0]
    assert b1.get_yscale() == "log" and b2.get_yscale() == "linear"
    assert "Ticker incremental, n = 40: 22.8 s" in legend_labels(saved["bench-b1-window.png"])  # the peer's figure
    assert "tp = 1000" in b1.get_title() and b1.get_ylabel() == "total time (s)"
    assert any(t.get_text() == "ticker bench ticker-b" for t in saved["bench-b1-window.png"].texts)


def test_the_peers_figures_on_the_laser_grid(tmp_path, saved):
    runs = [
        run("diamond", "grid", e, tp=300, window=n, rate=k, cpu_us_per_atom=us)
        for n in (10, 100)
        for k, us in ((100, 1.5), (1000, 1.4))
        for e in ("native",)
    ]
    plot_all(runs, tmp_path)
    small, large = saved["diamond-grid.png"].axes
    assert not any("Laser" in t for t in labels_of(small))  # the peers measured n = 100, k = 1000
    assert {"Laser (PyPy), k = 1000: 50.6", "Laser++, k = 1000: ≈ 1,430"} <= set(labels_of(large))
    assert {"Laser (PyPy), k = 1000: 50.6", "native"} <= set(legend_labels(saved["diamond-grid.png"]))
    assert large.get_yscale() == "log" and large.get_ylabel() == "CPU µs per input atom"


def test_the_models_1_series_beside_all_answer_streams(tmp_path, saved):
    runs = [run("b1", "window", "incremental", tp=1000, window=n, t_total=1.0, models=0) for n in (20, 40)]
    runs += [run("b1", "window-1", "incremental", tp=1000, window=n, t_total=0.5) for n in (20, 40)]
    plot_all(runs, tmp_path)
    labels = legend_labels(saved["b1-window.png"])
    assert "incremental, models = 0" in labels and "incremental, models = 1" in labels


def test_stale_plots_are_removed(tmp_path):
    for name in ("bench-b1-window.png", "bench-b1-tp.png", "bench-box-grid.png", "bench-box-chain-pruning.png"):
        (tmp_path / name).write_bytes(b"old")
    runs = [run("b1", "tp", "incremental", tp=1000, window=60, checkpoints={"100": 0.1, "1000": 1.0})]
    runs.append(run("box", "grid", "native", tp=300, window=10, rate=100, cpu_us_per_atom=1.0))
    plot_all(runs, tmp_path, prefix="bench-", stale=True)
    names = {p.name for p in tmp_path.iterdir()}
    # b1's window series was not measured: its old plot goes; box-chain is another workload
    assert names == {"bench-b1-tp.png", "bench-box-grid.png", "bench-box-chain-pruning.png"}
    assert (tmp_path / "bench-b1-tp.png").read_bytes() != b"old"


def test_a_suite_keeps_the_plots_of_another_suite_of_the_same_workload(tmp_path):
    for name in ("bench-b1-window.png", "bench-b1-tp.png", "bench-b1-encodings.png"):
        (tmp_path / name).write_bytes(b"old")
    runs = [
        {
            **run("b1", "encodings", e, tp=1000, window=n, cpu_total=1.0, cpu_tick_median=1e-3, cpu_tick_p99=2e-3),
            "suite": "encodings",
        }
        for e in ("clingo", "incremental-pure")
        for n in (20, 40)
    ]
    assert plot_all(runs, tmp_path, prefix="bench-", stale=True) == {("b1", "encodings"): "bench-b1-encodings.png"}
    # the window and tp plots are the suite ticker-b's: they stay
    assert {p.name for p in tmp_path.iterdir()} == {"bench-b1-window.png", "bench-b1-tp.png", "bench-b1-encodings.png"}
    assert (tmp_path / "bench-b1-encodings.png").read_bytes() != b"old"
    runs = [{**r, "series": "window", "suite": "ticker-b", "t_total": 1.0} for r in runs]
    plot_all(runs, tmp_path, prefix="bench-", stale=True)
    assert {p.name for p in tmp_path.iterdir()} == {"bench-b1-window.png", "bench-b1-encodings.png"}


def test_throughput_marks_the_peers(tmp_path, saved):
    runs = [
        {
            "workload": w,
            "us_per_atom": {"text": 1.2, "jsonl": 1.5, "parquet": 1.4, "parquet args": 1.4},
            "in_engine_us": 0.8,
            "plain_read_us": 0.1,
        }
        for w in ("box", "diamond", "b1")
    ]
    plot_throughput({"runs": runs, "command": "ticker bench throughput"}, tmp_path / "t.png")
    ax = saved["t.png"].axes[0]
    assert {"Laser (PyPy)", "Laser++"} <= set(labels_of(ax)) and ax.get_yscale() == "log"


def test_throughput_report_from_an_earlier_run(tmp_path):
    import json

    from ticker_py.cli import main

    run_ = {
        "workload": "box",
        "engine": "native",
        "atoms": 300000,
        "load": [1.0, 1.0],
        "jsonl_out_us": 0.1,
        "peak_mb": {"text": 18.0},
        "us_per_atom": {"text": 0.63, "jsonl": 0.87, "parquet": 0.77, "parquet args": 0.87},
        "in_engine_us": 0.42,
        "plain_read_us": 0.05,
    }
    doc = {
        "environment": {},
        "startup": {"cpu_s": 0.05, "peak_mb": 17.0},
        "runs": [run_],
        "enumeration": [],
        "command": "ticker bench throughput",
    }
    results = tmp_path / "results.json"
    results.write_text(json.dumps(doc))
    out = tmp_path / "out"
    assert main(["bench", "throughput", "--report-from", str(results), "--out", str(out)]) == 0
    assert (out / "img" / "throughput.png").read_bytes()[:4] == b"\x89PNG" and (out / "report.md").exists()
    assert main(["bench", "throughput", "--report-from", str(tmp_path / "nothing.json"), "--out", str(out)]) == 2
