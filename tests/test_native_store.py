"""The native engine's stores: the whole-batch fast paths of ``Store.insert``/``expire`` and of
index upkeep give exactly what the pair-by-pair path gives (facts, deltas, buckets, indexes)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ticker_py.engines.native.store import INF, Store

#: instances of a binary predicate over a small domain (collisions on every index key), with
#: mixed argument types: names, strings, negative and wide integers, functions
VALUES = st.sampled_from(["a", "b", '"s\\"q"', -3, 0, 2**70, ("f", 1)])
INSTANCES = st.tuples(st.just("p"), VALUES, VALUES)
#: horizons: ticks, and for ever (INF, the float infinity: extending a fact to it must not
#: confuse an expiring bucket's integer comparisons)
HORIZONS = st.one_of(st.integers(0, 12), st.just(INF))
#: one step: insert a batch of pairs (duplicates and repeated instances allowed), or expire up to a tick
STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("insert"), st.lists(st.tuples(INSTANCES, HORIZONS), max_size=12)),
        st.tuples(st.just("insert one horizon"), st.lists(INSTANCES, max_size=12), HORIZONS),
        st.tuples(st.just("expire"), st.integers(0, 13)),
    ),
    max_size=25,
)


class PairByPair(Store):
    """The general path only: every insert goes pair by pair, every index entry is a dict."""

    def insert(self, pairs) -> list:
        return self._insert_each(list(pairs))

    def expire(self, now, count=0):
        self.stale.update(self.buckets)  # every bucket is checked for extended instances
        return super().expire(now, count)

    def _indexed(self, fresh):
        for entry in self.indexes:
            for inst in fresh:
                d = _dict_of(entry, inst)
                if d is not None:
                    d.setdefault(_key_of(entry, inst), {})[inst] = None
        if self.on_fresh is not None:
            self.on_fresh(fresh)

    def _unindexed(self, out, everything=False):
        for entry in self.indexes:
            for inst in out:
                d = _dict_of(entry, inst)
                if d is not None:
                    k = _key_of(entry, inst)
                    del d[k][inst]
                    if not d[k]:
                        del d[k]
        if self.on_expire is not None:
            self.on_expire(out)


def _dict_of(entry, inst):
    """The dict of an index that ``inst`` goes in (None: not indexed), found instance by instance."""
    return entry.parts if entry.part is None else entry.parts.get(entry.part(inst))


def _key_of(entry, inst):
    return () if entry.key is None else entry.key(inst)


def _stores():
    out = []
    for cls in (Store, PairByPair):
        s = cls("p", "atom", 2)
        s.index((0,))
        s.index((1,), {1: "a"})  # only instances with "a" at position 1 are indexed, under ()
        s.index((0, 1))
        s.index((0, 1), {1: "b"})  # a dict per constant at position 1, keyed by position 0:
        s.index((0, 1), {1: -3})  # the instances with "b" there, and those with -3
        s.index((0, 1), {0: "a", 1: -3})  # both positions constant
        s.batch_min = 1  # every batch tries the whole-batch path
        s.fresh, s.gone = [], []
        s.on_fresh, s.on_expire = s.fresh.extend, s.gone.extend
        out.append(s)
    return out


def _expected_indexes(facts) -> list:
    """What the indexes of :func:`_stores` hold, ``{(fixed value, key): {instance}}``, from their definition."""
    out: list = [{}, {}, {}, {}, {}]
    for inst in facts:
        _, a, b = inst
        out[0].setdefault((None, a), set()).add(inst)
        if b == "a" and type(b) is str:
            out[1].setdefault(("a", ()), set()).add(inst)
        out[2].setdefault((None, (a, b)), set()).add(inst)
        if b in ("b", -3) and type(b) in (str, int):
            out[3].setdefault((b, a), set()).add(inst)
        if (a, b) == ("a", -3) and type(a) is str and type(b) is int:
            out[4].setdefault((("a", -3), ()), set()).add(inst)
    return out


def _index_contents(store) -> list:
    return [entry.contents() for entry in store.indexes]


@settings(max_examples=300, deadline=None)
@given(STEPS)
def test_batch_paths_equal_the_pair_by_pair_path(steps):
    fast, slow = _stores()
    for step in steps:
        if step[0] == "expire":
            alive = dict(fast.facts)
            gone = fast.expire(step[1])
            assert gone == slow.expire(step[1])
            # exactly the facts whose horizon passed are gone, each once
            assert fast.facts == {a: h for a, h in alive.items() if h >= step[1]}
            assert sorted(map(repr, gone)) == sorted(repr(a) for a, h in alive.items() if h < step[1])
        else:
            pairs = step[1] if step[0] == "insert" else [(a, step[2]) for a in step[1]]
            assert fast.insert(list(pairs)) == slow.insert(list(pairs))
        assert fast.facts == slow.facts and list(fast.facts) == list(slow.facts)
        assert fast.delta == slow.delta and fast.fresh == slow.fresh and fast.gone == slow.gone
        assert _index_contents(fast) == _index_contents(slow)
        # every index holds exactly the live instances its literals can match, a lone one bare
        assert _index_contents(fast) == _expected_indexes(fast.facts)
        for entry in fast.indexes:
            for d in [entry.parts] if entry.part is None else entry.parts.values():
                assert all(type(v) is not dict or len(v) > 1 for v in d.values())


def test_fast_paths_are_taken():
    store = _stores()[0]
    batch = [(("p", "a", i), 5) for i in range(4)]
    assert store.insert(batch) == batch and store.buckets == {5: [a for a, _ in batch]}
    idx = store.indexes[0].parts
    assert idx == {"a": {a: None for a, _ in batch}}
    assert store.indexes[2].parts == {("a", i): a for i, (a, _) in enumerate(batch)}
    assert store.expire(6) == [a for a, _ in batch] and store.facts == {} and idx == {}
    # a partitioned index: one dict per constant value, keyed by the free position alone
    part = store.indexes[3].parts
    store.insert([(("p", "c", -3), 5), (("p", "d", -3), 5), (("p", "c", "b"), 5), (("p", "c", "z"), 5)])
    assert part == {"b": {"c": ("p", "c", "b")}, -3: {"c": ("p", "c", -3), "d": ("p", "d", -3)}}
    assert store.indexes[4].parts == {("a", -3): {}}
    assert len(store.expire(6)) == 4
    assert part == {"b": {}, -3: {}}
    # an extended instance leaves a stale entry in its old bucket: only that bucket is checked
    store.insert([(batch[0][0], 7), (batch[1][0], 7)])
    store.insert([(batch[0][0], 9)])
    assert store.stale == {7} and store.buckets == {7: [batch[0][0], batch[1][0]], 9: [batch[0][0]]}
    assert store.expire(8) == [batch[1][0]] and store.stale == set() and store.facts == {batch[0][0]: 9}


def test_an_index_made_after_facts_arrived_holds_them():
    """An index (or a constant's dict of one) asked for when the store has facts is filled from
    them, and asking again for an existing one changes nothing."""
    store = Store("p", "atom", 2)
    store.index((0, 1), {1: "b"})
    facts = [(("p", "a", "b"), 5), (("p", "c", "b"), 5), (("p", "a", -3), 5), (("p", "a", "z"), 5)]
    store.insert(facts)
    store.index((0,))
    store.index((0, 1), {1: -3})
    store.index((0, 1), {1: "b"})
    store.index((1,), {1: "b"})
    assert [e.contents() for e in store.indexes] == [
        {("b", "a"): {("p", "a", "b")}, ("b", "c"): {("p", "c", "b")}, (-3, "a"): {("p", "a", -3)}},
        {(None, "a"): {("p", "a", "b"), ("p", "a", -3), ("p", "a", "z")}, (None, "c"): {("p", "c", "b")}},
        {("b", ()): {("p", "a", "b"), ("p", "c", "b")}},
    ]
    assert store.indexes[0].parts["b"] == {"a": ("p", "a", "b"), "c": ("p", "c", "b")}
