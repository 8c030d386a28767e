"""Ticker scenario A (caching strategy): ``caching-time`` ([n]) and ``caching-tuple`` ([n #]).

Both variants read the same stream: one ``alpha(v)`` per time point. The mode of block
``m = t // 2n`` is ``randint(4, seed, "A/mode", m)`` (0 high, 1 mid, 2 low, 3 random); with
``u = uniform(seed, "A/value", t)`` the value is ``18 + floor(13u)`` (high), ``12 + floor(6u)``
(mid) or ``floor(12u)`` (low, random).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .base import Workload, joined, numbers, table
from .draws import randint, uniform

PROGRAM = """\
value(0..30).
high at T :- value(V), alpha(V) at T in [{w}], 18 <= V.
mid at T :- value(V), alpha(V) at T in [{w}], 12 <= V, V < 18.
low at T :- value(V), alpha(V) at T in [{w}], V < 12.
lfu :- high always [{n}].
lru :- mid always [{n}].
fifo :- low always [{n}].
done :- lfu.
done :- lru.
done :- fifo.
random :- not done.
"""


def block(seed: int, t0: int, t1: int, p: dict) -> pa.Table:
    t = np.arange(t0, t1, dtype=np.int64)
    mode = randint(4, seed, "A/mode", t // (2 * p["window"]))
    u = uniform(seed, "A/value", t)
    v = np.select([mode == 0, mode == 1], [18 + np.floor(13 * u), 12 + np.floor(6 * u)], np.floor(12 * u)).astype(
        np.int64
    )
    return table(t, joined("alpha(", numbers(v), ")"))


WORKLOADS = [
    Workload(
        f"caching-{kind}",
        f"Ticker scenario A, {what}: one alpha(v) per time point, mode redrawn every 2n",
        lambda n, form=form, **_: PROGRAM.format(w=form.format(n), n=n),
        block,
        {"tp": 1000, "window": 60},
        count=lambda t0, t1, p: t1 - t0,
    )
    for kind, what, form in (("time", "time windows [n]", "{}"), ("tuple", "tuple windows [n #]", "{} #"))
]
