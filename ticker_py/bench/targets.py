"""The peers' figures measured on this machine and the project's targets, as the reports show them."""

from __future__ import annotations

__all__ = ["ANCHORS", "LASER_US", "NATIVE_TARGET_US", "R4_ANCHOR", "TARGETS"]

ANCHORS = {
    ("caching-time", 40): "Ticker: incremental 3.8 s, clingo ≈ 20 s",
    ("caching-tuple", 40): "Ticker: incremental 3.8 s, clingo ≈ 20 s",
    ("b1", 40): "Ticker: incremental 22.8 s, clingo 40.6 s",
    ("b2", 40): "Ticker: incremental 48.7 s, clingo 30.4 s",
}
LASER_US = {"diamond": 50.6, "box": 40.4, "join": 103.7, "cooling": 41.1}
NATIVE_TARGET_US = {"diamond": 2, "box": 3, "join": 5, "cooling": 3}
_A = ("caching-time", "caching-tuple")
_N200 = {"tp": 1000, "window": 200}
_LASER = {"tp": 300, "window": 100, "rate": 1000}
#: (label, workloads, params, engine, kind, limit); the kinds are judged by ``report._targets``
TARGETS = [
    *[
        (f"native {w} k=1000 n=100: ≤ {lim} µs/atom (Laser {LASER_US[w]})", (w,), _LASER, "native", "us", lim)
        for w, lim in NATIVE_TARGET_US.items()
    ],
    ("incremental A at n=200 (tp=1000): ≤ 0.3 s", _A, _N200, "incremental", "s", 0.3),
    ("incremental A (tp=1000): t_tick(n=200) / t_tick(n=20) ≤ 1.3", _A, _N200, "incremental", "ratio", 1.3),
    (
        "incremental B at n=200 (tp=1000, one answer stream per tick like Ticker): ≤ 2 s and ≥ 5× clingo"
        " (Ticker at n=40: 22.8 / 48.7 s)",
        ("b1", "b2"),
        _N200,
        "incremental",
        "s5x",
        2.0,
    ),
    # the incremental encoding against the static one (suite encodings; whole run, worker CPU)
    ("pure A at n=200 (tp=1000): ≥ 5× clingo, CPU", ("caching-time",), _N200, "incremental-pure", "speedup", 5),
    ("pure B1 at n=200 (tp=1000): ≥ 3× clingo, CPU", ("b1",), _N200, "incremental-pure", "speedup", 3),
    *[
        (f"pure {w} at n=200: tick p99 ≤ 3× median (CPU)", (w,), _N200, "incremental-pure", "p99", 3)
        for w in ("caching-time", "b1")
    ],
    (
        "pure B1 at n=200, 4000 against 1000 tp: CPU per time point ≤ 1.25×, peak RSS ≤ 1.2×",
        ("b1",),
        {"window": 200},
        "incremental-pure",
        "flat",
        (1.25, 1.2),
    ),
]

#: published R4 figures (Monks et al.), for the BSBM stream of 1.1 M triples
R4_ANCHOR = {"bsbm": "R4 < 10 min; Sparkwave faster; Etalis ≈ 3 h (And)", "srbench": "R4: not published at this size"}
