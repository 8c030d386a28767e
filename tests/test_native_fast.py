"""The native engine's fast paths give exactly what the general paths give: box runs kept as
sets (against the definition of a run), and whole programs on streams of recurring atoms
(every window kind, @, always, in, mixed argument types, wide integers) against clingo."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from test_native import differential

from ticker_py.engines.native.feed import Runs

ATOMS = [("p", "a"), ("p", "b"), ("p", -2), ("p", 2**70), ("p", ("f", '"x\\"y"'))]
#: time points (increasing, with gaps), each with one or more batches of recurring atoms
POINTS = st.lists(
    st.tuples(st.integers(1, 3), st.lists(st.lists(st.sampled_from(ATOMS), max_size=6), min_size=1, max_size=3)),
    max_size=14,
)


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


PROJECTIONS = [
    "q(A, B) :- p(A, B, C) always [2]. r(C, B, A) :- p(A, B, C) in [1]. s(A) :- p(A, B, C) at T in [2].",
    "q(B, c, A) :- p(A, a, B) in [3]. r(A) at T :- p(A, B, C) at T in [2]. s at T :- r(X) at T in [1].",
    'q(X) :- p(X, Y, Z) in [2 #]. r(Y, -7, "s") :- q(Y). s(f(X), T) :- p(X, a, 5) at T in [1].',
    "q(A, B, C) :- p(A, B, C) always [3 #]. r :- p(A, B, C) at T in [1 #]. s(T, A) :- p(A, f(1), B) at T.",
    "q(A) :- p(A, A, B) in [1]. r(A, B) :- p(A, B, C) in [2], p(B, A, C) in [1]. s(B) :- p(b, B, C) in [2]. u(B) :- p(b, B, 2) in [2].",
]
VALUES = ["a", "b", -3, 5, 2**70, '"s\\"q"', ("f", 1)]


def _engines(program: str):
    """The native engine as compiled, and one whose plans are all general (no projections)."""
    from test_native import native

    import ticker_py.engines.native.wiring as wiring

    fast = native(program)
    general = wiring.compile_rule
    wiring.compile_rule = lambda *args, **kw: general(*args, general=True, **kw)
    try:
        slow = native(program)
    finally:
        wiring.compile_rule = general
    return fast, slow


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(PROJECTIONS),
    st.lists(st.lists(st.tuples(*[st.sampled_from(VALUES)] * 3), max_size=5), max_size=8),
    st.booleans(),
)
def test_projection_plans_equal_general_plans(program, points, push):
    fast, slow = _engines(program)
    assert any("_out.extend" in plan.source for plans in fast.wiring.plans for plan in plans)
    assert not any("_out.extend" in plan.source for plans in slow.wiring.plans for plan in plans)
    for t, args in enumerate(points):
        atoms = [("p", *a) for a in args]
        for part in [[a] for a in atoms] if push and atoms else [atoms]:
            fast.append(t, part)
            slow.append(t, part)
            assert fast.evaluate(t) == slow.evaluate(t)


def _fast_equals_general(program: str, points, push: bool, marker: str) -> None:
    """Plans with the shortcut ``marker`` (in their source) answer as the general plans do, tick by
    tick, on ``points`` (argument triples of ``p``; ``push``: each time point in two batches)."""
    fast, slow = _engines(program)
    assert any(marker in plan.source for plans in fast.wiring.plans for plan in plans)
    assert not any(marker in plan.source for plans in slow.wiring.plans for plan in plans)
    _answer_alike(fast, slow, points, push)


def _answer_alike(fast, slow, points, push: bool) -> None:
    """Two engines answer alike, tick by tick, on ``points`` (argument triples of ``p``; ``push``:
    each time point in two batches)."""
    for t, args in enumerate(points):
        atoms = [("p", *a) for a in args]
        for part in [atoms[:1], atoms[1:]] if push and atoms else [atoms]:
            fast.append(t, part)
            slow.append(t, part)
            assert fast.evaluate(t) == slow.evaluate(t)


#: argument triples over a small domain: atoms recur
TRIPLES = st.lists(st.lists(st.tuples(*[st.sampled_from(VALUES[:4] + ["x", "y"])] * 3), max_size=6), max_size=8)

EXISTENTIALS = [
    "q(A) :- p(A, B, C) in [1], p(B, D, E) in [3]. r(A) :- p(A, B, C) in [2], p(D, E, F) in [1], B < D.",
    "q(A) at T :- p(A, B, C) at T in [2], p(C, D, E) in [1]. r(A) :- q(A) at T in [3], p(A, B, C) in [2].",
    "q(A, B) :- p(A, B, C) in [1], p(C, D, x) in [4], p(D, E, y) always [2]. r(A) :- q(A, B), not q(B, A).",
    "s(B) :- p(B, B, C) in [1]. r(A) :- p(A, B, C) in [2], p(C, D, E) in [3], not s(D). u :- r(A), p(A, B, C).",
]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(EXISTENTIALS), TRIPLES, st.booleans())
def test_plans_leaving_loops_early_equal_general_plans(program, points, push):
    """A loop over instances that bind no head variable stops once it derived the head with the
    horizon it had before the loop (facts of different windows: the horizons differ)."""
    _fast_equals_general(program, points, push, "break")


#: rules driven by the same store's delta, grouped by the same constant (a shared grouping)
SHARED_GROUPS = [
    "q(A) :- p(A, a, B) in [2]. r(B) :- p(A, a, B) in [2], p(B, b, C) in [1]. s(A, C) :- p(A, b, C) in [2], q(A).",
    "q(A, C) :- p(A, a, B) in [3], p(B, a, C) in [3]. r(A) :- p(A, a, A) in [3]. s(A) :- q(A, C), p(C, b, A) in [1].",
]


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(SHARED_GROUPS), TRIPLES, st.booleans())
def test_plans_sharing_a_delta_grouping_equal_plans_grouping_their_own(program, points, push):
    """All rules of a program share one delta grouping (:func:`delta_groups`): the answers are
    those of rules that each group the deltas themselves."""
    from test_native import native

    import ticker_py.engines.native.wiring as wiring

    shared = native(program)
    grouped = [plan for plans in shared.wiring.plans for plan in plans if "_delta_groups(D" in plan.source]
    assert len(grouped) >= 2
    compile_rule = wiring.compile_rule
    wiring.compile_rule = lambda rule, body, target, groups=None: compile_rule(rule, body, target)
    try:
        own = native(program)
    finally:
        wiring.compile_rule = compile_rule
    _answer_alike(shared, own, points, push)


#: joins where one side's facts are extended (atoms arriving again, derived facts through a longer
#: window) while the other side changes at the same time point: windows of several sizes, boxes,
#: @-views, background facts, a store read twice in one rule, a counted rule (which never skips)
EXTENSIONS = [
    "t(X) :- r(X) in [{a}], b(X). o(X, Y) :- e(X, Y) in [{b}], t(X). b(1). b(2).",
    "s(X) :- p(X) in [{a}]. s(X) :- r(X) in [{b}]. q(X, Y) :- s(X), s(Y), X != Y. u(X) :- q(X, Y), p(Y) in [{c}].",
    "t(X) :- p(X) in [{a}]. t(X) :- p(X) in [{b}]. o(X, Y) :- t(X), e(X, Y) in [{c}], t(Y).",
    "t(X) :- p(X) in [{a}]. t(X) :- p(X) in [{b}]. o(X, Y) :- t(X), e(X, Y) in [{c}]. z(Y) :- o(X, Y), r(X) in [{b}].",
    "t(X) :- p(X) always [{a}]. t(X) :- r(X) in [{b}]. o(X, Y) :- t(X), e(X, Y) in [{c}], r(Y) in [{a}]. "
    "w(X) :- o(X, Y) at T in [{b}], t(Y).",
    "o(X, Y) :- e(X, Y) in [{a}], p(X) in [{b}], e(Y, X) in [{c}]. v(X) :- o(X, Y), o(Y, X) in [{a}], b(Y). b(1).",
    "t(X) at T :- p(X) at T in [{a}]. o(X) :- t(X) at T in [{b}], r(X) in [{c}]. "
    "k(X, Y) :- o(X), e(X, Y) in [{d} #]. m(X) :- o(X), t(X) always [{a}].",
]
EXTENSION_ATOMS = [("p", 1), ("p", 2), ("r", 1), ("r", 2), ("e", 1, 1), ("e", 1, 2), ("e", 2, 1), ("e", 2, 2)]
SIZES = st.integers(0, 4)


def _extension_case(template, sizes, points):
    a, b, c = sizes
    program = template.format(a=a, b=b, c=c, d=a + 1)
    return program, [
        (t, list(dict.fromkeys(a for batch in batches for a in batch))) for t, batches in _timeline(points)
    ]


EXTENSION_POINTS = st.lists(
    st.tuples(
        st.integers(1, 2), st.lists(st.lists(st.sampled_from(EXTENSION_ATOMS), max_size=6), min_size=1, max_size=2)
    ),
    max_size=12,
)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(EXTENSIONS), st.tuples(SIZES, SIZES, SIZES), EXTENSION_POINTS, st.booleans())
def test_joins_of_extended_facts_agree_with_oracle(template, sizes, points, push):
    program, stream = _extension_case(template, sizes, points)
    differential(program, stream, push=push)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(EXTENSIONS), st.tuples(SIZES, SIZES, SIZES), EXTENSION_POINTS, st.booleans())
def test_plans_skipping_what_an_extension_cannot_extend_equal_general_plans(template, sizes, points, push):
    """A plan driven by an extended fact skips the joins whose other facts end no later than the
    fact did before (``_ho``): the answers are those of the general plans, which join everything."""
    program, stream = _extension_case(template, sizes, points)
    fast, slow = _engines(program)
    assert any("_ho" in plan.source for plans in fast.wiring.plans for plan in plans)
    assert not any("_ho" in plan.source for plans in slow.wiring.plans for plan in plans)
    for t, atoms in stream:
        for part in [atoms[:1], atoms[1:]] if push and atoms else [atoms]:
            fast.append(t, part)
            slow.append(t, part)
            assert fast.evaluate(t) == slow.evaluate(t)


@settings(max_examples=100, deadline=None)
@given(
    st.tuples(SIZES, SIZES, SIZES),
    st.lists(
        st.tuples(
            st.integers(1, 2),
            st.lists(
                st.lists(st.sampled_from([("p", 1), ("e", 1, 1), ("e", 1, 2)]), max_size=3), min_size=1, max_size=1
            ),
        ),
        max_size=10,
    ),
)
def test_facts_new_and_extended_in_one_evaluation_agree_with_oracle(sizes, points):
    """t(1) new by the shorter window and extended by the longer one in the same evaluation: the
    pair that made it new joins in full, the extension's skips only below that pair's horizon."""
    a, b, c = sorted(sizes)
    template = "t(X) :- p(X) in [{a}]. t(X) :- p(X) in [{b}]. o(X, Y) :- t(X), e(X, Y) in [{c}]."
    program, stream = _extension_case(template, (a, b + 1, c), points)
    differential(program, stream)


#: literals with constants at the positions they probe, on one store: several constants at the same
#: position (a dict per constant), constants at every probed position (keyed by ``()``), counted
#: (tuple-window) stores, @-literals (a constant time), derived stores; windows of 0 to 4
PARTITIONED = [
    "o(X, V, W) :- t(X, a, V) in [{a}], t(X, b, W) in [{a}], t(X, c, 1) in [{b}]. u(X) :- t(X, a, Y) in [{b}], t(Y, b, X) in [{a}].",
    "s(Y) :- t(Y, c, Z) in [{a}], t(X, a, b) in [{b}], X != Y. r(X) :- t(X, a, b) in [{a}], t(X, b, b) in [{b}], t(b, X, Y) in [{a}].",
    "q(X, Y) :- t(X, a, Y) in [{d} #], t(Y, b, X) in [{c} #]. r(X) :- t(X, a, Z) in [{c} #], t(Z, a, X) in [{a}], t(Z, c, 1) in [{a}]. "
    "w(Y) :- t(Y, b, Z) in [{c} #], t(X, a, b) in [{d} #], X != Y.",
    "q(X, T) :- t(X, a, Y) at T in [{a}], t(Y, b, Z) at T in [{b}]. r(X) :- t(X, c, Y) at 2 in [{b}], t(X, a, Z) in [{a}]. "
    "v(X) :- t(X, a, Y) at T, t(X, b, Y) at T in [{a}]. z(Y, T) :- t(Y, c, 1) in [{a}], t(X, a, b) at T in [{b}], X != Y.",
    "d(X, Y, Z) :- t(X, Y, Z) in [{a}]. d(X, c, Z) :- t(Z, b, X) in [{b}]. q(X, Z) :- d(X, a, Y), d(Y, c, Z), d(Z, b, 1). "
    "r(X) :- d(X, a, b) in [{b}], d(a, X, Y), d(Y, c, X) at T in [{a}].",
]
PARTITION_ATOMS = [("t", x, y, z) for x in ("a", "b") for y in ("a", "b", "c") for z in ("a", "b", 1)]
PARTITION_POINTS = st.lists(
    st.tuples(
        st.integers(1, 2), st.lists(st.lists(st.sampled_from(PARTITION_ATOMS), max_size=8), min_size=1, max_size=2)
    ),
    max_size=12,
)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(PARTITIONED), st.tuples(SIZES, SIZES), PARTITION_POINTS, st.booleans())
def test_indexes_with_a_dict_per_constant_agree_with_oracle(template, sizes, points, push):
    """Indexes split by the literals' constants: facts arriving, recurring (extended) and expiring
    under each constant's dict, against clingo."""
    program, stream = _extension_case(template, sizes + (sizes[1] + 1,), points)
    differential(program, stream, push=push)


def test_an_index_keeps_a_dict_per_constant_through_arrivals_and_expiry():
    """BSBM's shape: literals with different constants at position 1 of one windowed store share
    the index on positions (0, 1), one dict per constant keyed by position 0 alone, each holding
    exactly the live facts with its constant (the type facts are in none); the plans probe them."""
    from test_native import native

    engine = native("o(X, V, W) :- t(X, ty, c) in [2], t(X, a, V) in [2], t(X, b, W) in [2].")
    window = [s for s in engine.wiring.stores if s.name == "t time diamond 2"][0]
    index = window._index_of[((0, 1), (1,))]
    assert set(index.parts) == {"a", "b"} and index.key(("t", "x", "a", 1)) == "x"
    stream = [
        [("t", "x", "ty", "c"), ("t", "x", "a", 1), ("t", "y", "a", 2), ("t", "y", "a", 3)],
        [("t", "x", "b", 5), ("t", "y", "ty", "c"), ("t", "x", "a", 1)],
        [("t", "y", "b", 6)],
        [],
        [],
        [],
    ]
    answers = []
    for t, atoms in enumerate(stream):
        engine.append(t, atoms)
        answers.append(sorted(engine.evaluate(t).models[0].atoms))
        live = [a for a in window.facts]
        want = {
            (c, a[1]): {b for b in live if b[1] == a[1] and b[2] == c} for a in live for c in ("a", "b") if a[2] == c
        }
        assert index.contents() == want
    assert answers[1] == [("o", "x", 1, 5)] and answers[2] == [("o", "x", 1, 5), ("o", "y", 2, 6), ("o", "y", 3, 6)]
    assert answers[3:] == [[], [], []]  # x's type and y's offers left the window at 3
    assert index.parts == {"a": {}, "b": {}}


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(EXTENSIONS), st.tuples(SIZES, SIZES, SIZES), EXTENSION_POINTS, st.booleans())
def test_skipping_plans_compiled_on_first_extension_equal_plans_compiled_at_once(template, sizes, points, push):
    """The plans that skip what an extension cannot extend are compiled when a fact of their
    driver's store is first extended: the answers are those of an engine that compiled them all
    when it was built, and none is compiled before an extension."""
    from test_native import native

    from ticker_py.engines.native.plan import _Skipping

    program, stream = _extension_case(template, sizes, points)
    lazy, eager = native(program), native(program)
    pending = [
        fn for plans in lazy.wiring.plans for plan in plans for _, fn in plan.drivers if isinstance(fn, _Skipping)
    ]
    assert pending
    for fn in [fn for plans in eager.wiring.plans for plan in plans for _, fn in plan.drivers]:
        if isinstance(fn, _Skipping):
            fn.compiled()
    assert not any(
        isinstance(fn, _Skipping) for plans in eager.wiring.plans for plan in plans for _, fn in plan.drivers
    )
    extended = set()  # the plans whose driver's store extended a fact in an evaluation so far
    for t, atoms in stream:
        for part in [atoms[:1], atoms[1:]] if push and atoms else [atoms]:
            lazy.append(t, part)
            eager.append(t, part)
            assert lazy.evaluate(t) == eager.evaluate(t)
            extended |= {id(fn) for fn in pending if fn.before}
            assert all(fn.fn is None or id(fn) in extended for fn in pending)
