"""Every fast path of reading and writing gives exactly what its slow path gives.

Checks and driving of repeated tuples and of what a reader knows against looking at every atom;
columnar table reading (DataFrames, Parquet batches) against the row-by-row grouping; cached output
strings against ``format_atom``/``json.dumps``/the csv module. The ground-atom reader's own paths
are tested in tests/test_ground_atoms.py.
"""

from __future__ import annotations

import csv
import io
import json
import pickle

import pandas as pd
import pytest
from helpers import drain as _drain
from helpers import records_until_error, scaled
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ticker_py.api import load_program
from ticker_py.errors import EngineUnsupported, StreamError
from ticker_py.stages.drive import drive
from ticker_py.stages.output import open_writer
from ticker_py.streams import Model, Record, Result, StreamChecker, read_dataframe, read_parquet, read_text
from ticker_py.streams.tables import table_records
from ticker_py.values import format_atom, format_term

NAMES = st.sampled_from(["p", "q", "temp", "a_b'", "not", "in", "at", "always", "x1"])
CONSTANTS = st.sampled_from(["a", "b0", "c_d", "e'", "not", "in", "always", "at", "zz9"])
INTS = st.one_of(st.integers(-10, 10), st.integers(-(2**70), 2**70))
STRINGS = st.sampled_from(['"x"', '"a,b;c"', '"esc\\"q"', '"back\\\\"', '"t\\tx"', '"%#"', '""'])


def _terms(depth=2):
    base = st.one_of(CONSTANTS, INTS, STRINGS)
    if depth == 0:
        return base
    return st.one_of(
        base,
        st.tuples(st.sampled_from(["f", "g"]), st.lists(_terms(depth - 1), min_size=1, max_size=3)).map(
            lambda x: (x[0], *x[1])
        ),
    )


ATOMS = st.tuples(NAMES, st.lists(_terms(), max_size=4)).map(lambda x: (x[0], *x[1]))


# ---------------------------------------------------------------- checks and the driver

POOL_ATOMS = [("p", "a"), ("p", "b"), ("q", 1, 2), ("p", "a", "b"), ("h",)]
TIME_POINTS = st.lists(st.tuples(st.integers(0, 2), st.integers(0, 3), st.booleans()), max_size=10)


def _pooled(pool, picks):
    """Records over a pool of atom tuples: ``shared`` picks reuse the pool's tuple object, others a copy."""
    t, out = 0, []
    for step, i, shared in picks:
        t += step
        atoms = pool[i % len(pool)]
        out.append(Record(t, atoms if shared else tuple(list(atoms)), "s", len(out) + 1))
    return out


def _check_outcomes(records, signatures):
    """What a checker of ``signatures`` (``h`` intensional) says of each record: passed, or its error
    (checking goes on after one)."""
    checker, out = StreamChecker(signatures, {"h"}), []
    for rec in records:
        try:
            out.append(checker.check(rec) is rec)
        except StreamError as e:
            out.append(str(e))
    return out


@settings(max_examples=scaled(200, 60), deadline=None)
@given(st.lists(st.lists(st.sampled_from(POOL_ATOMS), max_size=4).map(tuple), min_size=1, max_size=3), TIME_POINTS)
def test_checks_of_a_repeated_tuple_equal_checks_of_a_copy(pool, picks):
    """The checker passes a tuple of atoms it passed last without looking again: every record gets
    what a checker that only ever sees copies says (errors included; checking goes on after one)."""
    records = _pooled(pool, picks)
    copies = [Record(r.t, tuple(list(r.atoms)), r.source, r.line) for r in records]
    assert _check_outcomes(records, {"p": 1}) == _check_outcomes(copies, {"p": 1})


class _Grabbing:
    """An engine that keeps what it is given and then empties the list (engines own what they get)."""

    def __init__(self):
        self.calls = []

    def append(self, t, atoms):
        self.calls.append((t, tuple(atoms)))
        if isinstance(atoms, list):
            atoms.clear()

    def evaluate(self, t):
        self.calls.append(t)
        return t


@settings(max_examples=scaled(200, 60), deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(POOL_ATOMS), max_size=4).map(tuple), min_size=1, max_size=3),
    TIME_POINTS,
    st.booleans(),
)
@example([(("p", "a"), ("p", "a"))], [(1, 0, True)] * 4, False)
def test_driving_a_repeated_tuple_equals_driving_a_copy(pool, picks, bag):
    """A time point that is the same tuple object as the last one is not deduplicated again: the
    engine gets what it gets for copies (duplicates dropped unless bag, empty time points between,
    several records at one time point), each time a list of its own."""
    records = _pooled(pool, picks)
    copies = [Record(r.t, tuple(list(r.atoms)), r.source, r.line) for r in records]
    shared_engine, copy_engine = _Grabbing(), _Grabbing()
    assert list(drive(shared_engine, records, bag=bag)) == list(drive(copy_engine, copies, bag=bag))
    assert shared_engine.calls == copy_engine.calls
    expected = {}
    for r in records:
        expected.setdefault(r.t, []).extend(r.atoms)
    appended = {call[0]: list(call[1]) for call in copy_engine.calls if isinstance(call, tuple)}
    assert {t: appended[t] for t in expected} == {t: a if bag else list(dict.fromkeys(a)) for t, a in expected.items()}
    assert not any(atoms for t, atoms in appended.items() if t not in expected)


#: lines the string-method path takes (constants only, ", " between) and some it declines, with
#: repeated atoms, several names and arities, keywords and variables (errors)
KNOWN_ATOMS = st.sampled_from(
    [
        "p(a,b)",
        "p(a,c)",
        "p(c,b)",
        "q(a)",
        "q(b)",
        "p(b)",
        "r(x,y,z)",
        "p(A,b)",
        "p(not,a)",
        "p(1,b)",
        "s",
        'q("a")',
        "h(a)",
    ]
)
KNOWN_LINES = st.tuples(st.integers(0, 2), st.lists(KNOWN_ATOMS, max_size=5), st.sampled_from([", ", "; "]))


def _known_stream(lines):
    t, out = 0, []
    for step, atoms, sep in lines:
        t += step
        out.append(f"{t}: {sep.join(atoms)}\n")
    return "".join(out)


@settings(max_examples=scaled(300, 100), deadline=None)
@given(st.lists(KNOWN_LINES, min_size=1, max_size=8), st.sampled_from(["time", "signal"]), st.booleans())
def test_checking_and_driving_what_the_reader_knows_equals_looking_again(lines, every, bag):
    """Records with what the reader knows (pairs checked at once, a distinct time point not
    deduplicated) give the checker's outcomes and the engine's calls of the same records without it."""
    records = records_until_error(read_text(_known_stream(lines), "s"))
    plain = [Record(r.t, r.atoms, r.source, r.line) for r in records]
    assert all(p.known is None for p in plain)
    assert _check_outcomes(records, {"p": 2, "s": 0}) == _check_outcomes(plain, {"p": 2, "s": 0})
    known_engine, plain_engine = _Grabbing(), _Grabbing()
    assert list(drive(known_engine, records, every, bag=bag)) == list(drive(plain_engine, plain, every, bag=bag))
    assert known_engine.calls == plain_engine.calls


# ---------------------------------------------------------------- columnar tables


def _rows_reference(df, source):
    """The row-by-row grouping of the same frame (the slow path)."""
    cells = [df[c].astype(object).where(df[c].notna(), None).tolist() for c in ("t", "atom")]
    rows = ((source, n, t, a, None) for n, (t, a) in enumerate(zip(*cells), 1))
    return _drain(table_records(rows, None))


CELLS = st.one_of(
    st.none(),
    st.just(""),
    st.just("  "),
    st.sampled_from(
        [
            "p(a,b)",
            "q",
            "temp(5)",
            'f(g(1),"s\\"x")',
            "p(-3, 4)",
            "bad(",
            "P(x)",
            "p(X)",
            "r(not)",
            "w(-123456789012345678901234567890, 18446744073709551616)",
            'e("a\\\\b", "t\\tx", "%#")',
        ]
    ),
)


@settings(max_examples=scaled(150, 40), deadline=None)
@given(st.lists(st.tuples(st.integers(-1, 6), CELLS), max_size=25), st.integers(1, 7))
def test_columnar_reading_equals_row_reading(rows, batch):
    df = pd.DataFrame({"t": [t for t, _ in rows], "atom": [a for _, a in rows]}, dtype=object)
    df["t"] = df["t"].astype("int64")
    expected = _rows_reference(df, "frame")
    assert _drain(read_dataframe(df, "frame")) == expected
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        for kind in ("string", "category"):  # plain strings; a dictionary-typed column
            if kind == "category" and df["atom"].isna().all():
                continue  # a category column without values has no string type
            path = Path(d) / f"{kind}.parquet"
            df.astype({"atom": kind}).to_parquet(path, row_group_size=batch)
            assert _drain(read_parquet(path, "frame", batch_size=batch)) == expected, kind


@pytest.mark.parametrize("recurring", [True, False])
def test_parquet_strings_recurring_or_distinct_equal_row_reading(tmp_path, recurring):
    """Plain string columns: recurring texts are numbered and converted once, mostly distinct ones
    converted row by row; both equal the row-by-row grouping, up to a bad cell at the end."""
    kinds = ['f(g({i}),"s\\"{i}")', "p(-{i}, 18446744073709551616{i})", "q(a{i},b)"]
    texts = [kinds[i % 3].format(i=i % 7 if recurring else i) for i in range(3000)]
    texts[::50], texts[25::50] = [None] * 60, [" "] * 60  # heartbeats
    df = pd.DataFrame({"t": [i // 10 for i in range(3001)], "atom": texts + ["p(X)"]})
    path = tmp_path / "s.parquet"
    df.to_parquet(path)
    expected = _rows_reference(df, "frame")
    assert expected[1] is not None and len(expected[0]) == 300
    assert _drain(read_parquet(path, "frame", batch_size=2048)) == expected


def test_columnar_reading_with_an_order_column_across_batches(tmp_path):
    path = tmp_path / "s.parquet"
    df = pd.DataFrame({"t": [0, 0, 0, 1, 1, 1], "atom": ["c", "a", "b", "z", None, "y"], "c": [3, 1, 2, 6, 4, 5]})
    df.to_parquet(path, row_group_size=2)
    records, error = _drain(read_parquet(path, batch_size=2))
    assert error is None
    assert [(t, atoms) for t, atoms, _, _ in records] == [(0, (("a",), ("b",), ("c",))), (1, (("y",), ("z",)))]


# ---------------------------------------------------------------- output strings

OUT_ATOMS = st.lists(ATOMS.filter(lambda a: a[0] not in ("not", "in", "at", "always")), max_size=8)


def _reference_lines(fmt, results, show_at):
    """The writers' output built the slow way: format_atom, sorted, json.dumps, csv module."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    if fmt == "csv":
        w.writerow(("t", "c", "model", "atom"))
    for r in results:
        models = sorted(
            {
                (tuple(sorted(format_atom(a) for a in m.atoms)), tuple(m.sorted_pinned()) if show_at else ())
                for m in r.models
            }
        )
        if fmt == "jsonl":
            obj = {"t": r.t, "c": r.c, "models": [list(a) for a, _ in models]}
            if show_at:
                obj["at"] = [list(p) for _, p in models]
            out.write(json.dumps(obj) + "\n")
        elif fmt == "text":
            body = " ".join("{" + ", ".join(a + p) + "}" for a, p in models) or "no answer stream"
            out.write(f"t={r.t} c={r.c}: {body}\n")
        else:
            if not models:
                w.writerow((r.t, r.c, None, None))
            for i, (a, p) in enumerate(models):
                for atom in (a + p) or (None,):
                    w.writerow((r.t, r.c, i, atom))
    return out.getvalue()


@settings(max_examples=scaled(150, 60), deadline=None)
@given(
    st.lists(
        st.lists(st.tuples(OUT_ATOMS, st.lists(st.tuples(ATOMS, st.integers(0, 9)), max_size=2)), max_size=3),
        min_size=1,
        max_size=6,
    ),
    st.sampled_from(["jsonl", "text", "csv"]),
    st.booleans(),
)
def test_cached_output_strings_equal_the_slow_path(steps, fmt, show_at):
    results = [
        Result(t, t, tuple(Model(frozenset(atoms), frozenset(pins)) for atoms, pins in models))
        for t, models in enumerate(steps)
    ]
    out = io.StringIO()
    writer = open_writer(fmt, out, show_at=show_at)
    for r in results:
        writer.write(r)
    writer.close()
    assert out.getvalue() == _reference_lines(fmt, results, show_at)


POOL = (
    [("p", i) for i in range(-30, 30)]
    + [("q", f"a{i}", -i) for i in range(20)]
    + [("r", '"s\\"x"'), ("r", '"back\\\\"'), ("f", ("g", ("h", -1)), 2**70), ("w", -(2**65)), ("z",)]
    + [(("p", 1), 4), (("q", "a1", -1), 7), (("z",), 2)]
)  # the last three are pins (atom, T)


@settings(max_examples=scaled(100, 50), deadline=None)
@given(
    st.sets(st.integers(0, len(POOL) - 1), min_size=25),
    st.lists(st.tuples(st.sets(st.integers(0, len(POOL) - 1), max_size=6), st.booleans()), max_size=8),
    st.sampled_from(["jsonl", "text", "csv"]),
    st.booleans(),
)
def test_whole_answers_rebuilt_from_changes_equal_the_slow_path(start, steps, fmt, show_at):
    """Results that carry only changes (the engine's cheap mode) print exactly what the whole
    answer streams print: the sorted texts are edited in place, not sorted again."""

    def model(state):
        items = [POOL[i] for i in state]
        return Model(
            frozenset(a for a in items if type(a[0]) is str), frozenset(a for a in items if type(a[0]) is not str)
        )

    states, sent = [set(start)], [Result(0, 1, (model(start),))]
    for t, (toggled, as_changes) in enumerate(steps, 1):
        before, now = states[-1], states[-1] ^ toggled
        states.append(now)
        changes = (frozenset(POOL[i] for i in now - before), frozenset(POOL[i] for i in before - now))
        sent.append(Result(t, 1, None, changes) if as_changes else Result(t, 1, (model(now),), changes))
    out = io.StringIO()
    writer = open_writer(fmt, out, show_at=show_at)
    for r in sent:
        writer.write(r)
    writer.close()
    whole = [Result(r.t, r.c, (model(state),)) for r, state in zip(sent, states)]
    assert out.getvalue() == _reference_lines(fmt, whole, show_at)


def _delta(now, before):
    """The native engine's changes from ``before`` to ``now`` (sets of POOL atoms and pins)."""
    from ticker_py.engines.native.output import Delta

    def atoms(s):
        return frozenset(a for a in s if type(a[0]) is str)

    return Delta(atoms(now - before), (now - before) - atoms(now), atoms(before - now), (before - now) - atoms(before))


@settings(max_examples=scaled(100, 50), deadline=None)
@given(
    st.sets(st.integers(0, len(POOL) - 1), max_size=40),
    st.lists(
        st.tuples(
            st.sets(st.integers(0, len(POOL) - 1), max_size=12),
            st.sampled_from(["plain", "delta", "whole", "two", "none"]),
        ),
        max_size=8,
    ),
    st.sampled_from(["jsonl", "text", "csv", "changes"]),
    st.booleans(),
)
@example(set(), [(set(), "delta"), ({0, 1}, "two"), (set(range(len(POOL))), "delta")], "jsonl", False)
def test_changes_with_their_atoms_apart_equal_plain_changes(start, steps, fmt, show_at):
    """Changes that carry their atoms apart from the pins (the native engine's :class:`Delta`, the
    writers' fast path that never touches the pins) print exactly what the same changes as a plain
    pair print, and, for the whole-model formats, what the whole answer streams print: between
    them ticks with two answer streams or none (after which changes start from the empty answer),
    empty answers, pins, nested terms, escaped strings, wide and negative integers."""

    def model(state):
        items = {POOL[i] for i in state}
        return Model(
            frozenset(a for a in items if type(a[0]) is str), frozenset(a for a in items if type(a[0]) is not str)
        )

    fast, slow, whole = [Result(0, 1, (model(start),))], [Result(0, 1, (model(start),))], []
    whole.append(fast[0])
    before = set(start)
    for t, (toggled, kind) in enumerate(steps, 1):
        now = before ^ toggled
        if kind in ("two", "none"):
            models = (model(now), model(toggled)) if kind == "two" else ()
            r = Result(t, 1, models)
            fast.append(r), slow.append(r), whole.append(r)
            before = set()
            continue
        pool_now, pool_before = {POOL[i] for i in now}, {POOL[i] for i in before}
        delta = _delta(pool_now, pool_before)
        assert delta == (frozenset(pool_now - pool_before), frozenset(pool_before - pool_now))
        plain = tuple(delta)
        models = None if kind != "whole" else (model(now),)
        fast.append(Result(t, 1, models, delta))
        slow.append(Result(t, 1, models, plain))
        whole.append(Result(t, 1, (model(now),), plain))
        before = now
    printed = []
    for results in (fast, slow, whole):
        out = io.StringIO()
        writer = open_writer(fmt, out, show_at=show_at)
        for r in results:
            if fmt == "changes" and r.models is not None and len(r.models) > 1:
                continue  # refused by the changes format
            writer.write(r)
        writer.close()
        printed.append(out.getvalue())
    assert printed[0] == printed[1]
    if fmt != "changes":
        assert printed[0] == printed[2] == _reference_lines(fmt, whole, show_at)


def _behaviour_runs(engine: str, **options):
    """``(name, results)`` of every behaviour case the engine runs."""
    from test_behaviour import CASES, stream_of

    from ticker_py import Reasoner
    from ticker_py.api import records_from

    for name, (program, points, expected) in CASES.items():
        try:
            reasoner = Reasoner(program, engine=engine, **options)
        except EngineUnsupported:
            continue
        yield name, list(reasoner.feed(records_from(stream_of(points, len(expected) - 1))))


def test_native_changes_carry_their_atoms_apart_from_the_pins():
    """Every behaviour case on the native engine: ``Result.changes`` is a Delta whose pair is the
    change of the whole answer (atoms and pins) and whose ``atoms`` are its atoms alone."""
    from ticker_py.engines.native.output import Delta

    pinned = 0
    for name, results in _behaviour_runs("native"):
        before = Model(frozenset())
        for r in results:
            (m,) = r.models
            added, removed = r.changes
            assert type(r.changes) is Delta, name
            assert (added, removed) == (
                (m.atoms - before.atoms) | (m.pinned - before.pinned),
                (before.atoms - m.atoms) | (before.pinned - m.pinned),
            ), name
            assert r.changes.atoms == (m.atoms - before.atoms, before.atoms - m.atoms), name
            assert pickle.loads(pickle.dumps(r.changes)) == r.changes  # as a plain pair
            pinned += bool(m.pinned)
            before = m
    assert pinned  # the cases do pin atoms to other time points


@pytest.mark.parametrize("engine", ["native", "clingo", "incremental"])
def test_writers_print_changes_only_runs_as_whole_runs(engine):
    """Every behaviour case: each writer, fed the results of an engine that reports only changes
    (what ``ticker run`` asks for with one answer stream), prints what it prints from the whole
    answer streams, with and without ``--show-at``."""
    from ticker_py.spec import RunSpec
    from ticker_py.stages.output import Output

    whole = dict(_behaviour_runs(engine))
    asked = Output(RunSpec(), load_program("a."))  # what ticker run's output stage asks
    cheap = dict(_behaviour_runs(engine, output=asked))
    assert whole.keys() == cheap.keys() and len(whole) > 10
    for name in whole:
        for fmt in ("jsonl", "text", "csv", "changes"):
            for show_at in (False, True):
                printed = []
                for results in (whole[name], cheap[name]):
                    out = io.StringIO()
                    writer = open_writer(fmt, out, show_at=show_at)
                    for r in results:
                        writer.write(r)
                    printed.append(out.getvalue())
                assert printed[0] == printed[1], (name, fmt, show_at)


def test_sorted_texts_follow_small_changes():
    from ticker_py.streams.writers import AtomTexts

    texts = AtomTexts()
    state = {("q", f"a{i}", i) for i in range(50)}
    assert list(texts.sorted(frozenset(state))) == sorted(format_atom(a) for a in state)  # small: by its set
    state |= {("p", i) for i in range(300)}  # large: merged with the previous answer
    for step in range(30):
        state = (state - {("q", f"a{step}", step)}) | {("q", f"b{step}", -step), ("r", '"s\\"x"')}
        assert list(texts.sorted(frozenset(state))) == sorted(format_atom(a) for a in state)


def test_printed_atom_caches_stay_bounded_on_ever_new_atoms():
    """Each tick a window of 500 atoms moves on by 100 new ones (observations that never recur): the
    sorted texts stay exact and the caches never hold much more than twice the answer."""
    from ticker_py.streams.writers import AtomTexts

    texts = AtomTexts()  # 20,400 distinct atoms over the run, against a bound of 4,096 + twice the answer
    for t in range(200):
        state = frozenset(("obs", f"o{i}", i) for i in range(100 * t, 100 * t + 500))
        assert list(texts.sorted(state)) == sorted(format_atom(a) for a in state)
        for text in texts.sorted(state):
            texts.json[text]
        assert len(texts.text) <= 4096 + 2 * len(state) + 500
        assert len(texts.json) <= 4096 + 2 * len(state) + 500
        assert len(texts.text.old) <= 4096 + 2 * len(state) + 500 and len(texts.json.old) <= 4096 + 2 * len(state) + 500


def _format_reference(term) -> str:
    """Clingo syntax by the plain recursive definition (format_atom's shortcuts must agree)."""
    if type(term) is tuple:
        return term[0] if len(term) == 1 else f"{term[0]}({','.join(_format_reference(a) for a in term[1:])})"
    return str(term)


@settings(max_examples=scaled(300, 100), deadline=None)
@given(
    st.one_of(
        ATOMS,
        st.tuples(
            NAMES,
            st.tuples(st.sampled_from(["iri", "bnode", "f"]), st.one_of(STRINGS, CONSTANTS)),
            st.one_of(st.just(()), st.tuples(_terms())),
        ).map(lambda x: (x[0], x[1], *x[2])),
    )
)
def test_format_atom_equals_the_recursive_definition(atom):
    assert format_atom(atom) == _format_reference(atom)
    if len(atom) > 1:  # a function term (k >= 1)
        assert format_term(atom) == _format_reference(atom)


def test_generational_caches_keep_what_recurs_and_drop_the_rest():
    """A text used again after :meth:`_Cache.age` comes back from the old generation without being
    made again; one not used since is dropped at the next age."""
    from ticker_py.streams.texts import _Cache

    made = []
    cache = _Cache(lambda k: made.append(k) or f"<{k}>")
    assert [cache["a"], cache["b"]] == ["<a>", "<b>"]
    cache.age()
    assert cache["a"] == "<a>" and made == ["a", "b"]  # from the old generation
    cache.age()  # "b" was not used in the last generation: gone
    assert cache["b"] == "<b>" and cache["a"] == "<a>" and made == ["a", "b", "b"]
    assert set(cache) | set(cache.old) == {"a", "b"}


@pytest.mark.parametrize("fmt", ["jsonl", "changes"])
def test_changes_only_results_keep_memory_flat(fmt):
    """A writer fed changes only (the engine's cheap mode, as R4's runs are) on a stream of ever new
    atoms: each line is what json.dumps prints, and what the writer keeps (the answer's texts, those
    of atoms that left lately, the caches of both generations) stays bounded by the answer instead
    of growing with the run."""
    from ticker_py.stages.output import open_writer

    out = io.StringIO()
    writer = open_writer(fmt, out)
    state = frozenset()
    for t in range(200):
        now = frozenset(("obs", ("iri", f'"http://x/o{i}"'), i) for i in range(100 * t, 100 * t + 500))
        writer.write(Result(t, 1, None, (now - state, state - now)))
        line = json.loads(out.getvalue().splitlines()[-1])
        if fmt == "jsonl":
            assert line["models"] == [sorted(format_atom(a) for a in now)]
            assert writer._shown.keys() == now and len(writer._left) <= 4096 + 100
        else:
            assert (line["added"], line["removed"]) == (
                sorted(map(format_atom, now - state)),
                sorted(map(format_atom, state - now)),
            )
        state = now
        for cache in (writer.texts.text, writer.texts.json):
            assert len(cache) + len(cache.old) <= 2 * (4096 + 2 * len(now)) + 500


# ---------------------------------------------------------------- no explain history


def test_a_reasoner_without_history_answers_the_same_and_refuses_to_explain():
    from ticker_py.api import Reasoner
    from ticker_py.errors import UsageError

    program = "q(X) :- p(X) in [2].\nr :- q(a) always [2].\n"
    stream = [(0, ["p(a)", "p(b)"]), (1, ["p(a)"]), (3, ["p(-5)", 'p("s\\"x")'])]
    from types import SimpleNamespace

    writer = SimpleNamespace(changes_only=False)  # a consumer that writes whole answer streams: no history
    runs = [Reasoner(program, engine="native", output=o) for o in (None, writer)]
    results = [[(r.t, r.models) for r in run.feed(stream)] for run in runs]
    assert results[0] == results[1] and results[0][-1][1]
    assert runs[0].explain(3, "q(-5)").atom == ("q", -5)
    with pytest.raises(UsageError, match="no history"):
        runs[1].explain(3, "q(-5)")


CONSTANT_CELLS = st.sampled_from(
    [
        "p(a,b)",
        "p(a1,b1)",
        "q(x,y)",
        "p(a,b), q(c,d)",
        "p(a,b),q(c,d)",
        " p(a,b)",
        "p(a, b)",
        "p(1,b)",
        "p(-2,3)",
        "p(not,b)",
        "p(in,at)",
        "p(a)",
        "r",
        "P(a,b)",
        "p(a,b) ",
        "p(a,(b))",
        "p(a,b);",
    ]
)


@settings(max_examples=scaled(300, 60), deadline=None)
@given(st.lists(CONSTANT_CELLS, min_size=1, max_size=30))
def test_table_cells_split_at_once_equal_row_reading(cells):
    """Cells without an empty one are joined and split at once (the fast path of columnar reading):
    the same atoms, or the same first error, as converting them one by one."""
    df = pd.DataFrame({"t": [i // 4 for i in range(len(cells))], "atom": cells})
    assert _drain(read_dataframe(df, "frame")) == _rows_reference(df, "frame")
