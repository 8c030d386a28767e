"""Ticker scenario B (content retrieval): ``b1`` and ``b2``.

Nodes 0..10, items 1..items, levels 0..2. Every random choice is a draw of
:mod:`~ticker_py.workloads.draws` keyed by (seed, purpose, t, entity); the state of a node
(its quality level, whether it is down) is a function of the events found by looking back
from t, so any time range is generated alone. Within a time point atoms come in the order
req (by item), cache, down (by node), qlev (by node). See docs/spark.md for the exact rules.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .base import Workload, table
from .draws import randint, uniform

NODES = 11
EDGES = [(i, i + 1) for i in range(10)] + [(0, 10), (1, 10), (2, 8), (3, 7)]

RULES = """\
need(I,N) :- item(I), node(N), req(I,N) in [{n}].
avail(I,N) :- item(I), node(N), cache(I,N) in [{n}].
get(I,N,M) :- source(I,N,M), not nget(I,N,M).
nget(I,N,M) :- node(M), get(I,N,M0), M != M0.
nget(I,N,M) :- source(I,N,M), source(I,N,M0), M != M0, qual(M,L), qual(M0,L0), L < L0.
source(I,N,M) :- need(I,N), not avail(I,N), avail(I,M), reach(N,M).
reach(N,M) :- conn(N,M).
reach(N,M) :- reach(N,M0), conn(M0,M), M0 != M, N != M.
conn(N,M) :- edge(N,M), not down(M) always [{n}].
qual(N,L) :- node(N), lev(L), lev(L0), L0 < L, qlev(N,L) in [{n}], not qlev(N,L0) in [{n}].
"""


def program(n: int, items: int = 1, **_) -> str:
    edges = " ".join(f"edge({a},{b}). edge({b},{a})." for a, b in EDGES)
    return f"node(0..{NODES - 1}).\n{edges}\nitem(1..{items}).\nlev(0..2).\n" + RULES.format(n=n)


def _levels(seed: int, stream: str, p_event: float, t0: int, t1: int):
    """Levels of every node at t0-1 .. t1-1 (rows), shape (t1 - t0 + 1, NODES); row 0 is -1 if t0 = 0.

    A node's level is drawn at its most recent level event (at t = 0, and with probability ``p_event``
    at each later t); the look-back goes as far as needed to see an event of every node.
    """
    nodes = np.arange(NODES)

    def events(lo, hi):
        t = np.arange(lo, hi)[:, None]
        return (uniform(seed, stream, t, nodes) < p_event) | (t == 0)

    start, seen, step = max(t0 - 1, 0), np.zeros(NODES, bool), 64
    while start > 0 and not seen.all():
        lo = max(0, start - step)
        seen |= events(lo, start).any(axis=0)
        start, step = lo, 2 * step
    ev = events(start, t1)
    t = np.arange(start, t1)[:, None]
    level = randint(3, seed, stream + "/level", t, nodes)
    last = np.maximum.accumulate(np.where(ev, np.arange(len(t))[:, None], -1), axis=0)
    full = np.where(last >= 0, level[np.maximum(last, 0), nodes], -1)
    if t0 == 0:
        return np.vstack([np.full((1, NODES), -1), full])
    return full[t0 - 1 - start :]


def block_b1(seed: int, t0: int, t1: int, p: dict) -> pa.Table:
    items, n = p["items"], p["window"]
    t = np.arange(t0, t1)
    it = np.arange(1, items + 1)
    req = uniform(seed, "B1/req", t[:, None], it) < 0.1
    req_node = randint(NODES, seed, "B1/req-node", t[:, None], it)
    cache = uniform(seed, "B1/cache", t) < 0.1
    cache_item = 1 + randint(items, seed, "B1/cache-item", t)
    cache_node = randint(NODES, seed, "B1/cache-node", t)
    down = uniform(seed, "B1/down", t) < 0.1
    down_node = randint(NODES, seed, "B1/down-node", t)
    lev = _levels(seed, "B1/qlev", min(1.0, 4.5 / n), t0, t1)
    ts, atoms = [], []
    for r, tt in enumerate(t.tolist()):
        row = [f"req({i},{req_node[r, i - 1]})" for i in range(1, items + 1) if req[r, i - 1]]
        if cache[r]:
            row.append(f"cache({cache_item[r]},{cache_node[r]})")
        if down[r]:
            row.append(f"down({down_node[r]})")
        row += [f"qlev({m},{lev[r + 1, m]})" for m in range(NODES) if lev[r + 1, m] != lev[r, m]]
        ts += [tt] * len(row)
        atoms += row
    return table(ts, atoms)


def block_b2(seed: int, t0: int, t1: int, p: dict) -> pa.Table:
    items, n = p["items"], p["window"]
    span = (3 * n + 1) // 2  # a down event at t' is reported at t' .. t' + span - 1
    t = np.arange(t0, t1)
    it, nodes, pairs = np.arange(1, items + 1), np.arange(NODES), np.arange(items * NODES)
    req = uniform(seed, "B2/req", t[:, None], it) < 0.5
    req_count = 1 + randint(3, seed, "B2/req-count", t[:, None], it)
    req_order = np.argsort(uniform(seed, "B2/req-node", t[:, None, None], it[:, None], nodes), axis=2)
    cache_count = 1 + randint(3, seed, "B2/cache-count", t)
    cache_order = np.argsort(uniform(seed, "B2/cache-pair", t[:, None], pairs), axis=1)
    tl = np.arange(max(0, t0 - span + 1), t1)
    down = uniform(seed, "B2/down", tl) < 1.0 / n
    down_node = randint(NODES, seed, "B2/down-node", tl)
    level = _levels(seed, "B2/qlev", 0.15, t0, t1)[1:]
    report = uniform(seed, "B2/qlev-report", t[:, None], nodes) < 0.25
    ts, atoms = [], []
    active = np.zeros(NODES, np.int64)
    for k, tt in enumerate(tl.tolist()):
        if down[k]:
            active[down_node[k]] += 1
        if k >= span and down[k - span]:
            active[down_node[k - span]] -= 1
        if tt < t0:
            continue
        r = tt - t0
        row = [
            f"req({i},{m})"
            for i in range(1, items + 1)
            if req[r, i - 1]
            for m in req_order[r, i - 1, : req_count[r, i - 1]]
        ]
        row += [f"cache({1 + q // NODES},{q % NODES})" for q in cache_order[r, : cache_count[r]]]
        row += [f"down({m})" for m in range(NODES) if active[m]]
        row += [f"qlev({m},{level[r, m]})" for m in range(NODES) if report[r, m]]
        ts += [tt] * len(row)
        atoms += row
    return table(ts, atoms)


_DEFAULTS = {"tp": 1000, "window": 40, "items": 1}

WORKLOADS = [
    Workload(
        "b1",
        "Ticker scenario B1: sparse requests, caches, downs; qlev changes with p = 3/n",
        program,
        block_b1,
        _DEFAULTS,
        rate=lambda p: 0.1 * p["items"] + 0.2 + 33 / p["window"],
    ),
    Workload(
        "b2",
        "Ticker scenario B2: dense requests and caches, nodes down for 1.5n, qlev p = 0.25",
        program,
        block_b2,
        _DEFAULTS,
        rate=lambda p: p["items"] + 2 + 1.5 + 2.75,
    ),
]
