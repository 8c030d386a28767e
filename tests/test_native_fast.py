"""The native engine's fast paths give exactly what the general paths give: box runs kept as
sets (against the definition of a run), and whole programs on streams of recurring atoms
(every window kind, @, always, in, mixed argument types, wide integers) against clingo."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ticker_py.engines.native.feed import Runs

from test_native import differential

ATOMS = [("p", "a"), ("p", "b"), ("p", -2), ("p", 2**70), ("p", ("f", '"x\\"y"'))]
#: time points (increasing, with gaps), each with one or more batches of recurring atoms
POINTS = st.lists(st.tuples(st.integers(1, 3), st.lists(st.lists(st.sampled_from(ATOMS), max_size=6),
                                                          min_size=1, max_size=3)), max_size=14)


def _timeline(points) -> list:
    """``[(t, [batch, ...])]`` with increasing t from gaps."""
    out, t = [], -1
    for gap, batches in points:
        t += gap
        out.append((t, batches))
    return out


@settings(max_examples=300, deadline=None)
@given(POINTS, st.integers(0, 4))
def test_runs_hold_by_their_definition(points, n):
    runs = Runs(n)
    at: dict = {}
    for t, batches in _timeline(points):
        runs.forget(t)
        arrived = []
        for batch in batches:
            arrived += runs.add(t, batch)
            at.setdefault(t, set()).update(batch)
        assert arrived == list(dict.fromkeys(a for b in batches for a in b))
        lo = max(0, t - n)
        want = [a for a in arrived if all(a in at.get(u, ()) for u in range(lo, t + 1))]
        assert runs.holding(arrived, t, n) == want
        # what is kept is bounded by the runs still open and the window
        assert all(u >= t - 1 for u in runs.seen) and all(u > t - n for u in runs.started)
        assert set(runs.start) <= at[t] | at.get(t - 1, set())


PROGRAMS = [
    "q(X) :- p(X) always [2]. r(X) :- p(X) always [0]. s(X) :- p(X) always [4], p(X) in [1].",
    "q(X) :- p(X) always [3 #]. r(X) :- p(X) always [1], p(X) at T in [2], T >= 1.",
    "q(X, T) :- p(X) at T in [3]. r(X) :- q(X, T) always [2]. s :- p(X) always [1], not q(X, 0).",
    "q(X) :- p(X) in [2]. r(X, Y) :- q(X), p(Y) always [2], X != Y. s(X) :- r(X, X).",
]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(PROGRAMS), POINTS, st.booleans())
def test_box_programs_on_recurring_atoms_agree_with_oracle(program, points, push):
    stream = [(t, [a for b in batches for a in b]) for t, batches in _timeline(points)]
    differential(program, stream, push=push)
