"""The Laser micro-benchmarks (diamond, box, join, rules-r, box-chain-w) and cooling.

``rate`` k is the number of facts per time point. Atoms are built column-wise with pyarrow
compute, so a block of 10^6 atoms takes well under a second.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .base import Workload, joined, numbers, table
from .draws import randint

JOIN_RULE = "{h}(A,C) :- p(A,B) in [{n}], p(B,C) in [{n}].\n"

COOLING = """\
steam(V) at T :- temp(V) at T in [{n}], V >= 100.
liquid(V) at T :- temp(V) at T in [{n}], V >= 1, V < 100.
issteam at T :- steam(V) at T in [{n}].
isliquid at T :- liquid(V) at T in [{n}].
alarm :- issteam always [{n}].
normal :- isliquid always [{n}].
veryhot(T) :- steam(V) at T in [{n}], V >= 150.
verycold(T) :- liquid(V) at T in [{n}], V = 1.
freeze :- not alarm, not normal.
"""


def _times(t0: int, t1: int, k: int) -> np.ndarray:
    return np.repeat(np.arange(t0, t1, dtype=np.int64), k)


def block_diamond(seed: int, t0: int, t1: int, p: dict) -> pa.Table:
    """k fresh atoms p(a_j,b_j), j = t*k + i."""
    k = p["rate"]
    j = numbers(np.arange(t0 * k, t1 * k))
    return table(_times(t0, t1, k), joined("p(a", j, ",b", j, ")"))


def block_box(seed: int, t0: int, t1: int, p: dict) -> pa.Table:
    """The same k atoms p(a_i,b_i), i < k, at every time point."""
    k = p["rate"]
    base = pa.array([f"p(a{i},b{i})" for i in range(k)])
    return table(_times(t0, t1, k), base.take(np.tile(np.arange(k), t1 - t0)))


def block_join(seed: int, t0: int, t1: int, p: dict) -> pa.Table:
    """A chain p(c_j,c_{j+1}) for j in [t*k, (t+1)*k)."""
    k = p["rate"]
    j = np.arange(t0 * k, t1 * k)
    return table(_times(t0, t1, k), joined("p(c", numbers(j), ",c", numbers(j + 1), ")"))


def _q_present(t: np.ndarray, n: int) -> np.ndarray:
    return (t + 1) % n != 0


def block_box_chain(seed: int, t0: int, t1: int, p: dict) -> pa.Table:
    """k atoms p(a_i,a_i), then k atoms q(a_i,a_i) except at every n-th time point ((t+1) % n == 0)."""
    k, n = p["rate"], p["window"]
    base = pa.array([f"p(a{i},a{i})" for i in range(k)] + [f"q(a{i},a{i})" for i in range(k)])
    per_t = [np.arange(2 * k) if q else np.arange(k) for q in _q_present(np.arange(t0, t1), n)]
    idx = np.concatenate(per_t) if per_t else np.zeros(0, np.int64)
    return table(np.repeat(np.arange(t0, t1), [len(i) for i in per_t]), base.take(idx))


def count_box_chain(t0: int, t1: int, p: dict) -> int:
    k = p["rate"]
    return k * (t1 - t0) + k * int(_q_present(np.arange(t0, t1), p["window"]).sum())


def block_cooling(seed: int, t0: int, t1: int, p: dict) -> pa.Table:
    """k atoms temp(V), V = randint(201, seed, "cooling", t, i); repeats within a time point are kept."""
    k = p["rate"]
    v = randint(201, seed, "cooling", np.arange(t0, t1)[:, None], np.arange(k)).ravel()
    return table(_times(t0, t1, k), joined("temp(", numbers(v), ")"))


def program_rules(n: int, r: int = 10, **_) -> str:
    return "".join(JOIN_RULE.format(h=f"q{i}", n=n) for i in range(1, r + 1))


def program_box_chain(n: int, w: int = 10, **_) -> str:
    head = f"h1(X,Y) :- p(X,Y) in [{n}], q(X,Y) always [{n}].\n"
    return head + "".join(f"h{i + 1}(X,Y) :- h{i}(X,Y).\n" for i in range(1, w))


def _laser(name, description, program, block, count=None, rate=None, **extra):
    """A Laser workload; ``program`` a function of the window n or a text with ``{n}`` for it."""
    if isinstance(program, str):
        program = lambda n, text=program, **_: text.format(n=n)  # noqa: E731
    count = count or (lambda t0, t1, p: p["rate"] * (t1 - t0))
    rate = rate or (lambda p: p["rate"])
    return Workload(name, description, program, block, {"tp": 300, "window": 10, "rate": 100, **extra}, rate, count)


WORKLOADS = [
    _laser(
        "diamond",
        "Laser diamond: q(A,B) :- p(A,B) in [n]; k fresh atoms per time point",
        "q(A,B) :- p(A,B) in [{n}].\n",
        block_diamond,
    ),
    _laser(
        "box",
        "Laser box: q(A,B) :- p(A,B) always [n]; the same k atoms at every time point",
        "q(A,B) :- p(A,B) always [{n}].\n",
        block_box,
    ),
    _laser(
        "join",
        "Laser join: two windowed p atoms joined; a chain of k atoms per time point",
        JOIN_RULE.replace("{h}", "q"),
        block_join,
    ),
    _laser(
        "rules",
        "Laser rules-r: the join rule repeated r times (heads q1..qr); stream as join",
        program_rules,
        block_join,
        r=10,
    ),
    _laser(
        "box-chain",
        "Laser box-chain (pruning): h1 from p in [n] and q always [n], then w-1 copy rules; q missing every n-th"
        " time point",
        program_box_chain,
        block_box_chain,
        count=count_box_chain,
        rate=lambda p: 2 * p["rate"],
        w=10,
    ),
    _laser("cooling", "Cooling: k atoms temp(V), V uniform in [0, 200]", COOLING, block_cooling),
]
