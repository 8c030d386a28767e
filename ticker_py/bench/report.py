"""Reports: ``report.md``, tables with the peer anchors and targets (the plots: :mod:`.plots`)."""

from __future__ import annotations

import math
from collections import OrderedDict

__all__ = ["ANCHORS", "TICKER_S", "LASER_US", "TARGETS", "render_markdown", "render_section", "cell"]

# ------------------------------------------------------------------ the peers' figures, the targets

#: Ticker's published seconds for 1000 time points at n = 40: (incremental, clingo)
TICKER_S = {"caching-time": (3.8, "≈ 20"), "caching-tuple": (3.8, "≈ 20"), "b1": (22.8, 40.6), "b2": (48.7, 30.4)}
ANCHORS = {(w, 40): f"Ticker: incremental {inc} s, clingo {static} s" for w, (inc, static) in TICKER_S.items()}
LASER_US = {"diamond": 50.6, "box": 40.4, "join": 103.7, "cooling": 41.1}
NATIVE_TARGET_US = {"diamond": 2, "box": 3, "join": 5, "cooling": 3}
_A = ("caching-time", "caching-tuple")
_N200 = {"tp": 1000, "window": 200}
_LASER = {"tp": 300, "window": 100, "rate": 1000}
#: (label, workloads, params, engine, kind, limit); the kinds are judged by :func:`_targets`
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

_PARAMS = ("tp", "window", "rate", "r", "w")

# ------------------------------------------------------------------ cells


def _s(x: float | None) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{x:.3g}" if x < 100 else f"{x:.0f}"


def _ms(x: float | None) -> str:
    return _s(1000 * x) if x is not None else "–"


def cell(run: dict | None, value: str = "t_total", unit: str = " s") -> str:
    """A table cell: the value, ``timeout (> X s)``, ``n/a`` or ``error``."""
    if run is None:
        return ""
    st = run["status"]
    if st == "timeout":
        est = f", ≈ {_s(run['estimate_s'])} s est." if run.get("estimate_s") else ""
        return f"timeout (> {run['budget']:g} s{est})"
    if st != "ok":
        return st
    return _s(run.get(value)) + unit


def _us(run: dict | None) -> str:
    return cell(run, "cpu_us_per_atom", "")


def _checkpoint_cell(run: dict | None, tp: int) -> str:
    if run is None:
        return ""
    if run["status"] in ("n/a", "error"):
        return run["status"]
    v = (run.get("checkpoints") or {}).get(str(tp))
    if v is None:
        return f"timeout (> {run['budget']:g} s)" if run["status"] == "timeout" else "–"
    return _s(v) + " s"


def _table(header: list, rows: list) -> list:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out + [""]


def _variants(runs: list) -> list:
    return list(OrderedDict.fromkeys(r["variant"] for r in runs))


def _all(runs: list, **match) -> list:
    """The runs whose fields (parameters: in ``params``) equal ``match``'s values (a tuple: are one of them)."""

    def fits(r, k, v):
        got = r["params"].get(k) if k in _PARAMS else r.get(k)
        return got in v if isinstance(v, tuple) else got == v

    return [r for r in runs if all(fits(r, k, v) for k, v in match.items())]


def _find(runs: list, **match) -> dict | None:
    return next(iter(_all(runs, **match)), None)


def _sizes(runs: list, key: str = "window") -> list:
    return sorted({r["params"][key] for r in runs})


def _rows(runs: list, variants: list, show=cell, extra=lambda x: [], key: str = "window") -> list:
    """A row per value of the parameter ``key``: the value, each variant's cell, ``extra(value)``."""
    return [[x] + [show(_find(runs, **{key: x}, variant=v)) for v in variants] + extra(x) for x in _sizes(runs, key)]


def _block(heading: str, header: list, rows: list, plot: list = ()) -> list:
    return [heading, ""] + _table(header, rows) + list(plot)


def _plot(plots: dict, img: str, w: str, series: str, alt: str) -> list:
    return [f"![{alt}]({img}/{plots[(w, series)]})", ""] if (w, series) in plots else []


# ------------------------------------------------------------------ targets


def _best_tick(run: dict) -> float:
    """The smallest tick median over the run's repetitions (noise only adds time)."""
    reps = [r["t_tick_median"] for r in run.get("reps") or () if r.get("status") == "ok" and r.get("t_tick_median")]
    return min(reps) if reps else run["t_tick_median"]


def _targets(runs: list) -> list:
    rows = []
    for label, workloads, params, engine, kind, limit in TARGETS:
        for w in workloads:
            if kind == "flat":
                rows += [row for row in [_flat(label, w, runs, params, engine, limit)] if row]
                continue
            series = ("encodings",) if kind in ("speedup", "p99") else ("window", "grid", "window-1")
            sel = _all(runs, workload=w, series=series, **params)
            if kind == "s5x" and any(r.get("models", 1) == 1 for r in sel):
                sel = [r for r in sel if r.get("models", 1) == 1]
            ours = _find(sel, engine=engine)
            if ours is None:
                continue
            if ours["status"] != "ok":
                rows.append([label, w, cell(ours), "**missed**" if ours["status"] == "timeout" else "–"])
                continue
            if kind == "us":
                val, ok = ours["cpu_us_per_atom"], ours["cpu_us_per_atom"] <= limit
                shown = f"{_s(val)} µs/atom"
            elif kind == "speedup":
                static = _find(sel, engine="clingo", status="ok")
                if static is None:
                    continue
                val = static["cpu_total"] / ours["cpu_total"]
                ok, shown = val >= limit, f"{val:.1f}× ({_s(ours['cpu_total'])} s against {_s(static['cpu_total'])} s)"
            elif kind == "p99":
                if not ours.get("cpu_tick_median"):
                    continue
                val = ours["cpu_tick_p99"] / ours["cpu_tick_median"]
                ok = val <= limit
                shown = f"{val:.1f}× (median {_ms(ours['cpu_tick_median'])}, p99 {_ms(ours['cpu_tick_p99'])} ms)"
            elif kind == "ratio":
                small = _find(
                    runs, workload=w, series=("window", "grid"), engine=engine, status="ok", tp=params["tp"], window=20
                )
                if small is None or not small.get("t_tick_median"):
                    continue
                big_t, small_t = _best_tick(ours), _best_tick(small)
                val = big_t / small_t
                best = f", best of {len(ours['reps'])}" if len(ours.get("reps") or ()) > 1 else ""
                ok, shown = val <= limit, f"{val:.2f} (median tick{best} {big_t * 1e3:.3g} / {small_t * 1e3:.3g} ms)"
            else:
                val, ok, shown = ours["t_total"], ours["t_total"] <= limit, f"{_s(ours['t_total'])} s"
                if ours.get("models", 1) != 1:
                    shown += f" (models = {ours['models']})"
                if kind == "s5x":
                    static = _find(sel, engine="clingo")
                    if static and static["status"] == "ok":
                        ratio = static["t_total"] / ours["t_total"]
                        shown += f", {ratio:.1f}× clingo"
                    elif static and static["status"] == "timeout":  # clingo took longer than its budget
                        ratio = max(static.get("t_total") or 0, static["budget"]) / ours["t_total"]
                        shown += f", > {ratio:.1f}× clingo (clingo timed out)"
                    else:
                        ratio = 0
                        shown += ", clingo not measured"
                    ok = ok and ratio >= 5
            rows.append([label, w, shown, "met" if ok else "**missed**"])
    return rows


def _long_runs(runs: list, w: str, params: dict, engine: str) -> list:
    """The ``long`` series of one engine, by time points: ``[(tp, run)]`` of the finished runs."""
    return sorted(
        (r["params"]["tp"], r) for r in _all(runs, workload=w, series="long", engine=engine, status="ok", **params)
    )


def _flat(label: str, w: str, runs: list, params: dict, engine: str, limits: tuple) -> list | None:
    """The target row of CPU per time point and peak memory, longest run against the shortest."""
    long = _long_runs(runs, w, params, engine)
    if len(long) < 2:
        return None
    (tp0, a), (tp1, b) = long[0], long[-1]
    cpu = (b["cpu_total"] / tp1) / (a["cpu_total"] / tp0)
    rss = b["peak_rss_mb"] / a["peak_rss_mb"]
    shown = f"CPU per tp {cpu:.2f}×, peak RSS {rss:.2f}× ({_s(a['peak_rss_mb'])} → {_s(b['peak_rss_mb'])} MB)"
    return [label, w, shown, "met" if cpu <= limits[0] and rss <= limits[1] else "**missed**"]


# ------------------------------------------------------------------ the suites' sections


def _section_encodings(w: str, runs: list, img: str, plots: dict, compact: bool = False) -> list:
    """CPU of the run and per tick against n per engine, the encodings' ratio; B1 over more time points."""
    out = []
    enc = _all(runs, series="encodings")
    if enc:

        def show(r):
            if r is None or r["status"] != "ok":
                return cell(r)
            return f"{cell(r, 'cpu_total')} ({_ms(r['cpu_tick_median'])} / {_ms(r['cpu_tick_p99'])})"

        def ratio(n):
            static, pure = _find(enc, window=n, engine="clingo"), _find(enc, window=n, engine="incremental-pure")
            both = static and pure and static["status"] == pure["status"] == "ok"
            return [f"{static['cpu_total'] / pure['cpu_total']:.1f}×" if both else "–"]

        variants = _variants(enc)
        out += _block(
            f"#### CPU seconds of the run (tp = {enc[0]['params']['tp']}), and CPU ms per tick: median / 99th percentile",
            ["n"] + variants + ["clingo CPU ÷ incremental-pure CPU"],
            _rows(enc, variants, show, ratio),
            _plot(plots, img, w, "encodings", f"{w}: the encodings against n"),
        )
    long = _all(runs, series="long")
    if long:
        rows = [
            [v, tp, cell(r, "cpu_total"), f"{_ms(r['cpu_total'] / tp)} ms", f"{_s(r['peak_rss_mb'])} MB"]
            for v in _variants(long)
            for tp, r in _long_runs(long, w, {}, _find(long, variant=v)["engine"])
        ]
        out += _block(
            f"#### Over more time points (n = {long[0]['params']['window']}): CPU per time point and peak memory "
            "of the worker",
            ["engine", "tp", "CPU", "CPU per time point", "peak RSS"],
            rows,
        )
    return out


def _section_ticker(w: str, runs: list, img: str, plots: dict, compact: bool = False) -> list:
    out = []
    variants = _variants(runs)
    win, one, tps = (_all(runs, series=s) for s in ("window", "window-1", "tp"))
    if win:
        tp = win[0]["params"]["tp"]
        also = f", models = {win[0]['models']}" if one else ""
        out += _block(
            f"#### Total time against window size n (tp = {tp}{also})",
            ["n"] + variants + ["anchor"],
            _rows(win, variants, extra=lambda n: [ANCHORS.get((w, n), "") if tp == 1000 else ""]),
            _plot(plots, img, w, "window", f"{w}: total time against n"),
        )
    if one:
        out += _block(
            f"#### One answer stream per tick (models = 1): total time against n (tp = {one[0]['params']['tp']})",
            ["n"] + variants,
            _rows(one, variants),
        )
    out += _section_factorized(runs)
    if tps and not compact:  # compact: the plot alone
        rows = [
            [tp] + [_checkpoint_cell(_find(tps, variant=v), tp) for v in variants] for tp in tps[0]["checkpoints_tp"]
        ]
        out += _block(
            f"#### Total time against time points (n = {tps[0]['params']['window']}; cumulative time of one run, "
            "read at each tp)",
            ["tp"] + variants,
            rows,
        )
    return out + (_plot(plots, img, w, "tp", f"{w}: total time against tp") if tps else [])


def _section_r4(w: str, runs: list, img: str, plots: dict, compact: bool = False) -> list:
    win = _all(runs, series="window")
    variants = _variants(runs)
    return _block(
        f"#### Whole run against the window (s; tp = {win[0]['params']['tp'] if win else 0} time points of 1 s)",
        ["window (s)"] + variants + ["published"],
        _rows(win, variants, extra=lambda n: [R4_ANCHOR.get(w, "")]),
        _plot(plots, img, w, "window", f"{w}: whole run against the window"),
    )


def _section_factorized(runs: list) -> list:
    """The ``factorized`` series against n: each engine's time and the answer streams counted."""
    out = []
    for series, what in (("factorized", ""), ("factorized-3", ", three items per node")):
        sel = _all(runs, series=series)
        if not sel:
            continue
        variants = _variants(sel)
        rows = []
        for n in _sizes(sel):
            row, count = [n], None
            for v in variants:
                r = _find(sel, window=n, variant=v)
                done = r is not None and r["status"] == "ok"
                row.append(f"{cell(r)} ({cell(r, 'cpu_total')})" if done else cell(r))
                if done and r.get("answer_streams") and count is None:
                    count = r["answer_streams"]  # a run cut by the budget counted only part of them
            rows.append(row + ([f"{count['total']:,}", f"{count['max']:,}"] if count else ["–", "–"]))
        out += _block(
            f"#### All answer streams, factorized (`--models 0 --factorize`{what}; tp = {sel[0]['params']['tp']}): "
            "wall (CPU)",
            ["n"] + variants + ["answer streams", "largest tick"],
            rows,
        )
    return out


def _section_laser(w: str, runs: list, img: str, plots: dict, compact: bool = False) -> list:
    out = []
    variants = _variants(runs)
    grid, rules = _all(runs, series="grid"), _all(runs, series="rules")
    if grid:
        tp = grid[0]["params"]["tp"]
        rows = []
        for n, k in sorted({(r["params"]["window"], r["params"]["rate"]) for r in grid}):
            anchor = f"Laser {LASER_US[w]}" if (w in LASER_US and (n, k, tp) == (100, 1000, 300)) else ""
            target = f"native ≤ {NATIVE_TARGET_US[w]}" if anchor and w in NATIVE_TARGET_US else ""
            rows.append([n, k] + [_us(_find(grid, window=n, rate=k, variant=v)) for v in variants] + [anchor, target])
        out += _block(
            f"#### CPU µs per input atom (tp = {tp}; time includes engine construction)",
            ["n", "k"] + variants + ["anchor (µs/atom)", "target"],
            rows,
            _plot(plots, img, w, "grid", f"{w}: µs per atom"),
        )
    if rules:
        p = rules[0]["params"]
        out += _block(
            f"#### rules-r: CPU µs per input atom against r (n = {p['window']}, k = {p['rate']}, tp = {p['tp']})",
            ["r"] + variants,
            _rows(rules, variants, _us, key="r"),
            _plot(plots, img, w, "rules", "rules-r"),
        )
    return out


def _section_pruning(w: str, runs: list, img: str, plots: dict, compact: bool = False) -> list:
    variants = _variants(runs)
    rows = []
    for wd, n, k in sorted({(r["params"]["w"], r["params"]["window"], r["params"]["rate"]) for r in runs}):
        row = [wd, n, k]
        for v in variants:
            r = _find(runs, w=wd, window=n, rate=k, variant=v)
            evals = ((r or {}).get("stats") or {}).get("rule_evaluations")
            row.append(cell(r) + (f" ({evals} evals)" if evals is not None else ""))
        rows.append(row)
    return _block(
        "#### Total time and rule evaluations (engine `stats['rule_evaluations']`, – if not exposed)",
        ["w", "n", "k"] + variants,
        rows,
        _plot(plots, img, w, "pruning", "pruning"),
    )


def _details(runs: list) -> list:
    header = "series|params|engine|status|init s|tick median ms|tick max ms|total s|CPU µs/atom|wall µs/atom|"
    header += "peak RSS MB|answer streams (total / max / none)"
    rows = []
    for r in runs:
        a = r.get("answer_streams") or {}
        status = (
            "ok"
            if r["status"] == "ok"
            else cell(r, "status", "") + (f": {r['reason'][:100]}" if r.get("reason") else "")
        )
        if r["status"] == "ok":
            ok = [_s(r.get("t_init")), _ms(r.get("t_tick_median")), _ms(r.get("t_tick_max")), cell(r)]
            ok += [_s(r.get("cpu_us_per_atom")), _s(r.get("wall_us_per_atom"))]
        else:
            ok = ["–", "–", "–", cell(r), "–", "–"]
        params = " ".join(f"{k}={v}" for k, v in r["params"].items())
        streams = f"{a['total']} / {a['max']} / {a['ticks_without']}" if a else "–"
        rows.append(
            [r["series"], params, r["variant"], status.replace("|", "\\|"), *ok, _s(r.get("peak_rss_mb")), streams]
        )
    return ["<details><summary>All measurements</summary>", ""] + _table(header.split("|"), rows) + ["</details>", ""]


# ------------------------------------------------------------------ the documents


def render_markdown(doc: dict, img: str = "img", plots: dict | None = None) -> str:
    """The report: environment, targets, and per workload the side-by-side tables and plots."""
    plots = plots or {}
    runs = doc["runs"]
    m, v, s = doc["machine"], doc["versions"], doc["settings"]
    out = [
        "# Benchmark report",
        "",
        f"- machine: {m['cpu']}, {m['cores']} cores, {m['ram_gb']} GB RAM, {m['os']}",
        f"- versions: Python {v['python']} ({v['implementation']}), clingo {v['clingo']}, "
        f"ticker_py {v['ticker_py']} (git {v['git']})",
        f"- date: {doc['date']}",
        f"- command: `{doc['command']}`",
        f"- budget per run: {s['budget']:g} s (a run over budget is stopped and shown as `timeout (> X s)`, "
        "with an estimate from the ticks it finished; larger sizes of a timed-out engine are not run), "
        f"repetitions: {s['reps']} (median), warm-up runs: {s['warmup']}, seed {s['seed']}",
        "- times are wall-clock seconds of one run (engine construction + every tick); µs per atom is the "
        "worker's CPU time over the input atoms; `n/a`: the engine is not installed or refuses the program.",
        "",
    ]
    na = OrderedDict()
    for r in _all(runs, status="n/a"):
        na.setdefault(r["variant"], set()).add(r.get("reason", ""))
    out += [f"- `{variant}` n/a: {'; '.join(sorted(reasons))}" for variant, reasons in na.items()] + (
        [""] if na else []
    )
    targets = _targets(runs)
    if targets:
        out += ["## Targets", ""] + _table(["target", "workload", "ours", "verdict"], targets)
    for suite in OrderedDict.fromkeys(r["suite"] for r in runs):
        out += _suite(suite, _all(runs, suite=suite), img, plots, compact=False)
    return "\n".join(out).rstrip() + "\n"


_SECTIONS = {
    "ticker-a": _section_ticker,
    "ticker-b": _section_ticker,
    "laser": _section_laser,
    "pruning": _section_pruning,
    "r4": _section_r4,
    "encodings": _section_encodings,
}


def _suite(suite: str, runs: list, img: str, plots: dict, compact: bool) -> list:
    """One suite: per workload its tables and plots (``compact``: without what a plot shows)."""
    out = [f"## Suite `{suite}`", ""]
    for w in OrderedDict.fromkeys(r["workload"] for r in runs):
        wr = _all(runs, workload=w)
        models = " and ".join(str(m) for m in OrderedDict.fromkeys(r["models"] for r in wr))
        out += [f"### {wr[0]['title']} (`{w}`, models = {models})", ""]
        out += _SECTIONS[suite](w, wr, img, plots, compact)
        if not compact:
            out += _details(wr)
    return out


def render_section(doc: dict, suite: str, img: str = "img", plots: dict | None = None) -> str:
    """The compact section of docs/benchmarks.md for one suite of ``doc``."""
    runs = _all(doc["runs"], suite=suite)
    m, v, s = doc["machine"], doc["versions"], doc["settings"]
    out = _suite(suite, runs, img, plots or {}, compact=True)
    out[2:2] = [
        f"`{doc['command']}` (machine: {m['cpu']}, {m['cores']} cores; Python {v['python']}, clingo "
        f"{v['clingo']}, ticker_py git {v['git']}; budget {s['budget']:g} s per run, a run over it shown as "
        "`timeout`; wall seconds of engine construction + every tick, or CPU µs per input atom).",
        "",
    ]
    targets = _targets(runs)
    if targets:
        out[4:4] = _table(["target", "workload", "ours", "verdict"], targets)
    return "\n".join(out).rstrip() + "\n"
