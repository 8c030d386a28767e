"""The native engine's stores: the whole-batch fast paths of ``Store.insert``/``expire`` and of
index upkeep give exactly what the pair-by-pair path gives (facts, deltas, buckets, indexes)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ticker_py.engines.native.store import Store

#: instances of a binary predicate over a small domain (collisions on every index key), with
#: mixed argument types: names, strings, negative and wide integers, functions
VALUES = st.sampled_from(["a", "b", '"s\\"q"', -3, 0, 2**70, ("f", 1)])
INSTANCES = st.tuples(st.just("p"), VALUES, VALUES)
#: one step: insert a batch of pairs (duplicates and repeated instances allowed), or expire up to a tick
STEPS = st.lists(st.one_of(
    st.tuples(st.just("insert"), st.lists(st.tuples(INSTANCES, st.integers(0, 12)), max_size=12)),
    st.tuples(st.just("insert one horizon"), st.lists(INSTANCES, max_size=12), st.integers(0, 12)),
    st.tuples(st.just("expire"), st.integers(0, 13))), max_size=25)


class PairByPair(Store):
    """The general path only: every insert goes pair by pair, every index entry is a dict."""

    def insert(self, pairs) -> list:
        return self._insert_each(list(pairs))

    def expire(self, now, count=0):
        self.stale.update(self.buckets)  # every bucket is checked for extended instances
        return super().expire(now, count)

    def _indexed(self, fresh):
        for keyfn, idx, accept, *_ in self.indexes:
            for inst in (fresh if accept is None else accept(fresh)):
                idx.setdefault(keyfn(inst), {})[inst] = None
        if self.on_fresh is not None:
            self.on_fresh(fresh)

    def _unindexed(self, out, everything=False):
        for keyfn, idx, accept, *_ in self.indexes:
            for inst in (out if accept is None else accept(out)):
                b = idx[keyfn(inst)]
                del b[inst]
                if not b:
                    del idx[keyfn(inst)]
        if self.on_expire is not None:
            self.on_expire(out)


def _stores():
    out = []
    for cls in (Store, PairByPair):
        s = cls("p", "atom", 2)
        s.index((0,))
        s.index((1,), {1: "a"})          # only instances with "a" at position 1 are indexed
        s.index((0, 1))
        s.batch_min = 1                  # every batch tries the whole-batch path
        s.fresh, s.gone = [], []
        s.on_fresh, s.on_expire = s.fresh.extend, s.gone.extend
        out.append(s)
    return out


def _index_contents(store) -> list:
    return [{k: set(v) if type(v) is dict else {v} for k, v in idx.items()} for _, idx, *_ in store.indexes]


@settings(max_examples=300, deadline=None)
@given(STEPS)
def test_batch_paths_equal_the_pair_by_pair_path(steps):
    fast, slow = _stores()
    for step in steps:
        if step[0] == "expire":
            assert fast.expire(step[1]) == slow.expire(step[1])
        else:
            pairs = step[1] if step[0] == "insert" else [(a, step[2]) for a in step[1]]
            assert fast.insert(list(pairs)) == slow.insert(list(pairs))
        assert fast.facts == slow.facts and list(fast.facts) == list(slow.facts)
        assert fast.delta == slow.delta and fast.fresh == slow.fresh and fast.gone == slow.gone
        assert _index_contents(fast) == _index_contents(slow)
        # every index holds exactly the live instances its literals can match, a lone one bare
        for _, idx, *_ in fast.indexes:
            assert all(type(v) is not dict or len(v) > 1 for v in idx.values())


def test_fast_paths_are_taken():
    store = _stores()[0]
    batch = [(("p", "a", i), 5) for i in range(4)]
    assert store.insert(batch) == batch and store.buckets == {5: [a for a, _ in batch]}
    idx = store.indexes[0][1]
    assert idx == {"a": {a: None for a, _ in batch}}
    assert store.indexes[2][1] == {("a", i): a for i, (a, _) in enumerate(batch)}
    assert store.expire(6) == [a for a, _ in batch] and store.facts == {} and idx == {}
    # an extended instance leaves a stale entry in its old bucket: only that bucket is checked
    store.insert([(batch[0][0], 7), (batch[1][0], 7)])
    store.insert([(batch[0][0], 9)])
    assert store.stale == {7} and store.buckets == {7: [batch[0][0], batch[1][0]], 9: [batch[0][0]]}
    assert store.expire(8) == [batch[1][0]] and store.stale == set() and store.facts == {batch[0][0]: 9}
