"""Sharded evaluation: the stream cut by key, by time or both (a grid of *cells*), every cell
evaluated by its own reasoner (one after another in-process here, or in Spark tasks by
:mod:`ticker_py.spark.shard`), the cells' answers merged per time point.

The pipeline (see docs/spark.md, "Sharded evaluation"):

1. **Plan** (:func:`make_grid`). *Key* sharding (:func:`~ticker_py.analysis.sharding.shard_plan`):
   a stream atom of a keyed predicate goes to key shard ``shard_of(atom, key, K)``, any other atom
   to every key shard. *Time* sharding (:func:`~ticker_py.analysis.sharding.time_plan`): the time
   points 0..last are cut into ranges [T0, T1) of about equal work (atoms + time points, so a burst
   does not land in one range); the cell of a range reads the stream from its *start*: T0 - lookback,
   or the time of global atom c(T0) - tuple lookback when that is earlier (c(T0): the atoms before
   T0). Both compose: K key shards x R time ranges. Without time sharding one evaluation span covers
   all ranges, which then only cut the output.
2. **Evaluate** (:func:`evaluate_cell`). A cell appends its atoms from its start on and evaluates
   every time point of its ranges (empty ones included: a box or time window must see time pass).
   It reports, per time point, the number of distinct stream atoms it *owns* (keyed atoms of the
   key shard; other atoms count in key shard 0 only), and its answer restricted to what it owns:
   a derived atom of a keyed predicate is kept only by the key shard its key value hashes to.
3. **Merge** (:func:`merge_shards`, per time range, with the range's base count c(T0)). With one
   answer stream per shard (``models=1``) the cells send changes (added/removed atoms, from
   nothing at each range's first time point) and the merged answer stream at t is the union of the
   key shards' current ones; otherwise they send whole models and the merged answer streams are
   the distinct unions of one answer stream per key shard (the product), the first ``models``
   of them when ``models > 0``. If some key shard has no answer stream at t, neither has the whole
   stream. The count c of tick (t, c) is c(T0) plus the owned counts since T0: the global count.

For a shardable program the merged answers equal the single-process run's for ``models=0``; with
``models=1`` they are equal when the program has one answer stream per time point, and otherwise
one of the correct answer streams.

This module is the pure part (no Spark); :mod:`ticker_py.spark.shard` runs the same functions in
Spark tasks.
"""

from __future__ import annotations

import bisect
import itertools
import pickle
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .analysis import GENERAL, Analysis
from .analysis.sharding import ShardPlan, TimePlan, shard_of, shard_plan, time_plan
from .api import Reasoner, load_program, records_from
from .errors import Diagnostic, StreamError, TickerError, UsageError
from .streams.drive import MAX_GAP, check_max_gap, gap_limited
from .streams.factorized import Factorized, factorized_result
from .streams.model import Model, Record, Result, time_points
from .streams.readers import StreamChecker
from .syntax.ground_atoms import AtomReader, GroundSyntaxError, parse_ground_atom

__all__ = [
    "ShardOptions",
    "Grid",
    "SHARD_BY",
    "plan_for",
    "make_grid",
    "cut_ranges",
    "MAX_SHARDS",
    "check_shards",
    "check_run",
    "shard_targets",
    "read_stream",
    "cell_rows",
    "needs_owner_filter",
    "evaluate_cell",
    "merge_shards",
    "merge_range",
    "run_sharded_local",
    "read_results",
    "analysis_of",
    "STATE",
    "MODEL",
    "NONE",
    "ERROR",
    "FACTORS",
]

# kinds of the rows a cell reports, one row per (cell, t) (models != 1: per model):
# (range, t, model, kind, n, added, removed, pins_added, pins_removed, message)
STATE = 0  # models=1: atoms added/removed since the previous time point (pickled atoms / (atom, T) pins)
MODEL = 1  # models != 1: answer stream number `model`, whole, in `added` / `pins_added`
NONE = 2  # no answer stream at t
ERROR = 3  # the cell's stream was refused at t: `message`
FACTORS = 4  # factorize: the answer streams at t as one pickled Factorized in `added`
# n: the number of stream atoms the cell owns at t (on the first row of (cell, t))

#: ``--shard-by``: how the stream is cut (auto: by key if the program allows it, else by time)
SHARD_BY = ("auto", "key", "time", "both")

#: without time sharding the output is still cut into as many ranges as shards, or ranges of about
#: this many atoms if that makes more (the driver holds one range of answers at a time)
OUTPUT_RANGE_ATOMS = 1_000_000


@dataclass(frozen=True)
class ShardOptions:
    """How to shard a run: ``shards`` (None with Spark: its default parallelism), cut ``shard_by``
    (one of :data:`SHARD_BY`), in Spark tasks (``spark``, on ``master``) or one after another in
    this process; ``out``: with Spark, a directory the executors write the answers to (Parquet)."""

    shards: int | None = None
    spark: bool = False
    master: str = "local[2]"
    shard_by: str = "auto"
    out: str | None = None


# ------------------------------------------------------------------ planning


def analysis_of(program, clock="1s") -> Analysis:
    """``program`` analysed (text, a path or an AST), or as is if it is an Analysis."""
    if isinstance(program, Analysis):
        return program
    return load_program(program, clock=clock)


def _refuse(reason: str) -> UsageError:
    return UsageError(
        Diagnostic(f"this program cannot be evaluated in shards: {reason}", notes=("run it without --shards/--spark",))
    )


def plan_for(analysis: Analysis, shard_by: str = "auto", inertia: bool = False) -> tuple:
    """``(key plan or None, time plan or None)`` for ``shard_by`` (see :data:`SHARD_BY`), or
    :class:`UsageError` with the reason the program cannot be sharded that way."""
    if shard_by not in SHARD_BY:
        raise UsageError(Diagnostic(f"unknown shard_by {shard_by!r}", notes=(f"use one of {', '.join(SHARD_BY)}",)))
    keys: ShardPlan = shard_plan(analysis)
    times: TimePlan = time_plan(analysis, inertia)
    if inertia and shard_by != "time":  # the key shards would each keep their own earlier answers
        keys = ShardPlan(None, "--inertia keeps answers from earlier time points")
    if shard_by == "auto":
        if keys.shardable:
            return keys, None
        if times.shardable:
            return None, times
        raise _refuse(f"{keys.reason}; and not by time: {times.reason}")
    if shard_by in ("key", "both") and not keys.shardable:
        raise _refuse(keys.reason)
    if shard_by in ("time", "both") and not times.shardable:
        raise _refuse(f"not by time: {times.reason}")
    return (keys if shard_by != "time" else None), (times if shard_by != "key" else None)


@dataclass(frozen=True)
class Grid:
    """The cells of a sharded run.

    ``key`` (None: not cut by key) and ``key_shards``; ``ranges``: the time ranges (T0, T1)
    covering 0..last, in order, each with ``bases[r]`` = c(T0), the number of atoms before T0;
    ``spans``: the evaluation spans (start, first range, last range) (one per range when cut
    by time, else one over all ranges). Cell ``k * len(spans) + s`` is key shard k, span s.
    """

    key: dict | None
    key_shards: int
    ranges: tuple
    bases: tuple
    spans: tuple

    @property
    def cells(self) -> int:
        return self.key_shards * len(self.spans)

    def cell(self, k: int, s: int) -> int:
        return k * len(self.spans) + s

    def describe(self) -> str:
        how = []
        if self.key is not None:
            how.append(f"{self.key_shards} key shards")
        if len(self.spans) > 1 or self.key is None:
            how.append(f"{len(self.spans)} time ranges")
        return " x ".join(how)


def cut_ranges(counts: dict, last: int, parts: int) -> list:
    """Cut 0..last into at most ``parts`` ranges (T0, T1) of about equal work: atoms (``counts``:
    t -> atoms at t) plus one per time point, so that a burst of atoms is spread over ranges."""
    if last < 0:
        return []
    parts = max(1, min(parts, last + 1))
    left = last + 1 + sum(counts.values())  # work not yet in a closed range
    ranges, start, acc = [], 0, 0

    def close(end):
        nonlocal start, acc, left, parts
        ranges.append((start, end))
        start, left, parts, acc = end, left - acc, parts - 1, 0

    for t in range(last + 1):
        w = 1 + counts.get(t, 0)
        target = left / parts
        if parts > 1 and acc and acc + w - target > target - acc:  # t alone fits the next range better
            close(t)
            target = left / parts
        acc += w
        if parts > 1 and acc >= target and t < last:
            close(t + 1)
    ranges.append((start, last + 1))
    return ranges


def make_grid(
    analysis: Analysis, shards: int, counts: dict, last: int, shard_by: str = "auto", inertia: bool = False
) -> Grid:
    """The grid for ``shards`` cells over a stream with ``counts`` (t -> distinct atoms at t) on 0..last.

    ``both``: K key shards x R time ranges with K * R = shards, K the largest divisor with K <= R.
    """
    keys, times = plan_for(analysis, shard_by, inertia)
    total = sum(counts.values())
    if keys is not None and times is not None:
        k = max(d for d in range(1, shards + 1) if shards % d == 0 and d * d <= shards)
        key_shards, parts = k, shards // k
    elif keys is not None:
        # the output is still cut: one range per shard at least (the merge runs in parallel too)
        key_shards, parts = shards, max(shards, -(-total // OUTPUT_RANGE_ATOMS))
    else:
        key_shards, parts = 1, shards
    ranges = cut_ranges(counts, last, parts)
    ends, acc = [], 0  # ends[t] = c at the end of t
    for t in range(last + 1):
        acc += counts.get(t, 0)
        ends.append(acc)
    bases = tuple(ends[t0 - 1] if t0 else 0 for t0, _ in ranges)
    if times is None:
        spans = ((0, 0, len(ranges) - 1),) if ranges else ()
    else:
        spans = tuple((_start(t0, base, times, ends), r, r) for r, ((t0, _), base) in enumerate(zip(ranges, bases)))
    return Grid(keys.key if keys is not None else None, key_shards, tuple(ranges), bases, spans)


def _start(t0: int, base: int, times: TimePlan, ends: list) -> int:
    """Where a range starting at t0 must read from: t0 - lookback, or the time of global atom
    base - tuple lookback + 1 if earlier (then the cell's own count at t0 is at least the tuple
    lookback, so its tuple windows hold the same atoms as the single run's)."""
    start = max(0, t0 - times.lookback)
    first = base - times.tuple_lookback + 1  # the oldest atom a tuple window at t0 can hold
    if times.tuple_lookback and first >= 1:
        start = min(start, bisect.bisect_left(ends, first))
    elif times.tuple_lookback:
        start = 0
    return start


#: the most shards: each builds its own reasoner, which takes milliseconds
MAX_SHARDS = 10_000


def check_shards(shards: int, what: str = "shards") -> None:
    """Refuse a ``shards`` that is not an integer in 1..MAX_SHARDS; ``what`` names it (the API's
    parameter, or ``--shards``)."""
    if type(shards) is not int or shards < 1:
        raise UsageError(Diagnostic(f"{what} must be an integer >= 1, not {shards!r}"))
    if shards > MAX_SHARDS:
        raise UsageError(
            Diagnostic(
                f"{what} must be at most {MAX_SHARDS}, not {shards}", notes=("each shard builds its own reasoner",)
            )
        )


def check_run(models: int, until: int | None) -> None:
    """Refuse a ``models`` that is not an integer >= 0 and an ``until`` that is not None or one."""
    if type(models) is not int or models < 0:
        raise UsageError(Diagnostic(f"models must be an integer >= 0, not {models!r}"))
    if until is not None and (type(until) is not int or until < 0):
        raise UsageError(Diagnostic(f"until must be an integer >= 0, not {until!r}"))


# ------------------------------------------------------------------ reading and splitting


def shard_targets(atom: tuple, key: dict | None, shards: int):
    """The key shards an atom goes to: its key's shard, or every shard (broadcast)."""
    s = shard_of(atom, key, shards) if key is not None else None
    return range(shards) if s is None else (s,)


def read_stream(records: Iterable[Record], analysis: Analysis, until: int | None = None, max_gap: int | None = MAX_GAP):
    """Read and check a stream on the driver: ``(points, last, error)``.

    ``points``: ``(t, atoms)`` of the non-empty time points (duplicates within a time point
    dropped); ``last``: the last time point to evaluate. The records are checked as by the single
    run; on a refused record ``error`` is the StreamError and ``last`` the time point of the last
    accepted record: as in :meth:`~ticker_py.api.Reasoner.feed`, everything accepted is evaluated,
    then the error raised.
    """
    checker = StreamChecker(dict(analysis.signatures), set(analysis.intensional))
    points, last, error = [], -1, None
    try:
        for point in time_points(checker.records(gap_limited(records, max_gap, until), until=until), until):
            last = point.t
            if point.atoms:
                points.append((point.t, point.atoms))
    except TickerError as err:
        error = err
    return points, last, error


def cell_rows(points: list, grid: Grid) -> dict:
    """Each cell's ``(t, atom)`` rows in stream order, from ``points`` (``(t, atoms)`` in time order)."""
    out = {c: [] for c in range(grid.cells)}
    times = [t for t, _ in points]
    for s, (start, _, r1) in enumerate(grid.spans):
        end = grid.ranges[r1][1]
        for t, atoms in points[bisect.bisect_left(times, start) : bisect.bisect_left(times, end)]:
            for atom in atoms:
                for k in shard_targets(atom, grid.key, grid.key_shards):
                    out[grid.cell(k, s)].append((t, atom))
    return out


# ------------------------------------------------------------------ one cell


def needs_owner_filter(analysis: Analysis, key: dict | None) -> bool:
    """Can a key shard derive a keyed atom whose key value belongs to another shard?

    Not if every rule with a keyed head has a positive keyed body atom: by induction, a keyed
    atom then rests on stream atoms of its own key value, which only its owner has.
    """
    if not key:
        return False
    for rule in analysis.program.proper_rules:
        if rule.head is None or rule.head.atom.predicate not in key:
            continue
        if not any(
            not lit.negated and not lit.is_comparison and lit.element.atom.predicate in key for lit in rule.body
        ):
            return True
    return False


def evaluate_cell(
    analysis: Analysis,
    grid: Grid,
    cell: int,
    rows: Iterable,
    engine: str = "auto",
    models: int = 1,
    show: str = "derived",
    inertia: bool = False,
    answers: bool = True,
    factorize: bool = False,
) -> Iterator[tuple]:
    """Evaluate one cell; yields its report rows
    ``(range, t, model, kind, n, added, removed, pins_added, pins_removed, message)`` (see the kinds)
    for the time points of its ranges.

    ``rows``: ``(t, atom)`` of this cell in stream order (t not decreasing), the atom a tuple or a
    string (parsed here; None or empty: ignored). Atoms before the first range are appended
    without evaluating. Atoms are reported pickled; only owned ones (see the module doc).
    ``answers=False`` (``--format none``) reports the counts and whether there is an answer
    stream, but no atoms. ``factorize``: one FACTORS row per time point (owned atoms only).
    """
    key, shards = grid.key, grid.key_shards
    k, s = divmod(cell, len(grid.spans))
    start, r0, r1 = grid.spans[s]
    # one answer stream for sure: the engine may send changes only (no whole answer per time point)
    changes = models == 1 and analysis.fragment != GENERAL and not analysis.has_constraints and not factorize
    reasoner = Reasoner(
        analysis,
        engine=engine,
        models=models,
        show=show,
        inertia=inertia,
        history=False,
        changes_only=changes,
        factorize=factorize,
    )
    owner_filter = needs_owner_filter(analysis, key)
    dumps = pickle.dumps
    reader = AtomReader()

    def owned(atoms):
        if not answers:
            return ()
        if not owner_filter:
            return atoms
        return [a for a in atoms if shard_of(a, key, shards) in (None, k)]

    def owned_pins(pins):
        if not answers:
            return ()
        if not owner_filter:
            return pins
        return [p for p in pins if shard_of(p[0], key, shards) in (None, k)]

    def owned_factors(f):
        if not owner_filter or not answers:
            return f if answers else Factorized.build(Model(frozenset()), []) if f.count else f
        part = lambda m: Model(frozenset(owned(m.atoms)), frozenset(owned_pins(m.pinned)))  # noqa: E731
        return Factorized.build(part(f.common), [[part(m) for m in alt] for alt in f.factors]) if f.count else f

    def parsed(t, group) -> list:
        """The distinct atoms of a time point: tuples (read and checked on the driver already) or
        texts, converted by the stream readers' AtomReader (each distinct term once) and checked."""
        given = [a for _, a in group if a is not None and not (isinstance(a, str) and not a.strip())]
        texts = [a for a in given if isinstance(a, str)]
        if texts:
            try:
                converted = iter(reader.each([x.strip() for x in texts]))
            except (GroundSyntaxError, TypeError):
                converted = iter([_parse(x, t) for x in texts])
            given = [next(converted) if isinstance(a, str) else a for a in given]
        atoms = list(dict.fromkeys(given))  # the same atom twice in a time point counts once
        return reasoner._accepted(t, atoms, f"<shard {cell}>")

    cur_atoms, cur_pins = set(), set()  # changes only: the cell's answer stream

    def state(res, fresh):
        """``(kind, added, removed, pins_added, pins_removed)`` since the previous time point (from
        nothing when ``fresh``)."""
        nonlocal prev_atoms, prev_pins
        if res.models is None:  # changes only: (added, removed), atoms and pins together
            added, removed = res.changes
            add = [x for x in added if type(x[0]) is str and x not in cur_atoms]
            add_pins = [x for x in added if type(x[0]) is not str and x not in cur_pins]
            new = set(added)
            rem = [x for x in removed if type(x[0]) is str and x not in new and x in cur_atoms]
            rem_pins = [x for x in removed if type(x[0]) is not str and x not in new and x in cur_pins]
            cur_atoms.difference_update(rem)
            cur_atoms.update(add)
            cur_pins.difference_update(rem_pins)
            cur_pins.update(add_pins)
            if fresh:
                return STATE, cur_atoms, (), cur_pins, ()
            return STATE, add, rem, add_pins, rem_pins
        if res.models:
            atoms, pins, kind = res.models[0].atoms, res.models[0].pinned, STATE
        else:
            atoms, pins, kind = frozenset(), frozenset(), NONE
        if fresh:
            prev_atoms, prev_pins = frozenset(), frozenset()
        out = kind, atoms - prev_atoms, prev_atoms - atoms, pins - prev_pins, prev_pins - pins
        prev_atoms, prev_pins = atoms, pins
        return out

    prev_atoms, prev_pins = frozenset(), frozenset()
    groups = itertools.groupby(rows, key=lambda r: r[0])
    pending = next(groups, None)
    t = start
    try:
        while pending is not None and pending[0] < start:  # before the span: not this cell's
            pending = next(groups, None)
        for r in range(r0, r1 + 1):
            t0, t1 = grid.ranges[r]
            while t < t1:
                n = 0
                if pending is not None and pending[0] == t:
                    atoms = parsed(t, pending[1])
                    pending = next(groups, None)
                    # checked above, as Reasoner.feed checks a record, then appended as feed does
                    reasoner._append(t, atoms)
                    n = len(atoms) if k == 0 else sum(1 for a in atoms if key is None or a[0] in key)
                if t < t0:
                    t += 1
                    continue
                res = reasoner.evaluate(t)
                if factorize:
                    yield r, t, 0, FACTORS, n, [dumps(owned_factors(res.factors))], [], [], [], None
                elif models == 1:
                    kind, added, removed, pins_added, pins_removed = state(res, t == t0)
                    yield (
                        r,
                        t,
                        0,
                        kind,
                        n,
                        [dumps(a) for a in owned(added)],
                        [dumps(a) for a in owned(removed)],
                        [dumps(p) for p in owned_pins(pins_added)],
                        [dumps(p) for p in owned_pins(pins_removed)],
                        None,
                    )
                elif not res.models:
                    yield r, t, 0, NONE, n, [], [], [], [], None
                else:
                    for i, m in enumerate(res.models):
                        yield (
                            r,
                            t,
                            i,
                            MODEL,
                            n if i == 0 else 0,
                            [dumps(a) for a in owned(m.atoms)],
                            [],
                            [dumps(p) for p in owned_pins(m.pinned)],
                            [],
                            None,
                        )
                t += 1
    except TickerError as err:
        r = next((i for i in range(r0, r1 + 1) if grid.ranges[i][1] > t), r1)
        yield r, t, 0, ERROR, 0, [], [], [], [], err.diagnostics[0].message


def _parse(text: str, t: int) -> tuple:
    try:
        return parse_ground_atom(text)
    except GroundSyntaxError as err:
        raise StreamError(Diagnostic(f"bad atom '{text}' at time {t}: {err.message}")) from None


# ------------------------------------------------------------------ merging


_NO_ANSWER = Factorized(0, Model(frozenset()))


class _Merger:
    """Turns the key shards' rows of one time point after the other into Results."""

    def __init__(self, shards: int, models: int, base: int = 0):
        self.shards, self.models = shards, models
        self.c = base
        self.mult: dict = {}  # models=1: atom or (atom, T) pin -> number of shards holding it
        self.live: set = set()  # models=1: atoms at t held by some shard
        self.pins: set = set()  # models=1: pins held by some shard

    def _add(self, items, live):
        mult = self.mult
        for b in items:
            x = pickle.loads(b)
            n = mult.get(x, 0)
            mult[x] = n + 1
            if n == 0:
                live.add(x)

    def _remove(self, items, live):
        mult = self.mult
        for b in items:
            x = pickle.loads(b)
            n = mult[x] - 1
            if n:
                mult[x] = n
            else:
                del mult[x]
                live.discard(x)

    def result(self, t: int, rows) -> Result:
        """``rows``: ``(shard, model, kind, n, added, removed, pins_added, pins_removed, message)``."""
        none = False
        per_shard = [[] for _ in range(self.shards)]
        factorized = []
        for shard, _model, kind, n, added, removed, pins_added, pins_removed, message in rows:
            self.c += n or 0
            if kind == ERROR:
                raise StreamError(Diagnostic(f"{message} (in shard {shard})"))
            if kind == FACTORS:
                factorized.append(pickle.loads(added[0]))
                continue
            if kind == NONE:
                none = True
            if kind == STATE or (kind == NONE and self.models == 1):
                self._add(added or (), self.live)
                self._remove(removed or (), self.live)
                self._add(pins_added or (), self.pins)
                self._remove(pins_removed or (), self.pins)
            elif kind == MODEL:
                per_shard[shard].append(
                    (frozenset(map(pickle.loads, added or ())), frozenset(map(pickle.loads, pins_added or ())))
                )
        if none:
            return Result(t, self.c, ())
        if factorized:  # the key shards' answer streams are independent: their factors side by side
            if any(f.count == 0 for f in factorized):
                return factorized_result(t, self.c, factorized[0] if len(factorized) == 1 else _NO_ANSWER)
            if len(factorized) == 1:
                return factorized_result(t, self.c, factorized[0], self.models)
            common = Model(
                frozenset().union(*(f.common.atoms for f in factorized)),
                frozenset().union(*(f.common.pinned for f in factorized)),
            )
            combined = Factorized.build(common, [alt for f in factorized for alt in f.factors])
            return factorized_result(t, self.c, combined, self.models)
        if self.models == 1:
            return Result(t, self.c, (Model(frozenset(self.live), frozenset(self.pins)),))
        merged, seen = [], set()
        for combo in itertools.product(*per_shard):
            atoms = frozenset().union(*(m[0] for m in combo))
            pins = frozenset().union(*(m[1] for m in combo))
            if (atoms, pins) not in seen:
                seen.add((atoms, pins))
                merged.append(Model(atoms, pins))
                if self.models and len(merged) == self.models:
                    break
        return Result(t, self.c, tuple(merged))


def merge_shards(
    rows: Iterable[tuple], shards: int, last: int, models: int = 1, first: int = 0, base: int = 0
) -> Iterator[Result]:
    """Merge report rows ``(shard, t, model, kind, ...)`` of one time range sorted by t into
    Results for ``first``..``last``; ``base``: the count c before ``first``.

    Raises the StreamError of an ERROR row after yielding every time point before it.
    """
    merger = _Merger(shards, models, base)
    groups = itertools.groupby(rows, key=lambda r: r[1])
    pending = next(groups, None)
    for t in range(first, last + 1):
        group = ()
        if pending is not None and pending[0] == t:
            group = [(r[0], *r[2:]) for r in pending[1]]
            pending = next(groups, None)
        yield merger.result(t, group)
    if pending is not None:  # rows past `last`: only an error can be there
        merger.result(pending[0], [(r[0], *r[2:]) for r in pending[1]])


def merge_range(grid: Grid, r: int, rows: Iterable[tuple], models: int) -> Iterator[Result]:
    """The Results of time range r from its cells' rows ``(key shard, t, model, kind, ...)`` sorted by t."""
    t0, t1 = grid.ranges[r]
    return merge_shards(rows, grid.key_shards, t1 - 1, models, t0, grid.bases[r])


# ------------------------------------------------------------------ in-process run


def run_sharded_local(
    program,
    stream,
    shards: int,
    engine: str = "auto",
    models: int = 1,
    show: str = "derived",
    until: int | None = None,
    clock="1s",
    inertia: bool = False,
    max_gap: int | None = MAX_GAP,
    shard_by: str = "auto",
    answers: bool = True,
    factorize: bool = False,
) -> Iterator[Result]:
    """The sharded run without Spark: read, cut into cells, evaluate them one after another, merge.

    The same functions as the Spark run's executors; useful to check a plan and in tests.
    ``shard_by``: one of :data:`SHARD_BY`; ``answers=False``: Results with empty answer streams
    (counts and "no answer stream" only, for ``--format none``); ``factorize``: Results carrying
    their factorization (``Result.factors``), the key shards' factors side by side.
    """
    analysis = analysis_of(program, clock)
    check_shards(shards)
    plan_for(analysis, shard_by, inertia)
    check_run(models, until)
    max_gap = check_max_gap(max_gap)
    return _local(
        analysis,
        records_from(stream),
        shards,
        engine,
        models,
        show,
        until,
        inertia,
        max_gap,
        shard_by,
        answers,
        factorize,
    )


def _local(analysis, records, shards, engine, models, show, until, inertia, max_gap, shard_by, answers, factorize):
    points, last, error = read_stream(records, analysis, until, max_gap)
    grid = make_grid(analysis, shards, {t: len(a) for t, a in points}, last, shard_by, inertia)
    rows = cell_rows(points, grid)
    by_range: dict = {}
    for cell in range(grid.cells):
        k = cell // len(grid.spans)
        for row in evaluate_cell(analysis, grid, cell, rows[cell], engine, models, show, inertia, answers, factorize):
            by_range.setdefault(row[0], []).append((k, *row[1:]))
    for r in range(len(grid.ranges)):
        got = sorted(by_range.pop(r, ()), key=lambda row: row[1])
        yield from merge_range(grid, r, got, models)
    if error is not None:
        raise error


# ------------------------------------------------------------------ results on disk


def read_results(path) -> object:
    """The answers a ``--spark --out DIR`` run wrote, as a pandas DataFrame sorted by (t, model).

    Columns: ``t``, ``c`` (the tick's count), ``model`` (the answer stream's number from 0;
    missing where there is no answer stream at t), ``atoms`` and ``pins`` (lists of atom texts,
    pins as ``"p(1) at 3"``), ``range`` (the time range that computed it); with ``--factorize``
    ``factor`` and ``alternative`` (see :func:`ticker_py.spark.shard.write_sharded`). Refuses a directory
    without the completion marker ``_SUCCESS`` (an unfinished or failed run).
    """
    from pathlib import Path

    import pyarrow.dataset as ds

    path = Path(path)
    if not (path / "_SUCCESS").exists():
        raise UsageError(
            Diagnostic(f"'{path}' holds no finished sharded run", notes=("a finished run writes _SUCCESS there",))
        )
    table = ds.dataset(str(path), format="parquet", partitioning="hive").to_table()
    frame = table.to_pandas()
    cols = ["t", "c", "model", "atoms", "pins", "range", "factor", "alternative"]
    order = ["t", "model", "factor", "alternative"]
    return frame[cols].sort_values(order, na_position="first").reset_index(drop=True)
