"""Benchmark suites: a suite expands into :class:`Case` s, each one stream measured with every engine
variant. A case's series names the table or plot it contributes to: ``window`` (against n), ``tp``
(one run read at checkpoints), ``grid`` (Laser's n × k), ``rules``, ``pruning``, ``encodings``,
``long`` (B1 over four times the time points), ``window-1`` and ``factorized``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engines import ENGINE_NAMES
from ..workloads import WORKLOADS

__all__ = ["Variant", "Case", "SUITES", "ENGINES", "KNOWN_ENGINES", "plan", "QUICK"]

#: the engines a suite measures by default (``incremental-pure`` on request)
ENGINES = ("clingo", "incremental", "native")
#: every name ``--engines`` accepts: the engine registry
KNOWN_ENGINES = ENGINE_NAMES
SUITES = ("ticker-a", "laser", "pruning", "ticker-b", "r4", "encodings")

TICKER_N = (20, 40, 80, 120, 160, 200)
TICKER_TP = tuple(range(100, 1001, 100))
LASER_N = (10, 50, 100)
LASER_K = (100, 500, 1000)
RULES_R = (10, 20, 50, 100)
CHAIN_W = (10, 20)
#: R4's windows, in seconds (one time point lasts 1 s)
R4_WINDOWS = (1, 5, 10)
ENCODINGS_N = (20, 40, 80, 200)
#: the engines of the encodings suite: the static encoding, the incremental one, the default engine
ENCODINGS = ("clingo", "incremental-pure", "incremental")


@dataclass(frozen=True)
class Variant:
    """An engine with options: ``label`` is what tables and plots show."""

    engine: str
    label: str
    pruning: bool = True


@dataclass
class Case:
    """One stream measured with several engine variants."""

    suite: str
    workload: str  # a name of ticker_py.workloads (rules-r and box-chain-w via params)
    series: str
    params: dict  # tp, window, and rate / items / r / w as the workload needs
    variants: list
    models: int = 1
    checkpoints: tuple = ()  # tp values to record cumulative time at (series "tp")
    title: str = ""
    factorize: bool = False  # all answer streams, factorized (series "factorized", "factorized-3")

    @property
    def key(self) -> str:
        return f"{self.series}:{self.workload}:" + ",".join(f"{k}={v}" for k, v in sorted(self.params.items()))


@dataclass
class Options:
    """What the user chose on the command line (None = the suite's default)."""

    engines: tuple = ENGINES
    sizes: tuple | None = None
    rates: tuple | None = None
    tp: int | None = None
    quick: bool = False
    models: int | None = None
    workloads: tuple | None = None


#: the drastically reduced grid of ``--quick`` (CI smoke tests)
QUICK = {"n": (4, 8), "tp": 16, "tp_series": (8, 16), "tp_n": 6, "k": (5,), "r": (2, 3), "w": (3,)}


def _variants(engines) -> list:
    return [Variant(e, e) for e in engines]


def _ticker(suite, workloads, o: Options, models: int, one_too: bool = False) -> list:
    """The window and tp series; with ``one_too`` also ``window-1`` (models = 1, as Ticker computes)
    and the factorized series."""
    sizes = o.sizes or (QUICK["n"] if o.quick else TICKER_N)
    tp = o.tp or (QUICK["tp"] if o.quick else 1000)
    checkpoints = QUICK["tp_series"] if o.quick else TICKER_TP
    if o.tp:
        checkpoints = tuple(sorted({max(1, o.tp * i // 10) for i in range(1, 11)}))
    tp_n = QUICK["tp_n"] if o.quick else 60
    cases = []
    for w in workloads:
        for n in sizes:
            cases.append(Case(suite, w, "window", {"tp": tp, "window": n}, _variants(o.engines), models))
        cases.append(
            Case(suite, w, "tp", {"tp": max(checkpoints), "window": tp_n}, _variants(o.engines), models, checkpoints)
        )
        if one_too:
            cases += [Case(suite, w, "window-1", {"tp": tp, "window": n}, _variants(o.engines), 1) for n in sizes]
            cases += _factorized(suite, w, sizes, tp, o)
    return cases


def _factorized(suite, w, sizes, tp, o: Options) -> list:
    """All answer streams factorized, against n (for B1 also with three items); solver engines only."""
    variants = [v for v in _variants(o.engines) if v.engine != "native"]
    cases = [Case(suite, w, "factorized", {"tp": tp, "window": n}, variants, 0, factorize=True) for n in sizes]
    if w == "b1":
        cases += [
            Case(suite, w, "factorized-3", {"tp": tp, "window": n, "items": 3}, variants, 0, factorize=True)
            for n in sizes
        ]
    return cases


def _laser(o: Options) -> list:
    sizes = o.sizes or (QUICK["n"] if o.quick else LASER_N)
    rates = o.rates or (QUICK["k"] if o.quick else LASER_K)
    tp = o.tp or (QUICK["tp"] if o.quick else 300)
    cases = [
        Case("laser", w, "grid", {"tp": tp, "window": n, "rate": k}, _variants(o.engines))
        for w in ("diamond", "box", "join", "cooling")
        for n in sizes
        for k in rates
    ]
    rules = {"tp": tp, "window": min(sizes), "rate": min(rates)}
    rs = QUICK["r"] if o.quick else RULES_R
    return cases + [Case("laser", "rules", "rules", {**rules, "r": r}, _variants(o.engines)) for r in rs]


def _pruning(o: Options) -> list:
    sizes = o.sizes or (QUICK["n"] if o.quick else (10, 50))
    rates = o.rates or (QUICK["k"][:1] if o.quick else (100,))
    tp = o.tp or (QUICK["tp"] if o.quick else 300)
    ws = QUICK["w"] if o.quick else CHAIN_W
    variants = [
        Variant(v.engine, f"{v.label} pruning {'on' if p else 'off'}", p)
        for v in _variants(o.engines)
        for p in (True, False)
    ]
    return [
        Case("pruning", "box-chain", "pruning", {"tp": tp, "window": n, "rate": k, "w": w}, variants)
        for w in ws
        for n in sizes
        for k in rates
    ]


def _r4(o: Options) -> list:
    """R4's two workloads at windows of 1, 5 and 10 s; the native engine unless --engines says."""
    sizes = o.sizes or ((1, 2) if o.quick else R4_WINDOWS)
    tp = o.tp or (QUICK["tp"] if o.quick else 100)
    engines = ("native",) if o.engines == ENGINES else o.engines
    cases = []
    for w, rate in (("bsbm", 1000), ("srbench", 2750)):
        rate = (o.rates or ((5,) if o.quick else (rate,)))[0]
        cases += [Case("r4", w, "window", {"tp": tp, "window": n, "rate": rate}, _variants(engines)) for n in sizes]
    return cases


def _encodings(o: Options) -> list:
    """Scenarios A (time windows), B1 and B2 against n; B1 at the largest n also ``long``."""
    sizes = o.sizes or (QUICK["n"] if o.quick else ENCODINGS_N)
    tp = o.tp or (QUICK["tp"] if o.quick else 1000)
    variants = _variants(ENCODINGS if o.engines == ENGINES else o.engines)
    cases = [
        Case("encodings", w, "encodings", {"tp": tp, "window": n}, variants)
        for w in ("caching-time", "b1", "b2")
        for n in sizes
    ]
    long = [v for v in variants if v.engine == "incremental-pure"] or variants
    cases += [Case("encodings", "b1", "long", {"tp": k * tp, "window": max(sizes)}, long) for k in (1, 4)]
    return cases


def plan(suite: str, o: Options) -> list:
    """The cases of ``suite`` (``all`` = every suite), filtered by ``o.workloads``."""
    if suite == "all":
        return [c for s in SUITES for c in plan(s, o)]
    builders = {
        "ticker-a": lambda: _ticker(suite, ("caching-time", "caching-tuple"), o, 1 if o.models is None else o.models),
        "ticker-b": lambda: _ticker(suite, ("b1", "b2"), o, 0 if o.models is None else o.models, o.models is None),
        "laser": lambda: _laser(o),
        "pruning": lambda: _pruning(o),
        "r4": lambda: _r4(o),
        "encodings": lambda: _encodings(o),
    }
    cases = builders[suite]()  # an unknown suite is refused by the command
    if o.models is not None:
        for c in cases:
            c.models = o.models
    if o.workloads:
        cases = [c for c in cases if c.workload in o.workloads]
    for c in cases:
        c.title = WORKLOADS[c.workload].description.partition(":")[0]  # the head of the description
    return cases
